/**
 * Workflow executions as stored. One item per execution (`keys.execution`), listed by status
 * through `executionsByStatus` (its index keys move with its status, in the same write), counted
 * by status in one small item per workflow (`keys.executionCounts`). A contact's entries into a
 * workflow (`keys.workflowEntry`) carry the re-entry rule; WAIT_FOR_EVENT waits are items of the
 * contact's partition (`keys.workflowWait`), so the contact's event finds them with one query of
 * its own partition.
 *
 * Every move of an execution is one update conditional on its `seq` (the number of moves so far):
 * a step's run, a wait's end and a cancel each move it once, and an attempt that finds `seq` moved
 * on does nothing (`engine.ts`).
 */
import type { Item, StoreDeps } from '../store/store';
import { indexEntry, keys } from '../table';
import type { Execution, ExecutionHistoryEntry } from './executions';
import { ACTIVE_STATUSES, type ExecutionStatus } from './model';

/** What an execution waits for while WAITING. */
export interface ExecutionWait {
  readonly kind: 'delay' | 'event';
  /** When a delay ends, or an event wait times out. */
  readonly until: string | null;
  readonly eventName: string | null;
  /** The one-off schedule that ends the wait, if any. */
  readonly schedule: string | null;
}

/** The event that started an execution: its template variables and condition data as `event`. */
export interface TriggerEvent {
  readonly id: string;
  readonly name: string;
  readonly data: Record<string, unknown>;
}

export interface ExecutionRecord extends Execution {
  readonly projectId: string;
  /** Moves so far; every move is conditional on it. */
  readonly seq: number;
  readonly trigger: TriggerEvent | null;
  readonly wait: ExecutionWait | null;
  /** Epoch ms until which a step run holds the execution (WEBHOOK calls). */
  readonly lease: number | null;
  readonly updatedAt: string;
}

export const TERMINAL = (status: ExecutionStatus) => !ACTIVE_STATUSES.includes(status);

function toItem(r: ExecutionRecord): Item {
  // No lease is no attribute: `takeLease` tests for its absence.
  const { lease, ...rest } = r;
  return {
    ...keys.execution(r.projectId, r.workflowId, r.id),
    ...indexEntry('executionsByStatus', keys.executionsIndex(r.projectId, r.workflowId, r.status), sortOf(r)),
    ...rest,
    ...(lease === null ? {} : { lease }),
  };
}

const sortOf = (r: Pick<ExecutionRecord, 'startedAt' | 'id'>) => `${r.startedAt}#${r.id}`;

function fromItem(item: Item): ExecutionRecord {
  return {
    id: String(item.id),
    projectId: String(item.projectId),
    workflowId: String(item.workflowId),
    contactId: String(item.contactId),
    status: item.status as ExecutionStatus,
    currentStepId: (item.currentStepId as string | null) ?? null,
    context: (item.context as Record<string, unknown>) ?? {},
    history: (item.history as ExecutionHistoryEntry[]) ?? [],
    startedAt: String(item.startedAt),
    completedAt: (item.completedAt as string | null) ?? null,
    error: (item.error as string | null) ?? null,
    seq: Number(item.seq),
    trigger: (item.trigger as TriggerEvent | null) ?? null,
    wait: (item.wait as ExecutionWait | null) ?? null,
    lease: typeof item.lease === 'number' ? item.lease : null,
    updatedAt: String(item.updatedAt),
  };
}

export function presentExecution(r: ExecutionRecord): Execution {
  return {
    id: r.id,
    workflowId: r.workflowId,
    contactId: r.contactId,
    status: r.status,
    currentStepId: r.currentStepId,
    context: r.context,
    history: r.history,
    startedAt: r.startedAt,
    completedAt: r.completedAt,
    error: r.error,
  };
}

export async function getExecutionRecord(
  deps: StoreDeps,
  projectId: string,
  workflowId: string,
  executionId: string,
  options: { readonly consistent?: boolean } = {},
): Promise<ExecutionRecord | undefined> {
  const item = await deps.store.get(keys.execution(projectId, workflowId, executionId), options);
  return item ? fromItem(item) : undefined;
}

export async function batchGetExecutions(
  deps: StoreDeps,
  projectId: string,
  workflowId: string,
  ids: readonly string[],
): Promise<ExecutionRecord[]> {
  if (ids.length === 0) return [];
  const items = await deps.store.batchGet(ids.map((id) => keys.execution(projectId, workflowId, id)));
  const byId = new Map(items.map((i) => [String(i.id), fromItem(i)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** Creates the execution unless it exists; true when this call created it. */
export async function putNewExecution(deps: StoreDeps, record: ExecutionRecord): Promise<boolean> {
  return deps.store.writeIf({ put: toItem(record), if: 'attribute_not_exists(pk)' });
}

/** What one move changes. */
export interface Move {
  readonly status: ExecutionStatus;
  readonly currentStepId: string | null;
  /** Appended to the history. */
  readonly entry?: ExecutionHistoryEntry;
  readonly wait?: ExecutionWait | null;
  readonly completedAt?: string;
  readonly error?: string | null;
  readonly context?: Record<string, unknown>;
}

/**
 * Moves the execution from `from.seq` (and, where asked, while it is one of `statuses`): the move's
 * fields, `seq + 1`, its index entry to the new status, the lease released. False when the
 * execution has moved on (or is in another status): another attempt made this move or another.
 */
export async function moveExecution(
  deps: StoreDeps,
  from: Pick<ExecutionRecord, 'projectId' | 'workflowId' | 'id' | 'seq' | 'startedAt'>,
  move: Move,
  now: Date,
  statuses?: readonly ExecutionStatus[],
): Promise<boolean> {
  const sets = [
    '#status = :status',
    'currentStepId = :current',
    'seq = :next',
    'updatedAt = :now',
    '#gpk = :gpk',
    '#gsk = :gsk',
  ];
  const values: Record<string, unknown> = {
    ':status': move.status,
    ':current': move.currentStepId,
    ':next': from.seq + 1,
    ':seq': from.seq,
    ':now': now.toISOString(),
    ':gpk': keys.executionsIndex(from.projectId, from.workflowId, move.status),
    ':gsk': sortOf(from),
  };
  const names: Record<string, string> = { '#status': 'status', '#gpk': 'gsi1pk', '#gsk': 'gsi1sk' };
  if (move.entry) {
    sets.push('history = list_append(history, :entry)');
    values[':entry'] = [move.entry];
  }
  if (move.wait !== undefined) {
    sets.push('#wait = :wait');
    names['#wait'] = 'wait';
    values[':wait'] = move.wait;
  }
  if (move.completedAt !== undefined) {
    sets.push('completedAt = :completedAt');
    values[':completedAt'] = move.completedAt;
  }
  if (move.error !== undefined) {
    sets.push('#error = :error');
    names['#error'] = 'error';
    values[':error'] = move.error;
  }
  if (move.context !== undefined) {
    sets.push('#context = :context');
    names['#context'] = 'context';
    values[':context'] = move.context;
  }
  let condition = 'seq = :seq';
  if (statuses) {
    const list = statuses.map((s, i) => {
      values[`:s${i}`] = s;
      return `:s${i}`;
    });
    condition += ` AND #status IN (${list.join(', ')})`;
  }
  const { pk, sk } = keys.execution(from.projectId, from.workflowId, from.id);
  return deps.store.writeIf({
    update: { pk, sk },
    expression: `SET ${sets.join(', ')} REMOVE lease`,
    names,
    values,
    if: condition,
  });
}

/**
 * Takes the execution's lease at `seq` for `ms` (a WEBHOOK call): false when the execution has
 * moved on or another attempt holds an unexpired lease.
 */
export async function takeLease(
  deps: StoreDeps,
  r: Pick<ExecutionRecord, 'projectId' | 'workflowId' | 'id' | 'seq'>,
  now: Date,
  ms: number,
): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.execution(r.projectId, r.workflowId, r.id),
    expression: 'SET lease = :until',
    values: { ':until': now.getTime() + ms, ':seq': r.seq, ':now': now.getTime() },
    if: 'seq = :seq AND (attribute_not_exists(lease) OR lease < :now)',
  });
}

export type ExecutionCounts = Readonly<Record<ExecutionStatus, number>>;

/** Moves one execution between status counters (`from` undefined: a new execution). */
export async function countMove(
  deps: StoreDeps,
  projectId: string,
  workflowId: string,
  from: ExecutionStatus | undefined,
  to: ExecutionStatus,
): Promise<void> {
  if (from === to) return;
  const names: Record<string, string> = { '#to': to };
  const values: Record<string, unknown> = { ':one': 1 };
  let expression = 'ADD #to :one';
  if (from) {
    names['#from'] = from;
    values[':minus'] = -1;
    expression += ', #from :minus';
  }
  await deps.store.write({ update: keys.executionCounts(projectId, workflowId), expression, names, values });
}

export async function readCounts(
  deps: StoreDeps,
  projectId: string,
  workflowId: string,
): Promise<ExecutionCounts> {
  const item = await deps.store.get(keys.executionCounts(projectId, workflowId), { consistent: true });
  const n = (s: ExecutionStatus) => Math.max(0, Number(item?.[s] ?? 0));
  return {
    RUNNING: n('RUNNING'),
    WAITING: n('WAITING'),
    COMPLETED: n('COMPLETED'),
    EXITED: n('EXITED'),
    FAILED: n('FAILED'),
    CANCELLED: n('CANCELLED'),
  };
}

/**
 * Up to `limit` of a workflow's executions of `status`, newest first, read from the index (whose
 * entries hold the whole item, eventually consistent), after skipping `skip` of them.
 */
export async function executionsByStatus(
  deps: StoreDeps,
  projectId: string,
  workflowId: string,
  status: ExecutionStatus,
  options: { readonly limit: number; readonly skip?: number },
): Promise<ExecutionRecord[]> {
  const out: ExecutionRecord[] = [];
  const wanted = (options.skip ?? 0) + options.limit;
  let cursor = '';
  do {
    const page = await deps.store.query(
      { index: 'executionsByStatus', partition: keys.executionsIndex(projectId, workflowId, status) },
      { limit: Math.min(wanted - out.length, 100), forward: false, ...(cursor ? { cursor } : {}) },
    );
    out.push(...page.items.map(fromItem));
    cursor = page.cursor;
  } while (cursor && out.length < wanted);
  return out.slice(options.skip ?? 0, wanted);
}

/** A contact's entries into one workflow: the execution active now, if any, and the last one. */
export interface WorkflowEntry {
  readonly activeExecutionId: string | null;
  readonly lastExecutionId: string;
  readonly updatedAt: string;
}

export async function getEntry(
  deps: StoreDeps,
  projectId: string,
  contactId: string,
  workflowId: string,
): Promise<WorkflowEntry | undefined> {
  const item = await deps.store.get(keys.workflowEntry(projectId, contactId, workflowId), {
    consistent: true,
  });
  if (!item) return undefined;
  return {
    activeExecutionId: (item.activeExecutionId as string | null) ?? null,
    lastExecutionId: String(item.lastExecutionId),
    updatedAt: String(item.updatedAt),
  };
}

/**
 * Records that `executionId` enters the workflow for the contact, under the re-entry rule:
 * without re-entry only when the contact never entered, with it only when no execution is active
 * (or `replacing`, an entry whose execution was never created). True when it holds the entry.
 */
export async function claimEntry(
  deps: StoreDeps,
  projectId: string,
  contactId: string,
  workflowId: string,
  executionId: string,
  allowReentry: boolean,
  now: Date,
  replacing?: string,
): Promise<boolean> {
  const values: Record<string, unknown> = { ':id': executionId, ':now': now.toISOString() };
  let condition = 'attribute_not_exists(pk)';
  if (allowReentry) condition += ' OR attribute_not_exists(activeExecutionId) OR activeExecutionId = :null';
  if (replacing) {
    condition += ' OR activeExecutionId = :replacing';
    values[':replacing'] = replacing;
  }
  if (allowReentry) values[':null'] = null;
  return deps.store.writeIf({
    update: keys.workflowEntry(projectId, contactId, workflowId),
    expression: 'SET activeExecutionId = :id, lastExecutionId = :id, updatedAt = :now',
    values,
    if: condition,
  });
}

/** The contact's entry no longer has `executionId` active (it ended). */
export async function releaseEntry(
  deps: StoreDeps,
  projectId: string,
  contactId: string,
  workflowId: string,
  executionId: string,
): Promise<void> {
  await deps.store.writeIf({
    update: keys.workflowEntry(projectId, contactId, workflowId),
    expression: 'SET activeExecutionId = :null',
    values: { ':null': null, ':id': executionId },
    if: 'activeExecutionId = :id',
  });
}

/** An execution waiting for the contact's event. */
export interface WaitEntry {
  readonly workflowId: string;
  readonly executionId: string;
  /** The execution's `seq` while it waits. */
  readonly seq: number;
  readonly stepId: string;
}

export async function putWait(
  deps: StoreDeps,
  projectId: string,
  contactId: string,
  eventName: string,
  wait: WaitEntry,
): Promise<void> {
  await deps.store.write({
    put: { ...keys.workflowWait(projectId, contactId, eventName, wait.executionId), ...wait },
  });
}

export async function deleteWait(
  deps: StoreDeps,
  projectId: string,
  contactId: string,
  eventName: string,
  executionId: string,
): Promise<void> {
  await deps.store.write({ delete: keys.workflowWait(projectId, contactId, eventName, executionId) });
}

/** The executions waiting for the contact's event `eventName`: one query of the contact's partition. */
export async function waitsFor(
  deps: StoreDeps,
  projectId: string,
  contactId: string,
  eventName: string,
): Promise<WaitEntry[]> {
  const out: WaitEntry[] = [];
  const query = {
    partition: keys.contactPartition(projectId, contactId),
    sort: { beginsWith: keys.workflowWaitPrefix(eventName) },
    consistent: true,
  };
  for await (const item of deps.store.queryAll(query)) {
    out.push({
      workflowId: String(item.workflowId),
      executionId: String(item.executionId),
      seq: Number(item.seq),
      stepId: String(item.stepId),
    });
  }
  return out;
}
