/**
 * A message whose worker kills the process: the local queue counts each receive when it hands the
 * batch out (journalled before the worker runs), as SQS counts it when it returns the message, so
 * after `maxReceiveCount` starts that died in the worker the message is dead-lettered instead of
 * being delivered once more, and every later start is spared.
 *
 * A "process that died" is simulated by leaving a queue whose worker never settles and opening a
 * new `LocalQueue` on the same data folder, as the next start would.
 */
import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalQueue } from '../../../shared/adapters/local/queue';
import type { QueueDef } from '../../../shared/manifest';
import { sleep, waitUntil } from '../../integration/helpers/wait';
import { silent, tempDir } from './helpers';

const jobs: QueueDef = { name: 'jobs', handler: 'none', batchSize: 5, maxReceiveCount: 3, maxConcurrency: 2 };

const queues: LocalQueue[] = [];
afterEach(async () => {
  for (const q of queues.splice(0)) await q.stop(0);
});

/** A queue on `dataDir`, as one start of the runtime opens it. */
function start(dataDir: string) {
  const q = new LocalQueue({ queues: [jobs], dataDir, retryDelayMs: () => 5, logger: silent });
  queues.push(q);
  return q;
}

/** Waits (up to 2 s) until `check` holds. */
const until = (check: () => boolean, what: string) =>
  waitUntil(what, check, { intervalMs: 5, timeoutMs: 2000 });

describe('LocalQueue: a worker that never finishes (the process died in it)', () => {
  it('dead-letters the message after maxReceiveCount starts instead of delivering it again', async () => {
    const dataDir = tempDir('sesame-queue-crash-');
    const receives: string[] = [];
    // Each start hands the message to a worker that never settles, then "dies": the next start
    // opens the same data folder while the previous one is left hanging.
    for (let run = 1; run <= jobs.maxReceiveCount!; run++) {
      const q = start(dataDir);
      q.setWorker('jobs', (event: SQSEvent) => {
        for (const r of event.Records) receives.push(r.attributes.ApproximateReceiveCount);
        return new Promise(() => {});
      });
      if (run === 1) await q.send('jobs', { type: 'poison' });
      await until(() => receives.length === run, `receive ${run}`);
    }
    expect(receives).toEqual(['1', '2', '3']);

    const next = start(dataDir);
    let delivered = 0;
    // Waiting for the queue to be idle from before the worker is attached: the dead-lettering
    // at receive time must end that wait too.
    const idle = next.drain({ timeoutMs: 1000 });
    next.setWorker('jobs', async () => {
      delivered++;
    });
    await idle;
    expect(delivered).toBe(0);
    const [letter] = next.deadLetters('jobs');
    expect(letter).toMatchObject({
      queue: 'jobs',
      receiveCount: 3,
      body: JSON.stringify({ type: 'poison' }),
    });
    expect(letter!.lastError).toMatch(/did not finish: receive 3 of 3/);
    expect(next.stats().jobs).toMatchObject({ pending: 0, delayed: 0, inFlight: 0, deadLetters: 1 });

    // And it stays a dead letter on the start after that.
    const later = start(dataDir);
    later.setWorker('jobs', async () => {
      delivered++;
    });
    await sleep(30);
    expect(delivered).toBe(0);
    expect(later.deadLetters().map((d) => d.messageId)).toEqual([letter!.messageId]);
  });

  it('redelivers a message whose worker died before its last receive, with that receive counted', async () => {
    const dataDir = tempDir('sesame-queue-crash-');
    let seen = 0;
    const first = start(dataDir);
    first.setWorker('jobs', () => {
      seen++;
      return new Promise(() => {});
    });
    await first.send('jobs', { type: 'once' });
    await until(() => seen === 1, 'the first receive');

    const second = start(dataDir);
    const counts: string[] = [];
    second.setWorker('jobs', async (event: SQSEvent) => {
      for (const r of event.Records) counts.push(r.attributes.ApproximateReceiveCount);
    });
    await second.drain({ timeoutMs: 1000 });
    expect(counts).toEqual(['2']);
    expect(second.deadLetters()).toEqual([]);
  });

  it('keeps "did not finish" for a message still running when stop() gave up on it', async () => {
    const dataDir = tempDir('sesame-queue-crash-');
    const q = new LocalQueue({
      queues: [{ ...jobs, maxReceiveCount: 1 }],
      dataDir,
      retryDelayMs: () => 5,
      logger: silent,
    });
    let seen = 0;
    q.setWorker('jobs', () => {
      seen++;
      return new Promise(() => {});
    });
    await q.send('jobs', { type: 'slow' });
    await until(() => seen === 1, 'the receive');
    await q.stop(10);

    const next = new LocalQueue({
      queues: [{ ...jobs, maxReceiveCount: 1 }],
      dataDir,
      retryDelayMs: () => 5,
      logger: silent,
    });
    queues.push(next);
    next.setWorker('jobs', async () => {
      seen++;
    });
    await until(() => next.deadLetters().length === 1, 'the dead letter');
    expect(seen).toBe(1);
    expect(next.deadLetters()[0]!.lastError).toMatch(/did not finish: receive 1 of 1/);
  });
});
