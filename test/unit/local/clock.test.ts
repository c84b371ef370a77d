/**
 * The local runtime's clock: an offset over a base clock that only grows, kept in the data
 * folder, whose advances reach the scheduler (one-off and recurring schedules) and the queue
 * (delays) at once.
 */
import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { advanceProblem, LocalClock } from '../../../shared/adapters/local/clock';
import { LocalQueue } from '../../../shared/adapters/local/queue';
import { LocalScheduler } from '../../../shared/adapters/local/scheduler';
import type { QueueDef, QueueName } from '../../../shared/manifest';
import { sleep } from '../../integration/helpers/wait';
import { recordingTarget, silent, tempDir } from './helpers';

const queue = 'jobs' as QueueName;
const jobs: QueueDef = { name: 'jobs', handler: 'none', batchSize: 5, maxReceiveCount: 3, maxConcurrency: 2 };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('LocalClock', () => {
  it('adds the advances to the base time, never going back', async () => {
    const base = new Date('2030-01-01T00:00:00Z');
    const clock = new LocalClock({ base: { now: () => base } });
    expect(clock.now().toISOString()).toBe('2030-01-01T00:00:00.000Z');
    expect((await clock.advance(90)).toISOString()).toBe('2030-01-01T00:01:30.000Z');
    expect(clock.now().toISOString()).toBe('2030-01-01T00:01:30.000Z');
    expect(clock.offsetMs).toBe(90_000);
    for (const bad of [-1, 0, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(clock.advance(bad)).rejects.toThrow(RangeError);
    }
    expect(clock.offsetMs).toBe(90_000);
  });

  it('says why an advance is refused', () => {
    expect(advanceProblem(1)).toBeUndefined();
    expect(advanceProblem(0.5)).toBeUndefined();
    expect(advanceProblem(-5)).toMatch(/never goes back/);
    expect(advanceProblem('60')).toMatch(/number of seconds/);
    expect(advanceProblem(undefined)).toMatch(/number of seconds/);
    expect(advanceProblem(1e12)).toMatch(/at most/);
  });

  it('keeps the offset in the data folder, so a restart does not go back', async () => {
    const dataDir = tempDir('sesame-clock-');
    await new LocalClock({ dataDir }).advance(3600);
    const again = new LocalClock({ dataDir });
    expect(again.offsetMs).toBe(3_600_000);
    expect(Math.abs(again.now().getTime() - (Date.now() + 3_600_000))).toBeLessThan(1000);
  });

  it('tells its listeners, in order, and resolves after them', async () => {
    const clock = new LocalClock();
    const seen: number[] = [];
    const off = clock.onAdvance(async (from, to) => {
      await sleep(5);
      seen.push(Math.round((to.getTime() - from.getTime()) / 1000));
    });
    await clock.advance(10);
    await clock.advance(20);
    off();
    await clock.advance(30);
    expect(seen).toEqual([10, 20]);
  });
});

describe('LocalScheduler.advanced', () => {
  it('fires the one-off schedules that fell due, and only those', async () => {
    const clock = new LocalClock();
    const { t, sent } = recordingTarget();
    const s = new LocalScheduler({ target: t, clock, logger: silent });
    cleanups.push(() => s.stop());
    clock.onAdvance((from) => s.advanced(from));
    const inMinutes = (m: number) => new Date(clock.now().getTime() + m * 60_000);
    await s.scheduleAt({ name: 'soon', at: inMinutes(10), queue, message: { type: 'soon' } });
    await s.scheduleAt({ name: 'later', at: inMinutes(60), queue, message: { type: 'later' } });
    await clock.advance(11 * 60);
    expect(sent.map((s) => s.message.type)).toEqual(['soon']);
    expect(s.list().map((x) => x.name)).toEqual(['later']);
    await clock.advance(50 * 60);
    expect(sent.map((s) => s.message.type)).toEqual(['soon', 'later']);
    expect(s.list()).toEqual([]);
  });

  it('runs a started recurring schedule once when a run fell due, and leaves unstarted ones alone', async () => {
    const clock = new LocalClock();
    const s = new LocalScheduler({ target: recordingTarget().t, clock, logger: silent });
    cleanups.push(() => s.stop());
    clock.onAdvance((from) => s.advanced(from));
    const runs: string[] = [];
    s.addRecurring(
      { name: 'every-5', handler: 'x', expression: 'rate(5 minutes)', description: 'test' },
      async (event) => {
        runs.push(event.time);
      },
    );
    s.addRecurring(
      { name: 'manual', handler: 'x', expression: 'rate(5 minutes)', description: 'test' },
      async () => {
        runs.push('manual');
      },
      { start: false },
    );
    await clock.advance(60);
    await sleep(10);
    expect(runs).toEqual([]);
    await clock.advance(30 * 60);
    await sleep(10);
    expect(runs).toHaveLength(1);
    expect(Date.parse(runs[0]!)).toBeGreaterThan(Date.now() + 30 * 60_000);
  });
});

describe('LocalQueue on the clock', () => {
  it('delivers a delayed message as soon as the clock passes its delay', async () => {
    const clock = new LocalClock();
    const q = new LocalQueue({ queues: [jobs], clock: clock.shifted, logger: silent });
    cleanups.push(() => q.stop(0));
    clock.onAdvance(() => q.wake());
    const seen: string[] = [];
    q.setWorker('jobs', async (event: SQSEvent) => {
      for (const r of event.Records) seen.push(JSON.parse(r.body).type);
    });
    await q.send('jobs', { type: 'delayed' }, { delaySeconds: 600 });
    await sleep(20);
    expect(seen).toEqual([]);
    await clock.advance(601);
    await q.drain({ timeoutMs: 1000 });
    expect(seen).toEqual(['delayed']);
  });
});
