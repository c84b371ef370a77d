/**
 * The shared rate limit at a realistic limit (100 a minute here), through HTTP against the local
 * runtime with two instances of every handler (two warm Lambdas): each instance counts in memory
 * and adds its count to the project's window item every few requests (shared/http/rate-limit.ts).
 *
 * - Writes: the window item is written about once per RATE_LIMIT_FLUSH_EVERY requests, counted in
 *   write units by the benchmarks' meter (bench/capacity.ts), not once per request.
 * - Headers: one instance alone is exact (RateLimit-Remaining counts down by one, the 429 comes
 *   at the limit with Retry-After).
 * - Across instances: what one instance has not added yet lets the other overshoot, by at most
 *   RATE_LIMIT_FLUSH_EVERY - 1 per instance, and never refuses early.
 *
 * Windows are moved with the runtime's clock (one window per test), never waited for.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { meterCapacity } from '../../bench/capacity';
import { RATE_LIMIT_FLUSH_EVERY } from '../../shared/http/rate-limit';
import { type LocalTestInstance, useLocalRuntime } from './helpers/local';

const LIMIT = 100;
let nowMs = Date.parse('2026-03-01T00:00:00Z');
const clock = { now: () => new Date(nowMs) };
const rt = useLocalRuntime({ env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) }, clock });

let meter: ReturnType<typeof meterCapacity>;
beforeAll(() => {
  meter = meterCapacity(rt.runtime.dynamo.db);
});

/** Write units spent on rate-limit windows since the last call. */
function windowWriteUnits(): number {
  return meter
    .reset()
    .writes.filter((w) => w.entity === 'rateWindow')
    .reduce((sum, w) => sum + w.table + w.indexes.reduce((s, i) => s + i.units, 0), 0);
}

type Caller = Pick<LocalTestInstance, 'api'>;

/** `n` GET /contacts through `caller`, one after another; answers their statuses and headers. */
async function gets(caller: Caller, n: number) {
  const out: { status: number; headers: Record<string, string> }[] = [];
  for (let i = 0; i < n; i++) {
    const res = await caller.api('GET', '/contacts?limit=1');
    out.push({ status: res.status, headers: res.headers as Record<string, string> });
  }
  return out;
}

describe('shared rate limit, counted in memory per instance', () => {
  it('writes the window about once per ten requests, with exact headers on one instance', async () => {
    nowMs = Date.parse('2026-03-01T00:10:20Z');
    windowWriteUnits();
    const answers = await gets(rt, LIMIT + 3);
    const units = windowWriteUnits();
    // 1 for the first request, then one per min(10, remaining / 10) requests, so closer together
    // as the window fills, and one per request once fewer than 20 remain: 37 for the 100
    // admitted, nothing for the refused ones (one per request, 103, before the in-memory count).
    console.log(`rate-window write units for ${LIMIT + 3} requests: ${units}`);
    expect(units).toBeLessThanOrEqual(40);
    expect(units).toBeGreaterThan(0);
    expect(answers.map((a) => a.status)).toEqual([
      ...Array.from({ length: LIMIT }, () => 200),
      429,
      429,
      429,
    ]);
    answers.slice(0, LIMIT).forEach((a, i) => {
      expect(a.headers['ratelimit-limit']).toBe(String(LIMIT));
      expect(a.headers['ratelimit-remaining']).toBe(String(LIMIT - 1 - i));
      expect(a.headers['ratelimit-reset']).toBe('40');
    });
    const refused = answers[LIMIT]!;
    expect(refused.headers['retry-after']).toBe('40');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
  });

  it('costs about one write unit per RATE_LIMIT_FLUSH_EVERY requests far from the limit', async () => {
    nowMs = Date.parse('2026-03-01T00:20:00Z');
    windowWriteUnits();
    await gets(rt, 50);
    // Writes at requests 1, 10, 19, 27, 34, 40 and 46 (every 9, 8, 7, 6 as the remainder allows).
    expect(windowWriteUnits()).toBeLessThanOrEqual(7);
  });

  it('holds across two instances within the documented overshoot, never refusing early', async () => {
    nowMs = Date.parse('2026-03-01T00:30:00Z');
    const second = await rt.startAnotherInstance();
    try {
      // The second instance admits 9 requests and adds only the first: 8 the first cannot see.
      const hidden = await gets(second, 9);
      expect(hidden.every((a) => a.status === 200)).toBe(true);
      // The first runs the window down to what it sees as the limit.
      const first = await gets(rt, LIMIT);
      const admittedFirst = first.filter((a) => a.status === 200).length;
      expect(admittedFirst).toBe(LIMIT - 1);
      expect(first.at(-1)!.status).toBe(429);
      // The second adds its count with its next request and learns the window is over.
      const late = await gets(second, 3);
      expect(late.map((a) => a.status)).toEqual([429, 429, 429]);
      const admitted = 9 + admittedFirst;
      expect(admitted).toBeGreaterThanOrEqual(LIMIT);
      expect(admitted).toBeLessThanOrEqual(LIMIT + 2 * (RATE_LIMIT_FLUSH_EVERY - 1));
      // A new window starts afresh on both.
      nowMs = Date.parse('2026-03-01T00:31:00Z');
      expect((await second.api('GET', '/contacts?limit=1')).status).toBe(200);
      expect((await rt.api('GET', '/contacts?limit=1')).status).toBe(200);
    } finally {
      await second.stop();
    }
  });
});
