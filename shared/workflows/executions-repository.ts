/**
 * Workflow executions as stored. One item per execution (`keys.execution`), listed by status
 * through `executionsByStatus` (a keys-only index: its key moves with the status, in the same
 * write, and a write that leaves the status alone writes no index entry), counted by status in one
 * small item per workflow (`keys.executionCounts`). The item holds its ids only in its key and
 * leaves out what is null, so that an execution of a few steps stays within 1 KB (one write unit a
 * step). A contact's entries into a workflow (`keys.workflowEntry`, in the contact's partition)
 * carry the re-entry rule and name the execution active now: the contact's event finds the
 * executions WAITING for it through them (`activeExecutionsOf`), so a wait writes no item of its
 * own.
 *
 * Every move of an execution is one update conditional on its `seq` (the number of moves so far):
 * a step's run, a wait's end and a cancel each move it once, and an attempt that finds `seq` moved
 * on does nothing (`engine.ts`).
 */
import type { Item, StoreDeps } from '../store/store';
import { indexEntry, keyAttributes, keys } from '../table';
import type { Execution, ExecutionHistoryEntry } from './executions';
import { ACTIVE_STATUSES, type ExecutionStatus } from './model';

/** What an execution waits for: in a DELAY (still RUNNING), or WAITING for an event. */
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

/** Attributes an execution's item leaves out when they are null (read back as null). */
const OMITTED_WHEN_NULL = ['completedAt', 'error', 'wait', 'lease', 'trigger'] as const;

function toItem(r: ExecutionRecord): Item {
  const { id, projectId, workflowId, ...rest } = r;
  const item: Item = {
    ...keys.execution(projectId, workflowId, id),
    ...indexEntry('executionsByStatus', keys.executionsIndex(projectId, workflowId, r.status), sortOf(r)),
    ...rest,
  };
  // No lease is no attribute: `takeLease` tests for its absence.
  for (const name of OMITTED_WHEN_NULL) if (item[name] === null) delete item[name];
  return item;
}

const sortOf = (r: Pick<ExecutionRecord, 'startedAt' | 'id'>) => `${r.startedAt}#${r.id}`;

function fromItem(item: Item): ExecutionRecord {
  const ids = keys.executionIds({ pk: item.pk, sk: item.sk });
  return {
    id: ids.executionId,
    projectId: ids.projectId,
    workflowId: ids.workflowId,
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
  const byId = new Map(
    items.map((i) => [keys.executionIds({ pk: i.pk, sk: i.sk }).executionId, fromItem(i)]),
  );
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
 * fields, `seq + 1`, the lease released and, when the status changes, its index entry moved to
 * the new status. False when the execution has moved on (or is in another status): another
 * attempt made this move or another.
 */
export async function moveExecution(
  deps: StoreDeps,
  from: Pick<ExecutionRecord, 'projectId' | 'workflowId' | 'id' | 'seq' | 'startedAt' | 'status'>,
  move: Move,
  now: Date,
  statuses?: readonly ExecutionStatus[],
): Promise<boolean> {
  const sets = ['#status = :status', 'currentStepId = :current', 'seq = :next', 'updatedAt = :now'];
  const removes = ['lease'];
  const values: Record<string, unknown> = {
    ':status': move.status,
    ':current': move.currentStepId,
    ':next': from.seq + 1,
    ':seq': from.seq,
    ':now': now.toISOString(),
  };
  const names: Record<string, string> = { '#status': 'status' };
  if (move.status !== from.status) {
    const index = keyAttributes('executionsByStatus');
    sets.push('#gpk = :gpk', '#gsk = :gsk');
    names['#gpk'] = index.partitionKey;
    names['#gsk'] = index.sortKey;
    values[':gpk'] = keys.executionsIndex(from.projectId, from.workflowId, move.status);
    values[':gsk'] = sortOf(from);
  }
  if (move.entry) {
    sets.push('history = list_append(history, :entry)');
    values[':entry'] = [move.entry];
  }
  // Null is no attribute (`toItem`).
  const optional = {
    wait: move.wait,
    completedAt: move.completedAt,
    error: move.error,
    context: move.context,
  };
  for (const [name, value] of Object.entries(optional)) {
    if (value === undefined) continue;
    names[`#${name}`] = name;
    if (value === null) removes.push(`#${name}`);
    else {
      sets.push(`#${name} = :${name}`);
      values[`:${name}`] = value;
    }
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
    expression: `SET ${sets.join(', ')} REMOVE ${removes.join(', ')}`,
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
 * Up to `limit` of a workflow's executions of `status`, newest first, after skipping `skip` of
 * them: their keys from the index (eventually consistent), then the items by key. An execution
 * whose item has already moved to another status is left out.
 */
export async function executionsByStatus(
  deps: StoreDeps,
  projectId: string,
  workflowId: string,
  status: ExecutionStatus,
  options: { readonly limit: number; readonly skip?: number },
): Promise<ExecutionRecord[]> {
  const ids: string[] = [];
  const wanted = (options.skip ?? 0) + options.limit;
  let cursor = '';
  do {
    const page = await deps.store.query(
      { index: 'executionsByStatus', partition: keys.executionsIndex(projectId, workflowId, status) },
      { limit: Math.min(wanted - ids.length, 100), forward: false, ...(cursor ? { cursor } : {}) },
    );
    ids.push(...page.items.map((key) => keys.executionIds({ pk: key.pk, sk: key.sk }).executionId));
    cursor = page.cursor;
  } while (cursor && ids.length < wanted);
  const records = await batchGetExecutions(deps, projectId, workflowId, ids.slice(options.skip ?? 0, wanted));
  return records.filter((r) => r.status === status);
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

/**
 * The executions active now of the contact's entries into `workflowIds` (one consistent batched
 * read of the contact's own partition, whatever the number of executions elsewhere): how the
 * contact's event finds the executions waiting for it (`on-event.ts`). The re-entry rule keeps at
 * most one execution of a workflow active per contact, so there is one at most per workflow.
 */
export async function activeExecutionsOf(
  deps: StoreDeps,
  projectId: string,
  contactId: string,
  workflowIds: readonly string[],
): Promise<{ readonly workflowId: string; readonly executionId: string }[]> {
  if (workflowIds.length === 0) return [];
  const items = await deps.store.batchGet(
    workflowIds.map((id) => keys.workflowEntry(projectId, contactId, id)),
    { consistent: true },
  );
  const active = new Map<string, string>();
  for (const item of items) {
    const id = item.activeExecutionId;
    if (typeof id === 'string' && id) active.set(String(item.sk), id);
  }
  return workflowIds.flatMap((workflowId) => {
    const executionId = active.get(keys.workflowEntry(projectId, contactId, workflowId).sk);
    return executionId ? [{ workflowId, executionId }] : [];
  });
}

/** What deleting a stored execution needs of it (`purge.ts`): its id, contact and event wait. */
export interface StoredExecutionRef {
  readonly executionId: string;
  readonly contactId: string;
  /**
   * The event it waits for, when it still waits for one: an earlier version kept such waits as
   * WFWAIT items of the contact's partition (`keys.workflowWait`), deleted with the execution.
   */
  readonly waitingFor: string | null;
}

/**
 * The first `limit` execution items of a workflow's partition, in key order (the counts item is
 * not one of them). Consistent, so that an item just deleted is not read again.
 */
export async function firstExecutionRefs(
  deps: StoreDeps,
  projectId: string,
  workflowId: string,
  limit: number,
): Promise<StoredExecutionRef[]> {
  // The key of an empty execution id is the prefix every execution's key shares.
  const { pk, sk } = keys.execution(projectId, workflowId, '');
  const page = await deps.store.query(
    {
      partition: pk,
      sort: { beginsWith: sk },
      consistent: true,
      attributes: ['pk', 'sk', 'contactId', 'wait'],
    },
    { limit },
  );
  return page.items.map((item) => {
    const wait = item.wait as ExecutionWait | undefined;
    return {
      executionId: keys.executionIds({ pk: item.pk, sk: item.sk }).executionId,
      contactId: String(item.contactId),
      waitingFor: wait?.kind === 'event' && wait.eventName ? wait.eventName : null,
    };
  });
}

/**
 * Deletes the executions and what they keep in their contacts' partitions: the entries and waits
 * first, then the executions, so that a crash between the two leaves the executions that lead to
 * what is left. A contact's one entry may be shared by several executions: each key goes once
 * (a batch refuses a key twice). Deleting what is already gone is no error.
 */
export async function deleteExecutions(
  deps: StoreDeps,
  projectId: string,
  workflowId: string,
  refs: readonly StoredExecutionRef[],
): Promise<void> {
  const contacts = [...new Set(refs.map((r) => r.contactId))];
  await deps.store.batchDelete([
    ...contacts.map((c) => keys.workflowEntry(projectId, c, workflowId)),
    ...refs.flatMap((r) =>
      r.waitingFor === null ? [] : [keys.workflowWait(projectId, r.contactId, r.waitingFor, r.executionId)],
    ),
  ]);
  await deps.store.batchDelete(refs.map((r) => keys.execution(projectId, workflowId, r.executionId)));
}

export async function deleteCounts(deps: StoreDeps, projectId: string, workflowId: string): Promise<void> {
  await deps.store.write({ delete: keys.executionCounts(projectId, workflowId) });
}
