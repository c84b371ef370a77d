/**
 * A bulk-unsubscribe job whose runtime is SIGKILLed in the middle of the job and started again on
 * the same data folder: the job resumes and ends with every id counted once and every contact
 * unsubscribed, and the contact counters (the totals per subscription) exact once the recount the
 * job queues at its end has run.
 */
import { describe, expect, it } from 'vitest';
import type { Json } from '../integration/helpers/api';
import { upload } from '../integration/helpers/imports';
import { pollUntil } from '../integration/helpers/wait';
import { type CrashRuntime, jobsQueueIdle, queueState, useCrashHarness } from './harness';

const crash = useCrashHarness();

/** The most ids one bulk request takes. */
const N = 1000;
/** The bulk job's default chunk (one checkpoint each). */
const CHUNK = 100;
const email = (i: number) => `bulk${String(i).padStart(4, '0')}@bulk.crash.test`;
const FINAL = new Set(['completed', 'failed']);

async function getJson(rt: CrashRuntime, path: string, query?: Record<string, string | number>) {
  const res = await rt.api('GET', path, { query });
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return res.body as Json;
}

/** Contacts of the N emails, by lookup (500 emails per call), in row order. */
async function lookupAll(rt: CrashRuntime): Promise<Json[]> {
  const out: Json[] = [];
  for (let from = 0; from < N; from += 500) {
    const emails = Array.from({ length: Math.min(500, N - from) }, (_, k) => email(from + k));
    const res = await rt.api('POST', '/contacts/lookup', { body: { emails } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.notFound).toEqual([]);
    const byEmail = new Map<string, Json>(res.body.found.map((c: Json) => [c.email, c]));
    for (const e of emails) out.push(byEmail.get(e));
  }
  return out;
}

describe('bulk job killed mid-job', () => {
  it('resumes after a restart; every id is counted once and every contact is unsubscribed', async () => {
    const dir = crash.dataDir();
    const first = await crash.start(dir);

    // 1,000 subscribed contacts, by import (the fastest way in).
    const csv = `email,n\n${Array.from({ length: N }, (_, i) => `${email(i)},${i}`).join('\n')}\n`;
    const up = await upload(first, csv);
    expect(up.status, up.text).toBe(202);
    let last: Json;
    const imported = await pollUntil(
      'the import to finish',
      async () => {
        last = await getJson(first, `/contacts/import/${up.body.jobId}`);
        return FINAL.has(last.status) ? last : undefined;
      },
      { intervalMs: 100, timeoutMs: 60_000, last: () => last },
    );
    expect(imported).toMatchObject({ status: 'completed', imported: N, skipped: 0 });
    const contacts = await lookupAll(first);
    expect(contacts.every((c) => c.subscribed === true)).toBe(true);
    const ids: string[] = contacts.map((c) => c.id);

    const started = await first.api('POST', '/contacts/bulk-unsubscribe', { body: { contactIds: ids } });
    expect(started.status, started.text).toBe(202);
    const jobId: string = started.body.jobId;

    // Kill inside a chunk: some contacts of a later chunk are already unsubscribed, the job's
    // checkpoint is unchanged around that count and well short of the end; then SIGKILL at once.
    // Unsubscribed contacts are counted by a search (which counts over the contacts index): the
    // counters behind the list's plain totals move a whole chunk at a time.
    const seen = await pollUntil(
      'the bulk job to be in the middle of a chunk',
      async () => {
        const job = await getJson(first, `/contacts/bulk/${jobId}`);
        last = job;
        if (FINAL.has(job.status))
          throw new Error(`the bulk job ended before the kill: ${JSON.stringify(job)}`);
        if (job.processed === 0) return undefined;
        const off: number = (
          await getJson(first, '/contacts', { limit: 1, subscribed: 'false', search: '@bulk.crash.test' })
        ).total;
        const again = await getJson(first, `/contacts/bulk/${jobId}`);
        last = { ...again, unsubscribed: off };
        const inChunk = off - again.processed;
        return again.processed === job.processed && inChunk > 0 && inChunk < CHUNK - 20
          ? { job: again, unsubscribed: off }
          : undefined;
      },
      { intervalMs: 20, timeoutMs: 30_000, last: () => last },
    );
    await first.kill();
    expect(seen.job.status).toBe('processing');
    expect(seen.job.processed).toBeGreaterThan(0);
    expect(seen.job.processed).toBeLessThan(N);
    console.log(`bulk: killed at processed ${seen.job.processed}/${N}, ${seen.unsubscribed} unsubscribed`);

    const second = await crash.start(dir);
    expect((await queueState(second)).deadLetters).toEqual([]);
    const job = await pollUntil(
      'the bulk job to finish',
      async () => {
        last = await getJson(second, `/contacts/bulk/${jobId}`);
        return FINAL.has(last.status) ? last : undefined;
      },
      { intervalMs: 100, timeoutMs: 60_000, last: () => last },
    );
    expect(job).toMatchObject({
      type: 'unsubscribe',
      status: 'completed',
      total: N,
      processed: N,
      succeeded: N,
      failed: 0,
      errors: [],
    });

    const after = await lookupAll(second);
    expect(after.map((c) => c.id)).toEqual(ids);
    expect(after.filter((c) => c.subscribed !== false).map((c) => c.email)).toEqual([]);
    // The counters, once the queue has run the job's recount.
    await jobsQueueIdle(second);
    expect((await getJson(second, '/contacts', { limit: 1 })).total).toBe(N);
    expect((await getJson(second, '/contacts', { limit: 1, subscribed: 'false' })).total).toBe(N);
    expect((await getJson(second, '/contacts', { limit: 1, subscribed: 'true' })).total).toBe(0);
    expect((await getJson(second, '/contacts/fields/subscribed/values')).values).toEqual([false]);

    const queues = await queueState(second);
    expect(queues.jobs.deadLetters).toBe(0);
    expect(queues.deadLetters).toEqual([]);
  });
});
