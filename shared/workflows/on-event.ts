/**
 * What the workflow listener (`triggers.ts`) does with an event some workflow of its project cares
 * about: starts the executions it triggers and resumes the waits it ends.
 */
import { nameUuid } from '../campaigns/ids';
import type { EventRecord } from '../events/repository';
import type { Deps } from '../ports';
import { resumeWaiting, startExecution } from './engine';
import { deleteWait, waitsFor } from './executions-repository';
import { readInterest } from './interest';
import { getWorkflowRecord } from './repository';

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
