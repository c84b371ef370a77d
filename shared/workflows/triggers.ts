/**
 * Events into workflows: the workflow listener (registered in `listeners.ts`) receives the events
 * some workflow of the project cares about, and
 * - starts an execution of each enabled EVENT workflow triggered by the event's name, for the
 *   event's contact (the execution id is derived from workflow and event, so a redelivered event
 *   starts nothing twice, and the re-entry rule decides between different events);
 * - resumes the contact's executions waiting for an event of that name: the contact's entries
 *   into the workflows that wait for it are read (one batched read of the contact's partition,
 *   whatever the number of executions waiting elsewhere), and each one's active execution moves on
 *   if it is WAITING for that event.
 *
 * Which names matter is read from the project's interest item (`interest.ts`) before the event is
 * dispatched at all, cached for `INTEREST_TTL_MS` per instance: an event no workflow cares about
 * costs that cached read and nothing more. A workflow enabled (or a wait step added) is seen by
 * other instances within that time.
 *
 * What the listener does with an event (`onEvent`, shared/workflows/on-event.ts) loads on its first
 * dispatch: a function that only emits events (every request that records one) asks `accepts` and
 * never loads the workflow engine.
 */
import { defineListener } from '../events/registry';
import { cachedInterest, type WorkflowInterest } from './interest';

function cares(interest: ReadonlyMap<string, WorkflowInterest>, name: string) {
  for (const i of interest.values()) if (i.trigger === name || i.waits.includes(name)) return true;
  return false;
}

export const workflowListener = defineListener({
  name: 'workflows.events',
  events: ['*'],
  accepts: async (deps, event) => cares(await cachedInterest(deps, event.projectId), event.name),
  handle: async (deps, event) => {
    const { onEvent } = await import('./on-event');
    await onEvent(deps, event);
  },
});
