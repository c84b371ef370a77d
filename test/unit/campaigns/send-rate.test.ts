/**
 * The shared send-rate limiter (shared/campaigns/send-rate.ts) on a fake clock: however many
 * workers reserve slots at once, no window of the rate's length ever holds more slots than the
 * rate allows, no slot is in the past when it is given, and workers that keep asking get the whole
 * rate between them. The windows are in memory, with the table's semantics (a take succeeds only
 * when the window has the slots free).
 */
import { describe, expect, it } from 'vitest';
import {
  accountSendRate,
  DEFAULT_SES_MAX_SEND_RATE,
  type RateWindows,
  SendRateLimiter,
  type TakenSlots,
  type WindowFull,
  windowsOf,
} from '../../../shared/campaigns/send-rate';

/** Windows as the table keeps them: `used` per window; a take is atomic. */
function memoryWindows() {
  const used = new Map<number, number>();
  let writes = 0;
  let failed = 0;
  const windows: RateWindows = {
    async take(window, count, floor, capacity): Promise<TakenSlots | WindowFull> {
      writes++;
      const u = used.get(window);
      if (u === undefined || u >= floor) {
        const from = u ?? floor;
        if (from + count > capacity) {
          failed++;
          return { used: u ?? 0 };
        }
        used.set(window, from + count);
        return { from, to: from + count };
      }
      // Slots left unused before `floor` are past: taken from `floor` on.
      writes++;
      used.set(window, floor + count);
      return { from: floor, to: floor + count };
    },
  };
  return {
    windows,
    get writes() {
      return writes;
    },
    get failed() {
      return failed;
    },
  };
}

/** A clock that only moves when told to (and when a limiter sleeps). */
function fakeClock(start = Date.UTC(2026, 0, 1, 12, 0, 0, 250)) {
  let now = start;
  return {
    clock: { now: () => new Date(now) },
    advance: (ms: number) => {
      now += ms;
    },
    get now() {
      return now;
    },
  };
}

/** No more than `capacity` slots in any half-open span of `windowMs`. */
function maxInAnySpan(slots: readonly number[], spanMs: number): number {
  const sorted = [...slots].sort((a, b) => a - b);
  let best = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= spanMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

describe('windowsOf', () => {
  it('cuts time by the rate', () => {
    expect(windowsOf(14)).toEqual({ windowMs: 1000, capacity: 14, spacingMs: 1000 / 14 });
    expect(windowsOf(50)).toEqual({ windowMs: 1000, capacity: 50, spacingMs: 20 });
    expect(windowsOf(2.5)).toEqual({ windowMs: 1000, capacity: 2, spacingMs: 500 });
    expect(windowsOf(0.25)).toEqual({ windowMs: 4000, capacity: 1, spacingMs: 4000 });
    expect(() => windowsOf(0)).toThrow(RangeError);
  });
});

describe('SendRateLimiter', () => {
  for (const rate of [14, 50, 1, 0.5]) {
    it(`never gives more than ${rate} a second to eight workers at once, nor a slot in the past`, async () => {
      const time = fakeClock();
      const memory = memoryWindows();
      const { windowMs, capacity } = windowsOf(rate);
      const sleep = async (ms: number) => time.advance(ms);
      const workers = Array.from(
        { length: 8 },
        () => new SendRateLimiter({ rate, windows: memory.windows, clock: time.clock, sleep }),
      );
      const slots: number[] = [];
      const total = Math.max(40, Math.ceil(rate * 30));
      // Workers take turns, each asking for a batch, sending it at its slots (the clock moves
      // with their waits), sometimes idling in between.
      for (let turn = 0; slots.length < total; turn++) {
        const worker = workers[turn % workers.length]!;
        const before = time.now;
        const got = await worker.reserve(1 + (turn % 7));
        expect(got.length).toBeGreaterThanOrEqual(1);
        for (const slot of got) expect(slot).toBeGreaterThanOrEqual(before);
        slots.push(...got);
        await worker.until(got.at(-1)!);
        if (turn % 5 === 0) time.advance(turn % 3 === 0 ? 2300 : 40);
      }
      expect(new Set(slots).size).toBe(slots.length);
      expect(maxInAnySpan(slots, windowMs)).toBeLessThanOrEqual(capacity);
    });
  }

  it('gives the whole rate to a worker that keeps asking, one write per reservation', async () => {
    const time = fakeClock();
    const memory = memoryWindows();
    const limiter = new SendRateLimiter({
      rate: 50,
      windows: memory.windows,
      clock: time.clock,
      sleep: async (ms) => time.advance(ms),
    });
    const slots: number[] = [];
    let reservations = 0;
    while (slots.length < 500) {
      const got = await limiter.reserve(25);
      reservations++;
      slots.push(...got);
      await limiter.until(got.at(-1)!);
      // The batch's own work between reservations.
      time.advance(3);
    }
    const seconds = (slots.at(-1)! - slots[0]!) / 1000;
    // 500 messages 20 ms apart: just under ten seconds, and never more than 50 in a second.
    expect(slots.length / (seconds + 0.02)).toBeGreaterThan(47.5);
    expect(maxInAnySpan(slots, 1000)).toBeLessThanOrEqual(50);
    expect(memory.writes).toBe(reservations);
    expect(memory.failed).toBe(0);
  });

  it('lets concurrent workers share one window without exceeding it', async () => {
    const time = fakeClock(Date.UTC(2026, 0, 1, 12, 0, 0, 0));
    const memory = memoryWindows();
    const workers = Array.from(
      { length: 5 },
      () =>
        new SendRateLimiter({ rate: 14, windows: memory.windows, clock: time.clock, sleep: async () => {} }),
    );
    // All ask at the same instant, for more than the window has.
    const got = await Promise.all(workers.map((w) => w.reserve(10)));
    const slots = got.flat();
    expect(slots.length).toBeGreaterThanOrEqual(5);
    expect(maxInAnySpan(slots, 1000)).toBeLessThanOrEqual(14);
    expect(new Set(slots).size).toBe(slots.length);
  });

  it('refuses a reservation of nothing', async () => {
    const time = fakeClock();
    const limiter = new SendRateLimiter({ rate: 14, windows: memoryWindows().windows, clock: time.clock });
    await expect(limiter.reserve(0)).rejects.toThrow(RangeError);
  });
});

describe('accountSendRate', () => {
  const mailer = (rate: number | undefined) => ({ maxSendRate: async () => rate });

  it('is SES_MAX_SEND_RATE when set, without asking the mailer', async () => {
    const asked = { maxSendRate: async () => expect.unreachable('the mailer was asked') };
    expect(await accountSendRate({ config: { sesMaxSendRate: 50 }, mailer: asked })).toBe(50);
  });

  it("is the mailer's account quota otherwise, and 14 when it has none", async () => {
    expect(await accountSendRate({ config: { sesMaxSendRate: undefined }, mailer: mailer(1) })).toBe(1);
    expect(await accountSendRate({ config: { sesMaxSendRate: undefined }, mailer: mailer(undefined) })).toBe(
      DEFAULT_SES_MAX_SEND_RATE,
    );
    expect(DEFAULT_SES_MAX_SEND_RATE).toBe(14);
  });
});
