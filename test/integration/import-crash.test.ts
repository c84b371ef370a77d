/**
 * Crash safety and progress of the import job, through HTTP against the local runtime. The jobs
 * worker runs with small chunks (one continuation message per chunk) over a store that can be
 * told to fail one chosen write, as a worker that dies there would; the queue then redelivers the
 * message and the job must end with exactly the counts, errors and contacts of an uninterrupted
 * run: no row lost, none counted twice, in the job's counts and in the contact counters.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { jobs, normalizers } from '../../functions/queues/jobs';
import { importJobs } from '../../shared/imports/jobs';
import { IMPORT_JOB } from '../../shared/imports/messages';
import { jobsWorker } from '../../shared/jobs/registry';
import type { Deps } from '../../shared/ports';
import { expectCountersExact } from './helpers/contact-stats';
import { type StoreCall, StoreFaults } from './helpers/faults';
import { importCsv, upload } from './helpers/imports';
import { type Json, useLocalRuntime } from './helpers/local';

/** One injected failure at a time: the `nth` request that a test's match accepts throws, once. */
const faults = new StoreFaults('simulated worker crash');
/** While set, each jobs invocation waits for `release()`. */
let gate: { waiting: (() => void)[] } | undefined;

const smallChunks = [
  ...jobs.filter((j) => j.type !== IMPORT_JOB),
  ...importJobs({ chunkRows: 20, budgetMs: 0, concurrency: 8 }),
];

const rt = useLocalRuntime({
  handlers: {
    queues: {
      jobs: (deps: Deps) => {
        const worker = jobsWorker(faults.inject(deps), smallChunks, normalizers);
        return async (event: SQSEvent) => {
          if (gate) await new Promise<void>((resolve) => gate!.waiting.push(resolve));
          return worker(event);
        };
      },
    },
  },
});

const isContactPut = (call: StoreCall) => call.op === 'put' && call.key?.sk === '#CONTACT';
const isClaimPut = (call: StoreCall) => call.op === 'put' && call.key?.sk === '#EMAIL';
const isCheckpoint = (call: StoreCall) =>
  call.op === 'update' && call.key?.sk === '#JOB' && String(call.expression).includes('nextOffset = :offset');
const isErrorsPut = (call: StoreCall) => call.op === 'put' && String(call.key?.sk).startsWith('ERR#');

/**
 * 200 data rows for `tag`: 120 new emails, 40 that exist already, 20 repeats of new emails (in the
 * same chunk and in later ones) and 20 invalid emails, mixed so that every chunk of 20 has some
 * of each. Expected: imported 120, updated 60, skipped 20.
 */
function scenario(tag: string) {
  const lines: string[] = [];
  for (let i = 0; i < 200; i++) {
    const k = i % 10;
    if (k < 6) lines.push(`new${Math.floor(i / 10) * 6 + k}@${tag}.test,${i},v${i}`);
    else if (k < 8) lines.push(`old${Math.floor(i / 10) * 2 + (k - 6)}@${tag}.test,${i},v${i}`);
    else if (k === 8) lines.push(`NEW${Math.max(0, Math.floor(i / 10) * 6 - 7)}@${tag}.test,${i},again`);
    else lines.push(`broken-${i}@,${i},x`);
  }
  return `email,n,tag\n${lines.join('\n')}\n`;
}

async function seedExisting(tag: string) {
  for (let i = 0; i < 40; i++) {
    const res = await rt.api('POST', '/contacts', {
      body: { email: `old${i}@${tag}.test`, data: { keep: i } },
    });
    expect(res.status).toBe(201);
  }
}

/** Every contact of the scenario, as comparable data (ids and times left out, domain normalized). */
async function snapshot(tag: string): Promise<Json[]> {
  const out: Json[] = [];
  let cursor: string | undefined;
  do {
    const page = await rt.api('GET', '/contacts', { query: { search: `@${tag}.test`, limit: 100, cursor } });
    out.push(...page.body.data);
    cursor = page.body.hasMore ? page.body.cursor : undefined;
  } while (cursor);
  return out
    .map((c) => ({ email: c.email.replace(`@${tag}.test`, ''), subscribed: c.subscribed, data: c.data }))
    .sort((a, b) => a.email.localeCompare(b.email));
}

async function run(tag: string): Promise<Json> {
  await seedExisting(tag);
  const job = await importCsv(rt, scenario(tag), 60_000);
  return job;
}

const withoutIds = (job: Json) => ({
  ...job,
  jobId: undefined,
  createdAt: undefined,
  completedAt: undefined,
  errors: job.errors.map((e: Json) => ({ ...e, email: e.email.replace(/@.*$/, '') })),
});

describe('import crash safety', () => {
  let reference: Json;
  let referenceContacts: Json[];

  it('an uninterrupted run gives the expected counts', async () => {
    faults.clear();
    reference = await run('calm');
    expect(reference).toMatchObject({
      status: 'completed',
      totalRows: 200,
      processedRows: 200,
      imported: 120,
      updated: 60,
      skipped: 20,
    });
    expect(reference.errors).toHaveLength(20);
    referenceContacts = await snapshot('calm');
    expect(referenceContacts).toHaveLength(160);
    await expectCountersExact(rt, 'after an uninterrupted import');
  });

  const crashes: [string, (call: StoreCall) => boolean, number][] = [
    ['in the middle of a chunk of contact writes', isContactPut, 37],
    ['after a chunk claimed its new emails, before any contact of it was written', isClaimPut, 45],
    ['after all writes of a chunk, before its checkpoint', isCheckpoint, 4],
    ['after storing a chunk of row errors', isErrorsPut, 3],
    ['at the very last checkpoint', isCheckpoint, 10],
    [
      'at the contact counters of a chunk, after its contact writes',
      (call) => call.op === 'update' && call.key?.sk === '#STATS',
      3,
    ],
  ];
  for (const [when, match, nth] of crashes) {
    it(`a worker that dies ${when} resumes on redelivery with identical results`, async () => {
      const tag = `crash${crashes.findIndex((c) => c[0] === when)}`;
      faults.failAt(match, nth);
      const job = await run(tag);
      expect(faults.fired).toBe(true);
      expect(withoutIds(job)).toEqual(withoutIds(reference));
      expect(await snapshot(tag)).toEqual(referenceContacts);
      await expectCountersExact(rt, `after a crash ${when}`);
      expect(rt.queue.deadLetters()).toEqual([]);
    });
  }
});

describe('import progress', () => {
  it('reports queued, then processing with processedRows, then completed', async () => {
    faults.clear();
    gate = { waiting: [] };
    const res = await upload(rt, scenario('progress'));
    expect(res.status).toBe(202);
    const get = async () => (await rt.api('GET', `/contacts/import/${res.body.jobId}`)).body;
    expect(await get()).toMatchObject({
      status: 'queued',
      totalRows: 0,
      processedRows: 0,
      completedAt: null,
    });
    const release = async () => {
      while (gate!.waiting.length === 0) await new Promise((r) => setTimeout(r, 5));
      gate!.waiting.shift()!();
    };
    await release();
    let job = await get();
    for (let i = 0; i < 400 && job.processedRows < 20; i++) {
      await new Promise((r) => setTimeout(r, 5));
      job = await get();
    }
    expect(job).toMatchObject({ status: 'processing', totalRows: 200, processedRows: 20, completedAt: null });
    const waiting = gate.waiting;
    gate = undefined;
    for (const w of waiting) w();
    await rt.drain({ timeoutMs: 60_000 });
    expect(await get()).toMatchObject({
      status: 'completed',
      processedRows: 200,
      completedAt: expect.any(String),
    });
  });
});
