/**
 * Which event names the project's workflows care about, in one small item per project: each
 * workflow's trigger (when it is enabled and EVENT-triggered) and the event names its
 * WAIT_FOR_EVENT steps wait for. The workflow listener (`triggers.ts`) reads it before an event is
 * dispatched, so an event no workflow cares about costs no queue message and no further read.
 *
 * Every write of a workflow definition (and its deletion) rewrites that workflow's entry; the
 * entry is keyed by workflow, so concurrent writes of two workflows never overwrite each other.
 */
import type { StoreDeps } from '../store/store';
import { keys } from '../table';
import type { Workflow } from './model';

export interface WorkflowInterest {
  /** The event that starts it, when it is enabled and triggered by an event. */
  readonly trigger: string | null;
  /** Event names its WAIT_FOR_EVENT steps wait for (kept while disabled: executions may still wait). */
  readonly waits: readonly string[];
}

/** What one workflow listens for. */
export function interestOf(workflow: Workflow): WorkflowInterest {
  const trigger =
    workflow.enabled && workflow.triggerType === 'EVENT' ? (workflow.triggerConfig.eventName ?? null) : null;
  const waits = new Set<string>();
  for (const step of workflow.steps) {
    if (step.type !== 'WAIT_FOR_EVENT') continue;
    const name = (step.config as { eventName?: unknown }).eventName;
    if (typeof name === 'string' && name) waits.add(name);
  }
  return { trigger, waits: [...waits].sort() };
}

/** Records what `workflow` listens for, or forgets a deleted workflow (`null`). */
export async function refreshInterest(
  deps: StoreDeps,
  projectId: string,
  workflowId: string,
  workflow: Workflow | null,
): Promise<void> {
  const key = keys.workflowInterest(projectId);
  forgetInterest(projectId);
  if (workflow) {
    const interest = interestOf(workflow);
    await deps.store.write({
      update: key,
      // The map is created by the first write (if_not_exists), each workflow's entry set alone.
      expression: 'SET #by = if_not_exists(#by, :empty)',
      names: { '#by': 'byWorkflow' },
      values: { ':empty': {} },
    });
    await deps.store.write({
      update: key,
      expression: 'SET #by.#wf = :interest',
      names: { '#by': 'byWorkflow', '#wf': workflowId },
      values: { ':interest': interest },
    });
  } else {
    await deps.store.write({
      update: key,
      expression: 'REMOVE #by.#wf',
      names: { '#by': 'byWorkflow', '#wf': workflowId },
    });
  }
}

/** The project's interest by workflow id ({} when it has no workflow). */
export async function readInterest(
  deps: StoreDeps,
  projectId: string,
  options: { readonly consistent?: boolean } = {},
): Promise<ReadonlyMap<string, WorkflowInterest>> {
  const item = await deps.store.get(keys.workflowInterest(projectId), options);
  const by = (item?.byWorkflow ?? {}) as Record<string, WorkflowInterest>;
  return new Map(Object.entries(by));
}

/** How long an instance trusts the interest it read (`cachedInterest`). */
export const INTEREST_TTL_MS = 5_000;

const cache = new Map<string, { at: number; interest: ReadonlyMap<string, WorkflowInterest> }>();

/**
 * The project's interest, read at most once per `INTEREST_TTL_MS` per instance (what `emit` asks
 * for every event). A change made on this instance is seen at once; one made on another instance
 * within that time.
 */
export async function cachedInterest(
  deps: StoreDeps,
  projectId: string,
): Promise<ReadonlyMap<string, WorkflowInterest>> {
  const t = Date.now();
  const hit = cache.get(projectId);
  if (hit && t - hit.at < INTEREST_TTL_MS) return hit.interest;
  const interest = await readInterest(deps, projectId);
  cache.set(projectId, { at: t, interest });
  return interest;
}

/** Forgets this instance's cached interest of the project. */
export function forgetInterest(projectId: string): void {
  cache.delete(projectId);
}
