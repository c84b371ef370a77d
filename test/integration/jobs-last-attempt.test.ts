/**
 * A job that keeps failing is retried by the queue until its receives are used up
 * (`maxReceiveCount` in the manifest); on that last attempt (`meta.lastAttempt`) the job records
 * its failure before the message goes to the dead letters, instead of staying `processing`
 * forever. Earlier attempts leave the job as it is, so the queue gets to retry it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jobs, normalizers } from '../../functions/queues/jobs';
import { JOBS_MAX_RECEIVES, jobsWorker } from '../../shared/jobs/registry';
import type { Deps } from '../../shared/ports';
import { type StoreCall, watchedDeps } from './helpers/faults';
import { upload } from './helpers/imports';
import { type Json, useLocalRuntime } from './helpers/local';

/** While set, every worker write or read it matches fails. */
let failing: ((call: StoreCall) => boolean) | undefined;
const attempts: number[] = [];

const rt = useLocalRuntime({
  handlers: {
    queues: {
      jobs: (deps: Deps) => {
        const watched = watchedDeps(deps, {
          before: (call) => {
            if (failing?.(call)) throw new Error('the table is unreachable');
          },
        });
        const worker = jobsWorker(watched, jobs, normalizers);
        return (event: Parameters<typeof worker>[0], context: never) => {
          for (const r of event.Records) attempts.push(Number(r.attributes.ApproximateReceiveCount));
          return worker(event, context);
        };
      },
    },
  },
});

async function deadLetterOf(type: string) {
  return rt.queue.deadLetters('jobs').filter((d) => (JSON.parse(d.body) as { type: string }).type === type);
}

describe('the last attempt of a failing job', () => {
  beforeEach(() => {
    vi.spyOn(console, 'error').mockImplementation(() => {}); // each failed attempt is logged
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('fails a bulk job once its message has used up its receives, and not before', async () => {
    const created = await rt.api('POST', '/contacts', { body: { email: 'last-bulk@example.org' } });
    expect(created.status).toBe(201);
    attempts.length = 0;
    failing = (call) => call.op === 'batchGet';
    try {
      const res = await rt.api('POST', '/contacts/bulk-unsubscribe', {
        body: { contactIds: [created.body.id] },
      });
      expect(res.status).toBe(202);
      await rt.drain({ timeoutMs: 20_000 });
      const job: Json = (await rt.api('GET', `/contacts/bulk/${res.body.jobId}`)).body;
      expect(job).toMatchObject({ status: 'failed', error: { code: 'INTERNAL_ERROR' } });
      expect(attempts).toEqual(Array.from({ length: JOBS_MAX_RECEIVES }, (_, i) => i + 1));
      const [dead] = await deadLetterOf('bulk.run');
      expect(dead).toMatchObject({
        receiveCount: JOBS_MAX_RECEIVES,
        lastError: 'Reported in batchItemFailures',
      });
    } finally {
      failing = undefined;
    }
  });

  it('fails an import once its message has used up its receives, and not before', async () => {
    attempts.length = 0;
    failing = (call) => call.op === 'put' && call.key?.sk === '#EMAIL';
    try {
      const res = await upload(rt, 'email\nlast-import@example.org\n');
      expect(res.status).toBe(202);
      await rt.drain({ timeoutMs: 20_000 });
      const job: Json = (await rt.api('GET', `/contacts/import/${res.body.jobId}`)).body;
      expect(job).toMatchObject({ status: 'failed', error: { code: 'INTERNAL_ERROR' }, imported: 0 });
      expect(attempts).toEqual(Array.from({ length: JOBS_MAX_RECEIVES }, (_, i) => i + 1));
      // The message is the upload's notification (it names the stored object, not a job type).
      const dead = rt.queue.deadLetters('jobs').at(-1);
      expect(dead).toMatchObject({ receiveCount: JOBS_MAX_RECEIVES });
      expect(dead?.body).toContain(res.body.jobId);
    } finally {
      failing = undefined;
    }
  });
});
