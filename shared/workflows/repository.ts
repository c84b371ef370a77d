/**
 * Workflow definition items: one per workflow in the project's partition (`WORKFLOW#<id>`), holding
 * the whole graph (`steps`, `transitions`), so a step run reads it in one read and another
 * project's ids are simply not found. Every change replaces the item conditionally on the
 * `version` it read. Executions are items of their own (`executions.ts`).
 */
import type { Item, StoreDeps } from '../store/store';
import { keys } from '../table';
import type { Workflow, WorkflowRecord } from './model';

const ENTITY = 'workflow';

const FIELDS = [
  'id',
  'projectId',
  'name',
  'description',
  'enabled',
  'triggerType',
  'triggerConfig',
  'allowReentry',
  'entryStepId',
  'steps',
  'transitions',
  'webhookSecret',
  'createdAt',
  'updatedAt',
  'version',
] as const;

/** The item also carries `stepCount`, so the list can leave the graphs out of what it reads. */
function toItem(record: WorkflowRecord): Item {
  return {
    ...keys.workflow(record.projectId, record.id),
    entity: ENTITY,
    ...record,
    stepCount: record.steps.length,
  };
}

function fromItem(item: Item): WorkflowRecord {
  const out: Record<string, unknown> = {};
  for (const field of FIELDS) out[field] = item[field] ?? null;
  out.steps = item.steps ?? [];
  out.transitions = item.transitions ?? [];
  out.triggerConfig = item.triggerConfig ?? { eventName: null };
  return out as unknown as WorkflowRecord;
}

/** The API shape of a workflow (no internal fields). */
export function present(record: WorkflowRecord): Workflow {
  const { projectId: _projectId, version: _version, ...workflow } = record;
  return workflow;
}

/** Size of the stored item in bytes, near enough (JSON of the record) to stay under DynamoDB's 400 KB. */
export const itemBytes = (record: WorkflowRecord) => Buffer.byteLength(JSON.stringify(toItem(record)));

export async function getWorkflowRecord(
  deps: StoreDeps,
  projectId: string,
  workflowId: string,
  options: { readonly consistent?: boolean } = {},
): Promise<WorkflowRecord | undefined> {
  const item = await deps.store.get(keys.workflow(projectId, workflowId), options);
  return item ? fromItem(item) : undefined;
}

/** Creates a workflow; false when the id is taken. */
export async function putNewWorkflow(deps: StoreDeps, record: WorkflowRecord): Promise<boolean> {
  return deps.store.writeIf({ put: toItem(record), if: 'attribute_not_exists(pk)' });
}

/** Replaces a workflow if it still has `expectedVersion`; false when it changed or is gone. */
export async function replaceWorkflow(
  deps: StoreDeps,
  record: WorkflowRecord,
  expectedVersion: number,
): Promise<boolean> {
  return deps.store.writeIf({
    put: toItem(record),
    if: 'attribute_exists(pk) AND version = :v',
    values: { ':v': expectedVersion },
  });
}

/** Deletes a workflow if it still has `expectedVersion`; false when it changed or is gone. */
export async function deleteWorkflowItem(
  deps: StoreDeps,
  projectId: string,
  workflowId: string,
  expectedVersion: number,
): Promise<boolean> {
  return deps.store.writeIf({
    delete: keys.workflow(projectId, workflowId),
    if: 'attribute_exists(pk) AND version = :v',
    values: { ':v': expectedVersion },
  });
}

/** What the list filters, sorts and shows: the record without its graph and secret. */
export type WorkflowSummary = Omit<Workflow, 'steps' | 'transitions' | 'webhookSecret'> & {
  readonly stepCount: number;
};

const SUMMARY_FIELDS = [
  'id',
  'name',
  'description',
  'enabled',
  'triggerType',
  'triggerConfig',
  'allowReentry',
  'entryStepId',
  'stepCount',
  'createdAt',
  'updatedAt',
] as const;

/**
 * Every workflow of the project as a summary (one Query, paged to the end). DynamoDB bills the
 * whole items, but only the summaries' attributes travel and are held in memory.
 */
export async function listWorkflowSummaries(deps: StoreDeps, projectId: string): Promise<WorkflowSummary[]> {
  const prefix = keys.definitionPrefixes.workflow;
  const out: WorkflowSummary[] = [];
  for await (const item of deps.store.queryAll({
    partition: keys.projectPartition(projectId),
    sort: { beginsWith: prefix },
    attributes: ['sk', 'entity', ...SUMMARY_FIELDS],
  })) {
    // Only the workflows' own items (a definition may keep items below it: `WORKFLOW#<id>#...`).
    if (String(item.sk).slice(prefix.length).includes('#') || item.entity !== ENTITY) continue;
    const summary: Record<string, unknown> = {};
    for (const field of SUMMARY_FIELDS) summary[field] = item[field] ?? null;
    summary.triggerConfig = item.triggerConfig ?? { eventName: null };
    summary.stepCount = typeof item.stepCount === 'number' ? item.stepCount : 0;
    out.push(summary as unknown as WorkflowSummary);
  }
  return out;
}
