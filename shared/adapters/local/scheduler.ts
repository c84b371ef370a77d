/**
 * SchedulerPort for the local runtime, standing in for EventBridge Scheduler:
 *
 * - one-off schedules put their message on a queue at their time, then delete themselves;
 *   re-using a name replaces the schedule; cancelling an unknown name is not an error. A time
 *   already past fires at once (Scheduler fires it within a minute or two).
 * - recurring schedules from the manifest (`rate(...)` or `cron(...)`, in UTC) invoke their
 *   schedule handler with a scheduled-event object; a run still going when the next is due is
 *   skipped rather than overlapped.
 *
 * Due times are read from the injected clock, so a test with a settable clock can move time
 * forward and call `runDue()`; the runtime's clock calls `advanced(from)` after each move, which
 * fires the one-off schedules that fell due and runs each started recurring schedule that had a
 * run due in between (once, however many periods were skipped). Timers are unref'd: they never
 * keep a process alive on their own.
 * With a data folder, one-off schedules are kept in `schedules.json` and survive a restart
 * (those that fell due while stopped fire on start).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Cron } from 'croner';
import type { QueueName, ScheduleDef } from '../../manifest';
import {
  type Clock,
  type QueueMessage,
  type ScheduleInput,
  type SchedulerPort,
  systemClock,
} from '../../ports';
import { readFileIfExists, writeFileAtomic } from './files';
import { consoleLogger, type LocalLogger } from './log';

/** Where one-off schedules deliver: the local queue (sent without the `type` attribute, as Scheduler does). */
export interface ScheduleTarget {
  send(queue: QueueName, message: QueueMessage, options?: { typeAttribute?: boolean }): Promise<void>;
}

/** What a recurring schedule's handler receives (the shape of an EventBridge scheduled event). */
export interface ScheduledEventLike {
  readonly version: '0';
  readonly id: string;
  readonly 'detail-type': 'Scheduled Event';
  readonly source: 'aws.scheduler';
  readonly account: string;
  readonly time: string;
  readonly region: string;
  readonly resources: string[];
  readonly detail: Record<string, never>;
}

export type ScheduleRunner = (event: ScheduledEventLike) => Promise<unknown>;

export interface LocalSchedulerOptions {
  readonly target: ScheduleTarget;
  /** Folder for `schedules.json`; in memory when undefined. */
  readonly dataDir?: string;
  /** @default systemClock */
  readonly clock?: Clock;
  readonly logger?: LocalLogger;
}

export interface StoredSchedule {
  readonly name: string;
  /** ISO time. */
  readonly at: string;
  readonly queue: QueueName;
  readonly message: QueueMessage;
}

interface Recurring {
  readonly def: ScheduleDef;
  readonly next: (after: Date) => Date | undefined;
  readonly run: ScheduleRunner;
  timer: NodeJS.Timeout | undefined;
  running: Promise<void> | undefined;
  /** Runs on its timers (`addRecurring` without `start: false`). */
  started: boolean;
}

/** Longest single setTimeout; longer waits re-arm. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class LocalScheduler implements SchedulerPort {
  private readonly schedules = new Map<string, StoredSchedule>();
  private readonly recurring = new Map<string, Recurring>();
  private readonly target: ScheduleTarget;
  private readonly file: string | undefined;
  private readonly clock: Clock;
  private readonly logger: LocalLogger;
  private timer: NodeJS.Timeout | undefined;
  private firing: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(options: LocalSchedulerOptions) {
    this.target = options.target;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? consoleLogger;
    this.file = options.dataDir ? join(options.dataDir, 'schedules.json') : undefined;
    if (this.file) {
      const text = readFileIfExists(this.file)?.toString('utf8');
      for (const s of text ? (JSON.parse(text) as StoredSchedule[]) : []) this.schedules.set(s.name, s);
    }
    this.arm();
  }

  async scheduleAt(input: ScheduleInput): Promise<void> {
    if (input.name.length === 0) throw new Error('Schedule name must not be empty');
    if (Number.isNaN(input.at.getTime())) throw new RangeError('Schedule time is not a valid date');
    this.schedules.set(input.name, {
      name: input.name,
      at: input.at.toISOString(),
      queue: input.queue,
      message: structuredClone(input.message),
    });
    this.save();
    this.arm();
  }

  async cancel(name: string): Promise<void> {
    if (this.schedules.delete(name)) {
      this.save();
      this.arm();
    }
  }

  /** Pending one-off schedules, soonest first. */
  list(): StoredSchedule[] {
    return [...this.schedules.values()].sort((a, b) => a.at.localeCompare(b.at));
  }

  /** Fires every one-off schedule due by the clock's now (tests move a fake clock, then call this). */
  runDue(): Promise<void> {
    this.firing = this.firing.then(() => this.fireDue());
    return this.firing;
  }

  /** Fires one one-off schedule now, whatever its time; false when there is none of that name. */
  async fire(name: string): Promise<boolean> {
    const s = this.schedules.get(name);
    if (!s) return false;
    await this.deliver(s);
    return true;
  }

  /** Registers a manifest schedule; it runs at each time its expression gives, until `stop()`. */
  addRecurring(def: ScheduleDef, run: ScheduleRunner, options: { start?: boolean } = {}): void {
    const next = nextRunFunction(def.expression, this.clock.now());
    const started = options.start !== false;
    const r: Recurring = { def, next, run, timer: undefined, running: undefined, started };
    clearTimeout(this.recurring.get(def.name)?.timer);
    this.recurring.set(def.name, r);
    if (started) this.armRecurring(r);
  }

  /**
   * After the clock moved forward from `from`: delivers the one-off schedules now due (resolved
   * once they are on their queue), and starts each running recurring schedule whose next run
   * after `from` is due, without waiting for it; every timer is re-armed for the new time.
   */
  async advanced(from: Date): Promise<void> {
    if (this.stopped) return;
    const now = this.clock.now().getTime();
    for (const r of this.recurring.values()) {
      if (!r.started) continue;
      clearTimeout(r.timer);
      r.timer = undefined;
      const due = r.next(from);
      if (due && due.getTime() <= now && !r.running) void this.invoke(r);
      this.armRecurring(r);
    }
    await this.runDue();
  }

  /** Runs a recurring schedule's handler now and waits for it (tests and manual triggers). */
  async runRecurring(name: string): Promise<void> {
    const r = this.recurring.get(name);
    if (!r) throw new Error(`No recurring schedule named "${name}"`);
    await (r.running ?? this.invoke(r));
  }

  /** The recurring schedules and their next run time. */
  recurringSchedules(): { name: string; expression: string; nextRun: string | undefined }[] {
    return [...this.recurring.values()].map((r) => ({
      name: r.def.name,
      expression: r.def.expression,
      nextRun: r.next(this.clock.now())?.toISOString(),
    }));
  }

  /** Clears every timer and waits for running recurring handlers. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const r of this.recurring.values()) clearTimeout(r.timer);
    await this.firing;
    await Promise.allSettled([...this.recurring.values()].map((r) => r.running));
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped || this.schedules.size === 0) return;
    let soonest = Number.POSITIVE_INFINITY;
    for (const s of this.schedules.values()) soonest = Math.min(soonest, Date.parse(s.at));
    const wait = Math.max(0, Math.min(soonest - this.clock.now().getTime(), MAX_TIMER_MS));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.runDue();
    }, wait);
    this.timer.unref();
  }

  private async fireDue(): Promise<void> {
    const now = this.clock.now().getTime();
    for (const s of this.list()) {
      if (Date.parse(s.at) > now) break;
      await this.deliver(s);
    }
    this.arm();
  }

  private async deliver(s: StoredSchedule): Promise<void> {
    // Removed only if it is still the same schedule (not replaced while we were sending).
    try {
      await this.target.send(s.queue, s.message, { typeAttribute: false });
    } catch (error) {
      this.logger.error(
        `[scheduler] schedule ${s.name} could not deliver to queue ${s.queue}; dropped`,
        error,
      );
    }
    if (this.schedules.get(s.name) === s) {
      this.schedules.delete(s.name);
      this.save();
    }
  }

  private armRecurring(r: Recurring): void {
    if (this.stopped) return;
    const now = this.clock.now();
    const next = r.next(now);
    if (!next) return;
    const wait = Math.max(0, next.getTime() - now.getTime());
    r.timer = setTimeout(
      () => {
        r.timer = undefined;
        if (wait <= MAX_TIMER_MS && !r.running) void this.invoke(r);
        this.armRecurring(r);
      },
      Math.min(wait, MAX_TIMER_MS),
    );
    r.timer.unref();
  }

  private invoke(r: Recurring): Promise<void> {
    const event: ScheduledEventLike = {
      version: '0',
      id: randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.scheduler',
      account: '000000000000',
      time: this.clock.now().toISOString(),
      region: 'us-east-1',
      resources: [`arn:aws:scheduler:us-east-1:000000000000:schedule/default/sesame-${r.def.name}`],
      detail: {},
    };
    const running = (async () => {
      try {
        await r.run(event);
      } catch (error) {
        this.logger.error(`[scheduler] recurring schedule ${r.def.name} failed`, error);
      } finally {
        r.running = undefined;
      }
    })();
    r.running = running;
    return running;
  }

  private save(): void {
    if (this.file) writeFileAtomic(this.file, `${JSON.stringify(this.list(), null, 2)}\n`);
  }
}

const RATE = /^rate\(\s*(\d+)\s+(minute|minutes|hour|hours|day|days)\s*\)$/i;
const CRON = /^cron\((.+)\)$/i;
const UNIT_MS: Record<string, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/**
 * The next-run function of an EventBridge expression. `rate(n unit)` runs every n units from
 * `start`; `cron(min hour day-of-month month day-of-week year)` follows EventBridge's six
 * fields (UTC, `?` allowed, day-of-week 1-7 = SUN-SAT, L, W and #), evaluated with croner.
 */
export function nextRunFunction(expression: string, start: Date): (after: Date) => Date | undefined {
  const rate = RATE.exec(expression.trim());
  if (rate) {
    const n = Number(rate[1]);
    const unit = rate[2]!.toLowerCase().replace(/s$/, '');
    if (n < 1) throw new Error(`Invalid schedule expression ${expression}: the value must be at least 1`);
    if ((n === 1) !== (rate[2]!.toLowerCase() === unit)) {
      throw new Error(`Invalid schedule expression ${expression}: use "1 ${unit}" or "n ${unit}s"`);
    }
    const period = n * UNIT_MS[unit]!;
    const origin = start.getTime();
    return (after) => {
      const elapsed = after.getTime() - origin;
      const k = Math.max(1, Math.floor(elapsed / period) + 1);
      return new Date(origin + k * period);
    };
  }
  const cron = CRON.exec(expression.trim());
  if (cron) {
    const fields = cron[1]!.trim().split(/\s+/);
    if (fields.length !== 6) {
      throw new Error(`Invalid schedule expression ${expression}: cron() takes six fields`);
    }
    const job = new Cron(`0 ${fields.join(' ')}`, {
      paused: true,
      timezone: 'UTC',
      mode: '7-part',
      alternativeWeekdays: true,
      // EventBridge writes steps as `0/5`.
      sloppyRanges: true,
    });
    return (after) => job.nextRun(after) ?? undefined;
  }
  throw new Error(`Unsupported schedule expression "${expression}": expected rate(...) or cron(...)`);
}
