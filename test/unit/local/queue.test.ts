import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalQueue, type LocalQueueOptions } from '../../../shared/adapters/local/queue';
import type { QueueDef } from '../../../shared/manifest';
import { sleep } from '../../integration/helpers/wait';
import { silent, tempDir } from './helpers';

const jobs: QueueDef = { name: 'jobs', handler: 'none', batchSize: 3, maxReceiveCount: 3, maxConcurrency: 2 };

const queues: LocalQueue[] = [];
function makeQueue(options: Partial<LocalQueueOptions> = {}) {
  const q = new LocalQueue({ queues: [jobs], retryDelayMs: () => 5, logger: silent, ...options });
  queues.push(q);
  return q;
}
afterEach(async () => {
  for (const q of queues.splice(0)) await q.stop(0);
});

/** A worker that records every record it sees and answers with `decide`. */
function recorder(decide: (record: SQSRecord, seen: number) => 'ok' | 'fail' | 'throw' = () => 'ok') {
  const seen: SQSRecord[] = [];
  const batches: number[] = [];
  const worker = async (event: SQSEvent) => {
    batches.push(event.Records.length);
    const failures: { itemIdentifier: string }[] = [];
    for (const record of event.Records) {
      seen.push(record);
      const outcome = decide(record, seen.filter((r) => r.messageId === record.messageId).length);
      if (outcome === 'throw') throw new Error(`boom ${record.body}`);
      if (outcome === 'fail') failures.push({ itemIdentifier: record.messageId });
    }
    return { batchItemFailures: failures };
  };
  return { worker, seen, batches };
}

describe('LocalQueue', () => {
  it('delivers SQS-shaped records with the JSON body and a type attribute', async () => {
    const q = makeQueue();
    const { worker, seen } = recorder();
    q.setWorker('jobs', worker);
    await q.send('jobs', { type: 'hello', n: 1 });
    await q.drain();
    expect(seen).toHaveLength(1);
    const r = seen[0]!;
    expect(JSON.parse(r.body)).toEqual({ type: 'hello', n: 1 });
    expect(r.messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.receiptHandle.length).toBeGreaterThan(20);
    expect(r.attributes.ApproximateReceiveCount).toBe('1');
    expect(Number(r.attributes.SentTimestamp)).toBeGreaterThan(0);
    expect(r.messageAttributes).toEqual({ type: { dataType: 'String', stringValue: 'hello' } });
    expect(r.md5OfBody).toMatch(/^[0-9a-f]{32}$/);
    expect(r.eventSource).toBe('aws:sqs');
    expect(r.eventSourceARN).toMatch(/^arn:aws:sqs:us-east-1:\d{12}:.*jobs$/);
  });

  it('with redeliverEachMessage, delivers a completed message once more, never a third time', async () => {
    const q = makeQueue({ redeliverEachMessage: true });
    const { worker, seen } = recorder((_r, n) => (n === 1 ? 'throw' : 'ok'));
    q.setWorker('jobs', worker);
    await q.send('jobs', { type: 'twice' });
    await q.send('jobs', { type: 'fails-first' });
    await q.drain();
    // Each: the first delivery (the throw fails both of its batch), the success, the redelivery.
    const counts = new Map<string, number>();
    for (const r of seen) counts.set(r.messageId, (counts.get(r.messageId) ?? 0) + 1);
    expect([...counts.values()].every((n) => n >= 2 && n <= 3)).toBe(true);
    const last = seen.at(-1)!;
    expect(Number(last.attributes.ApproximateReceiveCount)).toBeGreaterThan(1);
    expect(q.deadLetters()).toEqual([]);
  });

  it('with redeliverEachMessage, a message completed on its last receive is not redelivered into the dead-letter queue', async () => {
    const q = makeQueue({ redeliverEachMessage: true });
    const { worker, seen } = recorder((_r, n) => (n < 3 ? 'fail' : 'ok'));
    q.setWorker('jobs', worker);
    await q.send('jobs', { type: 'late' });
    await q.drain();
    expect(seen).toHaveLength(3);
    expect(q.deadLetters()).toEqual([]);
  });

  it('retries a message whose invocation threw, then deletes it on success', async () => {
    const q = makeQueue();
    const { worker, seen } = recorder((_r, n) => (n === 1 ? 'throw' : 'ok'));
    q.setWorker('jobs', worker);
    await q.send('jobs', { type: 't' });
    await q.drain();
    expect(seen.map((r) => r.attributes.ApproximateReceiveCount)).toEqual(['1', '2']);
    expect(new Set(seen.map((r) => r.messageId)).size).toBe(1);
    expect(new Set(seen.map((r) => r.receiptHandle)).size).toBe(2);
    expect(q.deadLetters()).toEqual([]);
    expect(q.stats().jobs).toMatchObject({ pending: 0, delayed: 0, inFlight: 0, deadLetters: 0 });
  });

  it('batches messages sent together and redelivers only the reported failures', async () => {
    const q = makeQueue();
    const { worker, seen, batches } = recorder((r, n) =>
      JSON.parse(r.body).n === 2 && n === 1 ? 'fail' : 'ok',
    );
    await Promise.all([1, 2, 3].map((n) => q.send('jobs', { type: 't', n })));
    q.setWorker('jobs', worker);
    await q.drain();
    expect(batches).toEqual([3, 1]);
    expect(seen.map((r) => JSON.parse(r.body).n)).toEqual([1, 2, 3, 2]);
    expect(seen[3]!.attributes.ApproximateReceiveCount).toBe('2');
  });

  it('never hands a worker more than batchSize records', async () => {
    const q = makeQueue();
    const { worker, batches } = recorder();
    await Promise.all(Array.from({ length: 7 }, (_, n) => q.send('jobs', { type: 't', n })));
    q.setWorker('jobs', worker);
    await q.drain();
    expect(batches.reduce((a, b) => a + b, 0)).toBe(7);
    expect(Math.max(...batches)).toBeLessThanOrEqual(3);
  });

  it('fails the whole batch when the response names an unknown message', async () => {
    const q = makeQueue();
    let calls = 0;
    q.setWorker('jobs', async () => {
      calls++;
      return calls === 1
        ? { batchItemFailures: [{ itemIdentifier: 'not-in-batch' }] }
        : { batchItemFailures: [] };
    });
    await Promise.all([q.send('jobs', { type: 'a' }), q.send('jobs', { type: 'b' })]);
    await q.drain();
    expect(calls).toBe(2);
  });

  it('moves a message to the dead-letter list after maxReceiveCount receives, with the last error', async () => {
    const q = makeQueue();
    const { worker, seen } = recorder(() => 'throw');
    q.setWorker('jobs', worker);
    await q.send('jobs', { type: 'poison' });
    await q.drain();
    expect(seen).toHaveLength(3);
    const [dead] = q.deadLetters('jobs');
    expect(dead).toMatchObject({ queue: 'jobs', receiveCount: 3, body: JSON.stringify({ type: 'poison' }) });
    expect(dead!.lastError).toContain('boom');
    expect(q.stats().jobs!.deadLetters).toBe(1);

    // Redrive puts it back with a fresh receive count.
    q.setWorker('jobs', recorder().worker);
    expect(q.redrive('jobs')).toBe(1);
    await q.drain();
    expect(q.deadLetters()).toEqual([]);
  });

  it('counts a batch still running after the invocation timeout as failed', async () => {
    const q = makeQueue({ invocationTimeoutMs: 20 });
    let calls = 0;
    q.setWorker('jobs', async () => {
      calls++;
      if (calls === 1) await sleep(200);
    });
    await q.send('jobs', { type: 'slow' });
    await q.drain();
    expect(calls).toBe(2);
  });

  it('holds a delayed message back for delaySeconds', async () => {
    const q = makeQueue({ msPerDelaySecond: 100 });
    const { worker, seen } = recorder();
    q.setWorker('jobs', worker);
    const sentAt = Date.now();
    await q.send('jobs', { type: 'later' }, { delaySeconds: 3 });
    await q.send('jobs', { type: 'now' });
    await sleep(20);
    expect(seen.map((r) => JSON.parse(r.body).type)).toEqual(['now']);
    expect(q.stats().jobs!.delayed).toBe(1);
    await q.drain();
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(299);
    expect(seen.map((r) => JSON.parse(r.body).type)).toEqual(['now', 'later']);
  });

  it('rejects invalid delays and unknown queues like SqsQueue', async () => {
    const q = makeQueue();
    await expect(q.send('jobs', { type: 't' }, { delaySeconds: -1 })).rejects.toThrow(RangeError);
    await expect(q.send('nope', { type: 't' })).rejects.toThrow(/Unknown queue/);
  });

  it('keeps at most maxConcurrency invocations running', async () => {
    const q = makeQueue({ queues: [{ ...jobs, batchSize: 1 }] });
    let running = 0;
    let peak = 0;
    q.setWorker('jobs', async () => {
      running++;
      peak = Math.max(peak, running);
      await sleep(10);
      running--;
    });
    await Promise.all(Array.from({ length: 6 }, (_, n) => q.send('jobs', { type: 't', n })));
    await q.drain();
    expect(peak).toBe(2);
  });

  it('drain rejects with what is still pending when no worker consumes a queue', async () => {
    const q = makeQueue();
    await q.send('jobs', { type: 't' });
    await expect(q.drain({ timeoutMs: 30 })).rejects.toThrow(/jobs \(pending 1.*no worker attached\)/);
  });

  it('resumes pending, delayed and in-flight messages and keeps dead letters across a restart', async () => {
    const dataDir = tempDir('sesame-queue-');
    const first = makeQueue({ dataDir, msPerDelaySecond: 10 });
    const { worker } = recorder((r) => (JSON.parse(r.body).type === 'poison' ? 'throw' : 'ok'));
    first.setWorker('jobs', async (event) => {
      // Never settles: the process "dies" with this batch in flight.
      if (event.Records.some((r) => JSON.parse(r.body).type === 'stuck')) await new Promise(() => {});
      return worker(event);
    });
    await first.send('jobs', { type: 'poison' });
    await first.drain();
    await first.send('jobs', { type: 'stuck' });
    await sleep(10);
    first.setWorker('jobs', async () => {
      throw new Error('unused');
    });
    // Stop without a worker for the rest: pending and delayed messages must survive.
    await first.stop(0);
    await first.send('jobs', { type: 'pending' });
    await first.send('jobs', { type: 'delayed' }, { delaySeconds: 2 });

    const second = makeQueue({ dataDir, msPerDelaySecond: 10 });
    expect(second.deadLetters('jobs')).toHaveLength(1);
    const { worker: w2, seen } = recorder();
    second.setWorker('jobs', w2);
    await second.drain();
    const byType = Object.fromEntries(
      seen.map((r) => [JSON.parse(r.body).type, r.attributes.ApproximateReceiveCount]),
    );
    expect(byType).toEqual({ stuck: '2', pending: '1', delayed: '1' });

    const third = makeQueue({ dataDir });
    expect(third.stats().jobs).toMatchObject({ pending: 0, delayed: 0, deadLetters: 1 });
  });
});
