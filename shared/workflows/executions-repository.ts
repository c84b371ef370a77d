/**
 * Workflow executions as stored. One item per execution (`keys.execution`), listed through
 * `executionsByStatus` (a keys-only index) in one partition per ended status and one for the
 * active ones, RUNNING and WAITING together (`ACTIVE`): a wait and its resume flip the status in the
 * update the move writes anyway, and no index entry moves (an entry moved between partitions is a
 * delete and a put, 2 write units). A list of RUNNING or WAITING reads the active partition and
 * keeps the executions of that status. Executions are counted by status in one small item per
 * workflow (`keys.executionCounts`): an execution is counted RUNNING from its start and WAITING
 * from its first wait (`counted` on its item says under which), until it ends; its resume does not
 * move it back (RUNNING only lasts while a step runs). A wait with a due time (a DELAY's end, a
 * WAIT_FOR_EVENT's timeout) also puts one small item in the project's due-time partition
 * (`keys.workflowDue`), which `GET /activity/upcoming` reads soonest first; it expires by TTL after
 * its due time (a TTL delete costs no write unit), and a wait that ends before it (an event, a
 * cancel) deletes it. The item holds its ids only in its key and
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

/** What a WAITING execution waits for: the end of a DELAY, or an event. */
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

export interface ExecutionRecord extends Omit<Execution, 'resumesAt'> {
  readonly projectId: string;
  /** Moves so far; every move is conditional on it. */
  readonly seq: number;
  readonly trigger: TriggerEvent | null;
  readonly wait: ExecutionWait | null;
  /** Epoch ms until which a step run holds the execution (WEBHOOK calls). */
  readonly lease: number | null;
  readonly updatedAt: string;
  /** The status the workflow's counts hold the execution under (`countMove`). */
  readonly counted: ExecutionStatus;
  /**
   * The by-status index partition its item is in: `ACTIVE` for RUNNING and WAITING, the status
   * otherwise; an execution an earlier version stored is in its active status's own (`RUNNING`,
   * `WAITING`) until its next move puts it in `ACTIVE`.
   */
  readonly indexed: string | null;
}

/** The index partition of RUNNING and WAITING executions (`indexPartition`). */
export const ACTIVE_PARTITION = 'ACTIVE';

/** The by-status index partition (its suffix) of an execution of `status`. */
export const indexPartition = (status: ExecutionStatus) =>
  ACTIVE_STATUSES.includes(status) ? ACTIVE_PARTITION : status;

export const TERMINAL = (status: ExecutionStatus) => !ACTIVE_STATUSES.includes(status);

/** Attributes an execution's item leaves out when they are null (read back as null). */
const OMITTED_WHEN_NULL = ['completedAt', 'error', 'wait', 'lease', 'trigger'] as const;

function toItem(r: ExecutionRecord): Item {
  const { id, projectId, workflowId, indexed: _indexed, ...rest } = r;
  const partition = keys.executionsIndex(projectId, workflowId, indexPartition(r.status));
  const item: Item = {
    ...keys.execution(projectId, workflowId, id),
    ...indexEntry('executionsByStatus', partition, sortOf(r)),
    ...rest,
  };
  // No lease is no attribute: `takeLease` tests for its absence.
  for (const name of OMITTED_WHEN_NULL) if (item[name] === null) delete item[name];
  return item;
}

const sortOf = (r: Pick<ExecutionRecord, 'startedAt' | 'id'>) => `${r.startedAt}#${r.id}`;

function fromItem(item: Item): ExecutionRecord {
  const ids = keys.executionIds({ pk: item.pk, sk: item.sk });
  const stored = item.status as ExecutionStatus;
  const wait = (item.wait as ExecutionWait | null) ?? null;
  return {
    id: ids.executionId,
    projectId: ids.projectId,
    workflowId: ids.workflowId,
    contactId: String(item.contactId),
    // An earlier version kept an execution in a DELAY RUNNING: it is WAITING.
    status: stored === 'RUNNING' && wait?.kind === 'delay' ? 'WAITING' : stored,
    currentStepId: (item.currentStepId as string | null) ?? null,
    context: (item.context as Record<string, unknown>) ?? {},
    history: (item.history as ExecutionHistoryEntry[]) ?? [],
    startedAt: String(item.startedAt),
    completedAt: (item.completedAt as string | null) ?? null,
    error: (item.error as string | null) ?? null,
    seq: Number(item.seq),
    trigger: (item.trigger as TriggerEvent | null) ?? null,
    wait,
    lease: typeof item.lease === 'number' ? item.lease : null,
    updatedAt: String(item.updatedAt),
    counted: (item.counted as ExecutionStatus | undefined) ?? stored,
    indexed: indexedPartitionOf(item),
  };
}

/** The suffix of the by-status partition the item's index entry is in (`indexPartition`). */
function indexedPartitionOf(item: Item): string | null {
  const value = item[keyAttributes('executionsByStatus').partitionKey];
  return typeof value === 'string' ? (value.split('#').at(-1) ?? null) : null;
}

/** The execution as the API shows it (`resumesAt`: when a WAITING execution's wait ends, if known). */

export function presentExecution(r: ExecutionRecord): Execution {
  return {
    id: r.id,
    workflowId: r.workflowId,
    contactId: r.contactId,
    status: r.status,
    currentStepId: r.currentStepId,
    resumesAt: r.status === 'WAITING' ? (r.wait?.until ?? null) : null,
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
  /** The status the counts hold it under from this move (null: no longer kept, it ended). */
  readonly counted?: ExecutionStatus | null;
}

/**
 * Moves the execution from `from.seq` (and, where asked, while it is one of `statuses`): the move's
 * fields, `seq + 1`, the lease released and, when the new status belongs in another index
 * partition than the item's (an end; an execution an earlier version stored), its index entry
 * moved there. False when the execution has moved on (or is in another status): another attempt
 * made this move or another.
 */
export async function moveExecution(
  deps: StoreDeps,
  from: Pick<ExecutionRecord, 'projectId' | 'workflowId' | 'id' | 'seq' | 'startedAt' | 'indexed'>,
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
  const partition = indexPartition(move.status);
  if (partition !== from.indexed) {
    const index = keyAttributes('executionsByStatus');
    sets.push('#gpk = :gpk', '#gsk = :gsk');
    names['#gpk'] = index.partitionKey;
    names['#gsk'] = index.sortKey;
    values[':gpk'] = keys.executionsIndex(from.projectId, from.workflowId, partition);
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
    counted: move.counted,
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

/** Index entries a filtered list examines at most beyond the ones it answers (`listExecutionRecords`). */
export const MAX_EXAMINED_EXTRA = 1_000;

/**
 * Up to `limit` of a workflow's executions of `statuses`, newest first, after skipping `skip` of
 * them. Their keys come from the index partitions that hold them (eventually consistent), merged
 * newest first: an ended status's own, or for RUNNING and WAITING the active partition (and the
 * `RUNNING` and `WAITING` partitions an earlier version wrote); then the items by key, keeping
 * those of `statuses` now (an active list keeps those of its status; an item that has moved on
 * since its entry is left out). A list of RUNNING or WAITING alone examines at most
 * `MAX_EXAMINED_EXTRA` entries more than it answers: RUNNING lasts while a step runs, so few are
 * passed over.
 */
export async function listExecutionRecords(
  deps: StoreDeps,
  projectId: string,
  workflowId: string,
  statuses: readonly ExecutionStatus[],
  options: { readonly limit: number; readonly skip?: number },
): Promise<ExecutionRecord[]> {
  const skip = options.skip ?? 0;
  const wanted = skip + options.limit;
  const partitions = new Set<string>();
  for (const s of statuses)
    if (ACTIVE_STATUSES.includes(s))
      for (const p of [ACTIVE_PARTITION, ...ACTIVE_STATUSES]) partitions.add(p);
    else partitions.add(s);
  const stream = mergedEntries(deps, projectId, workflowId, [...partitions]);
  const found: ExecutionRecord[] = [];
  const seen = new Set<string>();
  const maxExamined = wanted + MAX_EXAMINED_EXTRA;
  let examined = 0;
  while (found.length < wanted && examined < maxExamined) {
    const ids: string[] = [];
    while (ids.length < Math.min(100, wanted - found.length) && examined < maxExamined) {
      const next = await stream.next();
      if (next === undefined) break;
      examined++;
      if (seen.has(next)) continue;
      seen.add(next);
      ids.push(next);
    }
    if (ids.length === 0) break;
    const records = await batchGetExecutions(deps, projectId, workflowId, ids);
    found.push(...records.filter((r) => statuses.includes(r.status)));
  }
  return found.slice(skip, wanted);
}

/**
 * The execution ids of the index partitions `suffixes`, merged newest first (by the index's sort
 * key, `<startedAt>#<id>`), read a page of each at a time.
 */
function mergedEntries(deps: StoreDeps, projectId: string, workflowId: string, suffixes: readonly string[]) {
  const sortKey = keyAttributes('executionsByStatus').sortKey;
  const heads = suffixes.map((suffix) => ({
    partition: keys.executionsIndex(projectId, workflowId, suffix),
    items: [] as Item[],
    cursor: '' as string,
    done: false,
  }));
  return {
    async next(): Promise<string | undefined> {
      for (const h of heads) {
        if (h.items.length > 0 || h.done) continue;
        const page = await deps.store.query(
          { index: 'executionsByStatus', partition: h.partition },
          { limit: 100, forward: false, ...(h.cursor ? { cursor: h.cursor } : {}) },
        );
        h.items = [...page.items];
        h.cursor = page.cursor;
        h.done = !page.cursor;
      }
      let best: (typeof heads)[number] | undefined;
      for (const h of heads)
        if (h.items.length > 0 && (!best || String(h.items[0]![sortKey]) > String(best.items[0]![sortKey])))
          best = h;
      const item = best?.items.shift();
      return item ? keys.executionIds({ pk: item.pk, sk: item.sk }).executionId : undefined;
    },
  };
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
  /** The due time of its wait, if it has one: its due item goes with it. */
  readonly dueAt: string | null;
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
      dueAt: wait?.until ?? null,
    };
  });
}

/**
 * Deletes the executions and what they keep in their contacts' partitions: the entries and waits
 * (and the due items of their waits) first, then the executions, so that a crash between the two leaves the executions that lead to
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
    ...refs.flatMap((r) =>
      r.dueAt === null ? [] : [keys.workflowDue(projectId, r.dueAt, workflowId, r.executionId)],
    ),
  ]);
  await deps.store.batchDelete(refs.map((r) => keys.execution(projectId, workflowId, r.executionId)));
}

export async function deleteCounts(deps: StoreDeps, projectId: string, workflowId: string): Promise<void> {
  await deps.store.write({ delete: keys.executionCounts(projectId, workflowId) });
}

// ---------------------------------------------------------------------------------------------
// Due times of waits (`GET /activity/upcoming`)

/** How long after its due time a wait's due item stays before its TTL deletes it. */
const DUE_ITEM_TTL_S = 86_400;

/** A WAITING execution's due time, as the project's due-time partition lists it. */
export interface DueWait {
  readonly at: string;
  readonly workflowId: string;
  readonly executionId: string;
}

/**
 * Lists the execution's wait, due `at`, in the project's due-time partition (one small put, the
 * same key again when a redelivered step repeats it).
 */
export async function putDue(
  deps: StoreDeps,
  r: Pick<ExecutionRecord, 'projectId' | 'workflowId' | 'id'>,
  at: string,
): Promise<void> {
  await deps.store.write({
    put: {
      ...keys.workflowDue(r.projectId, at, r.workflowId, r.id),
      expiresAt: Math.floor(Date.parse(at) / 1000) + DUE_ITEM_TTL_S,
    },
  });
}

/** Deletes the due item of a wait that ended before its due time (deleting what is gone is no error). */
export async function deleteDue(
  deps: StoreDeps,
  r: Pick<ExecutionRecord, 'projectId' | 'workflowId' | 'id'>,
  at: string,
): Promise<void> {
  await deps.store.write({ delete: keys.workflowDue(r.projectId, at, r.workflowId, r.id) });
}

/**
 * Up to `limit` waits of the project's executions due in `[from, until]`, soonest first, each
 * still WAITING with that due time (read back by key: a wait that has ended, or a due item a
 * redelivered step left behind, is passed over). Reads at most `MAX_EXAMINED_EXTRA` due items more
 * than it answers.
 */
export async function dueWaits(
  deps: StoreDeps,
  projectId: string,
  from: string,
  until: string,
  limit: number,
): Promise<{ readonly wait: DueWait; readonly execution: ExecutionRecord }[]> {
  const out: { wait: DueWait; execution: ExecutionRecord }[] = [];
  const partition = keys.workflowDuePartition(projectId);
  let cursor = '';
  let examined = 0;
  do {
    const page = await deps.store.query(
      // `~` sorts after the `#` that follows a due time in its key.
      { partition, sort: { between: [from, `${until}~`] } },
      { limit: Math.min(100, limit - out.length + 10), ...(cursor ? { cursor } : {}) },
    );
    cursor = page.cursor;
    examined += page.items.length;
    const waits = page.items.flatMap((item) => {
      const wait = keys.workflowDueOf(String(item.sk));
      return wait ? [wait] : [];
    });
    const records = await Promise.all(
      [...new Set(waits.map((w) => w.workflowId))].map(async (workflowId) =>
        batchGetExecutions(
          deps,
          projectId,
          workflowId,
          waits.filter((w) => w.workflowId === workflowId).map((w) => w.executionId),
        ),
      ),
    );
    const byId = new Map(records.flat().map((r) => [r.id, r]));
    for (const wait of waits) {
      const execution = byId.get(wait.executionId);
      if (execution?.status === 'WAITING' && execution.wait?.until === wait.at && out.length < limit)
        out.push({ wait, execution });
    }
  } while (cursor && out.length < limit && examined < limit + MAX_EXAMINED_EXTRA);
  return out;
}
