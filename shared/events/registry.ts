/**
 * Event listeners: code that reacts to events the service records (workflow triggers, the activity
 * feed, segment re-evaluation, billing counters). A listener names the events it wants by pattern
 * and is called through the jobs queue, after the event is stored (see `emit.ts`).
 *
 * Listeners are registered statically, as jobs are: a domain declares its listeners in
 * `shared/<noun>/listeners.ts` (exporting `listeners`) and `catalog.ts` lists the module. Tests
 * and other composition roots hand `emit` and the dispatch job a registry of their own through
 * `deps.listeners`; nothing is registered by mutating a module.
 */
import type { JobMeta } from '../jobs/registry';
import type { Deps } from '../ports';
import type { EventRecord } from './repository';

export interface EventListener {
  /**
   * Stable and unique: dispatch messages name the listeners they are for, so a message enqueued
   * before a deploy still finds its listener after it.
   */
  readonly name: string;
  /**
   * The events it receives, by name: exactly (`contact.unsubscribed`), by prefix (`email.*`: every
   * name that starts with `email.`), or every event (`*`).
   */
  readonly events: readonly string[];
  /**
   * Called once the event is stored, from a job; delivery is at-least-once (a redelivered message,
   * an event emitted again after a crash), so a listener must tolerate the same event twice (the
   * event's `id` is stable). Throwing fails the dispatch message, which is retried and, after the
   * jobs queue's receives, dead-lettered.
   */
  handle(deps: Deps, event: EventRecord, meta: JobMeta): Promise<void>;
  /**
   * Whether this event, of a name the patterns match, is for the listener at all: asked by `emit`
   * before anything is queued, so a listener whose interest depends on the project's data (a
   * workflow trigger) costs no dispatch for the events it ignores. Keep it cheap (cached).
   * @default every matching event
   */
  accepts?(deps: AcceptDeps, event: EventRecord): Promise<boolean>;
}

/** What `accepts` may use. */
export type AcceptDeps = Pick<Deps, 'store' | 'clock'>;

/** Helps type inference: `defineListener({name, events, handle})`. */
export function defineListener(listener: EventListener): EventListener {
  return listener;
}

/** What `emit` and the dispatch job read of their deps: a registry to use instead of the catalog's. */
export interface ListenerDeps {
  readonly listeners?: ListenerRegistry;
}

/** A pattern is a name, a prefix ending in `.*`, or `*`; no other `*`. */
function matcher(pattern: string): (name: string) => boolean {
  if (pattern === '*') return () => true;
  const star = pattern.indexOf('*');
  if (star < 0) return (name) => name === pattern;
  if (star !== pattern.length - 1 || !pattern.endsWith('.*') || pattern.length < 3)
    throw new Error(`Invalid event pattern "${pattern}": use a name, "<prefix>.*" or "*"`);
  const prefix = pattern.slice(0, -1);
  return (name) => name.startsWith(prefix);
}

/** A fixed set of listeners, looked up by the event names they receive and by their own names. */
export class ListenerRegistry {
  readonly #byName = new Map<string, EventListener>();
  readonly #matchers: { readonly listener: EventListener; readonly matches: (name: string) => boolean }[] =
    [];

  constructor(listeners: readonly EventListener[]) {
    for (const listener of listeners) {
      if (!listener.name) throw new Error('An event listener needs a name');
      if (this.#byName.has(listener.name)) throw new Error(`Two event listeners are named ${listener.name}`);
      if (listener.events.length === 0) throw new Error(`Event listener ${listener.name} names no events`);
      this.#byName.set(listener.name, listener);
      const tests = listener.events.map(matcher);
      this.#matchers.push({ listener, matches: (name) => tests.some((t) => t(name)) });
    }
  }

  /** Every listener, in registration order. */
  get all(): readonly EventListener[] {
    return [...this.#byName.values()];
  }

  /** The listeners that receive events named `eventName`, in registration order. */
  matching(eventName: string): EventListener[] {
    return this.#matchers.filter((m) => m.matches(eventName)).map((m) => m.listener);
  }

  /** The listener of that name, if registered. */
  named(name: string): EventListener | undefined {
    return this.#byName.get(name);
  }
}
