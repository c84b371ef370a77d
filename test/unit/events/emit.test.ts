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
import { allJobs } from '../../../shared/jobs/catalog';
import type { JobMeta } from '../../../shared/jobs/registry';
import type { Deps } from '../../../shared/ports';
import { keys } from '../../../shared/table';
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

/** Deps of the unit under test: an in-memory store and queue, and `listeners`. */
function depsWith(listeners: readonly EventListener[]) {
  const m = memory();
  const deps = { store: m.store, queue: m.queue, listeners: new ListenerRegistry(listeners) };
  return { m, deps, jobDeps: deps as unknown as Deps & typeof deps };
}

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
  it('with no matching listener, stores the event and sends nothing', async () => {
    const { m, deps } = depsWith([recorder('other', ['contact.*']).listener]);
    const e = event('signup');
    await emit(deps, e);
    expect(m.queue.sent).toEqual([]);
    expect(m.item(eventKey(e))).toMatchObject({ id: e.id, name: 'signup' });
    // One conditional write and the two counters, as before listeners existed: no read.
    expect(m.log.map((s) => s.op)).toEqual(['put', 'update', 'update']);
  });

  it('with the catalog (no listeners registered yet), sends nothing either', async () => {
    const m = memory();
    await emit({ store: m.store, queue: m.queue }, event('email.sent'));
    expect(m.queue.sent).toEqual([]);
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
    expect(m.queue.sent).toEqual([{ type: DISPATCH_EVENT_JOB, event: e, listeners: ['a', 'c'] }]);
    expect(m.log.map((s) => s.op)).toEqual(['send', 'put', 'update', 'update']);
    expect(m.item(eventKey(e))).toBeDefined();
  });

  it('writing the same event again stores nothing new', async () => {
    const { m, deps } = depsWith([]);
    const e = event('signup');
    await emit(deps, e);
    await emit(deps, e);
    expect(m.itemsWhere('EV#')).toHaveLength(1);
    expect(m.item(keys.eventName('p1', 'signup'))).toMatchObject({ count: 1 });
  });

  it('replays an event already stored without dispatching it again', async () => {
    const { m, deps } = depsWith([recorder('a', ['*']).listener]);
    const e = event('contact.unsubscribed');
    await emit(deps, e);
    await emit(deps, e, { replay: true });
    expect(m.queue.sent).toHaveLength(1);
  });

  it('replays an event that was never stored: dispatched and stored', async () => {
    const { m, deps } = depsWith([recorder('a', ['*']).listener]);
    const e = event('contact.unsubscribed');
    await emit(deps, e, { replay: true });
    expect(m.queue.sent).toHaveLength(1);
    expect(m.item(eventKey(e))).toBeDefined();
  });

  it('fails without storing when the dispatch cannot be enqueued (so a replay emits it whole)', async () => {
    const { m, deps } = depsWith([recorder('a', ['*']).listener]);
    const e = event('contact.subscribed');
    const failing = { ...deps, queue: { send: () => Promise.reject(new Error('queue down')) } };
    await expect(emit(failing, e)).rejects.toThrow('queue down');
    expect(m.item(eventKey(e))).toBeUndefined();
    await emit(deps, e, { replay: true });
    expect(m.queue.sent).toHaveLength(1);
  });
});

describe('the dispatch job', () => {
  it('stores the event its emitter did not get to, counts it once, and calls each listener', async () => {
    const a = recorder('a', ['*']);
    const b = recorder('b', ['email.*']);
    const { m, deps, jobDeps } = depsWith([a.listener, b.listener]);
    const e = event('email.sent');
    m.failNext('put', 'EV#');
    await expect(emit(deps, e)).rejects.toThrow('simulated crash');
    expect(m.item(eventKey(e))).toBeUndefined();

    const [message] = m.queue.sent as DispatchEventMessage[];
    await runDispatch(jobDeps, dispatchEventJobMessage.schema.parse(message), meta);
    expect(m.item(eventKey(e))).toMatchObject({ id: e.id, name: 'email.sent' });
    expect(m.item(keys.eventName('p1', 'email.sent'))).toMatchObject({ count: 1 });
    expect(a.calls).toEqual([e]);
    expect(b.calls).toEqual([e]);

    // A redelivery calls the listeners again (at-least-once) but stores and counts nothing new.
    await runDispatch(jobDeps, dispatchEventJobMessage.schema.parse(message), meta);
    expect(a.calls).toHaveLength(2);
    expect(m.itemsWhere('EV#')).toHaveLength(1);
    expect(m.item(keys.eventName('p1', 'email.sent'))).toMatchObject({ count: 1 });
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
