/**
 * The execution endpoints' use cases: a manual start, the offset list with its status filter, one
 * execution, cancelling one or all. The engine that runs them is `engine.ts`, loaded by the first
 * start or cancel.
 */
import * as z from 'zod/mini';
import { getContactRecord } from '../contacts/repository';
import { badRequest, conflict, notFound } from '../errors';
import { offsetPageQuery, parse, uuidId } from '../http/validation';
import type { OffsetPage } from '../offset-list';
import type { Deps } from '../ports';
import {
  getExecutionRecord,
  listExecutionRecords,
  presentExecution,
  readCounts,
  TERMINAL,
} from './executions-repository';
import { ACTIVE_STATUSES, EXECUTION_STATUSES, type ExecutionStatus } from './model';
import { getWorkflowRecord } from './repository';

export interface ExecutionHistoryEntry {
  readonly stepId: string;
  readonly type: string;
  /** What the step did: `sent`, `skipped`, `yes`, `no`, `event`, `timeout`, `delayed`, `called 200` ... */
  readonly result: string;
  readonly at: string;
}

export interface Execution {
  readonly id: string;
  readonly workflowId: string;
  readonly contactId: string;
  readonly status: ExecutionStatus;
  readonly currentStepId: string | null;
  /** When a WAITING execution's wait ends (a DELAY's end, a WAIT_FOR_EVENT's timeout); else null. */
  readonly resumesAt: string | null;
  readonly context: Record<string, unknown>;
  readonly history: readonly ExecutionHistoryEntry[];
  readonly startedAt: string;
  readonly completedAt: string | null;
  readonly error: string | null;
}

export const startExecutionSchema = z.object({
  contactId: uuidId('contactId must be a contact id (a UUID)'),
  context: z.optional(z.record(z.string(), z.unknown())),
});
export type StartExecutionInput = z.infer<typeof startExecutionSchema>;

export const listExecutionsQuerySchema = z.object({
  status: z.optional(z.enum(EXECUTION_STATUSES)),
  page: offsetPageQuery.page,
  pageSize: offsetPageQuery.pageSize,
});
export type ListExecutionsQuery = z.infer<typeof listExecutionsQuerySchema>;

export const parseStartExecution = (body: unknown): StartExecutionInput => parse(startExecutionSchema, body);
export const parseListExecutionsQuery = (query: unknown): ListExecutionsQuery =>
  parse(listExecutionsQuerySchema, query);

export type ExecutionDeps = Deps;

async function workflowOf(deps: Deps, projectId: string, workflowId: string) {
  const workflow = await getWorkflowRecord(deps, projectId, workflowId);
  if (!workflow) throw notFound('Workflow');
  return workflow;
}

/** `POST /workflows/{id}/executions`: 201 with the execution; 400 disabled, 404 contact, 409 re-entry. */
export async function startManualExecution(
  deps: ExecutionDeps,
  projectId: string,
  workflowId: string,
  input: StartExecutionInput,
): Promise<Execution> {
  const workflow = await workflowOf(deps, projectId, workflowId);
  if (!workflow.enabled) throw badRequest('The workflow is disabled: enable it before starting executions');
  const contact = await getContactRecord(deps, projectId, input.contactId);
  if (!contact || contact.deletedAt) throw notFound('Contact');
  const { startExecution } = await import('./engine');
  const out = await startExecution(deps, {
    workflow,
    contactId: contact.id,
    executionId: deps.ids.uuid(),
    context: input.context ?? {},
    trigger: null,
  });
  if (!out.started) {
    if (out.reason === 'no-entry-step') throw badRequest('The workflow has no entry step');
    throw conflict(
      'WORKFLOW_REENTRY',
      workflow.allowReentry
        ? 'The contact already has an active execution of this workflow'
        : 'The contact has already entered this workflow, which does not allow re-entry',
      { contactId: contact.id },
    );
  }
  return presentExecution(out.execution);
}

/**
 * `GET /workflows/{id}/executions`: newest first, of one status or of all; totals from counters
 * (RUNNING: active executions that have not waited yet; WAITING: active ones that have waited at
 * least once, `executions-repository.ts`).
 */
export async function listExecutions(
  deps: ExecutionDeps,
  projectId: string,
  workflowId: string,
  query: ListExecutionsQuery,
): Promise<OffsetPage<Execution>> {
  await workflowOf(deps, projectId, workflowId);
  const counts = await readCounts(deps, projectId, workflowId);
  const statuses: readonly ExecutionStatus[] = query.status ? [query.status] : EXECUTION_STATUSES;
  const skip = (query.page - 1) * query.pageSize;
  const data = await listExecutionRecords(deps, projectId, workflowId, statuses, {
    limit: query.pageSize,
    skip,
  });
  const total = statuses.reduce((n, s) => n + counts[s], 0);
  return {
    data: data.map(presentExecution),
    page: query.page,
    pageSize: query.pageSize,
    total,
    totalPages: Math.ceil(total / query.pageSize),
  };
}

export async function getExecution(
  deps: ExecutionDeps,
  projectId: string,
  workflowId: string,
  executionId: string,
): Promise<Execution> {
  await workflowOf(deps, projectId, workflowId);
  const record = await getExecutionRecord(deps, projectId, workflowId, executionId, { consistent: true });
  if (!record) throw notFound('Execution');
  return presentExecution(record);
}

/** Cancels a RUNNING or WAITING execution (its pending schedules deleted); 409 when it has ended. */
export async function cancelExecution(
  deps: ExecutionDeps,
  projectId: string,
  workflowId: string,
  executionId: string,
): Promise<Execution> {
  await workflowOf(deps, projectId, workflowId);
  const { cancelExecutionRecord } = await import('./engine');
  // A step may move the execution between our read and our write: read again and retry.
  for (let attempt = 0; attempt < 5; attempt++) {
    const record = await getExecutionRecord(deps, projectId, workflowId, executionId, { consistent: true });
    if (!record) throw notFound('Execution');
    if (TERMINAL(record.status))
      throw conflict('EXECUTION_ENDED', `The execution has already ended (${record.status})`, {
        status: record.status,
      });
    if (await cancelExecutionRecord(deps, record)) {
      const after = await getExecutionRecord(deps, projectId, workflowId, executionId, { consistent: true });
      return presentExecution(after ?? record);
    }
  }
  throw conflict('EXECUTION_BUSY', 'The execution is moving; retry shortly');
}

/** Cancels every RUNNING and WAITING execution of the workflow. */
export async function cancelAllExecutions(
  deps: ExecutionDeps,
  projectId: string,
  workflowId: string,
): Promise<{ cancelled: number }> {
  await workflowOf(deps, projectId, workflowId);
  const { cancelExecutionRecord } = await import('./engine');
  let cancelled = 0;
  for (;;) {
    const batch = await listExecutionRecords(deps, projectId, workflowId, ACTIVE_STATUSES, { limit: 100 });
    let progressed = false;
    for (const listed of batch) {
      const record = await getExecutionRecord(deps, projectId, workflowId, listed.id, { consistent: true });
      if (!record || TERMINAL(record.status)) continue;
      if (await cancelExecutionRecord(deps, record)) {
        cancelled++;
        progressed = true;
      }
    }
    // The index lags the table: entries already cancelled may still be listed once.
    if (batch.length < 100 || !progressed) break;
  }
  return { cancelled };
}

/** Whether the workflow has RUNNING or WAITING executions (deletes and structural edits are 409 then). */
export async function hasActiveExecutions(
  deps: Pick<Deps, 'store'>,
  projectId: string,
  workflowId: string,
): Promise<boolean> {
  const [one] = await listExecutionRecords(deps, projectId, workflowId, ACTIVE_STATUSES, { limit: 1 });
  return one !== undefined;
}
