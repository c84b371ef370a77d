/**
 * Counts within seconds (shared/events/tally.ts, the first pass): an event accepted over HTTP is in
 * every counter-backed read once the runtime's clock is 5 s past it, through the tally message the
 * request armed and nothing else; and a burst arms one message per pass, not one per event.
 *
 * Queue delays here take real seconds (as under `npm start`), so the armed message waits its
 * delay (`TALLY_DELAY_S`) unless the clock is moved past it; nothing asserts how long anything takes.
 */
import { describe, expect, it } from 'vitest';
import { TALLY_ARM_INTERVAL_MS, TALLY_DELAY_S, TALLY_SETTLE_DELAY_S } from '../../shared/events/tally';
import { fastTimings } from '../../shared/local/runtime';
import { uniqueEmail } from './helpers/contacts';
import { freshEventsProject } from './helpers/events';
import { type Json, useLocalRuntime } from './helpers/local';

/** Real queue delays; the runtime's clock runs with the system's. */
const rt = useLocalRuntime({ timings: { ...fastTimings, msPerDelaySecond: 1000 } });

/** A clock that stands still unless moved: the burst's arms depend on it alone. */
const still = { now: () => new Date(Date.UTC(2026, 11, 3, 9, 0, 0)) };
const frozen = useLocalRuntime({ clock: still });

/** Resolves once `read` answers what `done` accepts; a bound on a hang, not a duration to meet. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const bound = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > bound) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('counts within seconds', () => {
  it('shows a tracked event in names, event stats, activity stats, types and the recent count 5 s after it', async () => {
    const p = await freshEventsProject(rt, 'seconds');
    const email = uniqueEmail('seconds');
    const { contact } = await p.track(email, 'signup');
    await p.track(email, 'signup');
    // (That the requests write no counter themselves: test/integration/event-tally.test.ts.)
    expect(TALLY_DELAY_S).toBeLessThan(5);
    // Five seconds on the runtime's clock: the message the first request armed is due.
    await rt.runtime.clock.advance(5);
    await until(p.names, (names) => names.length > 0, 'event names');
    expect(await p.names()).toEqual(['signup:2']);
    const get = async (path: string, query?: Record<string, string | number>) =>
      (await p.api('GET', path, query ? { query } : {})).body as Json;
    expect(await get('/events/stats')).toMatchObject({ total: 2, last24Hours: 2 });
    expect(await get('/activity/stats')).toMatchObject({ totalEvents: 2 });
    expect((await get('/activity/types')).types).toEqual(['event.tracked']);
    expect(await get('/activity/recent-count', { minutes: 5 })).toEqual({ count: 2, minutes: 5 });
    expect((await get(`/events/contact/${contact}`)).total).toBe(2);
  });

  it('counts a later event through the message its own request arms', async () => {
    const p = await freshEventsProject(rt, 'seconds-two');
    await p.track(uniqueEmail('two'), 'a');
    await rt.runtime.clock.advance(5);
    await until(p.names, (names) => names.length > 0, 'event names');
    // A later event arms its own message (the interval has passed on the clock).
    await p.track(uniqueEmail('two'), 'b');
    await rt.runtime.clock.advance(5);
    await until(p.names, (names) => names.length > 1, 'event names');
    expect((await p.names()).sort()).toEqual(['a:1', 'b:1']);
  });
});

describe('arming the tally', () => {
  it('arms one message per pass for a burst of events through HTTP, not one per event', async () => {
    const p = await freshEventsProject(frozen, 'burst');
    const queue = frozen.runtime.queue;
    const send = queue.send.bind(queue);
    const delays: number[] = [];
    queue.send = async (name, message, options) => {
      // Arms only: a tally run that meets a batch another run holds, or comes too soon after the
      // last one, sends itself again a moment later (shared/events/tally.ts), which arms nothing.
      const delay = options?.delaySeconds ?? 0;
      const armed = delay === TALLY_DELAY_S || delay === TALLY_SETTLE_DELAY_S;
      if (message.type === 'events.tally' && message.projectId === p.id && armed && !message.spaced)
        delays.push(delay);
      return send(name, message, options);
    };
    try {
      for (let i = 0; i < 5; i++) await p.track(uniqueEmail('burst'), 'burst');
      expect(delays.sort((a, b) => a - b)).toEqual([TALLY_DELAY_S, TALLY_SETTLE_DELAY_S]);
      // An interval later on the clock: a new first-pass message; the second pass's is still armed.
      await frozen.runtime.clock.advance(TALLY_ARM_INTERVAL_MS / 1000);
      await p.track(uniqueEmail('burst'), 'burst');
      expect(delays).toEqual([TALLY_DELAY_S, TALLY_SETTLE_DELAY_S, TALLY_DELAY_S]);
      await frozen.runtime.clock.advance(60);
      await p.track(uniqueEmail('burst'), 'burst');
      expect(delays.slice(3).sort((a, b) => a - b)).toEqual([TALLY_DELAY_S, TALLY_SETTLE_DELAY_S]);
    } finally {
      queue.send = send;
    }
  });
});
