/**
 * The local runtime's clock (README, `POST /_local/clock`): the system time (or an injected base
 * clock) plus an offset that only grows. `POST /_local/clock {advance: seconds}` moves it forward
 * for every handler and adapter that reads it, and whatever fell due meanwhile (one-off and
 * recurring schedules, queue delays and retry backoffs) is fired at once by the listeners the
 * runtime registers, so delays, leases, expiries and schedules can be tried without waiting.
 *
 * With a data folder the offset is kept in `clock.json`, so the clock never goes back across a
 * restart either (data written after an advance carries the advanced times).
 */
import { join } from 'node:path';
import { type Clock, systemClock } from '../../ports';
import { readFileIfExists, writeFileAtomic } from './files';

/** Told after each advance, with the times before and after it; awaited by `advance`. */
export type ClockListener = (from: Date, to: Date) => void | Promise<void>;

export interface LocalClockOptions {
  /** The time before any advance. @default systemClock */
  readonly base?: Clock;
  /** Folder for `clock.json` (the offset); in memory when undefined. */
  readonly dataDir?: string;
}

/** The most one advance may move the clock: 100 years, far inside what a Date can hold. */
export const MAX_ADVANCE_SECONDS = 100 * 365 * 24 * 3600;

export class LocalClock implements Clock {
  private readonly base: Clock;
  private readonly file: string | undefined;
  private offset = 0;
  private readonly listeners = new Set<ClockListener>();
  private advancing: Promise<unknown> = Promise.resolve();

  /**
   * The system time moved by the advances only, without the base clock: for timers that must
   * keep running while an injected base clock stands still (the local queue's delays).
   */
  readonly shifted: Clock = { now: () => new Date(Date.now() + this.offset) };

  constructor(options: LocalClockOptions = {}) {
    this.base = options.base ?? systemClock;
    this.file = options.dataDir ? join(options.dataDir, 'clock.json') : undefined;
    const saved = this.file ? readFileIfExists(this.file)?.toString('utf8') : undefined;
    if (saved) {
      const offsetMs = Number((JSON.parse(saved) as { offsetMs?: unknown }).offsetMs);
      if (Number.isFinite(offsetMs) && offsetMs > 0) this.offset = offsetMs;
    }
  }

  now(): Date {
    return new Date(this.base.now().getTime() + this.offset);
  }

  /** How far the clock has been moved forward in total, in milliseconds. */
  get offsetMs(): number {
    return this.offset;
  }

  /**
   * Moves the clock forward by `seconds` (a positive finite number, at most 100 years) and
   * resolves, with the new time, once every listener has handled the move. Never goes back.
   */
  advance(seconds: number): Promise<Date> {
    const problem = advanceProblem(seconds);
    if (problem) return Promise.reject(new RangeError(problem));
    const from = this.now();
    this.offset += Math.round(seconds * 1000);
    if (this.file) writeFileAtomic(this.file, `${JSON.stringify({ offsetMs: this.offset })}\n`);
    const to = this.now();
    // Listeners of consecutive advances run in order, each after the previous ones.
    const run = this.advancing.then(async () => {
      for (const listener of [...this.listeners]) await listener(from, to);
    });
    this.advancing = run.catch(() => {});
    return run.then(() => this.now());
  }

  /** Calls `listener` after every advance; returns the function that removes it. */
  onAdvance(listener: ClockListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}

/** Why `value` is not a valid advance (in seconds), or undefined when it is. */
export function advanceProblem(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return 'advance must be a number of seconds';
  }
  if (value <= 0) return 'advance must be a positive number of seconds: the clock never goes back';
  if (value > MAX_ADVANCE_SECONDS)
    return `advance must be at most ${MAX_ADVANCE_SECONDS} seconds (100 years)`;
  return undefined;
}
