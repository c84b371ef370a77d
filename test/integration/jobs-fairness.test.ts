/**
 * Fairness of the one jobs queue, through HTTP against the local runtime with the manifest's queue
 * settings: while large imports run, a small job queued behind them (a bulk unsubscribe of three
 * contacts) starts before either import commits more than one further chunk, and finishes while
 * they are still running. A control run with the previous settings (batches of five, two
 * invocations at once) shows what the test catches: there the small job waits for a whole import
 * message.
 *
 * Each import message is given a long budget here (it goes on for its whole file), so an import is
 * one long message, the worst case for a short job behind it. The order of what happens is taken
 * from one log: chunk checkpoints committed by the worker, and records handed to it.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { jobs, normalizers } from '../../functions/queues/jobs';
import { BULK_JOB } from '../../shared/bulk/messages';
import { importJobs } from '../../shared/imports/jobs';
import { IMPORT_JOB } from '../../shared/imports/messages';
import { jobsWorker } from '../../shared/jobs/registry';
import { manifest } from '../../shared/manifest';
import type { Deps } from '../../shared/ports';
import { watchedDeps } from './helpers/faults';
import { upload } from './helpers/imports';
import { type Json, type LocalTestRuntime, useLocalRuntime } from './helpers/local';
import { pollUntil } from './helpers/wait';

type Entry =
  | { readonly kind: 'checkpoint'; readonly jobId: string }
  | { readonly kind: 'received'; readonly type: string }
  | { readonly kind: 'requested' };

const CHUNK_ROWS = 50;
const ROWS = 500; // 10 chunks per import

/** A runtime whose jobs worker logs every import checkpoint and every record it is handed. */
function fairnessRuntime(queues = manifest.queues) {
  const log: Entry[] = [];
  const rt = useLocalRuntime({
    manifest: { ...manifest, queues },
    handlers: {
      queues: {
        jobs: (deps: Deps) => {
          // Logged once the checkpoint is written.
          const watched = watchedDeps(deps, {
            after: ({ op, key, expression }) => {
              if (
                op === 'update' &&
                key?.sk === '#JOB' &&
                key.pk.includes('#IMPORT#') &&
                String(expression).includes('nextOffset = :offset')
              ) {
                log.push({ kind: 'checkpoint', jobId: key.pk.split('#IMPORT#')[1]! });
              }
            },
          });
          const defs = [
            ...jobs.filter((j) => j.type !== IMPORT_JOB),
            ...importJobs({ chunkRows: CHUNK_ROWS, budgetMs: 600_000 }),
          ];
          const worker = jobsWorker(watched, defs, normalizers);
          return (event: SQSEvent, context: never) => {
            for (const r of event.Records) {
              const type = (JSON.parse(r.body) as { type?: string }).type ?? 'upload';
              log.push({ kind: 'received', type });
            }
            return worker(event, context);
          };
        },
      },
    },
  });
  return { rt, log };
}

/** How the test polls: often, since the order of what happens is the point. */
const POLL = { intervalMs: 10, timeoutMs: 30_000 };

function csv(tag: string): string {
  const lines = ['email,plan'];
  for (let i = 0; i < ROWS; i++) lines.push(`${tag}-${i}@fair.example.org,p${i % 7}`);
  return `${lines.join('\n')}\n`;
}

const checkpointsOf = (entries: readonly Entry[], jobId: string) =>
  entries.filter((e) => e.kind === 'checkpoint' && e.jobId === jobId).length;

/**
 * Starts two large imports, waits until both are committing chunks, then asks for a bulk
 * unsubscribe of three contacts. Answers the log and the job ids.
 */
async function importsThenSmallJob(rt: LocalTestRuntime, log: Entry[], tag: string) {
  const contacts: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await rt.api('POST', '/contacts', { body: { email: `${tag}-small-${i}@fair.example.org` } });
    expect(res.status).toBe(201);
    contacts.push(res.body.id);
  }
  const imports: string[] = [];
  for (const name of ['a', 'b']) {
    const res = await upload(rt, csv(`${tag}-${name}`));
    expect(res.status).toBe(202);
    imports.push(res.body.jobId);
  }
  await pollUntil(
    'both imports to commit a chunk',
    async () => (imports.every((id) => checkpointsOf(log, id) > 0) ? true : undefined),
    POLL,
  );

  log.push({ kind: 'requested' });
  const bulk = await rt.api('POST', '/contacts/bulk-unsubscribe', { body: { contactIds: contacts } });
  expect(bulk.status).toBe(202);
  return { imports, bulkJobId: bulk.body.jobId as string };
}

/** Checkpoints of each import between the small job's request and the worker receiving it. */
function chunksWaited(log: readonly Entry[], imports: readonly string[]): number[] {
  const requested = log.findIndex((e) => e.kind === 'requested');
  const received = log.findIndex((e, i) => i > requested && e.kind === 'received' && e.type === BULK_JOB);
  expect(requested).toBeGreaterThanOrEqual(0);
  expect(received).toBeGreaterThan(requested);
  return imports.map((id) => checkpointsOf(log.slice(requested, received), id));
}

describe('jobs queue fairness (manifest settings)', () => {
  const { rt, log } = fairnessRuntime();

  it('runs a small job beside running imports: it waits for at most one of their chunks', async () => {
    const { imports, bulkJobId } = await importsThenSmallJob(rt, log, 'now');

    const bulk: Json = await pollUntil(
      'the bulk job to complete',
      async () => {
        const res = await rt.api('GET', `/contacts/bulk/${bulkJobId}`);
        return res.body.status === 'completed' ? res.body : undefined;
      },
      POLL,
    );
    // The imports are still going: the small job did not wait for them.
    for (const id of imports) {
      expect((await rt.api('GET', `/contacts/import/${id}`)).body.status).toBe('processing');
    }
    expect(bulk).toMatchObject({ status: 'completed', total: 3, succeeded: 3 });
    for (const waited of chunksWaited(log, imports)) expect(waited).toBeLessThanOrEqual(1);

    await rt.drain({ timeoutMs: 60_000 });
    for (const id of imports) {
      const job = (await rt.api('GET', `/contacts/import/${id}`)).body;
      expect(job).toMatchObject({ status: 'completed', imported: ROWS });
    }
  });
});

describe('control: the previous settings (batches of five, two invocations at once)', () => {
  const { rt, log } = fairnessRuntime(
    manifest.queues.map((q) => (q.name === 'jobs' ? { ...q, batchSize: 5, maxConcurrency: 2 } : q)),
  );

  it('make the small job wait for a whole import message', async () => {
    const { imports, bulkJobId } = await importsThenSmallJob(rt, log, 'before');
    await rt.drain({ timeoutMs: 60_000 });
    expect((await rt.api('GET', `/contacts/bulk/${bulkJobId}`)).body.status).toBe('completed');
    // It started only once an import had finished its file.
    expect(Math.max(...chunksWaited(log, imports))).toBeGreaterThan(ROWS / CHUNK_ROWS / 2);
  });
});
