/**
 * A CSV import whose runtime is SIGKILLed in the middle of the job and started again on the same
 * data folder: the job resumes from its journalled queue message and ends with exactly the
 * counts and contacts of an uninterrupted run (every row once, no email twice), and with contact
 * counters (the list's total, the fields' coverage and values) exact once the recount the job
 * queues at its end has run.
 */
import { describe, expect, it } from 'vitest';
import type { Json } from '../integration/helpers/api';
import { upload } from '../integration/helpers/imports';
import { pollUntil } from '../integration/helpers/wait';
import { type CrashRuntime, jobsQueueIdle, queueState, useCrashHarness } from './harness';

const crash = useCrashHarness();

/** Rows; at ~450 new rows a second the job runs for several seconds, in chunks of 1,000 rows. */
const N = 3000;
/** The import's default chunk (one checkpoint each). */
const CHUNK = 1000;
const DOMAIN = 'import.crash.test';
const email = (i: number) => `row${String(i).padStart(5, '0')}@${DOMAIN}`;
/** What every email of chunk `k` (rows k * CHUNK to k * CHUNK + 999), and no other, contains. */
const chunkPrefix = (k: number) => `row${String(k).padStart(2, '0')}`;
const rowData = (i: number) => ({ name: `Name ${i}`, n: i, plan: i % 3 === 0 ? 'pro' : 'free' });

function csv(): string {
  const lines = ['email,name,n,plan'];
  for (let i = 0; i < N; i++) {
    const d = rowData(i);
    lines.push(`${email(i)},${d.name},${d.n},${d.plan}`);
  }
  return `${lines.join('\n')}\n`;
}

const FINAL = new Set(['completed', 'failed']);

async function getJob(rt: CrashRuntime, jobId: string): Promise<Json> {
  const res = await rt.api('GET', `/contacts/import/${jobId}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Every contact of the domain, through the list endpoint (the index a duplicate would show in). */
async function listAll(rt: CrashRuntime, sort: 'email' | 'createdAt'): Promise<Json[]> {
  const out: Json[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const res = await rt.api('GET', '/contacts', { query: { limit: 100, sort, cursor } });
    expect(res.status, res.text).toBe(200);
    out.push(...res.body.data);
    if (!res.body.hasMore) return out;
    cursor = res.body.cursor;
  }
  throw new Error('more than 100 pages of contacts');
}

describe('import killed mid-job', () => {
  it('resumes after a restart and imports every row exactly once', async () => {
    const dir = crash.dataDir();
    const first = await crash.start(dir);
    const up = await upload(first, csv());
    expect(up.status, up.text).toBe(202);
    const jobId: string = up.body.jobId;

    // Kill inside a chunk: after a first chunk is checkpointed, wait until the next chunk has
    // written some of its contacts but not most of them (its claims are written before its
    // contacts), with the job unchanged around that count; then SIGKILL at once. The chunk's
    // contacts written are counted by a search for its rows' prefix (which counts over the
    // contacts index, among the newest 1,000 contacts: the chunk being written is among them);
    // the counters behind the list's plain total move a whole chunk at a time.
    let last: Json;
    const seen = await pollUntil(
      'the import to be in the middle of a chunk of contact writes',
      async () => {
        const job = await getJob(first, jobId);
        last = job;
        if (FINAL.has(job.status))
          throw new Error(`the import ended before the kill: ${JSON.stringify(job)}`);
        if (job.processedRows === 0) return undefined;
        const inChunk: number = (
          await first.api('GET', '/contacts', {
            query: { limit: 1, search: chunkPrefix(job.processedRows / CHUNK) },
          })
        ).body.total;
        const again = await getJob(first, jobId);
        const contacts = job.processedRows + inChunk;
        last = { ...again, contacts };
        return again.processedRows === job.processedRows && inChunk > 0 && inChunk < CHUNK - 200
          ? { job: again, contacts }
          : undefined;
      },
      { intervalMs: 10, timeoutMs: 30_000, last: () => last },
    );
    await first.kill();
    expect(seen.job.status).toBe('processing');
    expect(seen.job.totalRows).toBe(N);
    expect(seen.job.processedRows).toBeGreaterThan(0);
    expect(seen.job.processedRows).toBeLessThan(N);
    console.log(
      `import: killed at processedRows ${seen.job.processedRows}/${N}, ${seen.contacts} contacts written`,
    );

    const second = await crash.start(dir);
    expect((await queueState(second)).deadLetters).toEqual([]);
    const resumed = await getJob(second, jobId);
    expect(resumed.status).not.toBe('completed');
    expect(resumed.processedRows).toBeLessThan(N);

    const job = await pollUntil(
      'the import to finish',
      async () => {
        last = await getJob(second, jobId);
        return FINAL.has(last.status) ? last : undefined;
      },
      { intervalMs: 100, timeoutMs: 60_000, last: () => last },
    );
    expect(job).toMatchObject({
      status: 'completed',
      totalRows: N,
      processedRows: N,
      imported: N,
      updated: 0,
      skipped: 0,
      errors: [],
    });

    // No email twice in either list order (each reads an index a stale entry would show in),
    // and the first page's total agrees. Soft: the checks after these still run.
    for (const sort of ['email', 'createdAt'] as const) {
      const all = await listAll(second, sort);
      const byEmail = new Map<string, Json[]>();
      for (const c of all) byEmail.set(c.email, [...(byEmail.get(c.email) ?? []), c]);
      const twice = [...byEmail]
        .filter(([, list]) => list.length > 1)
        .map(
          ([address, list]) => `${address} (${list.map((c) => `${c.id} created ${c.createdAt}`).join(', ')})`,
        );
      expect.soft(twice, `GET /contacts?sort=${sort} lists these more than once`).toEqual([]);
      expect.soft([...byEmail.keys()].sort()).toEqual(Array.from({ length: N }, (_, i) => email(i)));
    }
    // The counters, once the queue has run the job's recount: the list's total, and each field's
    // coverage and values.
    await jobsQueueIdle(second);
    const page = await second.api('GET', '/contacts', { query: { limit: 1 } });
    expect(page.status).toBe(200);
    expect.soft(page.body.total, 'GET /contacts total').toBe(N);
    expect
      .soft((await second.api('GET', '/contacts', { query: { limit: 1, subscribed: 'true' } })).body.total)
      .toBe(N);
    const fields = (await second.api('GET', '/contacts/fields')).body.fields as Json[];
    expect
      .soft(Object.fromEntries(fields.filter((f) => f.isCustom).map((f) => [f.field, f.coverage])))
      .toEqual({ 'data.name': 1, 'data.n': 1, 'data.plan': 1 });
    const plans = await second.api('GET', '/contacts/fields/data.plan/values');
    expect.soft(plans.body).toMatchObject({ values: ['free', 'pro'], count: 2 });

    // Every row's email resolves to a contact (500 emails per lookup) ...
    const ids = new Map<string, string>();
    for (let from = 0; from < N; from += 500) {
      const emails = Array.from({ length: Math.min(500, N - from) }, (_, k) => email(from + k));
      const res = await second.api('POST', '/contacts/lookup', { body: { emails } });
      expect(res.status, res.text).toBe(200);
      expect(res.body.notFound).toEqual([]);
      expect(res.body.found).toHaveLength(emails.length);
      for (const c of res.body.found) ids.set(c.email, c.id);
    }
    // ... with its row's data, on both sides of the chunk boundaries and of the kill.
    const around = [seen.contacts - 1, seen.contacts, seen.contacts + 1].filter((i) => i >= 0 && i < N);
    for (const i of [0, 1, 999, 1000, 1001, 1999, 2000, 2001, 2500, N - 1, ...around]) {
      const res = await second.api('GET', `/contacts/${ids.get(email(i))}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ email: email(i), subscribed: true, data: rowData(i) });
    }

    await jobsQueueIdle(second);
    const queues = await queueState(second);
    expect(queues.jobs.deadLetters).toBe(0);
    expect(queues.deadLetters).toEqual([]);
  });
});
