/**
 * What the workflow listener (`triggers.ts`) does with an event some workflow of its project cares
 * about: starts the executions it triggers and resumes the waits it ends.
 */
import { nameUuid } from '../campaigns/ids';
import type { EventRecord } from '../events/repository';
import type { Deps } from '../ports';
import { resumeOnEvent, startExecution } from './engine';
import { activeExecutionsOf } from './executions-repository';
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
  // The contact's executions of the workflows that wait for this event: through its entries.
  const waiting = [...interest].filter(([, i]) => i.waits.includes(event.name)).map(([id]) => id);
  for (const ref of await activeExecutionsOf(deps, event.projectId, event.contactId, waiting)) {
    try {
      await resumeOnEvent(deps, { projectId: event.projectId, ...ref }, event.name);
    } catch (error) {
      failures.push(`${ref.executionId}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  // Failing the dispatch message has it delivered again; what was done is not done twice.
  if (failures.length > 0) throw new Error(`Workflow triggers failed: ${failures.join('; ')}`);
}
