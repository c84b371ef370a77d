import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  LocalScheduler,
  type LocalSchedulerOptions,
  nextRunFunction,
  type ScheduledEventLike,
} from '../../../shared/adapters/local/scheduler';
import type { QueueName } from '../../../shared/manifest';
import type { Clock } from '../../../shared/ports';
import { sleep } from '../../integration/helpers/wait';
import { recordingTarget, silent, tempDir } from './helpers';

const queue = 'jobs' as QueueName;

class ManualClock implements Clock {
  constructor(public current = new Date('2030-01-01T00:00:00Z')) {}
  now() {
    return new Date(this.current);
  }
  advance(ms: number) {
    this.current = new Date(this.current.getTime() + ms);
  }
}

const schedulers: LocalScheduler[] = [];
function make(options: Omit<LocalSchedulerOptions, 'logger'>) {
  const s = new LocalScheduler({ logger: silent, ...options });
  schedulers.push(s);
  return s;
}
afterEach(async () => {
  vi.useRealTimers();
  for (const s of schedulers.splice(0)) await s.stop();
});

describe('LocalScheduler one-off schedules', () => {
  it('puts the message on the queue at its time, without the type attribute, then forgets it', async () => {
    const { t, sent } = recordingTarget();
    const s = make({ target: t });
    const at = Date.now() + 200;
    await s.scheduleAt({ name: 'c1', at: new Date(at), queue, message: { type: 'go', id: 1 } });
    expect(s.list().map((x) => x.name)).toEqual(['c1']);
    await sleep(10);
    expect(sent).toEqual([]);
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    expect(Date.now()).toBeGreaterThanOrEqual(at);
    expect(sent).toEqual([{ queue, message: { type: 'go', id: 1 }, typeAttribute: false }]);
    expect(s.list()).toEqual([]);
  });

  it('replaces a schedule of the same name', async () => {
    const { t, sent } = recordingTarget();
    const s = make({ target: t });
    await s.scheduleAt({ name: 'x', at: new Date(Date.now() + 40), queue, message: { type: 'old' } });
    await s.scheduleAt({ name: 'x', at: new Date(Date.now() + 10), queue, message: { type: 'new' } });
    expect(s.list()).toHaveLength(1);
    await sleep(80);
    expect(sent.map((m) => m.message.type)).toEqual(['new']);
  });

  it('cancels, and cancelling an unknown name is fine', async () => {
    const { t, sent } = recordingTarget();
    const s = make({ target: t });
    await s.scheduleAt({ name: 'x', at: new Date(Date.now() + 20), queue, message: { type: 'a' } });
    await s.cancel('x');
    await s.cancel('never-existed');
    await sleep(50);
    expect(sent).toEqual([]);
  });

  it('fires a time already past at once, and rejects an invalid date', async () => {
    const { t, sent } = recordingTarget();
    const s = make({ target: t });
    await s.scheduleAt({ name: 'late', at: new Date(Date.now() - 60_000), queue, message: { type: 'a' } });
    await sleep(10);
    expect(sent).toHaveLength(1);
    await expect(
      s.scheduleAt({ name: 'bad', at: new Date('nope'), queue, message: { type: 'a' } }),
    ).rejects.toThrow(RangeError);
  });

  it('follows an injected clock with runDue()', async () => {
    const clock = new ManualClock();
    const { t, sent } = recordingTarget();
    const s = make({ target: t, clock });
    await s.scheduleAt({
      name: 'a',
      at: new Date(clock.current.getTime() + 3_600_000),
      queue,
      message: { type: 'a' },
    });
    await s.scheduleAt({
      name: 'b',
      at: new Date(clock.current.getTime() + 7_200_000),
      queue,
      message: { type: 'b' },
    });
    await s.runDue();
    expect(sent).toEqual([]);
    clock.advance(3_600_000);
    await s.runDue();
    expect(sent.map((m) => m.message.type)).toEqual(['a']);
    expect(await s.fire('b')).toBe(true);
    expect(await s.fire('b')).toBe(false);
    expect(sent.map((m) => m.message.type)).toEqual(['a', 'b']);
  });

  it('keeps schedules in the data folder across a restart', async () => {
    const dataDir = tempDir('sesame-sched-');
    const clock = new ManualClock();
    const first = make({ target: recordingTarget().t, dataDir, clock });
    await first.scheduleAt({
      name: 'keep',
      at: new Date(clock.current.getTime() + 60_000),
      queue,
      message: { type: 'k' },
    });
    await first.scheduleAt({
      name: 'drop',
      at: new Date(clock.current.getTime() + 60_000),
      queue,
      message: { type: 'd' },
    });
    await first.cancel('drop');
    await first.stop();

    const { t, sent } = recordingTarget();
    const second = make({ target: t, dataDir, clock });
    expect(second.list().map((x) => x.name)).toEqual(['keep']);
    clock.advance(60_000);
    await second.runDue();
    expect(sent.map((m) => m.message.type)).toEqual(['k']);
    expect(make({ target: t, dataDir, clock }).list()).toEqual([]);
  });
});

describe('LocalScheduler recurring schedules', () => {
  it('runs a rate() schedule every period with a scheduled event, and on demand', async () => {
    vi.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    const s = make({ target: recordingTarget().t });
    const events: ScheduledEventLike[] = [];
    s.addRecurring(
      { name: 'domain-check', handler: 'x', expression: 'rate(5 minutes)', description: 'd' },
      async (event) => {
        events.push(event);
      },
    );
    await vi.advanceTimersByTimeAsync(4 * 60_000);
    expect(events).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      'detail-type': 'Scheduled Event',
      source: 'aws.scheduler',
      time: '2030-01-01T00:05:00.000Z',
    });
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(events).toHaveLength(3);
    await s.runRecurring('domain-check');
    expect(events).toHaveLength(4);
    expect(s.recurringSchedules()).toEqual([
      { name: 'domain-check', expression: 'rate(5 minutes)', nextRun: '2030-01-01T00:20:00.000Z' },
    ]);
  });

  it('does not start timers with start: false, and keeps running after a failing run', async () => {
    vi.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    const s = make({ target: recordingTarget().t });
    let runs = 0;
    s.addRecurring({ name: 'j', handler: 'x', expression: 'rate(1 minute)', description: 'd' }, async () => {
      runs++;
      throw new Error('fails');
    });
    s.addRecurring(
      { name: 'off', handler: 'x', expression: 'rate(1 minute)', description: 'd' },
      async () => {
        throw new Error('must not run');
      },
      { start: false },
    );
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    expect(runs).toBe(3);
  });
});

describe('nextRunFunction', () => {
  const start = new Date('2025-01-01T10:17:00Z'); // a Wednesday
  const next3 = (expression: string) => {
    const next = nextRunFunction(expression, start);
    const out: string[] = [];
    let at: Date | undefined = start;
    for (let i = 0; i < 3 && at; i++) {
      at = next(at);
      if (at) out.push(at.toISOString());
    }
    return out;
  };

  it('reads EventBridge cron: six fields, ?, 1-7 = SUN-SAT, steps, L', () => {
    expect(next3('cron(0 12 ? * MON-FRI *)')).toEqual([
      '2025-01-01T12:00:00.000Z',
      '2025-01-02T12:00:00.000Z',
      '2025-01-03T12:00:00.000Z',
    ]);
    expect(next3('cron(0 9 ? * 2 *)')[0]).toBe('2025-01-06T09:00:00.000Z'); // 2 = Monday
    expect(next3('cron(0/5 * * * ? *)')[0]).toBe('2025-01-01T10:20:00.000Z');
    expect(next3('cron(15 10 ? * 6L 2025)')[0]).toBe('2025-01-31T10:15:00.000Z'); // last Friday
  });

  it('reads rate() and refuses malformed expressions', () => {
    expect(next3('rate(1 hour)')).toEqual([
      '2025-01-01T11:17:00.000Z',
      '2025-01-01T12:17:00.000Z',
      '2025-01-01T13:17:00.000Z',
    ]);
    expect(() => nextRunFunction('rate(1 minutes)', start)).toThrow();
    expect(() => nextRunFunction('rate(5 minute)', start)).toThrow();
    expect(() => nextRunFunction('cron(* * * *)', start)).toThrow(/six fields/);
    expect(() => nextRunFunction('every day', start)).toThrow(/Unsupported/);
  });
});
