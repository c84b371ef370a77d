/**
 * The jobs worker on AWS isolates each record: a record's failure, a job that never settles, and
 * an invocation about to time out are reported per record in `batchItemFailures`, so the records
 * that did run are not retried with the rest, and the response reaches Lambda before its timeout.
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { defineJob, jobsWorker } from '../../../shared/jobs/registry';
import type { Deps } from '../../../shared/ports';

const record = (messageId: string, body: unknown): SQSRecord =>
  ({
    messageId,
    body: JSON.stringify(body),
    attributes: { ApproximateReceiveCount: '1' },
  }) as unknown as SQSRecord;

const batch = (...records: SQSRecord[]) => ({ Records: records }) as SQSEvent;
const failed = (out: { batchItemFailures: { itemIdentifier: string }[] }) =>
  out.batchItemFailures.map((f) => f.itemIdentifier);

/** A context whose remaining time is given by `remaining()` (Lambda's is a countdown). */
const contextWith = (remaining: () => number) => ({ getRemainingTimeInMillis: remaining });

let ran: string[];
let errors: string[];
const step = defineJob({
  type: 'step',
  schema: z.object({
    type: z.literal('step'),
    id: z.string(),
    mode: z._default(z.enum(['ok', 'throw', 'sync-throw', 'hang', 'slow-then-reject']), 'ok'),
  }),
  run: (_deps, m) => {
    ran.push(m.id);
    if (m.mode === 'sync-throw') throw new Error(`sync ${m.id}`);
    if (m.mode === 'throw') return Promise.reject(new Error(`async ${m.id}`));
    if (m.mode === 'hang') return new Promise<void>(() => {});
    if (m.mode === 'slow-then-reject')
      return new Promise<void>((_, reject) => setTimeout(() => reject(new Error(`late ${m.id}`)), 80));
    return Promise.resolve();
  },
});

beforeEach(() => {
  ran = [];
  errors = [];
  vi.spyOn(console, 'error').mockImplementation((line: string) => {
    errors.push(String(line));
  });
  vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('jobs worker: one record never fails the others', () => {
  it('reports a record whose job throws synchronously or rejects, and runs the rest', async () => {
    const worker = jobsWorker({} as Deps, [step]);
    const out = await worker(
      batch(
        record('a', { type: 'step', id: 'a', mode: 'sync-throw' }),
        record('b', { type: 'step', id: 'b' }),
        record('c', { type: 'step', id: 'c', mode: 'throw' }),
        record('d', { type: 'step', id: 'd' }),
      ),
      contextWith(() => 300_000),
    );
    expect(failed(out)).toEqual(['a', 'c']);
    expect(ran).toEqual(['a', 'b', 'c', 'd']);
  });

  it('starts no record once the invocation is about to time out, and reports those not started', async () => {
    // The first record uses up the time: after it, less than the reserve is left.
    let left = 300_000;
    const slow = defineJob({
      type: 'slow',
      schema: z.object({ type: z.literal('slow'), id: z.string() }),
      run: async (_deps, m) => {
        ran.push(m.id);
        left = 10_000;
      },
    });
    const worker = jobsWorker({} as Deps, [slow, step], [], { startReserveMs: 30_000 });
    const out = await worker(
      batch(
        record('a', { type: 'slow', id: 'a' }),
        record('b', { type: 'step', id: 'b' }),
        record('c', { type: 'step', id: 'c' }),
      ),
      contextWith(() => left),
    );
    expect(ran).toEqual(['a']);
    expect(failed(out)).toEqual(['b', 'c']);
  });

  it('bounds the reserve by the invocation: a short function still runs its whole batch', async () => {
    const worker = jobsWorker({} as Deps, [step], [], { startReserveMs: 30_000 });
    const out = await worker(
      batch(record('a', { type: 'step', id: 'a' }), record('b', { type: 'step', id: 'b' })),
      contextWith(() => 5_000),
    );
    expect(ran).toEqual(['a', 'b']);
    expect(failed(out)).toEqual([]);
  });

  it('gives up a record still running near the timeout: it and the rest are reported, earlier ones are not', async () => {
    const started = Date.now();
    const budget = 120;
    const worker = jobsWorker({} as Deps, [step], [], { startReserveMs: 0, returnMarginMs: 20 });
    const out = await worker(
      batch(
        record('a', { type: 'step', id: 'a' }),
        record('b', { type: 'step', id: 'b', mode: 'hang' }),
        record('c', { type: 'step', id: 'c' }),
      ),
      contextWith(() => Math.max(0, budget - (Date.now() - started))),
    );
    expect(Date.now() - started).toBeLessThan(budget);
    expect(ran).toEqual(['a', 'b']);
    expect(failed(out)).toEqual(['b', 'c']);
  });

  it('logs, never raises, the later failure of a record it gave up on', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const started = Date.now();
      const worker = jobsWorker({} as Deps, [step], [], { startReserveMs: 0, returnMarginMs: 0 });
      const out = await worker(
        batch(record('a', { type: 'step', id: 'a', mode: 'slow-then-reject' })),
        contextWith(() => Math.max(0, 30 - (Date.now() - started))),
      );
      expect(failed(out)).toEqual(['a']);
      await new Promise((resolve) => setTimeout(resolve, 120));
      expect(unhandled).toEqual([]);
      expect(errors.some((line) => line.includes('late a'))).toBe(true);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('works without a context (no deadline)', async () => {
    const worker = jobsWorker({} as Deps, [step]);
    const out = await worker(
      batch(record('a', { type: 'step', id: 'a' }), record('b', { type: 'step', id: 'b' })),
    );
    expect(failed(out)).toEqual([]);
    expect(ran).toEqual(['a', 'b']);
  });
});
