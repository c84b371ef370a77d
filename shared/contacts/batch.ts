/**
 * The batched write path of CSV imports: one chunk of rows becomes contacts with a fixed cost of
 * at most two item writes for a new email (its claim and its contact) and at most one for an
 * existing contact (its new version; none when the row changes nothing). Reads are batched
 * (BatchGetItem, 100 keys per call); writes are conditional PutItems sent in parallel.
 *
 * Why not BatchWriteItem for the contact items: it takes no conditions. A new contact's item must
 * not overwrite one that `upsertContact` created meanwhile for the same claim (it adopts a claim
 * whose contact is missing), and an existing contact's new version must not overwrite a change an
 * API request made after our read (lost update). Both are single-item conditions; write units
 * are per item either way, so the conditional writes cost the same.
 *
 * Crash safety: the claim of an email created by an import row carries `origin` =
 * `<importId>#<row>`. Claims are never rewritten (only created and deleted), so whether a row
 * created its contact survives a crash between the writes and the job's checkpoint: a redelivered
 * chunk that finds its own origin on the claim counts the row as imported again, not as updated.
 *
 * Counters (stats.ts): the changes of a chunk's rows are summed and applied once, after its contact
 * writes: one update of the stats item and one of each value counter that changes. A chunk that
 * runs again after a crash finds its rows written already and counts nothing for them, so what the
 * first run had not counted yet is missing until the recount that the import queues when it ends
 * (recount.ts), which sets the counters exactly.
 */
import { AppError } from '../errors';
import { emit } from '../events/emit';
import type { Deps } from '../ports';
import { type StoreDeps, sleep } from '../store/store';
import { decideClaim } from './claim';
import { StatsDelta } from './contribution';
import { applyDataPatch, type DataPatch, type DataValue } from './data';
import { recordFieldTypes } from './field-types';
import {
  type ContactRecord,
  type EmailClaim,
  putClaim,
  putNewContact,
  readClaims,
  readContactRecords,
  replaceContact,
  tagClaim,
} from './repository';
import { countChange, releaseClaim } from './service';
import { applyStatsDelta } from './stats';

/** Bulk jobs read contacts by id as imports do. */
export { readContactRecords } from './repository';

export type BatchDeps = StoreDeps & Pick<Deps, 'clock' | 'ids' | 'queue'>;

export interface ImportRow {
  /** Spreadsheet row number, unique within the import. */
  readonly row: number;
  readonly email: string;
  readonly patch: DataPatch;
}

export type ImportRowResult =
  | { readonly outcome: 'imported' | 'updated' }
  | { readonly outcome: 'error'; readonly reason: string };

export interface BatchOptions {
  /** Parallel writes in flight. @default 25 */
  readonly concurrency?: number;
  /** Rounds of re-reading emails whose conditional write lost a race. @default 8 */
  readonly maxRounds?: number;
}

interface Group {
  readonly emailLower: string;
  readonly rows: readonly ImportRow[];
}

type Plan =
  | {
      readonly kind: 'create';
      readonly group: Group;
      readonly record: ContactRecord;
      readonly claimNeeded: boolean;
      readonly counts: Map<number, ImportRowResult>;
      readonly setPaths: [string, DataValue][];
    }
  | {
      readonly kind: 'merge';
      readonly group: Group;
      readonly current: ContactRecord;
      readonly record: ContactRecord | undefined;
      readonly counts: Map<number, ImportRowResult>;
      readonly setPaths: [string, DataValue][];
    }
  | { readonly kind: 'retry'; readonly group: Group }
  | { readonly kind: 'done'; readonly group: Group; readonly counts: Map<number, ImportRowResult> };

const originOf = (importId: string, row: number) => `${importId}#${row}`;

/**
 * Creates or merges the contacts of `rows` (one chunk of an import). Rows sharing an email are
 * applied in row order to one contact: the first creates it (imported), the others merge
 * (updated). Returns each row's result; throws only when the store fails or keeps losing races.
 */
export async function importContacts(
  deps: BatchDeps,
  projectId: string,
  importId: string,
  rows: readonly ImportRow[],
  options: BatchOptions = {},
): Promise<Map<number, ImportRowResult>> {
  const concurrency = options.concurrency ?? 25;
  const results = new Map<number, ImportRowResult>();
  const byEmail = new Map<string, ImportRow[]>();
  for (const r of rows) {
    const lower = r.email.trim().toLowerCase();
    const list = byEmail.get(lower) ?? [];
    list.push(r);
    byEmail.set(lower, list);
  }
  let pending: Group[] = [...byEmail].map(([emailLower, list]) => ({ emailLower, rows: list }));
  const counted = new StatsDelta();

  for (let round = 0; pending.length > 0; round++) {
    if (round >= (options.maxRounds ?? 8)) {
      throw new Error(
        `Contacts kept changing under the import: ${pending.map((g) => g.emailLower).join(', ')}`,
      );
    }
    if (round > 0) await sleep(Math.min(500, 10 * 2 ** round) * Math.random());
    const claims = await readClaims(
      deps,
      projectId,
      pending.map((g) => g.emailLower),
    );
    const contacts = await readContactRecords(deps, projectId, [
      ...new Set([...claims.values()].map((c) => c.contactId)),
    ]);
    const plans = await mapLimit(pending, concurrency, (g) =>
      plan(deps, projectId, importId, g, claims.get(g.emailLower), contacts),
    );
    const retry: Group[] = [];
    const writes: Plan[] = [];
    for (const p of plans) {
      if (p.kind === 'retry') retry.push(p.group);
      else if (p.kind === 'done') for (const [row, r] of p.counts) results.set(row, r);
      else writes.push(p);
    }

    // Claims first, so that a crash leaves claims without contacts (which readers ignore and the
    // next write of the email completes), never a contact whose email nobody holds.
    const claimed = await mapLimit(writes, concurrency, async (p) => {
      if (p.kind !== 'create' || !p.claimNeeded) return true;
      return putClaim(deps, projectId, p.group.emailLower, p.record.id, {
        origin: originOf(importId, firstCounted(p)),
      });
    });
    const toWrite = writes.filter((p, i) => {
      if (!claimed[i]) retry.push(p.group);
      return claimed[i];
    });
    const paths = new Map<string, DataValue>();
    for (const p of toWrite)
      if (p.kind !== 'retry' && p.kind !== 'done')
        for (const [path, v] of p.setPaths) if (!paths.has(path)) paths.set(path, v);
    await recordFieldTypes(deps, projectId, [...paths]);

    const written = await mapLimit(toWrite, concurrency, async (p) => {
      if (p.kind === 'create') return putNewContact(deps, projectId, p.record);
      if (p.kind !== 'merge' || !p.record) return true;
      // Events an earlier write left pending are written before the version that drops them.
      for (const event of p.current.pendingEvents ?? []) await emit(deps, event, { replay: true });
      return replaceContact(deps, projectId, p.record, p.current.version);
    });
    const changes: [ContactRecord | undefined, ContactRecord][] = [];
    toWrite.forEach((p, i) => {
      if (!written[i]) retry.push(p.group);
      else if (p.kind === 'create' || p.kind === 'merge') {
        for (const [row, r] of p.counts) results.set(row, r);
        if (p.kind === 'create') changes.push([undefined, p.record]);
        else if (p.record) changes.push([p.current, p.record]);
      }
    });
    // Counted into the chunk's one counter update; segment memberships follow each contact.
    await mapLimit(changes, concurrency, ([before, after]) =>
      countChange(deps, projectId, before, after, counted),
    );
    pending = retry;
  }
  if (!counted.isEmpty) await applyStatsDelta(deps, projectId, counted);
  return results;
}

/** The row that creates the contact of a fresh claim (the first row whose data applies). */
function firstCounted(p: Plan): number {
  if (p.kind !== 'create') throw new Error('only creates claim');
  for (const [row, r] of p.counts) if (r.outcome === 'imported') return row;
  throw new Error('a create counts one row as imported');
}

/** Decides what one email's rows do, from the claim and contact read in this round. */
async function plan(
  deps: BatchDeps,
  projectId: string,
  importId: string,
  group: Group,
  claim: EmailClaim | undefined,
  contacts: ReadonlyMap<string, ContactRecord>,
): Promise<Plan> {
  const now = deps.clock.now();
  const holder = claim && contacts.get(claim.contactId);
  const decision = decideClaim({ emailLower: group.emailLower, claim, holder, now });
  switch (decision.action) {
    case 'claim':
      return createPlan(group, deps.ids.uuid(), true, undefined, now);
    case 'adopt': {
      // Completed with the claimed id, as `upsertContact` does. A claim of this import names the
      // row that made it; another writer's claim is first marked as ours, so that the count
      // survives a crash as ours do.
      const originRow = claim?.origin?.startsWith(`${importId}#`)
        ? Number(claim.origin.slice(importId.length + 1))
        : undefined;
      const p = createPlan(group, decision.contactId, false, originRow, now);
      if (originRow !== undefined || p.kind !== 'create') return p;
      const tagged = await tagClaim(
        deps,
        projectId,
        group.emailLower,
        decision.contactId,
        originOf(importId, firstCounted(p)),
      );
      return tagged ? p : { kind: 'retry', group };
    }
    case 'release':
      await releaseClaim(deps, projectId, group.emailLower, decision);
      return { kind: 'retry', group };
    case 'wait':
      return { kind: 'retry', group };
    case 'update':
      return mergePlan(group, decision.contact, now, (r) =>
        claim?.origin === originOf(importId, r.row) ? 'imported' : 'updated',
      );
  }
}

/** The rows applied to an existing contact: its next version, or nothing to write. */
function mergePlan(
  group: Group,
  current: ContactRecord,
  now: Date,
  outcome: (row: ImportRow) => 'imported' | 'updated',
): Plan {
  const { data, setPaths, counts } = applyRows(current.data, group.rows, outcome);
  const unchanged = JSON.stringify(data) === JSON.stringify(current.data);
  if (unchanged) return { kind: 'done', group, counts };
  const { pendingEvents: _written, ...rest } = current;
  const record: ContactRecord = {
    ...rest,
    data,
    updatedAt: now.toISOString(),
    version: current.version + 1,
  };
  return { kind: 'merge', group, current, record, counts, setPaths };
}

/**
 * A new contact from the group's rows. `originRow` is the row whose claim exists already (a
 * redelivered chunk); without it the first row that applies is the one that creates the contact.
 */
function createPlan(
  group: Group,
  id: string,
  claimNeeded: boolean,
  originRow: number | undefined,
  now: Date,
): Plan {
  const { data, setPaths, counts, first } = applyRows({}, group.rows, (r, firstApplied) =>
    (originRow === undefined ? r === firstApplied : r.row === originRow) ? 'imported' : 'updated',
  );
  if (!first) return { kind: 'done', group, counts };
  const at = now.toISOString();
  const record: ContactRecord = {
    id,
    email: first.email.trim(),
    emailLower: group.emailLower,
    // CSV import: new contacts are created subscribed.
    subscribed: true,
    snoozedUntil: null,
    data,
    createdAt: at,
    updatedAt: at,
    version: 1,
  };
  return { kind: 'create', group, record, claimNeeded, counts, setPaths };
}

/**
 * Applies a group's rows in file order. A row whose patch cannot be applied (data past the size
 * limit) is an `invalid_data` error; `outcome` names the others, given the first row applied.
 */
function applyRows(
  start: ContactRecord['data'],
  rows: readonly ImportRow[],
  outcome: (row: ImportRow, firstApplied: ImportRow) => 'imported' | 'updated',
) {
  const counts = new Map<number, ImportRowResult>();
  const setPaths: [string, DataValue][] = [];
  let data = start;
  let first: ImportRow | undefined;
  for (const r of rows) {
    const applied = tryApply(data, r.patch);
    if (!applied) {
      counts.set(r.row, { outcome: 'error', reason: 'invalid_data' });
      continue;
    }
    data = applied.data;
    setPaths.push(...applied.setPaths);
    first ??= r;
    counts.set(r.row, { outcome: outcome(r, first) });
  }
  return { data, setPaths, counts, first };
}

/**
 * The patch applied to `data`, or undefined when the result would pass the size limit (the only
 * refusal: the patch itself was validated). Any other error is a bug, and propagates.
 */
export function tryApply(data: ContactRecord['data'], patch: DataPatch) {
  try {
    return applyDataPatch(data, patch);
  } catch (error) {
    const tooBig = error instanceof AppError && error.extra.errors?.some((e) => e.code === 'too_big');
    if (!tooBig) throw error;
    return undefined;
  }
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results in input order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
