/**
 * Imports that go wrong outside the CSV, through HTTP against the local runtime:
 *
 * - a multipart body cut short (no closing boundary) fails its job with a reason, and the
 *   worker process lives on (busboy reported it as an 'error' event on the part's stream, which
 *   nothing listened to: an uncaught exception that ended the process at every redelivery);
 * - an accepted upload whose body never reaches the bucket fails its job with
 *   UPLOAD_NOT_RECEIVED at its deadline (a one-off schedule the authorizer arranges), moved to
 *   with the local clock; an import that did run is left as it is, and a body stored after the
 *   job failed does not revive it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseUploadKey } from '../../shared/imports/messages';
import {
  authorizeImportUpload,
  UPLOAD_DEADLINE_SECONDS,
  uploadDeadlineName,
} from '../../shared/imports/upload';
import type { QueueMessage } from '../../shared/ports';
import { multipart, upload } from './helpers/imports';
import { type Json, useLocalRuntime } from './helpers/local';
import { pollUntil, sleep } from './helpers/wait';

/** While set, the local direct upload's S3 write fails; the job ids of refused stores are kept. */
let failStore = false;
const refusedJobs: string[] = [];

const rt = useLocalRuntime({
  hooks: {
    beforeUploadStore: (key) => {
      if (!failStore) return;
      refusedJobs.push(parseUploadKey(key)!.jobId);
      throw new Error('simulated S3 failure: the body was not stored');
    },
  },
});

let uncaught: unknown[] = [];
const onUncaught = (error: unknown) => uncaught.push(error);
beforeEach(() => {
  uncaught = [];
  failStore = false;
  process.prependListener('uncaughtException', onUncaught);
});
afterEach(() => {
  process.off('uncaughtException', onUncaught);
});

const job = async (jobId: string): Promise<Json> => {
  const res = await rt.api('GET', `/contacts/import/${jobId}`);
  expect(res.status).toBe(200);
  return res.body;
};

/** Polls the job until `status` (the queue may still be working on it). */
async function jobWhen(jobId: string, status: string): Promise<Json> {
  let last: Json;
  return pollUntil(
    `job ${jobId} to be ${status}`,
    async () => {
      last = await job(jobId);
      return last.status === status ? last : undefined;
    },
    { intervalMs: 25, timeoutMs: 10_000, last: () => last },
  );
}

const advance = async (seconds: number) => {
  const res = await rt.api('POST', '/_local/clock', { key: null, body: { advance: seconds } });
  expect(res.status).toBe(200);
  return res.body.now as string;
};

describe('POST /contacts/import with a multipart body cut short', () => {
  it('answers 202, fails the job with INVALID_UPLOAD, and the process lives on', async () => {
    const res = await rt.api('POST', '/contacts/import', {
      raw: '--B\r\nContent-Disposition: form-data; name="file"\r\n\r\nemail\nx@y.test',
      headers: { 'content-type': 'multipart/form-data; boundary=B' },
    });
    expect(res.status).toBe(202);
    await rt.drain();
    // Give busboy's deferred events their turn: nothing may surface outside the job.
    await sleep(50);
    expect(uncaught).toEqual([]);
    const failed = await jobWhen(res.body.jobId, 'failed');
    expect(failed).toMatchObject({
      status: 'failed',
      totalRows: 0,
      imported: 0,
      completedAt: expect.any(String),
      error: { code: 'INVALID_UPLOAD', message: expect.stringMatching(/cut short.*closing boundary/) },
    });
    expect(rt.queue.deadLetters()).toEqual([]);

    // The worker still works.
    const next = await upload(rt, 'email\nafter-cut@y.test\n');
    expect(next.status).toBe(202);
    await rt.drain();
    expect(await jobWhen(next.body.jobId, 'completed')).toMatchObject({ status: 'completed', imported: 1 });
  });
});

describe('an accepted upload whose body is never stored', () => {
  it('fails with UPLOAD_NOT_RECEIVED once its deadline passes, not before', async () => {
    failStore = true;
    const res = await upload(rt, 'email\nnever@arrives.test\n');
    failStore = false;
    expect(res.status).toBe(500);
    expect(refusedJobs).toHaveLength(1);
    const jobId = refusedJobs[0]!;
    expect(await job(jobId)).toMatchObject({ status: 'queued' });

    const schedules = await rt.api('GET', '/_local/schedules', { key: null });
    const deadline = schedules.body.oneOff.find(
      (s: { name: string }) => s.name === uploadDeadlineName(jobId),
    );
    expect(deadline).toMatchObject({
      queue: 'jobs',
      message: { type: 'import.deadline', projectId: rt.projectId, jobId },
    });

    // Not yet: a minute before the deadline the job is still waiting for its file.
    await advance(UPLOAD_DEADLINE_SECONDS - 60);
    await rt.drain();
    expect(await job(jobId)).toMatchObject({ status: 'queued' });

    await advance(120);
    await rt.drain();
    const failed = await jobWhen(jobId, 'failed');
    expect(failed).toMatchObject({
      status: 'failed',
      completedAt: expect.any(String),
      error: { code: 'UPLOAD_NOT_RECEIVED', message: expect.stringMatching(/never arrived/) },
    });
    expect(Date.parse(failed.completedAt)).toBeGreaterThanOrEqual(Date.parse(deadline.at));
    expect(rt.queue.deadLetters()).toEqual([]);
  });

  it('does not revive a failed job when its body is stored afterwards', async () => {
    failStore = true;
    await upload(rt, 'email\nlate@arrives.test\n');
    failStore = false;
    const jobId = refusedJobs.at(-1)!;
    await advance(UPLOAD_DEADLINE_SECONDS + 60);
    await rt.drain();
    expect(await jobWhen(jobId, 'failed')).toMatchObject({ error: { code: 'UPLOAD_NOT_RECEIVED' } });

    // The body arrives now, with its "object created" notification, as a very late S3 write would.
    const key = `imports/${rt.projectId}/${jobId}`;
    const { body, contentType } = await multipart('email\nlate@arrives.test\n');
    await rt.deps.blobs.put(key, body, contentType);
    const event = {
      Records: [{ eventSource: 'aws:s3', eventName: 'ObjectCreated:Put', s3: { object: { key } } }],
    };
    await rt.queue.send('jobs', event as unknown as QueueMessage, { typeAttribute: false });
    await rt.drain();
    expect(await job(jobId)).toMatchObject({ status: 'failed', error: { code: 'UPLOAD_NOT_RECEIVED' } });
    expect(await rt.deps.blobs.get(key)).toBeUndefined();
    const found = await rt.api('POST', '/contacts/lookup', { body: { emails: ['late@arrives.test'] } });
    expect(found.body.found).toEqual([]);
  });

  it('leaves an import that ran alone when its deadline check fires', async () => {
    const res = await upload(rt, 'email\nin-time@arrives.test\n');
    expect(res.status).toBe(202);
    await rt.drain();
    const done = await jobWhen(res.body.jobId, 'completed');
    expect(done).toMatchObject({ status: 'completed', imported: 1 });

    await advance(UPLOAD_DEADLINE_SECONDS + 60);
    await rt.drain();
    const schedules = await rt.api('GET', '/_local/schedules', { key: null });
    expect(schedules.body.oneOff.map((s: { name: string }) => s.name)).not.toContain(
      uploadDeadlineName(res.body.jobId),
    );
    expect(await job(res.body.jobId)).toEqual(done);
    expect(rt.queue.deadLetters()).toEqual([]);
  });

  it('leaves a queued job whose body is stored (its import has not started yet) alone', async () => {
    // The body is stored but the notification has not been handled when the deadline passes
    // (a long queue backlog): the job stays queued for its import to run.
    const { body, contentType } = await multipart('email\nbacklog@arrives.test\n');
    const allowed = await authorizeImportUpload(rt.deps, {
      methodArn: 'arn:aws:execute-api:us-east-1:000000000000:local/v1/POST/contacts/import',
      headers: { Authorization: `Bearer ${rt.secretKey}`, 'Content-Type': contentType },
    });
    const jobId = allowed.context.jobId!;
    const key = `imports/${rt.projectId}/${jobId}`;
    await rt.deps.blobs.put(key, body, contentType);
    await advance(UPLOAD_DEADLINE_SECONDS + 60);
    await rt.drain();
    expect(await job(jobId)).toMatchObject({ status: 'queued' });

    const event = {
      Records: [{ eventSource: 'aws:s3', eventName: 'ObjectCreated:Put', s3: { object: { key } } }],
    };
    await rt.queue.send('jobs', event as unknown as QueueMessage, { typeAttribute: false });
    await rt.drain();
    expect(await jobWhen(jobId, 'completed')).toMatchObject({ status: 'completed', imported: 1 });
  });
});
