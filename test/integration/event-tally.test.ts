/**
 * The event tally (shared/events/tally.ts): event counters written off the request path, in
 * batches, exactly once whatever stops midway or runs twice.
 */
import { describe, expect, it } from 'vitest';
import { type EventRecord, getTallyState, putEvent } from '../../shared/events/repository';
import { runTally, TALLY_BATCH_EVENTS, TALLY_DELAY_S, TALLY_SETTLE_MS } from '../../shared/events/tally';
import { keys } from '../../shared/table';
import { uniqueEmail } from './helpers/contacts';
import { freshEventsProject } from './helpers/events';
import { type StoreCall, StoreFaults, watchedDeps } from './helpers/faults';
import { useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

const freshProject = (name: string) => freshEventsProject(rt, name);

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
    const event: EventRecord = {
      id: rt.deps.ids.uuid(),
      projectId,
      contactId,
      name,
      data: {},
      createdAt: new Date(at + i).toISOString(),
    };
    // Written "on time" (the writer's clock at the event's time): left to the tally.
    await putEvent(rt.deps, event, new Date(at + i));
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
    await rt.runtime.clock.advance(TALLY_DELAY_S);
    await rt.drain();
    expect(await p.names()).toEqual(['signup:2', 'login:1']);
    expect((await p.api('GET', '/events/stats')).body).toMatchObject({ total: 3, last24Hours: 3 });
  });

  it('arms one tally message for a burst of events through HTTP, not one per event', async () => {
    const p = await freshProject('burst');
    const queue = rt.runtime.queue;
    const send = queue.send.bind(queue);
    const tallies: unknown[] = [];
    queue.send = async (name, message, options) => {
      if (message.type === 'events.tally') tallies.push(message);
      return send(name, message, options);
    };
    try {
      for (let i = 0; i < 5; i++) await p.track(uniqueEmail('burst'), 'burst');
    } finally {
      queue.send = send;
    }
    expect(tallies).toEqual([{ type: 'events.tally', projectId: p.id }]);
  });

  it('counts an event written late, in the hour of its own time, though the tally had passed that time', async () => {
    const p = await freshProject('late');
    const contact = rt.deps.ids.uuid();
    await seed(p.id, contact, 'early', 1);
    await rt.runtime.clock.advance(TALLY_DELAY_S);
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
    await rt.runtime.clock.advance(TALLY_DELAY_S);
    expect(await runTally(deps, p.id)).toBe('done');
    // Begin, two names, the contact's event count, the hour, the day and the minute of the
    // activity counters (more if the seconds between the events crossed one), end.
    const of = (kind: string) => writes.filter((w) => w === kind).length;
    expect([of('EVTALLY'), of('EVNAMES'), of(contact)]).toEqual([2, 2, 1]);
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
    await rt.runtime.clock.advance(TALLY_DELAY_S);
    // Writes of a run: begin (the tally item), the name and hour counters (in parallel), end.
    const counter = (c: StoreCall) => c.op === 'update' && /#EV(NAMES|HOURS)$/.test(c.key?.pk ?? '');
    const tallyItem = (c: StoreCall) => c.op === 'update' && (c.key?.pk ?? '').endsWith('#EVTALLY');
    const faults = new StoreFaults();
    if (nth < 3) faults.failAt(counter, nth);
    else faults.failAt(tallyItem, 2);
    const crashing = faults.inject(rt.deps);
    await expect(runTally(crashing, p.id)).rejects.toThrow('simulated crash');
    expect((await getTallyState(rt.deps, p.id)).pending).toBeDefined();
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
    await rt.runtime.clock.advance(TALLY_DELAY_S);
    // The run stops once every counter (the usage ones too) is written, before the batch ends.
    const tallyItem = (c: StoreCall) => c.op === 'update' && (c.key?.pk ?? '').endsWith('#EVTALLY');
    const faults = new StoreFaults();
    faults.failAt(tallyItem, 2);
    await expect(runTally(faults.inject(rt.deps), p.id)).rejects.toThrow('simulated crash');
    expect(await rt.deps.store.get(keys.billingUsage(p.id, now.toISOString().slice(0, 7)))).toMatchObject({
      transactional: 2,
    });
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
    await rt.runtime.clock.advance(TALLY_DELAY_S);
    await Promise.all([runTally(rt.deps, p.id), runTally(rt.deps, p.id), runTally(rt.deps, p.id)]);
    expect(await p.names()).toEqual(['y:25', 'x:1']);
  });

  it('leaves unsettled events for a later run', async () => {
    const p = await freshProject('unsettled');
    // Seeded, not tracked: no tally is armed, so the runs below are the only ones.
    const contact = rt.deps.ids.uuid();
    await seed(p.id, contact, 'old', 1);
    await rt.runtime.clock.advance(TALLY_DELAY_S);
    await seed(p.id, contact, 'fresh', 2, 1000);
    await runTally(rt.deps, p.id);
    expect(await p.names()).toEqual(['old:1']);
    await rt.runtime.clock.advance(TALLY_SETTLE_MS / 1000);
    await runTally(rt.deps, p.id);
    expect(await p.names()).toEqual(['fresh:2', 'old:1']);
  });

  it('works through more events than one batch holds, in batches', async () => {
    const p = await freshProject('large');
    // Seeded, not tracked: no tally is armed, so the runs below are the only ones.
    const contact = rt.deps.ids.uuid();
    await seed(p.id, contact, 'one', 1);
    await seed(p.id, contact, 'lots', TALLY_BATCH_EVENTS + 20);
    await rt.runtime.clock.advance(TALLY_DELAY_S);
    expect(await runTally(rt.deps, p.id)).toBe('done');
    expect(await p.names()).toEqual([`lots:${TALLY_BATCH_EVENTS + 20}`, 'one:1']);
    const hours = await rt.deps.store.queryAll({ partition: keys.eventHoursPartition(p.id) });
    let total = 0;
    for await (const h of hours) total += Number(h.count);
    expect(total).toBe(TALLY_BATCH_EVENTS + 21);
  });
});
