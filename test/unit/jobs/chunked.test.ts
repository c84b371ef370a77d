/**
 * The chunked-job helper on a job kept in memory: it runs chunks within the message's budget,
 * hands the rest to a continuation message, stops when its checkpoint finds the job moved on (so a
 * redelivered message never counts twice), and records failures: fatal ones at once, others on
 * the message's last attempt only.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import {
  type ChunkSteps,
  chunkedJob,
  defineChunkedJob,
  MOVED_ON,
  runChunked,
} from '../../../shared/jobs/chunked';
import { defineJobMessage, InvalidJobMessageError } from '../../../shared/jobs/registry';
import type { Deps, QueueMessage } from '../../../shared/ports';

const countMessage = defineJobMessage({
  type: 'test.count',
  schema: z.object({ type: z.literal('test.count'), jobId: z.string().check(z.minLength(1)) }),
});
type CountMessage = z.infer<typeof countMessage.schema>;

/** A job that counts to `total`, `step` at a time, with its progress on a "job item". */
class CountingJob {
  readonly item = { status: 'processing' as string, position: 0, counted: 0, failure: undefined as unknown };
  readonly sent: QueueMessage[] = [];
  readonly processed: number[] = [];
  /** Called before each chunk with its position; may throw, or move the item (another runner). */
  beforeChunk: (position: number) => void = () => {};
  finished = 0;

  constructor(
    readonly total: number,
    readonly step = 10,
  ) {}

  readonly deps = {
    queue: {
      send: async (_queue: string, message: QueueMessage) => {
        this.sent.push(message);
      },
    },
  } as unknown as Deps;

  steps(): ChunkSteps<CountMessage, CountMessage, { position: number }> {
    return {
      load: async () => (this.item.status === 'processing' ? { position: this.item.position } : undefined),
      process: async (_deps, state) => {
        this.beforeChunk(state.position);
        this.processed.push(state.position);
        const next = Math.min(this.total, state.position + this.step);
        return { next: { position: next }, items: next - state.position, done: next === this.total };
      },
      checkpoint: async (_deps, state, chunk) => {
        if (this.item.position !== state.position) return false;
        this.item.position = chunk.next.position;
        this.item.counted += chunk.items;
        if (chunk.done) this.item.status = 'completed';
        return true;
      },
      finish: async () => {
        this.finished++;
      },
      continuation: (m) => ({ jobId: m.jobId }),
      failure: {
        record: async (_deps, _job, failure, cause) => {
          if (this.item.status !== 'processing') return;
          this.item.status = 'failed';
          this.item.failure = { ...failure, cause };
        },
        fatal: (error) =>
          error instanceof Error && error.message === 'unusable'
            ? { code: 'UNUSABLE', message: 'no' }
            : undefined,
        lastAttempt: { code: 'INTERNAL_ERROR', message: 'stopped after repeated failures' },
      },
    };
  }

  job() {
    return chunkedJob(countMessage, this.steps());
  }
}

const message: CountMessage = { type: 'test.count', jobId: 'j1' };

describe('runChunked', () => {
  it('runs chunks until the job is done, then finishes it, within one message', async () => {
    const c = new CountingJob(35);
    expect(await runChunked(c.deps, c.job(), message)).toBe('done');
    expect(c.processed).toEqual([0, 10, 20, 30]);
    expect(c.item).toMatchObject({ status: 'completed', position: 35, counted: 35 });
    expect(c.finished).toBe(1);
    expect(c.sent).toEqual([]);
  });

  it('hands over to a continuation message once the time budget is used', async () => {
    const c = new CountingJob(35);
    const job = c.job();
    expect(await runChunked(c.deps, job, message, undefined, { budgetMs: 0 })).toBe('continued');
    expect(c.processed).toEqual([0]);
    expect(c.sent).toEqual([{ type: 'test.count', jobId: 'j1' }]);
    // Each continuation goes on from the checkpoint, one chunk a message here.
    let messages = 1;
    while (c.item.status === 'processing') {
      await runChunked(c.deps, job, c.sent.at(-1) as CountMessage, undefined, { budgetMs: 0 });
      messages++;
    }
    expect(messages).toBe(4);
    expect(c.item).toMatchObject({ position: 35, counted: 35 });
    expect(c.finished).toBe(1);
  });

  it('hands over once the item budget is used, the job budget unless the caller overrides it', async () => {
    const c = new CountingJob(100);
    const job = chunkedJob(countMessage, { ...c.steps(), budget: { maxItems: 25 } });
    expect(await runChunked(c.deps, job, message)).toBe('continued');
    expect(c.processed).toEqual([0, 10, 20]);
    expect(await runChunked(c.deps, job, message, undefined, { maxItems: 50 })).toBe('continued');
    expect(c.processed).toEqual([0, 10, 20, 30, 40, 50, 60, 70]);
    expect(c.sent).toHaveLength(2);
  });

  it('stops, counting nothing, when its checkpoint finds that another runner moved the job on', async () => {
    const c = new CountingJob(50);
    // A redelivered message's twin runs the chunk at 20 first, while this one is at work on it.
    c.beforeChunk = (position) => {
      if (position === 20) c.item.position = 30;
    };
    expect(await runChunked(c.deps, c.job(), message)).toBe('stopped');
    expect(c.item).toMatchObject({ position: 30, counted: 20 });
    expect(c.sent).toEqual([]);
    expect(c.finished).toBe(0);
  });

  it('stops when a chunk finds the job moved on, and when there is nothing to load', async () => {
    const c = new CountingJob(50);
    const job = chunkedJob(countMessage, { ...c.steps(), process: async () => MOVED_ON });
    expect(await runChunked(c.deps, job, message)).toBe('stopped');
    c.item.status = 'completed';
    expect(await runChunked(c.deps, c.job(), message)).toBe('stopped');
    expect(c.processed).toEqual([]);
    expect(c.item.counted).toBe(0);
  });

  it('records a fatal error as the job failure at once, and does not rethrow it', async () => {
    const c = new CountingJob(50);
    c.beforeChunk = (position) => {
      if (position === 10) throw new Error('unusable');
    };
    expect(await runChunked(c.deps, c.job(), message)).toBe('failed');
    expect(c.item).toMatchObject({
      status: 'failed',
      counted: 10,
      failure: { code: 'UNUSABLE', message: 'no', cause: 'fatal' },
    });
  });

  it('rethrows other errors for the queue to retry, recording them on the last attempt only', async () => {
    const c = new CountingJob(50);
    c.beforeChunk = (position) => {
      if (position === 10) throw new Error('the table is unreachable');
    };
    await expect(runChunked(c.deps, c.job(), message, { lastAttempt: false })).rejects.toThrow('unreachable');
    expect(c.item.status).toBe('processing');
    await expect(runChunked(c.deps, c.job(), message, { lastAttempt: true })).rejects.toThrow('unreachable');
    expect(c.item).toMatchObject({
      status: 'failed',
      counted: 10,
      failure: { code: 'INTERNAL_ERROR', cause: 'last-attempt' },
    });
  });

  it('refuses to send a continuation its own schema refuses', async () => {
    const c = new CountingJob(50);
    const job = chunkedJob(countMessage, { ...c.steps(), continuation: () => ({ jobId: '' }) });
    await expect(runChunked(c.deps, job, message, undefined, { budgetMs: 0 })).rejects.toThrow(
      InvalidJobMessageError,
    );
  });
});

describe('defineChunkedJob', () => {
  it('is a job of the chunked job message, run with the worker meta', async () => {
    const c = new CountingJob(20);
    c.beforeChunk = () => {
      throw new Error('the table is unreachable');
    };
    const def = defineChunkedJob(c.job());
    expect(def.type).toBe('test.count');
    expect(def.schema).toBe(countMessage.schema);
    const meta = { messageId: 'm1', receiveCount: 5, lastAttempt: true };
    await expect(def.run(c.deps, message, meta)).rejects.toThrow('unreachable');
    expect(c.item.status).toBe('failed');
  });
});
