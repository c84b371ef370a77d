import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { defineJob, jobsWorker } from '../../../shared/jobs/registry';
import type { Deps } from '../../../shared/ports';

const record = (messageId: string, body: unknown): SQSRecord =>
  ({
    messageId,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes: { ApproximateReceiveCount: '2' },
  }) as unknown as SQSRecord;

describe('jobs worker', () => {
  const seen: unknown[] = [];
  const ping = defineJob({
    type: 'ping',
    schema: z.object({ type: z.literal('ping'), n: z.number() }),
    run: async (_deps, m, meta) => {
      if (m.n < 0) throw new Error('negative');
      seen.push({ n: m.n, receiveCount: meta.receiveCount });
    },
  });
  const fromS3 = (body: unknown) => {
    const records = (body as { Records?: { s3?: { object?: { key?: string } } }[] }).Records;
    return records ? records.map((r) => ({ type: 'ping', n: Number(r.s3?.object?.key) })) : undefined;
  };
  const worker = jobsWorker({} as Deps, [ping], [fromS3]);

  it('runs each record by type and reports only the failed ones', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    seen.length = 0;
    const out = await worker({
      Records: [
        record('a', { type: 'ping', n: 1 }),
        record('b', { type: 'ping', n: -1 }),
        record('c', { type: 'nope' }),
        record('d', { type: 'ping', n: 'x' }),
        record('e', 'not json'),
        record('f', { Records: [{ s3: { object: { key: '7' } } }, { s3: { object: { key: '8' } } }] }),
      ],
    } as SQSEvent);
    expect(out.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['b', 'c', 'd', 'e']);
    expect(seen).toEqual([
      { n: 1, receiveCount: 2 },
      { n: 7, receiveCount: 2 },
      { n: 8, receiveCount: 2 },
    ]);
    // A job that threw is logged with its message and its stack (source-mapped where the code is
    // bundled; here the stack is the test's own).
    const failed = errors.mock.calls
      .map(([line]) => JSON.parse(String(line)) as Record<string, unknown>)
      .find((l) => l.message === 'Job failed' && l.messageId === 'b');
    expect(failed).toMatchObject({ level: 'error', error: 'negative' });
    expect(failed?.stack).toMatch(/^Error: negative\n\s+at .*registry\.test\.ts:\d+:\d+/);
    errors.mockRestore();
  });

  it('refuses two definitions of one type', () => {
    expect(() => jobsWorker({} as Deps, [ping, ping])).toThrow(/share a type/);
  });
});
