/**
 * The contact counters of a project: the repository of its `P#<pid>#CSTATS` partition. Only this
 * module knows these keys. What a contact counts for, and the deltas of a change, are
 * `contribution.ts`; the recount that sets the counters exactly again is `recount.ts`.
 *
 * - The stats item (`#STATS`): `total` live contacts, `subscribed` ones, and per custom field
 *   leaf path the number of contacts that have it (attribute `c:<path>`). Deltas are one UpdateItem
 *   of `ADD`s (at most 100 paths a request), which also adds 1 to `seq`.
 * - A value-counter item per leaf path (`VALUES#<path>`): map `v` of value (its JSON text) -> the
 *   number of contacts with it, at most `TRACKED_VALUES` values. A delta is one conditional
 *   UpdateItem per `VALUES_PER_UPDATE` values (`SET v.x = if_not_exists(v.x, 0) + d`, on
 *   condition that every value decremented is tracked and a new value finds room); the first
 *   writer of a path creates the item holding its values (`attribute_not_exists`), and one that
 *   loses that race adds in place: concurrent writers each add their own, none reads first, so
 *   none can lose a race to another. Only values that condition refuses take a read and a put
 *   conditional on the item's `seq`, which drops values at zero, admits new ones while there is
 *   room and marks the item `capped` when one finds none. Every change adds 1 to
 *   its `seq`; nothing but a recount writes a `seq` back, and no item of this partition is deleted
 *   except recount runs, so a `seq` read earlier and found again means no delta came in between.
 * - Recount runs (`RECOUNT#<runId>`): a recount's position in the contacts and its partial counts
 *   (`recount.ts`), expiring after a day.
 *
 * Reads for the API are eventually consistent, as the contacts index they stand in for is.
 */
import { addMemberCounts } from '../segments/repository';
import { type Item, type StoreDeps, sleep } from '../store/store';
import { keys } from '../table';
import { type StatsDelta, TRACKED_VALUES, ValueSketch } from './contribution';

const COVERAGE = 'c:';
/** Coverage paths per UpdateItem (a request's expressions stay well under DynamoDB's 4 KB). */
const PATHS_PER_UPDATE = 100;
/** Values a delta changes at most for the one-request update; more go through read and put. */
const VALUES_PER_UPDATE = 16;
/** Read-and-put rounds of a value counter before its writers' race is an error. */
const MAX_VALUE_ROUNDS = 10;

export interface ContactStats {
  readonly total: number;
  readonly subscribed: number;
  /** Leaf path -> contacts that have it. */
  readonly coverage: ReadonlyMap<string, number>;
}

const nonNegative = (n: unknown) => Math.max(0, Number(n ?? 0) || 0);

/** The project's stats (zero when it has none yet): one eventually consistent read. */
export async function readContactStats(deps: StoreDeps, projectId: string): Promise<ContactStats> {
  const item = await deps.store.get(keys.contactStats(projectId));
  const coverage = new Map<string, number>();
  for (const [name, value] of Object.entries(item ?? {})) {
    if (name.startsWith(COVERAGE)) coverage.set(name.slice(COVERAGE.length), nonNegative(value));
  }
  return { total: nonNegative(item?.total), subscribed: nonNegative(item?.subscribed), coverage };
}

export interface FieldValueCounts {
  /** Value key (JSON text) -> contacts with it; values at zero left out. */
  readonly counts: ReadonlyMap<string, number>;
  /** Some values of the field are not tracked (see `contribution.ts`). */
  readonly capped: boolean;
}

function countsOf(item: Item | undefined): Map<string, number> {
  const v = (item?.v ?? {}) as Record<string, unknown>;
  return new Map(
    Object.entries(v)
      .map(([key, n]) => [key, Number(n)] as [string, number])
      .filter(([, n]) => n > 0),
  );
}

/** The value counts of one leaf path: one eventually consistent read. */
export async function readFieldValueCounts(
  deps: StoreDeps,
  projectId: string,
  path: string,
): Promise<FieldValueCounts> {
  const item = await deps.store.get(keys.fieldValueCounts(projectId, path));
  return { counts: countsOf(item), capped: item?.capped === true };
}

/**
 * Applies a delta: one update of the stats item (when total, subscribed or coverage change) and
 * one of each value counter that changes, at once.
 */
export async function applyStatsDelta(deps: StoreDeps, projectId: string, delta: StatsDelta): Promise<void> {
  const writes: Promise<void>[] = [];
  if (delta.changesStats) writes.push(addToStats(deps, projectId, delta));
  for (const [path, counts] of delta.values) writes.push(addToValues(deps, projectId, path, counts));
  if (delta.members.size > 0) writes.push(addMemberCounts(deps, projectId, delta.members));
  const results = await Promise.allSettled(writes);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

async function addToStats(deps: StoreDeps, projectId: string, delta: StatsDelta): Promise<void> {
  const coverage = [...delta.coverage];
  for (let i = 0; i === 0 || i < coverage.length; i += PATHS_PER_UPDATE) {
    const names: Record<string, string> = { '#seq': 'seq', '#entity': 'entity' };
    const values: Record<string, unknown> = { ':one': 1, ':entity': 'contactStats' };
    const adds = ['#seq :one'];
    if (i === 0 && delta.total !== 0) {
      adds.push('#total :total');
      names['#total'] = 'total';
      values[':total'] = delta.total;
    }
    if (i === 0 && delta.subscribed !== 0) {
      adds.push('#sub :sub');
      names['#sub'] = 'subscribed';
      values[':sub'] = delta.subscribed;
    }
    coverage.slice(i, i + PATHS_PER_UPDATE).forEach(([path, n], j) => {
      adds.push(`#c${j} :c${j}`);
      names[`#c${j}`] = `${COVERAGE}${path}`;
      values[`:c${j}`] = n;
    });
    await deps.store.write({
      update: keys.contactStats(projectId),
      expression: `SET #entity = :entity ADD ${adds.join(', ')}`,
      names,
      values,
    });
  }
}

/**
 * Adds a delta to a value counter: in place, up to `VALUES_PER_UPDATE` values a request (creating
 * the counter first when it does not exist), so that concurrent writers each add their own in one
 * request and never race; only values the in-place condition refuses (a decrement of a value not
 * tracked, a new value that may find no room) take the read-and-put path.
 */
async function addToValues(
  deps: StoreDeps,
  projectId: string,
  path: string,
  deltas: ReadonlyMap<string, number>,
): Promise<void> {
  const entries = [...deltas];
  const refused = new Map<string, number>();
  for (let i = 0; i < entries.length; i += VALUES_PER_UPDATE) {
    const part = new Map(entries.slice(i, i + VALUES_PER_UPDATE));
    // Refused in place: the counter may not exist yet (created holding this part), or exist now
    // that another writer created it (in place again).
    const applied =
      (await addInPlace(deps, projectId, path, part)) ||
      (await createValueCounter(deps, projectId, path, part)) ||
      (await addInPlace(deps, projectId, path, part));
    if (!applied) for (const [value, d] of part) refused.set(value, d);
  }
  if (refused.size > 0) await mergeValues(deps, projectId, path, refused);
}

/** Creates the path's value counter holding `deltas`, unless it exists; true when this call did. */
async function createValueCounter(
  deps: StoreDeps,
  projectId: string,
  path: string,
  deltas: ReadonlyMap<string, number>,
): Promise<boolean> {
  const first = mergeCounts(new Map(), deltas, false);
  return deps.store.writeIf({
    put: {
      ...keys.fieldValueCounts(projectId, path),
      entity: 'fieldValues',
      path,
      v: Object.fromEntries(first.counts),
      ...(first.capped ? { capped: true } : {}),
      seq: 1,
    },
    if: 'attribute_not_exists(pk)',
  });
}

/** The read-and-put path (see the module comment), with a short random pause between rounds. */
async function mergeValues(
  deps: StoreDeps,
  projectId: string,
  path: string,
  deltas: ReadonlyMap<string, number>,
): Promise<void> {
  const key = keys.fieldValueCounts(projectId, path);
  for (let round = 0; round < MAX_VALUE_ROUNDS; round++) {
    if (round > 0) await sleep(Math.random() * 20 * round);
    const item = await deps.store.get(key, { consistent: true });
    const seen = item === undefined ? undefined : Number(item.seq ?? 0);
    const next = mergeCounts(countsOf(item), deltas, item?.capped === true);
    if (seen === undefined && next.counts.size === 0 && !next.capped) return;
    const written = await deps.store.writeIf({
      put: {
        ...key,
        entity: 'fieldValues',
        path,
        v: Object.fromEntries(next.counts),
        ...(next.capped ? { capped: true } : {}),
        seq: (seen ?? 0) + 1,
      },
      ...(seen === undefined
        ? { if: 'attribute_not_exists(pk)' }
        : { if: '#seq = :seen', names: { '#seq': 'seq' }, values: { ':seen': seen } }),
    });
    if (written) return;
  }
  throw new Error(`The value counter of ${path} kept changing under its writers`);
}

/**
 * The one-request update: true when applied, false when a value decremented is not tracked (or
 * not that often), a new value may find no room, or the item does not exist yet.
 */
async function addInPlace(
  deps: StoreDeps,
  projectId: string,
  path: string,
  deltas: ReadonlyMap<string, number>,
): Promise<boolean> {
  const names: Record<string, string> = { '#v': 'v', '#seq': 'seq' };
  const values: Record<string, unknown> = { ':zero': 0, ':one': 1 };
  const sets: string[] = [];
  const conditions = ['attribute_exists(#v)'];
  const added = [...deltas.values()].filter((d) => d > 0).length;
  if (added > 0) values[':room'] = TRACKED_VALUES - added;
  [...deltas].forEach(([value, d], i) => {
    names[`#k${i}`] = value;
    values[`:d${i}`] = d;
    sets.push(`#v.#k${i} = if_not_exists(#v.#k${i}, :zero) + :d${i}`);
    if (d < 0) {
      values[`:n${i}`] = -d;
      conditions.push(`#v.#k${i} >= :n${i}`);
    } else {
      conditions.push(`(attribute_exists(#v.#k${i}) OR size(#v) <= :room)`);
    }
  });
  return deps.store.writeIf({
    update: keys.fieldValueCounts(projectId, path),
    expression: `SET ${sets.join(', ')} ADD #seq :one`,
    if: conditions.join(' AND '),
    names,
    values,
  });
}

/**
 * Counts after `deltas`: tracked values change (and go at zero); a value not tracked is admitted,
 * largest first, while fewer than `TRACKED_VALUES` are; one that finds no room makes the counts
 * `capped`. A decrement of a value not tracked changes nothing: it was never counted here.
 */
export function mergeCounts(
  current: ReadonlyMap<string, number>,
  deltas: ReadonlyMap<string, number>,
  capped: boolean,
): { counts: Map<string, number>; capped: boolean } {
  const counts = new Map(current);
  const fresh: [string, number][] = [];
  for (const [key, d] of deltas) {
    const n = counts.get(key);
    if (n !== undefined) counts.set(key, n + d);
    else if (d > 0) fresh.push([key, d]);
  }
  for (const [key, n] of counts) if (n <= 0) counts.delete(key);
  fresh.sort(([, a], [, b]) => b - a);
  let full = capped;
  for (const [key, d] of fresh) {
    if (counts.size < TRACKED_VALUES) counts.set(key, d);
    else full = true;
  }
  return { counts, capped: full };
}

/** Each counter item's `seq` when a recount starts: the stats item's and each value counter's. */
export interface CounterSeqs {
  readonly stats?: number;
  readonly values: Readonly<Record<string, number>>;
}

/** The `seq` of every counter item of the project, read consistently (the recount's start). */
export async function readCounterSeqs(deps: StoreDeps, projectId: string): Promise<CounterSeqs> {
  const stats = await deps.store.get(keys.contactStats(projectId), { consistent: true });
  const values: Record<string, number> = {};
  const query = {
    partition: keys.contactStatsPartition(projectId),
    sort: { beginsWith: keys.fieldValueCountsPrefix },
    attributes: ['seq', 'path'],
    consistent: true,
  };
  for await (const item of deps.store.queryAll(query)) values[String(item.path)] = Number(item.seq ?? 0);
  return { ...(stats ? { stats: Number(stats.seq ?? 0) } : {}), values };
}

/** What a recount found: the counters as they should be. */
export interface Recounted {
  readonly total: number;
  readonly subscribed: number;
  readonly coverage: ReadonlyMap<string, number>;
  readonly values: ReadonlyMap<string, ValueSketch>;
}

/**
 * Writes a recount's result over each counter item whose `seq` is still the one the recount
 * started from (the `seq` is kept: two recounts never conflict with each other). A counter item
 * that some delta changed since is left as it is; answers how many were, so that the caller can
 * recount again.
 */
export async function writeRecounted(
  deps: StoreDeps,
  projectId: string,
  seqs: CounterSeqs,
  result: Recounted,
): Promise<{ conflicts: number }> {
  const ifSeq = (seen: number | undefined) =>
    seen === undefined
      ? { if: 'attribute_not_exists(pk)' }
      : { if: '#seq = :seen', names: { '#seq': 'seq' }, values: { ':seen': seen } };
  const writes: Promise<boolean>[] = [];
  const coverage = Object.fromEntries(
    [...result.coverage].filter(([, n]) => n > 0).map(([path, n]) => [`${COVERAGE}${path}`, n]),
  );
  writes.push(
    deps.store.writeIf({
      put: {
        ...keys.contactStats(projectId),
        entity: 'contactStats',
        total: result.total,
        subscribed: result.subscribed,
        ...coverage,
        seq: seqs.stats ?? 0,
      },
      ...ifSeq(seqs.stats),
    }),
  );
  const paths = new Set([...Object.keys(seqs.values), ...result.values.keys()]);
  for (const path of paths) {
    const seen = seqs.values[path];
    const top = (result.values.get(path) ?? new ValueSketch()).top();
    // A counter never existed and nothing to count: nothing to write.
    if (seen === undefined && top.counts.size === 0 && !top.capped) continue;
    writes.push(
      deps.store.writeIf({
        put: {
          ...keys.fieldValueCounts(projectId, path),
          entity: 'fieldValues',
          path,
          v: Object.fromEntries(top.counts),
          ...(top.capped ? { capped: true } : {}),
          seq: seen ?? 0,
        },
        ...ifSeq(seen),
      }),
    );
  }
  const written = await Promise.all(writes);
  return { conflicts: written.filter((w) => !w).length };
}

/** A recount under way (`recount.ts`): where it is in the contacts, and what it counted so far. */
export interface RecountRun {
  readonly projectId: string;
  readonly runId: string;
  /** The contacts cursor it goes on from ('' at the start). */
  readonly position: string;
  readonly attempt: number;
  readonly seqs: CounterSeqs;
  readonly total: number;
  readonly subscribed: number;
  readonly coverage: Map<string, number>;
  readonly values: Map<string, ValueSketch>;
}

/** Recount runs expire a day after they start (a run that died is left to TTL). */
const RECOUNT_TTL_SECONDS = 24 * 3600;
/** A run's partial counts stay this small (bytes, roughly): DynamoDB items hold 400 KB. */
const MAX_RUN_BYTES = 300_000;

function runItem(projectId: string, run: RecountRun, expiresAt: number): Item {
  const values: Record<string, Record<string, number>> = {};
  const capped: string[] = [];
  for (const [path, sketch] of run.values) {
    values[path] = Object.fromEntries(sketch.counts);
    if (sketch.capped) capped.push(path);
  }
  return {
    ...keys.contactRecount(projectId, run.runId),
    entity: 'contactRecount',
    runId: run.runId,
    position: run.position,
    attempt: run.attempt,
    seqs: { values: run.seqs.values, ...(run.seqs.stats === undefined ? {} : { stats: run.seqs.stats }) },
    total: run.total,
    subscribed: run.subscribed,
    coverage: Object.fromEntries(run.coverage),
    values,
    capped,
    expiresAt,
  };
}

/** Keeps a run's partial value counts within an item: the largest sketches lose their least counted values. */
function fitRun(run: RecountRun): void {
  let size = JSON.stringify(Object.fromEntries([...run.values].map(([p, s]) => [p, [...s.counts]]))).length;
  let keep = TRACKED_VALUES;
  while (size > MAX_RUN_BYTES && keep >= 1) {
    for (const [path, sketch] of run.values) {
      if (sketch.counts.size <= keep) continue;
      run.values.set(path, new ValueSketch(sketch.top(keep).counts, true));
    }
    size = JSON.stringify(Object.fromEntries([...run.values].map(([p, s]) => [p, [...s.counts]]))).length;
    keep = Math.floor(keep / 2);
  }
}

export async function createRecountRun(
  deps: StoreDeps,
  projectId: string,
  run: RecountRun,
  now: Date,
): Promise<void> {
  const expiresAt = Math.floor(now.getTime() / 1000) + RECOUNT_TTL_SECONDS;
  await deps.store.write({ put: runItem(projectId, run, expiresAt), if: 'attribute_not_exists(pk)' });
}

/** A run that has not expired, as of its last checkpoint. */
export async function getRecountRun(
  deps: StoreDeps,
  projectId: string,
  runId: string,
  now: Date,
): Promise<RecountRun | undefined> {
  const item = await deps.store.get(keys.contactRecount(projectId, runId), { consistent: true });
  if (!item || Number(item.expiresAt) * 1000 < now.getTime()) return undefined;
  const capped = new Set((item.capped ?? []) as string[]);
  const values = new Map<string, ValueSketch>();
  for (const [path, counts] of Object.entries(
    (item.values ?? {}) as Record<string, Record<string, number>>,
  )) {
    values.set(
      path,
      new ValueSketch(new Map(Object.entries(counts).map(([k, n]) => [k, Number(n)])), capped.has(path)),
    );
  }
  const seqs = (item.seqs ?? { values: {} }) as CounterSeqs;
  return {
    projectId,
    runId: String(item.runId),
    position: String(item.position ?? ''),
    attempt: Number(item.attempt ?? 0),
    seqs: { values: seqs.values ?? {}, ...(seqs.stats === undefined ? {} : { stats: Number(seqs.stats) }) },
    total: Number(item.total ?? 0),
    subscribed: Number(item.subscribed ?? 0),
    coverage: new Map(
      Object.entries((item.coverage ?? {}) as Record<string, number>).map(([p, n]) => [p, Number(n)]),
    ),
    values,
  };
}

/** Saves a run's progress, if it is still at `from` (another runner of the run may be ahead). */
export async function saveRecountRun(
  deps: StoreDeps,
  projectId: string,
  from: string,
  run: RecountRun,
  now: Date,
): Promise<boolean> {
  fitRun(run);
  const expiresAt = Math.floor(now.getTime() / 1000) + RECOUNT_TTL_SECONDS;
  return deps.store.writeIf({
    put: runItem(projectId, run, expiresAt),
    if: '#position = :from',
    names: { '#position': 'position' },
    values: { ':from': from },
  });
}

export async function deleteRecountRun(deps: StoreDeps, projectId: string, runId: string): Promise<void> {
  await deps.store.write({ delete: keys.contactRecount(projectId, runId) });
}
