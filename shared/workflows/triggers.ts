/**
 * Events into workflows: the workflow listener (registered in `listeners.ts`) receives the events
 * some workflow of the project cares about, and
 * - starts an execution of each enabled EVENT workflow triggered by the event's name, for the
 *   event's contact (the execution id is derived from workflow and event, so a redelivered event
 *   starts nothing twice, and the re-entry rule decides between different events);
 * - resumes the contact's executions waiting for an event of that name (one query of the
 *   contact's partition, whatever the number of executions waiting elsewhere).
 *
 * Which names matter is read from the project's interest item (`interest.ts`) before the event is
 * dispatched at all, cached for `INTEREST_TTL_MS` per instance: an event no workflow cares about
 * costs that cached read and nothing more. A workflow enabled (or a wait step added) is seen by
 * other instances within that time.
 */
import { nameUuid } from '../campaigns/ids';
import { defineListener } from '../events/registry';
import type { EventRecord } from '../events/repository';
import type { Deps } from '../ports';
import { resumeWaiting, startExecution } from './engine';
import { deleteWait, waitsFor } from './executions-repository';
import { cachedInterest, readInterest, type WorkflowInterest } from './interest';
import { getWorkflowRecord } from './repository';

function cares(interest: ReadonlyMap<string, WorkflowInterest>, name: string) {
  for (const i of interest.values()) if (i.trigger === name || i.waits.includes(name)) return true;
  return false;
}

export const workflowListener = defineListener({
  name: 'workflows.events',
  events: ['*'],
  accepts: async (deps, event) => cares(await cachedInterest(deps, event.projectId), event.name),
  handle: async (deps, event) => {
    await onEvent(deps, event);
  },
});

/** Starts the executions `event` triggers and resumes the waits it ends. */
export async function onEvent(deps: Deps, event: EventRecord): Promise<void> {
  const interest = await readInterest(deps, event.projectId);
  const failures: string[] = [];
  for (const [workflowId, i] of interest) {
    if (i.trigger !== event.name) continue;
    const workflow = await getWorkflowRecord(deps, event.projectId, workflowId);
    if (
      !workflow?.enabled ||
      workflow.triggerType !== 'EVENT' ||
      workflow.triggerConfig.eventName !== event.name
    )
      continue;
    try {
      await startExecution(deps, {
        workflow,
        contactId: event.contactId,
        executionId: nameUuid(`sesame:workflow:${workflowId}:${event.id}`),
        context: {},
        trigger: { id: event.id, name: event.name, data: { ...event.data } },
      });
    } catch (error) {
      failures.push(`${workflowId}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const waits = [...interest.values()].some((i) => i.waits.includes(event.name))
    ? await waitsFor(deps, event.projectId, event.contactId, event.name)
    : [];
  for (const wait of waits) {
    const outcome = await resumeWaiting(deps, { projectId: event.projectId, ...wait }, 'event');
    // Its wait is being set up right now: the event is handed to it when this message comes back.
    if (outcome === 'early') failures.push(`${wait.executionId}: not waiting yet`);
    // A wait that ended otherwise (timed out, cancelled) whose entry outlived it.
    if (outcome === 'gone')
      await deleteWait(deps, event.projectId, event.contactId, event.name, wait.executionId);
  }
  // Failing the dispatch message has it delivered again; what was done is not done twice.
  if (failures.length > 0) throw new Error(`Workflow triggers failed: ${failures.join('; ')}`);
}
