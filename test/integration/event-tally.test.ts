/**
 * The event tally (shared/events/tally.ts): event counters written off the request path, in
 * batches, exactly once whatever stops midway or runs twice.
 */
import { describe, expect, it } from 'vitest';
import {
  applyTally,
  contactEventTotal,
  type EventRecord,
  getTallyState,
  putEvent,
  type TallyBatch,
} from '../../shared/events/repository';
import {
  runTally,
  TALLY_BATCH_EVENTS,
  TALLY_FAST_SETTLE_MS,
  TALLY_MAX_DEFERRALS,
  TALLY_PENDING_FRESH_MS,
  TALLY_SETTLE_DELAY_S,
  TALLY_SETTLE_MS,
} from '../../shared/events/tally';
import { keys } from '../../shared/table';
import { uniqueEmail } from './helpers/contacts';
import { freshEventsProject } from './helpers/events';
import { type StoreCall, StoreFaults, watchedDeps } from './helpers/faults';
import { useLocalRuntime } from './helpers/local';

/**
 * The runtime's clock stands still unless a test moves it: events age only when a test says so,
 * so what the tally may count when its messages run (fast here) does not depend on the machine.
 */
const rt = useLocalRuntime({ clock: { now: () => new Date(Date.UTC(2026, 11, 3, 9, 0, 0)) } });

const freshProject = (name: string) => freshEventsProject(rt, name);

/** Moves the clock past the time a pending batch is left to the run that began it. */
const pastFresh = () => rt.runtime.clock.advance(TALLY_PENDING_FRESH_MS / 1000 + 1);

/** An event of the project's contact, at `at`. */
const eventAt = (projectId: string, contactId: string, name: string, at: Date): EventRecord => ({
  id: rt.deps.ids.uuid(),
  projectId,
  contactId,
  name,
  data: {},
  createdAt: at.toISOString(),
});

/** Events written straight to the store, `ageMs` before now (settled: older than the settle time). */
async function seed(
  projectId: string,
  contactId: string,
  name: string,
  n: number,
  ageMs = TALLY_SETTLE_MS * 2,
) {
  const at = rt.deps.clock.now().getTime() - ageMs;
  for (let i = 0; i < n; i++) {
    // Written "on time" (the writer's clock at the event's time): left to the tally.
    await putEvent(rt.deps, eventAt(projectId, contactId, name, new Date(at + i)), new Date(at + i));
  }
}

describe('the event tally', () => {
  it('counts tracked events once they settle, through the tally the request armed, without writing counters on the request', async () => {
    const p = await freshProject('armed');
    const email = uniqueEmail('t');
    await p.track(email, 'signup');
    await p.track(email, 'signup');
    await p.track(email, 'login');
    // Nothing counted yet: the requests wrote the events alone.
    expect(await p.names()).toEqual([]);
    // The armed message waits out its delay; moving the clock past it runs it (no other help).
    await rt.runtime.clock.advance(TALLY_SETTLE_DELAY_S);
    await rt.drain();
    expect(await p.names()).toEqual(['signup:2', 'login:1']);
    expect((await p.api('GET', '/events/stats')).body).toMatchObject({ total: 3, last24Hours: 3 });
  });

  it('counts an event written late, in the hour of its own time, though the tally had passed that time', async () => {
    const p = await freshProject('late');
    const contact = rt.deps.ids.uuid();
    await seed(p.id, contact, 'early', 1);
    await rt.runtime.clock.advance(TALLY_SETTLE_DELAY_S);
    await runTally(rt.deps, p.id);
    expect(await p.names()).toEqual(['early:1']);
    const through = (await getTallyState(rt.deps, p.id)).through;
    // An event three hours old, written now (a replay, an SES event out of a backlog).
    const old = new Date(rt.deps.clock.now().getTime() - 3 * 3_600_000);
    expect(old.toISOString() < through).toBe(true);
    const late: EventRecord = {
      id: rt.deps.ids.uuid(),
      projectId: p.id,
      contactId: contact,
      name: 'late',
      data: {},
      createdAt: old.toISOString(),
    };
    expect(await putEvent(rt.deps, late, rt.deps.clock.now())).toBe(true);
    expect(await putEvent(rt.deps, late, rt.deps.clock.now())).toBe(false);
    // Its writer counted nothing; the next tally does, once.
    expect((await p.names()).sort()).toEqual(['early:1']);
    await rt.runtime.clock.advance(TALLY_SETTLE_MS / 1000 + 1);
    await runTally(rt.deps, p.id);
    await runTally(rt.deps, p.id);
    expect((await p.names()).sort()).toEqual(['early:1', 'late:1']);
    const hour = await rt.deps.store.get(keys.eventHour(p.id, old.toISOString().slice(0, 13)));
    expect(hour).toMatchObject({ count: 1 });
  });

  it('writes one counter per name and hour for a whole batch', async () => {
    const p = await freshProject('batch');
    // Seeded, not tracked: no tally is armed, so the runs below are the only ones.
    const contact = rt.deps.ids.uuid();
    await seed(p.id, contact, 'first', 1);
    await seed(p.id, contact, 'many', 40);
    const writes: string[] = [];
    const deps = watchedDeps(rt.deps, {
      after: (call) => {
        if (call.op === 'update' || call.op === 'put')
          writes.push(String(call.key?.pk).split('#').at(-1) ?? '');
      },
    });
    await rt.runtime.clock.advance(TALLY_SETTLE_DELAY_S);
    expect(await runTally(deps, p.id)).toBe('done');
    // Begin, two names, the hour, the day and the minute of the activity counters (more if the
    // seconds between the events crossed one), the batch's window (in the tally's partition), end.
    // No contact count: the second pass keeps those.
    const of = (kind: string) => writes.filter((w) => w === kind).length;
    expect([of('EVTALLY'), of('EVNAMES'), of(contact)]).toEqual([3, 2, 0]);
    for (const bucket of ['EVHOURS', 'EVDAYS', 'EVMINUTES'])
      expect(of(bucket), bucket).toBeGreaterThanOrEqual(1);
    expect(of('EVMINUTES')).toBeLessThanOrEqual(2);
    expect(writes.length).toBe(5 + of('EVHOURS') + of('EVDAYS') + of('EVMINUTES'));
    expect(await p.names()).toEqual(['many:40', 'first:1']);
  });

  it.each([
    ['before any counter', 1],
    ['after one counter', 2],
    ['after every counter, before the batch ends', 3],
  ])('a tally that stops %s is finished by the next run, counting each event once', async (_, nth) => {
    const p = await freshProject(`crash-${nth}`);
    // Seeded, not tracked: no tally is armed, so the runs below are the only ones.
    const contact = rt.deps.ids.uuid();
    await seed(p.id, contact, 'a', 1);
    await seed(p.id, contact, 'b', 3);
    await rt.runtime.clock.advance(TALLY_SETTLE_DELAY_S);
    // Writes of a run: begin (the tally item), the name and hour counters (in parallel), end.
    const counter = (c: StoreCall) => c.op === 'update' && /#EV(NAMES|HOURS)$/.test(c.key?.pk ?? '');
    const tallyItem = (c: StoreCall) => c.op === 'update' && (c.key?.pk ?? '').endsWith('#EVTALLY');
    const faults = new StoreFaults();
    if (nth < 3) faults.failAt(counter, nth);
    else faults.failAt(tallyItem, 2);
    const crashing = faults.inject(rt.deps);
    await expect(runTally(crashing, p.id)).rejects.toThrow('simulated crash');
    expect((await getTallyState(rt.deps, p.id)).pending).toBeDefined();
    await pastFresh();
    await runTally(rt.deps, p.id);
    await runTally(rt.deps, p.id);
    expect((await getTallyState(rt.deps, p.id)).pending).toBeUndefined();
    expect(await p.names()).toEqual(['b:3', 'a:1']);
    expect((await p.api('GET', '/events/stats')).body.total).toBe(4);
  });

  it('adds uncapped sends to the month of their `email.sent` event, once, though the batch is applied again after a crash', async () => {
    const p = await freshProject('usage');
    const contact = rt.deps.ids.uuid();
    const now = rt.deps.clock.now();
    const sent = (category: 'transactional' | 'workflows', at: Date): EventRecord => ({
      id: rt.deps.ids.uuid(),
      projectId: p.id,
      contactId: contact,
      name: 'email.sent',
      data: {},
      createdAt: at.toISOString(),
      tallyUsage: category,
    });
    const settled = new Date(now.getTime() - TALLY_SETTLE_MS * 2);
    for (const category of ['transactional', 'transactional', 'workflows'] as const)
      await putEvent(rt.deps, sent(category, settled), settled);
    // Written late (a replay): last month's send, counted in last month.
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 0, 12));
    await putEvent(rt.deps, sent('transactional', lastMonth), now);
    // Reserved by its sender (a cap was set): no mark, not counted here.
    await putEvent(rt.deps, { ...sent('transactional', settled), tallyUsage: undefined }, settled);
    await rt.runtime.clock.advance(TALLY_SETTLE_DELAY_S);
    // The run stops once every counter (the usage ones too) is written, before the batch ends.
    const tallyItem = (c: StoreCall) => c.op === 'update' && (c.key?.pk ?? '').endsWith('#EVTALLY');
    const faults = new StoreFaults();
    faults.failAt(tallyItem, 2);
    await expect(runTally(faults.inject(rt.deps), p.id)).rejects.toThrow('simulated crash');
    expect(await rt.deps.store.get(keys.billingUsage(p.id, now.toISOString().slice(0, 7)))).toMatchObject({
      transactional: 2,
    });
    await pastFresh();
    await runTally(rt.deps, p.id);
    await runTally(rt.deps, p.id);
    const month = (at: Date) => rt.deps.store.get(keys.billingUsage(p.id, at.toISOString().slice(0, 7)));
    expect(await month(now)).toMatchObject({ transactional: 2, workflows: 1 });
    expect((await month(now))?.campaigns).toBeUndefined();
    expect(await month(lastMonth)).toMatchObject({ transactional: 1 });
    expect(await p.names()).toEqual(['email.sent:5']);
  });

  it('two runs at once count each event once', async () => {
    const p = await freshProject('twice');
    // Seeded, not tracked: no tally is armed, so the runs below are the only ones.
    const contact = rt.deps.ids.uuid();
    await seed(p.id, contact, 'x', 1);
    await seed(p.id, contact, 'y', 25);
    await rt.runtime.clock.advance(TALLY_SETTLE_DELAY_S);
    await Promise.all([runTally(rt.deps, p.id), runTally(rt.deps, p.id), runTally(rt.deps, p.id)]);
    expect(await p.names()).toEqual(['y:25', 'x:1']);
  });

  it('a run that meets a batch another run began moments ago leaves it to that run, and tries again a second later, a few times at most', async () => {
    const p = await freshProject('in-hand');
    const contact = rt.deps.ids.uuid();
    await seed(p.id, contact, 'h', 3);
    // A run begins a batch and is still applying it (stopped here, as a slow run would be).
    const faults = new StoreFaults();
    faults.failAt((c) => c.op === 'update' && /#EVNAMES$/.test(c.key?.pk ?? ''), 1);
    await expect(runTally(faults.inject(rt.deps), p.id)).rejects.toThrow('simulated crash');
    const sent: { delaySeconds?: number }[] = [];
    const queue = {
      send: async (_: string, _message: unknown, o?: { delaySeconds?: number }) => void sent.push(o ?? {}),
    };
    const writes: string[] = [];
    const watched = watchedDeps(
      { ...rt.deps, queue },
      { after: (call) => (call.op === 'update' || call.op === 'put' ? writes.push(call.op) : undefined) },
    );
    expect(await runTally(watched, p.id)).toBe('deferred');
    expect(writes).toEqual([]);
    expect(sent).toEqual([{ delaySeconds: 1 }]);
    expect(await p.names()).toEqual([]);
    // Not forever, though (a killed run's batch stays fresh a while, and SQS may deliver each of
    // these messages twice): after its last deferral a message applies the batch itself.
    expect(await runTally(watched, p.id, { deferrals: TALLY_MAX_DEFERRALS - 1 })).toBe('deferred');
    expect(await runTally(watched, p.id, { deferrals: TALLY_MAX_DEFERRALS })).toBe('done');
    expect(await p.names()).toEqual(['h:3']);
    // Applied once, though the run that began it may finish it too.
    await pastFresh();
    expect(await runTally(rt.deps, p.id)).toBe('done');
    expect(await p.names()).toEqual(['h:3']);
  });

  it('begins a first-pass batch at most once a spacing per project: a run that comes sooner sends itself a moment later', async () => {
    const p = await freshProject('spaced');
    const contact = rt.deps.ids.uuid();
    await seed(p.id, contact, 's', 1, 10_000);
    expect(await runTally(rt.deps, p.id)).toBe('done');
    await seed(p.id, contact, 's', 1, 0);
    await rt.runtime.clock.advance(0.6);
    const sent: { message: unknown; delaySeconds?: number }[] = [];
    const queue = {
      send: async (_: string, message: unknown, o?: { delaySeconds?: number }) =>
        void sent.push({ message, ...o }),
    };
    expect(await runTally({ ...rt.deps, queue }, p.id)).toBe('deferred');
    expect(sent).toEqual([
      { message: { type: 'events.tally', projectId: p.id, spaced: true }, delaySeconds: 1 },
    ]);
    expect(await p.names()).toEqual(['s:1']);
    // The message it sent runs the first pass, however soon.
    expect(await runTally(rt.deps, p.id, { spaced: true })).toBe('done');
    expect(await p.names()).toEqual(['s:2']);
  });

  it('leaves unsettled events for a later run', async () => {
    const p = await freshProject('unsettled');
    // Seeded, not tracked: no tally is armed, so the runs below are the only ones.
    const contact = rt.deps.ids.uuid();
    await seed(p.id, contact, 'old', 1);
    await rt.runtime.clock.advance(TALLY_SETTLE_DELAY_S);
    // Written now: younger than the first pass's settle time.
    await seed(p.id, contact, 'fresh', 2, 0);
    await runTally(rt.deps, p.id);
    expect(await p.names()).toEqual(['old:1']);
    await rt.runtime.clock.advance(TALLY_FAST_SETTLE_MS / 1000 + 1);
    await runTally(rt.deps, p.id);
    expect(await p.names()).toEqual(['fresh:2', 'old:1']);
  });

  it('works through more events than one batch holds, in batches', async () => {
    const p = await freshProject('large');
    // Seeded, not tracked: no tally is armed, so the runs below are the only ones.
    const contact = rt.deps.ids.uuid();
    await seed(p.id, contact, 'one', 1);
    await seed(p.id, contact, 'lots', TALLY_BATCH_EVENTS + 20);
    await rt.runtime.clock.advance(TALLY_SETTLE_DELAY_S);
    expect(await runTally(rt.deps, p.id)).toBe('done');
    expect(await p.names()).toEqual([`lots:${TALLY_BATCH_EVENTS + 20}`, 'one:1']);
    const hours = await rt.deps.store.queryAll({ partition: keys.eventHoursPartition(p.id) });
    let total = 0;
    for await (const h of hours) total += Number(h.count);
    expect(total).toBe(TALLY_BATCH_EVENTS + 21);
  });
});

describe('the second pass', () => {
  /** An event of `ageMs` ago written now, as a slow write lands: not late enough to be re-indexed. */
  async function land(projectId: string, contactId: string, name: string, ageMs: number) {
    const event = eventAt(projectId, contactId, name, new Date(rt.deps.clock.now().getTime() - ageMs));
    expect(await putEvent(rt.deps, event, rt.deps.clock.now())).toBe(true);
    return event;
  }

  /** A project whose first pass has counted one `seen` event and stands after it. */
  async function counted(name: string) {
    const p = await freshProject(name);
    const contact = rt.deps.ids.uuid();
    await seed(p.id, contact, 'seen', 1, 10_000);
    await runTally(rt.deps, p.id);
    expect(await p.names()).toEqual(['seen:1']);
    return { p, contact };
  }

  it('counts, once, an event that landed behind the first pass, in its own hour, without moving its name back', async () => {
    const { p, contact } = await counted('missed');
    const { through } = await getTallyState(rt.deps, p.id);
    // Five seconds old when it lands: behind the first pass, which will not meet it.
    const missed = await land(p.id, contact, 'seen', 5_000);
    expect(`${missed.createdAt}#${missed.id}` < through).toBe(true);
    await runTally(rt.deps, p.id);
    expect(await p.names()).toEqual(['seen:1']);
    const before = (await p.api('GET', '/events/names')).body.names[0].lastSeenAt as string;
    // A newer event of the name, counted by the first pass, before the second pass runs.
    await land(p.id, contact, 'seen', 0);
    await rt.runtime.clock.advance(TALLY_FAST_SETTLE_MS / 1000 + 1);
    await runTally(rt.deps, p.id);
    expect(await p.names()).toEqual(['seen:2']);
    const after = (await p.api('GET', '/events/names')).body.names[0].lastSeenAt as string;
    expect(after > before).toBe(true);
    // Two minutes on: the second pass finds the one its windows do not hold, however often it runs.
    await rt.runtime.clock.advance(TALLY_SETTLE_MS / 1000 + 5);
    await runTally(rt.deps, p.id);
    await runTally(rt.deps, p.id);
    expect(await p.names()).toEqual(['seen:3']);
    expect((await p.api('GET', '/events/names')).body.names[0].lastSeenAt).toBe(after);
    expect(await contactEventTotal(rt.deps, p.id, contact)).toBe(3);
    let hours = 0;
    for await (const h of rt.deps.store.queryAll({ partition: keys.eventHoursPartition(p.id) }))
      hours += Number(h.count);
    expect(hours).toBe(3);
    const state = await getTallyState(rt.deps, p.id);
    expect(state.settled > `${missed.createdAt}#${missed.id}`).toBe(true);
    expect(state.settled <= state.through).toBe(true);
  });

  it('finds nothing to add when the first pass met every event', async () => {
    const { p } = await counted('complete');
    await rt.runtime.clock.advance(TALLY_SETTLE_MS / 1000 + 5);
    await runTally(rt.deps, p.id);
    expect(await p.names()).toEqual(['seen:1']);
    const state = await getTallyState(rt.deps, p.id);
    expect(state.settled).toBe(state.through);
  });

  it.each([
    ['before any counter', 1],
    ['after every counter, before the batch ends', 2],
  ])(
    'a settle batch that stops %s is finished by the next run, counting the missed event once',
    async (_, nth) => {
      const { p, contact } = await counted(`settle-crash-${nth}`);
      await land(p.id, contact, 'seen', 5_000);
      await rt.runtime.clock.advance(TALLY_SETTLE_MS / 1000 + 5);
      const tallyItem = (c: StoreCall) => c.op === 'update' && (c.key?.sk ?? '') === '#TALLY';
      const counter = (c: StoreCall) => c.op === 'update' && /#EVNAMES$/.test(c.key?.pk ?? '');
      const faults = new StoreFaults();
      // Writes of the settle batch: begin (the tally item), the counters (in parallel), end.
      if (nth === 1) faults.failAt(counter, 1);
      else faults.failAt(tallyItem, 2);
      await expect(runTally(faults.inject(rt.deps), p.id)).rejects.toThrow('simulated crash');
      expect((await getTallyState(rt.deps, p.id)).pending?.kind).toBe('settle');
      await pastFresh();
      await runTally(rt.deps, p.id);
      await runTally(rt.deps, p.id);
      expect((await getTallyState(rt.deps, p.id)).pending).toBeUndefined();
      expect(await p.names()).toEqual(['seen:2']);
      expect(await contactEventTotal(rt.deps, p.id, contact)).toBe(2);
    },
  );

  it('a batch applied again after a later batch changed the same counters adds nothing (a run that stalled)', async () => {
    const p = await freshProject('stalled');
    const contact = rt.deps.ids.uuid();
    await seed(p.id, contact, 'x', 2, 10_000);
    // The first batch is begun, then its run stops: a stalled run holds it.
    const faults = new StoreFaults();
    faults.failAt((c) => c.op === 'update' && /#EVNAMES$/.test(c.key?.pk ?? ''), 1);
    await expect(runTally(faults.inject(rt.deps), p.id)).rejects.toThrow('simulated crash');
    const stalled = (await getTallyState(rt.deps, p.id)).pending as TallyBatch;
    expect(stalled.seq).toBe(1);
    // Another run finishes it; a later batch counts more events of the same name and contact.
    await pastFresh();
    await runTally(rt.deps, p.id);
    await seed(p.id, contact, 'x', 3, 0);
    await rt.runtime.clock.advance(TALLY_FAST_SETTLE_MS / 1000 + 1);
    await runTally(rt.deps, p.id);
    expect(await p.names()).toEqual(['x:5']);
    // The stalled run wakes and applies its batch.
    await applyTally(rt.deps, p.id, stalled);
    expect(await p.names()).toEqual(['x:5']);
    expect((await p.api('GET', '/events/stats')).body.total).toBe(5);
    expect(await contactEventTotal(rt.deps, p.id, contact)).toBe(5);
  });

  it('deleting the events of a name lowers the counters by those counted, not by one the first pass missed', async () => {
    const { p, contact } = await counted('delete-missed');
    await land(p.id, contact, 'seen', 5_000);
    await runTally(rt.deps, p.id);
    expect(await p.names()).toEqual(['seen:1']);
    expect((await p.api('DELETE', '/events/seen')).status).toBe(202);
    await rt.drain();
    expect(await p.names()).toEqual([]);
    expect((await p.api('GET', '/events/stats')).body.total).toBe(0);
    // Neither comes back when the second pass runs: the missed one is gone before it is counted.
    await rt.runtime.clock.advance(TALLY_SETTLE_MS / 1000 + 5);
    await runTally(rt.deps, p.id);
    expect(await p.names()).toEqual([]);
    expect((await p.api('GET', '/events/stats')).body.total).toBe(0);
  });
});
