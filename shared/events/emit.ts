/**
 * The one way an event enters the service: tracked events, `contact.*`, `email.*` (and later
 * `segment.*`) all go through `emit`, which stores the event once and hands it to the listeners
 * whose patterns match its name (see `registry.ts`) through the jobs queue.
 *
 * Order, and why nothing is lost. When listeners match, the dispatch message is enqueued first
 * and the event stored second; the dispatch job stores the event too (conditionally, on its key)
 * before it calls the listeners. So:
 * - a crash before the enqueue leaves neither (the caller's own recovery emits again: the contact
 *   item's `pendingEvents`, a resumed Idempotency-Key, a redelivered job message);
 * - a crash between the enqueue and the write leaves the message, whose job stores the event;
 * - after both, a stored event always has its dispatch on the queue or done. That is what
 *   `replay` relies on: an event that may have been emitted already is dispatched again only when
 *   it is not stored.
 * Storing first would lose the dispatch to a crash between the two, with nothing to tell a replay
 * that it was missing. The dispatch job may run before the emitter's own write; the write is
 * conditional, so the event is stored (and counted) once either way.
 *
 * With no matching listener, `emit` is the conditional write alone: no dispatch message, no read.
 * The event's counters are not written here: a tally armed before the write counts it later, in a
 * batch (`tally.ts`).
 */
import * as z from 'zod/mini';
import { SEND_CATEGORIES } from '../billing/repository';
import { defineJobMessage, enqueue, type JobMeta } from '../jobs/registry';
import type { Deps } from '../ports';
import type { StoreDeps } from '../store/store';
import { allListeners } from './catalog';
import type { EventListener, ListenerDeps, ListenerRegistry } from './registry';
import { type EventRecord, eventStored, putEvent } from './repository';
import { armTally } from './tally';

export type EmitDeps = StoreDeps & Pick<Deps, 'queue' | 'clock'> & ListenerDeps;

/** Stores an event once, with a tally armed first to count it (`tally.ts`). */
async function record(deps: EmitDeps, event: EventRecord): Promise<void> {
  await armTally(deps, event.projectId);
  await putEvent(deps, event, deps.clock.now());
}

/** The listeners of `deps`: those given in `deps.listeners`, else every domain's (`catalog.ts`). */
export function listenersOf(deps: ListenerDeps): ListenerRegistry {
  return deps.listeners ?? allListeners();
}

export interface EmitOptions {
  /**
   * An earlier attempt may have emitted this very event (same id and time): a contact's pending
   * event written again, a resumed request. It is dispatched only if it is not stored yet, so
   * listeners do not get it again for every replay (one read, and only when listeners match).
   */
  readonly replay?: boolean;
}

/**
 * Records `event` once and, when listeners match its name, dispatches it to them through the
 * jobs queue (at-least-once). Writing the same event again stores nothing new.
 */
export async function emit(deps: EmitDeps, event: EventRecord, options: EmitOptions = {}): Promise<void> {
  const listeners = await acceptingListeners(deps, event);
  if (listeners.length === 0) {
    await record(deps, event);
    return;
  }
  if (options.replay && (await eventStored(deps, event))) return;
  await enqueue(deps, dispatchEventJobMessage, { event, listeners: listeners.map((l) => l.name) });
  await record(deps, event);
}

/** The listeners whose patterns match the event's name and that accept it. */
async function acceptingListeners(deps: EmitDeps, event: EventRecord): Promise<EventListener[]> {
  const matching = listenersOf(deps).matching(event.name);
  const accepted = await Promise.all(matching.map((l) => (l.accepts ? l.accepts(deps, event) : true)));
  return matching.filter((_, i) => accepted[i]);
}

export const DISPATCH_EVENT_JOB = 'events.dispatch';

// A type (not an interface) so that it is a QueueMessage.
export type DispatchEventMessage = {
  readonly type: typeof DISPATCH_EVENT_JOB;
  /** The whole event: the job stores it if the emitter did not get to. */
  readonly event: EventRecord;
  /** The listeners that matched when it was emitted, by name. */
  readonly listeners: readonly string[];
};

/**
 * The whole event, what the tally counts of it included (`campaignCounts`, `tallyUsage`): the job
 * may be the one that stores it (the emitter stopped, or the job ran before the emitter's write).
 */
const eventSchema = z.object({
  id: z.string().check(z.minLength(1)),
  projectId: z.string().check(z.minLength(1)),
  contactId: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  data: z.record(z.string(), z.unknown()),
  createdAt: z.iso.datetime(),
  email: z.optional(z.string()),
  campaignCounts: z.optional(
    z.object({ campaignId: z.string().check(z.minLength(1)), counts: z.record(z.string(), z.number()) }),
  ),
  tallyUsage: z.optional(z.enum(SEND_CATEGORIES)),
  repeat: z.optional(z.literal(true)),
});

/** The dispatch job's message, checked when `emit` enqueues it and when it runs (`jobs.ts`). */
export const dispatchEventJobMessage = defineJobMessage<DispatchEventMessage>({
  type: DISPATCH_EVENT_JOB,
  schema: z.object({
    type: z.literal(DISPATCH_EVENT_JOB),
    event: eventSchema,
    listeners: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
  }),
});

/**
 * The dispatch job: stores the event unless it is stored (the emitter may have stopped after the
 * enqueue), then calls each listener the message names. Every listener runs even when one fails;
 * then the message fails and is redelivered, calling them all again (they are idempotent). A
 * listener no longer registered (removed by a deploy since the event) is skipped.
 */
export async function runDispatch(
  deps: Deps & ListenerDeps,
  m: DispatchEventMessage,
  meta: JobMeta,
): Promise<void> {
  // A read first: the emitter has usually stored it already, and a read costs less than a write.
  if (!(await eventStored(deps, m.event))) await record(deps, m.event);
  const registry = listenersOf(deps);
  const failed: string[] = [];
  for (const name of m.listeners) {
    const listener = registry.named(name);
    if (!listener) {
      console.warn(
        JSON.stringify({
          level: 'warn',
          message: 'Event listener not registered',
          listener: name,
          event: m.event.id,
        }),
      );
      continue;
    }
    try {
      await listener.handle(deps, m.event, meta);
    } catch (error) {
      failed.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (failed.length > 0)
    throw new Error(`Listeners of ${m.event.name} event ${m.event.id} failed: ${failed.join('; ')}`);
}
