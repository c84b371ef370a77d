/**
 * The local clock through HTTP (decisions.md, "Local runtime"): `GET /_local/clock` answers
 * `{now}`, `POST /_local/clock {advance: seconds}` moves the time of every handler forward (never
 * back) and fires what fell due: one-off schedules and recurring ones.
 */
import type { Context, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createHandler as jobsHandler } from '../../functions/queues/jobs';
import type { Deps } from '../../shared/ports';
import { useLocalRuntime } from './helpers/local';

/** Messages of type `clock.ping` the jobs worker saw (the rest go to the real worker). */
const pings: { id: unknown; receivedAt: number }[] = [];
const scheduledRuns: string[] = [];

const rt = useLocalRuntime({
  // Recurring schedules on: an advance must run the ones that fell due.
  recurringSchedules: true,
  handlers: {
    queues: {
      jobs: (deps: Deps) => {
        const real = jobsHandler(deps);
        return async (event: SQSEvent, context: Context) => {
          const rest = event.Records.filter((r) => {
            const body = JSON.parse(r.body) as { type?: string; id?: unknown };
            if (body.type !== 'clock.ping') return true;
            pings.push({ id: body.id, receivedAt: deps.clock.now().getTime() });
            return false;
          });
          return rest.length > 0 ? real({ Records: rest }, context) : { batchItemFailures: [] };
        };
      },
    },
    schedules: {
      'domain-check': (deps: Deps) => async () => {
        scheduledRuns.push(deps.clock.now().toISOString());
      },
    },
  },
});

const clockNow = async () => {
  const res = await rt.api('GET', '/_local/clock', { key: null });
  expect(res.status).toBe(200);
  return Date.parse(res.body.now);
};
const advance = (body: unknown) =>
  rt.api('POST', '/_local/clock', {
    key: null,
    ...(typeof body === 'string' ? { raw: body, headers: { 'content-type': 'application/json' } } : { body }),
  });

const MINUTE = 60_000;

describe('GET/POST /_local/clock', () => {
  it('answers {now}: the system time before any advance', async () => {
    const res = await rt.api('GET', '/_local/clock', { key: null });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['now']);
    expect(res.body.now).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Math.abs(Date.parse(res.body.now) - Date.now())).toBeLessThan(5000);
  });

  it('moves the time forward, and API responses carry the moved time', async () => {
    const before = await clockNow();
    const res = await advance({ advance: 3600 });
    expect(res.status).toBe(200);
    const moved = Date.parse(res.body.now);
    expect(moved - before).toBeGreaterThanOrEqual(3600_000);
    expect(moved - before).toBeLessThan(3600_000 + 5000);
    expect(Math.abs((await clockNow()) - moved)).toBeLessThan(5000);

    const created = await rt.api('POST', '/contacts', { body: { email: 'clock@later.test' } });
    expect(created.status).toBe(201);
    expect(Math.abs(Date.parse(created.body.createdAt) - moved)).toBeLessThan(5000);

    const missing = await rt.api('GET', '/contacts/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(Math.abs(Date.parse(missing.body.timestamp) - moved)).toBeLessThan(5000);
    expect(Date.parse(missing.body.timestamp) - Date.now()).toBeGreaterThan(3500_000);
  });

  it('refuses anything but a positive number of seconds, and does not move', async () => {
    const before = await clockNow();
    for (const body of [{ advance: -60 }, { advance: 0 }, { advance: 'ten' }, { advance: null }, {}, [60]]) {
      const res = await advance(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toEqual({ message: expect.stringMatching(/advance/) });
    }
    expect((await advance({ advance: -60 })).body.message).toMatch(/never goes back/);
    const notJson = await advance('{advance: 60');
    expect(notJson.status).toBe(400);
    expect(notJson.body.message).toMatch(/JSON/);
    expect((await clockNow()) - before).toBeLessThan(5000);
  });

  it('is the runtime object clock too (runtime.clock.advance)', async () => {
    const before = await clockNow();
    await rt.runtime.clock.advance(120);
    expect((await clockNow()) - before).toBeGreaterThanOrEqual(120_000);
    // The same clock (two readings a millisecond apart could differ, so not compared by value).
    expect(rt.deps.clock).toBe(rt.runtime.clock);
  });
});

describe('advancing fires what fell due', () => {
  it('delivers a one-off schedule once the clock passes its time, not before', async () => {
    const at = new Date((await clockNow()) + 2 * 60 * MINUTE);
    await rt.deps.scheduler.scheduleAt({
      name: 'clock-test-ping',
      at,
      queue: 'jobs',
      message: { type: 'clock.ping', id: 'p1' },
    });
    const listed = await rt.api('GET', '/_local/schedules', { key: null });
    expect(listed.body.oneOff).toContainEqual(
      expect.objectContaining({ name: 'clock-test-ping', at: at.toISOString() }),
    );

    expect((await advance({ advance: 3600 })).status).toBe(200);
    await rt.drain();
    expect(pings).toEqual([]);

    expect((await advance({ advance: 3601 })).status).toBe(200);
    await rt.drain();
    expect(pings.map((p) => p.id)).toEqual(['p1']);
    expect(pings[0]!.receivedAt).toBeGreaterThanOrEqual(at.getTime());
    const after = await rt.api('GET', '/_local/schedules', { key: null });
    expect(after.body.oneOff.map((s: { name: string }) => s.name)).not.toContain('clock-test-ping');
  });

  it('runs a recurring schedule whose run fell due (once per advance)', async () => {
    const runsBefore = scheduledRuns.length;
    const listed = await rt.api('GET', '/_local/schedules', { key: null });
    const domainCheck = listed.body.recurring.find((r: { name: string }) => r.name === 'domain-check');
    expect(domainCheck).toMatchObject({ expression: 'rate(5 minutes)', nextRun: expect.any(String) });
    const nextRun = Date.parse(domainCheck.nextRun);
    const now = await clockNow();
    await advance({ advance: Math.ceil((nextRun - now) / 1000) + 1 });
    for (let i = 0; i < 100 && scheduledRuns.length === runsBefore; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(scheduledRuns.length).toBe(runsBefore + 1);
    expect(Date.parse(scheduledRuns.at(-1)!)).toBeGreaterThanOrEqual(nextRun);
  });
});
