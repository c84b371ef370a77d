/**
 * The purge of a deleted workflow's executions (`DELETE /workflows/{id}`, `service.ts`): a
 * `workflows.purge` job deletes what its executions stored, which the definition's delete leaves
 * behind because it lives in other partitions: the execution items and their counts (the
 * workflow's `WFX` partition), and each contact's entry into the workflow (and an event wait, if
 * one is left) in the contacts' partitions.
 *
 * A message deletes one page (`PURGE_PAGE` executions) and queues the next page as a new message,
 * so no invocation runs long however many executions there were. Each page is the partition read
 * again from its start: what earlier pages deleted is gone, so no cursor is kept and a message
 * delivered twice, or redelivered after a crash halfway through a page, reads what is left and
 * deletes it (deleting what is already gone is no error). Within a page the contacts' items go
 * before the executions that point to them, and the counts item goes last, once no execution is
 * left: whatever a crash interrupts is found again from the executions that remain.
 *
 * The delete queues the purge before deleting the definition (a crash between the two must not
 * leave executions no job will ever delete), so the job can run while the definition still
 * exists: it purges only once the definition is gone, which is for good (ids are never reused).
 * See `runPurgeMessage` for a definition that is still there.
 */
import { enqueue } from '../jobs/registry';
import type { Deps } from '../ports';
import { deleteCounts, deleteExecutions, firstExecutionRefs } from './executions-repository';
import { type PurgeMessage, purgeJobMessage } from './messages';
import { getWorkflowRecord } from './repository';

/**
 * Executions a message deletes: one query, and two batch deletes (the contacts' items and the due
 * items of waits, up to eight requests; the executions, four).
 */
export const PURGE_PAGE = 100;
/**
 * The first message waits this long: the delete that queued it lands meanwhile, and so does an
 * execution whose start read the definition just before the delete (its items are then purged too).
 */
export const PURGE_DELAY_S = 10;
/** A definition still there is looked at again after this long, at most `PURGE_RECHECKS` times. */
export const PURGE_RECHECK_S = 60;
export const PURGE_RECHECKS = 5;

/** Queues the purge of the workflow that a delete of `version` is about to delete. */
export async function queuePurge(
  deps: Pick<Deps, 'queue'>,
  projectId: string,
  workflowId: string,
  version: number,
): Promise<void> {
  await enqueue(deps, purgeJobMessage, { projectId, workflowId, version }, { delaySeconds: PURGE_DELAY_S });
}

/**
 * Runs a `workflows.purge` message. A definition still there is never purged under:
 * - at another version, the delete that queued this message lost to a change and did not happen
 *   (a later delete queues its own purge): nothing to do;
 * - at the same version, the delete may still be on its way, or may have died before deleting:
 *   looked at again a few times, then given up (the workflow stands, and deleting it again queues
 *   a purge again). Nothing is deleted meanwhile.
 */
export async function runPurgeMessage(deps: Deps, m: PurgeMessage): Promise<void> {
  const workflow = await getWorkflowRecord(deps, m.projectId, m.workflowId, { consistent: true });
  if (workflow) {
    if (workflow.version === m.version && m.rechecks < PURGE_RECHECKS)
      await enqueue(
        deps,
        purgeJobMessage,
        { ...m, rechecks: m.rechecks + 1 },
        { delaySeconds: PURGE_RECHECK_S },
      );
    else log('Workflow purge given up: the workflow was not deleted', { ...m, current: workflow.version });
    return;
  }
  const refs = await firstExecutionRefs(deps, m.projectId, m.workflowId, PURGE_PAGE);
  await deleteExecutions(deps, m.projectId, m.workflowId, refs);
  // A full page may have a next one: a new message, rather than a loop as long as the partition.
  if (refs.length === PURGE_PAGE) await enqueue(deps, purgeJobMessage, m);
  else await deleteCounts(deps, m.projectId, m.workflowId);
}

function log(message: string, fields: Record<string, unknown>) {
  console.warn(JSON.stringify({ level: 'warn', message, ...fields }));
}
