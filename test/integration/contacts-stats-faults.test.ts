/**
 * Faults between a contact write and its counter update, injected at the store (helpers/faults.ts):
 *
 * - A request that stops there (its process dies: nothing after the failed write runs, not even
 *   the queue) leaves the counters off by that one change, and the next recount sets them
 *   exactly. A counter update that merely fails queues that recount itself.
 * - A chunk of an import, a bulk job or a field strip that fails at its counter update, or after
 *   it (before its checkpoint), runs again on redelivery: the counters neither miss nor double
 *   count anything once the job (and the recount it queues at its end) has run.
 * - A recount that a delta overtakes writes nothing over it and runs again.
 *
 * The jobs worker runs with small chunks over a store that can fail one chosen request.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { jobs, normalizers } from '../../functions/queues/jobs';
import { bulkJobs } from '../../shared/bulk/jobs';
import { BULK_JOB } from '../../shared/bulk/messages';
import { parseDataPatch } from '../../shared/contacts/data';
import { contactJobs } from '../../shared/contacts/jobs';
import {
  PURGE_CONTACT_JOB,
  RECOUNT_JOB,
  RECOUNT_SCAN_JOB,
  requestRecount,
  STRIP_FIELD_JOB,
} from '../../shared/contacts/messages';
import { deleteContact, patchContact, upsertContact } from '../../shared/contacts/service';
import { readContactStats } from '../../shared/contacts/stats';
import { importJobs } from '../../shared/imports/jobs';
import { IMPORT_JOB } from '../../shared/imports/messages';
import { jobsWorker } from '../../shared/jobs/registry';
import type { Deps } from '../../shared/ports';
import { storeOver } from '../../shared/store/store';
import { runBulk as bulkJob } from './helpers/bulk';
import { expectCountersExact, truth } from './helpers/contact-stats';
import { createContact, postContact, uniqueEmail } from './helpers/contacts';
import { crashingAt, type StoreCall, StoreFaults, watchStore } from './helpers/faults';
import { importCsv } from './helpers/imports';
import { useLocalRuntime } from './helpers/local';

const faults = new StoreFaults('simulated worker crash');
/** Item writes of the jobs worker (`<op> <sort key>`), while a test records them. */
let recording: string[] | undefined;
/** Runs once before the worker's next query of a contacts page, when set. */
let beforeScan: (() => Promise<void>) | undefined;

const smallChunks = [
  ...jobs.filter(
    (j) =>
      ![IMPORT_JOB, BULK_JOB, PURGE_CONTACT_JOB, STRIP_FIELD_JOB, RECOUNT_JOB, RECOUNT_SCAN_JOB].includes(
        j.type,
      ),
  ),
  ...importJobs({ chunkRows: 5, budgetMs: 0, concurrency: 4 }),
  ...bulkJobs({ chunkSize: 3, budgetMs: 0 }),
  ...contactJobs({ strip: { chunkSize: 3, budgetMs: 0 }, recount: { chunkSize: 4, budgetMs: 0 } }),
];

const rt = useLocalRuntime({
  handlers: {
    queues: {
      jobs: (deps: Deps) => {
        const faulty = faults.wrap(deps.store);
        const watched = watchStore(faulty, {
          after: (call) => {
            if (recording && call.key && ['put', 'update', 'delete'].includes(call.op))
              recording.push(`${call.op} ${call.key.sk}`);
          },
        });
        const store = storeOver({
          get: (k, o) => watched.get(k, o),
          batchGet: (k, o) => watched.batchGet(k, o),
          write: (w) => watched.write(w),
          batchDelete: (k) => watched.batchDelete(k),
          queryAll: (q) => watched.queryAll(q),
          count: (q) => watched.count(q),
          async query(q, o) {
            const hook = beforeScan;
            if (hook && q.index === 'contactsByCreation') {
              beforeScan = undefined;
              await hook();
            }
            return watched.query(q, o);
          },
        });
        return jobsWorker({ ...deps, store }, smallChunks, normalizers) as (e: SQSEvent) => Promise<unknown>;
      },
    },
  },
});

const isStatsUpdate = (call: StoreCall) => call.op === 'update' && call.key?.sk === '#STATS';
const isValuesWrite = (call: StoreCall) =>
  (call.op === 'update' || call.op === 'put') && String(call.key?.sk).startsWith('VALUES#');
const isTombstone = (call: StoreCall) =>
  call.op === 'update' && call.key?.sk === '#CONTACT' && String(call.expression).includes('deletedAt');
/** A crash: the store fails there, and nothing after it runs (the queue is gone too). */
const crashAt = (match: (call: StoreCall) => boolean): Deps => ({
  ...crashingAt(rt.deps, match),
  queue: { send: () => Promise.reject(new Error('simulated crash: the process is gone')) },
});

async function recount() {
  await requestRecount(rt.deps, rt.projectId);
  await rt.drain({ timeoutMs: 30_000 });
}

const runBulk = (op: string, contactIds: string[]) => bulkJob(rt, op, contactIds);

describe('a request that dies between its contact write and its counter update', () => {
  it('create: the contact is there, uncounted, until a recount', async () => {
    await expectCountersExact(rt, 'before');
    const email = uniqueEmail('crash-create');
    await expect(
      upsertContact(
        crashAt(isStatsUpdate),
        rt.projectId,
        { email, patch: parseDataPatch({ plan: 'pro' }), source: 'api' },
        { defaultSubscribed: true },
      ),
    ).rejects.toThrow('simulated crash');
    const want = await truth(rt);
    const stats = await readContactStats(rt.deps, rt.projectId);
    expect(stats.total).toBe(want.total - 1);
    await recount();
    await expectCountersExact(rt, 'after the recount');
  });

  it('update of a value: its value counter misses it until a recount', async () => {
    const c = await postContact(
      rt,
      { email: uniqueEmail('crash-value'), data: { plan: 'free' } },
      { status: 201 },
    );
    await expect(
      patchContact(crashAt(isValuesWrite), rt.projectId, c.id, { patch: parseDataPatch({ plan: 'team' }) }),
    ).rejects.toThrow('simulated crash');
    expect((await rt.api('GET', `/contacts/${c.id}`)).body.data).toEqual({ plan: 'team' });
    await recount();
    await expectCountersExact(rt, 'after the recount');
  });

  it('delete: a tombstone written and uncounted; a retried delete counts nothing twice', async () => {
    const id = await createContact(rt, uniqueEmail('crash-delete'));
    await expect(deleteContact(crashAt(isStatsUpdate), rt.projectId, id)).rejects.toThrow('simulated crash');
    // The retry finds the tombstone: nothing more is taken away.
    expect((await rt.api('DELETE', `/contacts/${id}`)).status).toBe(200);
    await rt.drain();
    const stats = await readContactStats(rt.deps, rt.projectId);
    expect(stats.total).toBe((await truth(rt)).total + 1);
    await recount();
    await expectCountersExact(rt, 'after the recount');
  });

  it('a tombstone that fails is no change: the counters are as they were', async () => {
    const id = await createContact(rt, uniqueEmail('crash-tomb'));
    await expect(deleteContact(crashAt(isTombstone), rt.projectId, id)).rejects.toThrow('simulated crash');
    await expectCountersExact(rt, 'after a failed tombstone');
  });
});

describe('a counter update that fails in a request', () => {
  it('queues a recount; the request succeeds and the counters are exact once the queue ran', async () => {
    const email = uniqueEmail('fail-stats');
    const deps = crashingAt(rt.deps, isStatsUpdate, 'throttled');
    const result = await upsertContact(
      deps,
      rt.projectId,
      { email, patch: parseDataPatch({ plan: 'pro', seats: 2 }), source: 'api' },
      { defaultSubscribed: true },
    );
    expect(result.isNew).toBe(true);
    await rt.drain();
    await expectCountersExact(rt, 'after the queued recount');
  });
});

describe('chunked jobs that fail around their counter update', () => {
  const csv = (tag: string, existing: string[]) => {
    const lines = ['email,plan,n'];
    for (let i = 0; i < 14; i++) lines.push(`row${i}@${tag}.test,${i % 3 ? 'pro' : 'free'},${i}`);
    for (const [i, e] of existing.entries()) lines.push(`${e},team,${100 + i}`);
    lines.push(`ROW1@${tag}.test,again,1`);
    return `${lines.join('\n')}\n`;
  };
  const existing = async (tag: string) => {
    const out: string[] = [];
    for (let i = 0; i < 4; i++)
      out.push((await postContact(rt, { email: `old${i}@${tag}.test`, data: { plan: 'free' } })).email);
    return out;
  };

  it('sum a chunk into one update of each counter item', async () => {
    recording = [];
    const job = await importCsv(rt, csv('sum', await existing('sum')));
    const writes = recording;
    recording = undefined;
    expect(job).toMatchObject({ status: 'completed', imported: 14, updated: 5, skipped: 0 });
    // 19 rows in chunks of 5: four chunks, four stats updates, one value-counter write per field a
    // chunk; then the recount's writes.
    expect(writes.filter((w) => w === 'update #STATS')).toHaveLength(4);
    expect(writes.filter((w) => w.endsWith(' VALUES#plan')).length).toBeLessThanOrEqual(4 + 1);
    expect(writes.filter((w) => w.endsWith(' VALUES#n')).length).toBeLessThanOrEqual(4 + 1);
    expect(writes.filter((w) => w === 'put #STATS')).toHaveLength(1);
    await expectCountersExact(rt, 'after the import');
  });

  const importFaults: [string, (call: StoreCall) => boolean, number][] = [
    ['at the stats update of a chunk', isStatsUpdate, 2],
    ['at a value counter of a chunk', isValuesWrite, 3],
    [
      'at the checkpoint after a chunk was counted',
      (call) => call.op === 'update' && String(call.expression).includes('nextOffset = :offset'),
      2,
    ],
    [
      'in the middle of a chunk of contact writes',
      (call) => call.op === 'put' && call.key?.sk === '#CONTACT',
      7,
    ],
  ];
  for (const [when, match, nth] of importFaults) {
    it(`import: a worker that dies ${when} counts every row once`, async () => {
      const tag = `imp${importFaults.findIndex((f) => f[0] === when)}`;
      const old = await existing(tag);
      faults.failAt(match, nth);
      const job = await importCsv(rt, csv(tag, old));
      expect(faults.fired).toBe(true);
      expect(job).toMatchObject({ status: 'completed', imported: 14, updated: 5, skipped: 0 });
      await expectCountersExact(rt, `import, fault ${when}`);
      expect(rt.queue.deadLetters()).toEqual([]);
    });
  }

  const bulkFaults: [string, (call: StoreCall) => boolean][] = [
    ['at the stats update of a chunk', isStatsUpdate],
    [
      'at the checkpoint after a chunk was counted',
      (call) => call.op === 'update' && String(call.expression).includes('list_append'),
    ],
  ];
  for (const [when, match] of bulkFaults) {
    for (const op of ['unsubscribe', 'delete']) {
      it(`bulk-${op}: a worker that dies ${when} counts every contact once`, async () => {
        const ids: string[] = [];
        for (let i = 0; i < 7; i++)
          ids.push(
            (await postContact(rt, { email: uniqueEmail(`bulk-${op}`), data: { tier: `t${i % 2}` } })).id,
          );
        faults.failAt(match, 2);
        const job = await runBulk(op, ids);
        expect(faults.fired).toBe(true);
        expect(job).toMatchObject({ status: 'completed', processed: 7, succeeded: 7, failed: 0 });
        await expectCountersExact(rt, `bulk-${op}, fault ${when}`);
      });
    }
  }

  it('field strip: a worker that dies at the stats update of a chunk counts every contact once', async () => {
    for (let i = 0; i < 8; i++)
      await postContact(rt, { email: uniqueEmail('strip'), data: { gone: `g${i % 3}` } });
    faults.failAt(isStatsUpdate, 2);
    expect((await rt.api('DELETE', '/contacts/fields/data.gone')).status).toBe(200);
    await rt.drain({ timeoutMs: 30_000 });
    expect(faults.fired).toBe(true);
    const stats = await readContactStats(rt.deps, rt.projectId);
    expect(stats.coverage.get('gone') ?? 0).toBe(0);
    await expectCountersExact(rt, 'after the strip');
  });
});

describe('the recount', () => {
  it('writes nothing over a delta that came in while it counted, and counts again', async () => {
    const oldest = (await rt.api('GET', '/contacts', { query: { limit: 1, dir: 'asc' } })).body.data[0];
    // Once the scan has read its first page: change a contact it has read already.
    let changed = false;
    beforeScan = async () => {
      beforeScan = async () => {
        const res = await rt.api('PATCH', `/contacts/${oldest.id}`, {
          body: { subscribed: !oldest.subscribed, data: { late: 'change' } },
        });
        expect(res.status).toBe(200);
        changed = true;
      };
    };
    recording = [];
    await recount();
    const runs = recording.filter((w) => w.startsWith('put RECOUNT#')).map((w) => w.slice(4));
    recording = undefined;
    expect(changed).toBe(true);
    // Two runs (each writes its run item at least twice: created, checkpoints): the second one wins.
    expect(new Set(runs).size).toBe(2);
    await expectCountersExact(rt, 'after a recount that was overtaken');
  });
});
