/**
 * The event seam on its own: `emit` stores an event once and, only when a listener's pattern
 * matches its name, enqueues one `events.dispatch` message before the write; the dispatch job
 * stores the event if the emitter stopped first and calls the listeners the message names.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { allListeners, domainListeners } from '../../../shared/events/catalog';
import {
  DISPATCH_EVENT_JOB,
  type DispatchEventMessage,
  dispatchEventJobMessage,
  emit,
  runDispatch,
} from '../../../shared/events/emit';
import { jobs as eventJobs } from '../../../shared/events/jobs';
import { defineListener, type EventListener, ListenerRegistry } from '../../../shared/events/registry';
import type { EventRecord } from '../../../shared/events/repository';
import {
  TALLY_ARM_INTERVAL_MS,
  TALLY_DELAY_S,
  TALLY_JOB,
  TALLY_SETTLE_DELAY_S,
} from '../../../shared/events/tally';
import { allJobs } from '../../../shared/jobs/catalog';
import type { JobMeta } from '../../../shared/jobs/registry';
import type { Deps } from '../../../shared/ports';
import { keyAttributes, keys } from '../../../shared/table';
import { memory } from './memory-store';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const meta: JobMeta = { messageId: 'm-1', receiveCount: 1, lastAttempt: false };

let seq = 0;
const event = (name: string, extra: Partial<EventRecord> = {}): EventRecord => ({
  id: `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`,
  projectId: 'p1',
  contactId: 'c1',
  name,
  data: { plan: 'pro' },
  email: 'ann@example.org',
  createdAt: '2026-11-21T20:15:00.000Z',
  ...extra,
});
const eventKey = (e: EventRecord) => keys.contactEvent(e.projectId, e.contactId, e.createdAt, e.id);

/** A listener that keeps what it was handed. */
function recorder(name: string, events: readonly string[], fail?: () => Error) {
  const calls: EventRecord[] = [];
  const listener = defineListener({
    name,
    events,
    handle: async (_deps, e) => {
      calls.push(e);
      if (fail) throw fail();
    },
  });
  return { listener, calls };
}

/** A clock `afterMs` past the test events' time (a second: written on time, not late). */
const clockAt = (afterMs = 1000) => ({
  now: () => new Date(Date.parse('2026-11-21T20:15:00.000Z') + afterMs),
});
const TALLY_ARMED = { type: TALLY_JOB, projectId: 'p1' };

/** Deps of the unit under test: an in-memory store and queue, a clock, and `listeners`. */
function depsWith(listeners: readonly EventListener[], afterMs?: number) {
  const m = memory();
  const deps = {
    store: m.store,
    queue: m.queue,
    clock: clockAt(afterMs),
    listeners: new ListenerRegistry(listeners),
  };
  return { m, deps, jobDeps: deps as unknown as Deps & typeof deps };
}

/** The dispatch messages sent (the queue also holds the tally armed for the events). */
const dispatches = (m: ReturnType<typeof memory>) =>
  m.queue.sent.filter((s) => s.type === DISPATCH_EVENT_JOB) as DispatchEventMessage[];

describe('listener registry', () => {
  const registry = new ListenerRegistry([
    recorder('exact', ['contact.unsubscribed']).listener,
    recorder('emails', ['email.*']).listener,
    recorder('all', ['*']).listener,
  ]);
  const names = (eventName: string) => registry.matching(eventName).map((l) => l.name);

  it('matches a name exactly, by `<prefix>.*`, or every name with `*`', () => {
    expect(names('contact.unsubscribed')).toEqual(['exact', 'all']);
    expect(names('contact.subscribed')).toEqual(['all']);
    expect(names('email.sent')).toEqual(['emails', 'all']);
    expect(names('emails.sent')).toEqual(['all']);
    expect(names('signup')).toEqual(['all']);
    expect(registry.named('emails')?.events).toEqual(['email.*']);
    expect(registry.named('nope')).toBeUndefined();
  });

  it('refuses two listeners of one name, a listener of no events, and other wildcards', () => {
    const a = recorder('a', ['x']).listener;
    expect(() => new ListenerRegistry([a, a])).toThrow(/Two event listeners/);
    expect(() => new ListenerRegistry([recorder('b', []).listener])).toThrow(/names no events/);
    for (const pattern of ['email*', '*.sent', 'e*.x', '.*'])
      expect(() => new ListenerRegistry([recorder('c', [pattern]).listener]), pattern).toThrow(
        /Invalid event pattern/,
      );
  });
});

describe('the listener catalog', () => {
  it('has every domain listener module (shared/<noun>/listeners.ts)', async () => {
    const files = readdirSync(join(root, 'shared'))
      .map((noun) => join(root, 'shared', noun, 'listeners.ts'))
      .filter((file) => existsSync(file));
    const listed: { listeners: unknown }[] = Object.values(domainListeners);
    for (const file of files) {
      const mod = (await import(pathToFileURL(file).href)) as { listeners?: unknown };
      expect(Array.isArray(mod.listeners), `${file} exports its listeners`).toBe(true);
      expect(
        listed.some((d) => d.listeners === mod.listeners),
        `${file} is in domainListeners`,
      ).toBe(true);
    }
    expect(listed).toHaveLength(files.length);
    // Building the registry checks names and patterns.
    expect(allListeners().all.length).toBeGreaterThanOrEqual(0);
  });

  it('registers the dispatch job with the schema emit enqueues with', () => {
    const job = allJobs.find((j) => j.type === DISPATCH_EVENT_JOB);
    expect(job?.schema).toBe(dispatchEventJobMessage.schema);
    expect(eventJobs).toContain(job);
  });
});

describe('emit', () => {
  it('with no matching listener, arms the tally and stores the event: no dispatch, no counter write', async () => {
    const { m, deps } = depsWith([recorder('other', ['contact.*']).listener]);
    const e = event('signup');
    await emit(deps, e);
    // A tally message for each pass (shared/events/tally.ts).
    expect(m.queue.sent).toEqual([TALLY_ARMED, TALLY_ARMED]);
    expect(m.item(eventKey(e))).toMatchObject({ id: e.id, name: 'signup' });
    expect(m.item(eventKey(e))?.counted).toBeUndefined();
    // The tally messages, then one conditional write: no read, and the counters are the tally's.
    expect(m.log.map((s) => s.op)).toEqual(['send', 'send', 'put']);
    expect(m.item(keys.eventName('p1', 'signup'))).toBeUndefined();
  });

  it('arms the first pass once an interval and the second pass once a minute, per instance and project', async () => {
    const { m, deps } = depsWith([]);
    const both = [TALLY_DELAY_S, TALLY_SETTLE_DELAY_S];
    const at = (ms: number) => ({ ...deps, clock: clockAt(1000 + ms) });
    await emit(deps, event('a'));
    await emit(deps, event('b'));
    await emit(at(TALLY_ARM_INTERVAL_MS - 100), event('c'));
    expect(m.queue.sent).toEqual([TALLY_ARMED, TALLY_ARMED]);
    expect(m.queue.delays).toEqual(both);
    await emit(at(TALLY_ARM_INTERVAL_MS), event('d'));
    await emit(at(59_900), event('e'));
    expect(m.queue.delays).toEqual([...both, TALLY_DELAY_S, TALLY_DELAY_S]);
    await emit(at(60_000), event('f'));
    expect(m.queue.delays).toEqual([...both, TALLY_DELAY_S, TALLY_DELAY_S, TALLY_SETTLE_DELAY_S]);
    await emit(deps, event('g', { projectId: 'p2' }));
    expect(m.queue.sent.slice(-2)).toEqual([
      { type: TALLY_JOB, projectId: 'p2' },
      { type: TALLY_JOB, projectId: 'p2' },
    ]);
    expect(m.queue.sent).toHaveLength(7);
  });

  it('indexes an event written late at its write time, where the tally will meet it, and counts nothing', async () => {
    const { m, deps } = depsWith([], 61_000);
    const e = event('late');
    await emit(deps, e);
    await emit(deps, e);
    const item = m.item(eventKey(e))!;
    const written = new Date(Date.parse(e.createdAt) + 61_000).toISOString();
    const sortOf = (index: 'eventsByTime' | 'eventsByName') => item[keyAttributes(index).sortKey];
    expect([sortOf('eventsByTime'), sortOf('eventsByName')]).toEqual([
      `${written}#${e.id}`,
      `${written}#${e.id}`,
    ]);
    expect(item).toMatchObject({ createdAt: e.createdAt });
    expect(item.counted).toBeUndefined();
    expect(m.item(keys.eventName('p1', 'late'))).toBeUndefined();
    expect(m.itemsWhere('EV#')).toHaveLength(1);
  });

  it('with the catalog, for a project without segments or workflows, dispatches nothing either', async () => {
    const m = memory();
    await emit({ store: m.store, queue: m.queue, clock: clockAt() }, event('email.sent'));
    expect(dispatches(m)).toEqual([]);
    expect(m.itemsWhere('EV#')).toHaveLength(1);
  });

  it('with matching listeners, enqueues one dispatch naming them, before the event is stored', async () => {
    const { m, deps } = depsWith([
      recorder('a', ['email.*']).listener,
      recorder('b', ['contact.*']).listener,
      recorder('c', ['*']).listener,
    ]);
    const e = event('email.sent');
    await emit(deps, e);
    expect(m.queue.sent).toEqual([
      { type: DISPATCH_EVENT_JOB, event: e, listeners: ['a', 'c'] },
      TALLY_ARMED,
      TALLY_ARMED,
    ]);
    expect(m.log.map((s) => s.op)).toEqual(['send', 'send', 'send', 'put']);
    expect(m.item(eventKey(e))).toBeDefined();
  });

  it('writing the same event again stores nothing new', async () => {
    const { m, deps } = depsWith([]);
    const e = event('signup');
    await emit(deps, e);
    await emit(deps, e);
    expect(m.itemsWhere('EV#')).toHaveLength(1);
  });

  it('replays an event already stored without dispatching it again', async () => {
    const { m, deps } = depsWith([recorder('a', ['*']).listener]);
    const e = event('contact.unsubscribed');
    await emit(deps, e);
    await emit(deps, e, { replay: true });
    expect(dispatches(m)).toHaveLength(1);
  });

  it('replays an event that was never stored: dispatched and stored', async () => {
    const { m, deps } = depsWith([recorder('a', ['*']).listener]);
    const e = event('contact.unsubscribed');
    await emit(deps, e, { replay: true });
    expect(dispatches(m)).toHaveLength(1);
    expect(m.item(eventKey(e))).toBeDefined();
  });

  it('fails without storing when the dispatch cannot be enqueued (so a replay emits it whole)', async () => {
    const { m, deps } = depsWith([recorder('a', ['*']).listener]);
    const e = event('contact.subscribed');
    const failing = { ...deps, queue: { send: () => Promise.reject(new Error('queue down')) } };
    await expect(emit(failing, e)).rejects.toThrow('queue down');
    expect(m.item(eventKey(e))).toBeUndefined();
    await emit(deps, e, { replay: true });
    expect(dispatches(m)).toHaveLength(1);
  });
});

describe('the dispatch job', () => {
  it('stores the event its emitter did not get to, where the tally will meet it, and calls each listener', async () => {
    const a = recorder('a', ['*']);
    const b = recorder('b', ['email.*']);
    const { m, deps, jobDeps } = depsWith([a.listener, b.listener]);
    const e = event('email.sent');
    m.failNext('put', 'EV#');
    await expect(emit(deps, e)).rejects.toThrow('simulated crash');
    expect(m.item(eventKey(e))).toBeUndefined();

    // The job runs two minutes later: the event is late, so it is indexed at the job's time.
    const late = { ...jobDeps, clock: clockAt(120_000) };
    const [message] = dispatches(m);
    await runDispatch(late, dispatchEventJobMessage.schema.parse(message), meta);
    const at = new Date(Date.parse(e.createdAt) + 120_000).toISOString();
    expect(m.item(eventKey(e))).toMatchObject({
      id: e.id,
      name: 'email.sent',
      [keyAttributes('eventsByTime').sortKey]: `${at}#${e.id}`,
    });
    expect(a.calls).toEqual([e]);
    expect(b.calls).toEqual([e]);

    // A redelivery calls the listeners again (at-least-once) but stores nothing new.
    await runDispatch(late, dispatchEventJobMessage.schema.parse(message), meta);
    expect(a.calls).toHaveLength(2);
    expect(m.itemsWhere('EV#')).toHaveLength(1);
  });

  it('stores what the tally counts of the event too: its campaign counts and its send usage', async () => {
    const { m, deps, jobDeps } = depsWith([recorder('a', ['email.*']).listener]);
    const e = event('email.sent', {
      campaignCounts: { campaignId: 'camp-1', counts: { sent: 1, unknown: -1 } },
      tallyUsage: 'campaigns',
    });
    m.failNext('put', 'EV#');
    await expect(emit(deps, e)).rejects.toThrow('simulated crash');
    const [message] = dispatches(m);
    await runDispatch(jobDeps, dispatchEventJobMessage.schema.parse(message), meta);
    expect(m.item(eventKey(e))).toMatchObject({
      campaignCounts: { campaignId: 'camp-1', counts: { sent: 1, unknown: -1 } },
      tallyUsage: 'campaigns',
    });
  });

  it('reads, not writes, an event the emitter stored', async () => {
    const { m, deps, jobDeps } = depsWith([recorder('a', ['*']).listener]);
    const e = event('signup');
    await emit(deps, e);
    const writes = m.log.length;
    await runDispatch(jobDeps, m.queue.sent[0] as DispatchEventMessage, meta);
    expect(m.log.slice(writes).map((s) => s.op)).toEqual(['get']);
  });

  it('runs every listener when one fails, then fails the message naming it', async () => {
    const bad = recorder('bad', ['*'], () => new Error('boom'));
    const good = recorder('good', ['*']);
    const { m, deps, jobDeps } = depsWith([bad.listener, good.listener]);
    await emit(deps, event('signup'));
    await expect(runDispatch(jobDeps, m.queue.sent[0] as DispatchEventMessage, meta)).rejects.toThrow(
      /bad: boom/,
    );
    expect(good.calls).toHaveLength(1);
  });

  it('skips a listener that is no longer registered', async () => {
    const a = recorder('a', ['*']);
    const { m, jobDeps } = depsWith([a.listener]);
    const e = event('signup');
    await runDispatch(jobDeps, { type: DISPATCH_EVENT_JOB, event: e, listeners: ['gone', 'a'] }, meta);
    expect(a.calls).toEqual([e]);
    expect(m.item(eventKey(e))).toBeDefined();
  });

  it('refuses a message without listeners or with a malformed event', () => {
    const e = event('signup');
    const parse = (m: unknown) => dispatchEventJobMessage.schema.safeParse(m).success;
    expect(parse({ type: DISPATCH_EVENT_JOB, event: e, listeners: ['a'] })).toBe(true);
    expect(parse({ type: DISPATCH_EVENT_JOB, event: e, listeners: [] })).toBe(false);
    expect(
      parse({ type: DISPATCH_EVENT_JOB, event: { ...e, createdAt: 'yesterday' }, listeners: ['a'] }),
    ).toBe(false);
  });
});
