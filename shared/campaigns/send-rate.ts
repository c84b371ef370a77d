/**
 * The account's SES send rate, shared by every worker of every instance (SES_MAX_SEND_RATE, 14
 * messages a second by default): a campaign's fan-out reserves a send slot for each message
 * before it sends it, a batch of slots at a time with one conditional update.
 *
 * Time is cut into windows of `W` seconds (1, or more when the rate is below one a second), each
 * with `capacity` = rate x W slots spread evenly across it: slot j of window w is at
 * `w x W + j x W / capacity` seconds. A window is one item (`SENDRATE#<w>`) counting the slots
 * taken (`used`); a reservation takes slots `[used, used + k)` with one UpdateItem whose
 * condition keeps `used + k <= capacity`, and never takes a slot already in the past (`floor`,
 * the first slot at or after now), so unused past slots are never spent in a burst. The caller
 * sends each message at its slot's time: at most `capacity` messages start in any W seconds,
 * across every worker, evenly spaced, whatever the number of workers.
 *
 * Cost: one write unit per reservation of up to `capacity` slots (a fan-out's lane makes one per
 * group of slots, a few a batch); when another worker took the window's slots first, a failed
 * conditional write (one more unit) and a read of the window. The items expire (TTL) an hour
 * after their window.
 *
 * The rate (`accountSendRate`): SES_MAX_SEND_RATE when the deployment sets it; otherwise the
 * account's own maximum send rate as the mailer reports it (on AWS SES's GetAccount, read once per
 * instance and reused for ten minutes); otherwise 14, a new production account's rate.
 */
import type { AppConfig } from '../config/env';
import type { Clock, MailerPort } from '../ports';
import { sleep as realSleep, type StoreDeps } from '../store/store';
import { keys } from '../table';

/** The slots `[from, to)` of a window that a reservation took. */
export interface TakenSlots {
  readonly from: number;
  readonly to: number;
}

/** A take that did not fit: how many slots of the window were taken when it was tried. */
export interface WindowFull {
  readonly used: number;
}

/** The rate windows as the limiter sees them: the table's items, or a test's memory. */
export interface RateWindows {
  /**
   * Takes `count` slots of `window` at or after slot `floor` (`floor + count <= capacity`): the
   * next free ones when the window has used at least `floor`, else from `floor` on. When the
   * window has fewer than `count` slots free from there, takes none and answers how many are used.
   */
  take(
    window: number,
    count: number,
    floor: number,
    capacity: number,
    /** The window's used slots as last seen (a hint: the write then fits it the first time). */
    seen?: number,
  ): Promise<TakenSlots | WindowFull>;
}

export interface SendRateOptions {
  /** Messages per second at most (any positive number). */
  readonly rate: number;
  readonly windows: RateWindows;
  readonly clock: Clock;
  /** @default a timer (tests pass one that moves their clock) */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** How time is cut for `rate`: window length (ms), slots per window, and the gap between slots. */
export function windowsOf(rate: number): { windowMs: number; capacity: number; spacingMs: number } {
  if (!(rate > 0) || !Number.isFinite(rate)) throw new RangeError('The send rate must be a positive number');
  const seconds = rate >= 1 ? 1 : Math.ceil(1 / rate);
  const capacity = Math.max(1, Math.floor(rate * seconds));
  return { windowMs: seconds * 1000, capacity, spacingMs: (seconds * 1000) / capacity };
}

/**
 * Reserves send slots for one worker. Keeps what it learnt of the windows (how many slots of a
 * window are taken, which are full), so a worker that sends alone never fails a write.
 */
export class SendRateLimiter {
  readonly windowMs: number;
  readonly capacity: number;
  readonly spacingMs: number;
  private readonly windows: RateWindows;
  private readonly clock: Clock;
  private readonly wait: (ms: number) => Promise<void>;
  /** Windows before this one are full (or past). */
  private skipBefore = 0;
  /** Slots known taken of the window last reserved from. */
  private known: { window: number; used: number } | undefined;

  constructor(options: SendRateOptions) {
    ({
      windowMs: this.windowMs,
      capacity: this.capacity,
      spacingMs: this.spacingMs,
    } = windowsOf(options.rate));
    this.windows = options.windows;
    this.clock = options.clock;
    this.wait = options.sleep ?? (async (ms) => void (await realSleep(ms)));
  }

  /**
   * Reserves slots for up to `count` messages (at least one, more when the window has room):
   * their times (epoch ms), in order, none before now. Send each message at (or after) its time.
   */
  async reserve(count: number): Promise<number[]> {
    if (!(count >= 1)) throw new RangeError('Reserve at least one slot');
    for (;;) {
      const now = this.clock.now().getTime();
      const window = Math.max(Math.floor(now / this.windowMs), this.skipBefore);
      const start = window * this.windowMs;
      let floor = now > start ? Math.ceil((now - start) / this.spacingMs) : 0;
      if (this.known?.window === window) floor = Math.max(floor, this.known.used);
      if (floor >= this.capacity) {
        this.skipBefore = window + 1;
        continue;
      }
      const k = Math.min(Math.floor(count), this.capacity - floor);
      const seen = this.known?.window === window ? this.known.used : undefined;
      const taken = await this.windows.take(window, k, floor, this.capacity, seen);
      if (!('from' in taken)) {
        // Others took slots of the window first: try what is left of it, else the next one.
        this.known = { window, used: taken.used };
        if (taken.used >= this.capacity) this.skipBefore = window + 1;
        continue;
      }
      this.known = { window, used: taken.to };
      if (taken.to >= this.capacity) this.skipBefore = window + 1;
      const slots: number[] = [];
      for (let j = taken.from; j < taken.to; j++) slots.push(start + j * this.spacingMs);
      return slots;
    }
  }

  /** Waits until `slot` (an epoch ms of `reserve`) has come. */
  async until(slot: number): Promise<void> {
    const left = slot - this.clock.now().getTime();
    if (left > 0) await this.wait(left);
  }
}

/** Window items are kept an hour past their window (TTL), then DynamoDB removes them. */
const WINDOW_TTL_SECONDS = 3600;

/**
 * The rate windows as table items. A take is one conditional UpdateItem when the window has used
 * at least `floor` slots (or none yet). When it does not fit, the window is read (a strongly
 * consistent GetItem) to tell the limiter how many slots are used; when those end before `floor`
 * (slots left unused in the past), a second update takes the slots from `floor` on, conditional
 * on the count read.
 */
export function tableRateWindows(deps: StoreDeps, windowMs: number): RateWindows {
  const expiresAt = (window: number) => Math.ceil(((window + 1) * windowMs) / 1000) + WINDOW_TTL_SECONDS;
  return {
    async take(window, count, floor, capacity, seen) {
      const key = keys.sendRateWindow(window);
      const exp = expiresAt(window);
      // The next slots after those used: the usual case (a fresh window counts as used to `floor`).
      const next = async () => {
        const out = await deps.store.write({
          update: key,
          expression: 'SET used = if_not_exists(used, :floor) + :k, entity = :entity, expiresAt = :exp',
          if: 'attribute_not_exists(used) OR (used >= :floor AND used <= :last)',
          values: {
            ':floor': floor,
            ':k': count,
            ':last': capacity - count,
            ':entity': 'sendRate',
            ':exp': exp,
          },
          returnNew: true,
        });
        const to = Number(out?.used);
        return { from: to - count, to };
      };
      // The slots from `floor` on, when those used end before it (the rest of them are past).
      const fromFloor = (condition: string, values: Record<string, unknown>) =>
        deps.store.writeIf({
          update: key,
          expression: 'SET used = :to, entity = :entity, expiresAt = :exp',
          if: condition,
          values: { ':to': floor + count, ':entity': 'sendRate', ':exp': exp, ...values },
        });
      try {
        if (seen === undefined || seen >= floor) return await next();
        if (await fromFloor('attribute_not_exists(used) OR used <= :floor', { ':floor': floor }))
          return { from: floor, to: floor + count };
      } catch (error) {
        if ((error as Error)?.name !== 'ConditionalCheckFailedException') throw error;
      }
      const item = await deps.store.get(key, { consistent: true });
      const used = Number(item?.used ?? 0);
      if (used >= floor) return { used };
      return (await fromFloor('used = :seen', { ':seen': used }))
        ? { from: floor, to: floor + count }
        : { used: floor };
    },
  };
}

/** The limiter of a worker over the table, at `rate` messages a second. */
/** A new SES production account's maximum send rate: the rate when nothing states another. */
export const DEFAULT_SES_MAX_SEND_RATE = 14;

/** The messages a second every worker together may hand to SES (see the top of this module). */
export async function accountSendRate(deps: {
  readonly config: Pick<AppConfig, 'sesMaxSendRate'>;
  readonly mailer: Pick<MailerPort, 'maxSendRate'>;
}): Promise<number> {
  return deps.config.sesMaxSendRate ?? (await deps.mailer.maxSendRate()) ?? DEFAULT_SES_MAX_SEND_RATE;
}

export function sendRateLimiter(
  deps: StoreDeps & { readonly clock: Clock },
  rate: number,
  sleep?: (ms: number) => Promise<void>,
): SendRateLimiter {
  const { windowMs } = windowsOf(rate);
  return new SendRateLimiter({ rate, windows: tableRateWindows(deps, windowMs), clock: deps.clock, sleep });
}
