/**
 * Segment items, slugs, memberships and snapshots. Only this module knows their keys.
 *
 * - The segment: `SEGMENT#<id>` in the project's partition, holding its definition, `version`
 *   (guards read-modify-write edits and names the membership build that belongs to it) and
 *   `memberCount` (an ADD-only counter, moved by membership writes and set exactly by a refresh).
 *   A segment with periodic work (tracked, or a condition on relative time or on events) carries
 *   the sparse `periodicSegments` index entry that the periodic job reads across projects.
 * - The slug claim: `SEGSLUG#<slug>` -> segment id, so slugs are unique in a project.
 * - Membership: one item per (contact, segment) in the contact's partition (`SEG#<segmentId>`),
 *   in the `segmentMembers` index under the segment, sorted by the contact's creation. A
 *   contact's purge deletes its memberships with the rest of its partition.
 * - Snapshot: the member set stored by the last compute, one item per member in the segment's
 *   own partition; compute diffs it against the live membership.
 */
import type { Condition } from '../conditions';
import type { EventRecord } from '../events/repository';
import { encodeCursor, type Item, type Key, type StoreDeps } from '../store/store';
import { indexEntry, keyAttributes, keys } from '../table';
import type { SegmentType } from './schemas';

export interface Segment {
  readonly id: string;
  readonly projectId: string;
  readonly name: string;
  readonly slug: string;
  readonly description: string | null;
  readonly type: SegmentType;
  readonly condition: Condition | null;
  readonly trackMembership: boolean;
  readonly memberCount: number;
  /** When the membership of the current definition was last built in full (null while building). */
  readonly builtAt: string | null;
  readonly lastComputedAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface SegmentRecord extends Segment {
  readonly version: number;
}

const FIELDS = [
  'id',
  'projectId',
  'name',
  'slug',
  'description',
  'type',
  'condition',
  'trackMembership',
  'memberCount',
  'builtAt',
  'lastComputedAt',
  'createdAt',
  'updatedAt',
  'version',
] as const;

function toItem(record: SegmentRecord, periodic: boolean): Item {
  return {
    ...keys.segment(record.projectId, record.id),
    ...(periodic
      ? indexEntry(
          'periodicSegments',
          keys.periodicSegmentsIndex,
          keys.periodicSegmentSort(record.projectId, record.id),
        )
      : {}),
    entity: 'segment',
    ...record,
  };
}

/** Puts the segment on the periodic job's list or takes it off, if its version is still `version`. */
export async function setPeriodic(
  deps: StoreDeps,
  projectId: string,
  segmentId: string,
  on: boolean,
  version: number,
): Promise<boolean> {
  const { partitionKey, sortKey } = keyAttributes('periodicSegments');
  return deps.store.writeIf({
    update: keys.segment(projectId, segmentId),
    expression: on ? 'SET #p = :p, #s = :s' : 'REMOVE #p, #s',
    if: 'version = :v',
    names: { '#p': partitionKey, '#s': sortKey },
    values: {
      ':v': version,
      ...(on
        ? { ':p': keys.periodicSegmentsIndex, ':s': keys.periodicSegmentSort(projectId, segmentId) }
        : {}),
    },
  });
}

export interface PeriodicSegmentRef {
  readonly projectId: string;
  readonly segmentId: string;
}

/** Every segment on the periodic job's list, across projects. */
export async function* periodicSegments(deps: StoreDeps): AsyncGenerator<PeriodicSegmentRef> {
  const query = {
    index: 'periodicSegments' as const,
    partition: keys.periodicSegmentsIndex,
    attributes: ['projectId', 'id'],
  };
  for await (const item of deps.store.queryAll(query))
    yield { projectId: String(item.projectId), segmentId: String(item.id) };
}

export function fromItem(item: Item): SegmentRecord {
  const out: Record<string, unknown> = {};
  for (const field of FIELDS) out[field] = item[field] ?? null;
  out.memberCount = Math.max(0, Number(item.memberCount ?? 0));
  out.trackMembership = item.trackMembership === true;
  out.version = Number(item.version ?? 1);
  return out as unknown as SegmentRecord;
}

export async function getSegmentRecord(
  deps: StoreDeps,
  projectId: string,
  segmentId: string,
  options: { consistent?: boolean } = {},
): Promise<SegmentRecord | undefined> {
  const item = await deps.store.get(keys.segment(projectId, segmentId), options);
  return item ? fromItem(item) : undefined;
}

/** Every segment of the project (a project has tens, not thousands). */
export async function listSegmentRecords(deps: StoreDeps, projectId: string): Promise<SegmentRecord[]> {
  const out: SegmentRecord[] = [];
  const query = {
    partition: keys.projectPartition(projectId),
    sort: { beginsWith: keys.definitionPrefixes.segment },
  };
  for await (const item of deps.store.queryAll(query)) out.push(fromItem(item));
  return out;
}

/** Creates the segment; false when the id is taken. */
export async function putNewSegment(deps: StoreDeps, record: SegmentRecord, periodic: boolean) {
  return deps.store.writeIf({ put: toItem(record, periodic), if: 'attribute_not_exists(pk)' });
}

/**
 * Replaces the segment's definition if nobody changed it since `expectedVersion`; the member
 * count is kept as stored (membership writes move it meanwhile). False otherwise.
 */
export async function replaceSegment(
  deps: StoreDeps,
  record: SegmentRecord,
  expectedVersion: number,
  periodic: boolean,
): Promise<boolean> {
  const { memberCount: _count, ...rest } = toItem(record, periodic);
  const { partitionKey, sortKey } = keyAttributes('periodicSegments');
  const set = Object.keys(rest).filter((k) => k !== 'pk' && k !== 'sk');
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':v': expectedVersion };
  const parts = set.map((k, i) => {
    names[`#a${i}`] = k;
    values[`:a${i}`] = rest[k];
    return `#a${i} = :a${i}`;
  });
  return deps.store.writeIf({
    update: keys.segment(record.projectId, record.id),
    expression: `SET ${parts.join(', ')}${periodic ? '' : ` REMOVE ${partitionKey}, ${sortKey}`}`,
    if: 'version = :v',
    names,
    values,
  });
}

/** Sets fields of the segment that are not its definition (build and compute times, the count). */
export async function markSegment(
  deps: StoreDeps,
  projectId: string,
  segmentId: string,
  fields: Partial<Pick<Segment, 'builtAt' | 'lastComputedAt' | 'memberCount'>>,
  onlyAtVersion?: number,
): Promise<boolean> {
  const entries = Object.entries(fields);
  if (entries.length === 0) return true;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const parts = entries.map(([k, v], i) => {
    names[`#f${i}`] = k;
    values[`:f${i}`] = v;
    return `#f${i} = :f${i}`;
  });
  if (onlyAtVersion !== undefined) values[':v'] = onlyAtVersion;
  return deps.store.writeIf({
    update: keys.segment(projectId, segmentId),
    expression: `SET ${parts.join(', ')}`,
    if: onlyAtVersion === undefined ? 'attribute_exists(pk)' : 'attribute_exists(pk) AND version = :v',
    names,
    values,
  });
}

/** Moves member counts by the deltas (one update per segment); a deleted segment is skipped. */
export async function addMemberCounts(
  deps: StoreDeps,
  projectId: string,
  deltas: ReadonlyMap<string, number>,
): Promise<void> {
  for (const [segmentId, delta] of deltas) {
    if (delta === 0) continue;
    await deps.store.writeIf({
      update: keys.segment(projectId, segmentId),
      expression: 'ADD memberCount :d',
      if: 'attribute_exists(pk)',
      values: { ':d': delta },
    });
  }
}

export async function deleteSegmentItem(deps: StoreDeps, projectId: string, segmentId: string) {
  await deps.store.write({ delete: keys.segment(projectId, segmentId) });
}

/** Claims a slug for the segment; false when another segment holds it. */
export async function claimSlug(deps: StoreDeps, projectId: string, slug: string, segmentId: string) {
  return deps.store.writeIf({
    put: { ...keys.segmentSlug(projectId, slug), entity: 'segmentSlug', segmentId },
    if: 'attribute_not_exists(pk) OR segmentId = :id',
    values: { ':id': segmentId },
  });
}

export async function releaseSlug(deps: StoreDeps, projectId: string, slug: string, segmentId: string) {
  await deps.store.writeIf({
    delete: keys.segmentSlug(projectId, slug),
    if: 'segmentId = :id',
    values: { ':id': segmentId },
  });
}

// Membership ------------------------------------------------------------------------------------

/** What a membership item needs of its contact. */
export interface MemberRef {
  readonly id: string;
  readonly createdAt: string;
}

/** Adds the contact to the segment; false when it was a member already (nothing counted). */
export async function putMembership(
  deps: StoreDeps,
  projectId: string,
  segmentId: string,
  contact: MemberRef,
  at: string,
): Promise<boolean> {
  return deps.store.writeIf({
    put: {
      ...keys.segmentMembership(projectId, contact.id, segmentId),
      ...indexEntry(
        'segmentMembers',
        keys.segmentMembersIndex(projectId, segmentId),
        `${contact.createdAt}#${contact.id}`,
      ),
      entity: 'segmentMember',
      segmentId,
      contactId: contact.id,
      addedAt: at,
    },
    if: 'attribute_not_exists(pk)',
  });
}

/** Removes the contact from the segment; false when it was no member (nothing counted). */
export async function deleteMembership(
  deps: StoreDeps,
  projectId: string,
  segmentId: string,
  contactId: string,
): Promise<boolean> {
  return deps.store.writeIf({
    delete: keys.segmentMembership(projectId, contactId, segmentId),
    if: 'attribute_exists(pk)',
  });
}

/** The ids of the segments the contact is a member of (one query of its partition). */
export async function membershipsOf(
  deps: StoreDeps,
  projectId: string,
  contactId: string,
): Promise<Set<string>> {
  const out = new Set<string>();
  const query = {
    partition: keys.contactPartition(projectId, contactId),
    sort: { beginsWith: keys.segmentMembershipPrefix },
    attributes: ['segmentId'],
    consistent: true,
  };
  for await (const item of deps.store.queryAll(query)) out.add(String(item.segmentId));
  return out;
}

/** Which of `contactIds` are members of the segment (batch reads of their membership items). */
export async function membersAmong(
  deps: StoreDeps,
  projectId: string,
  segmentId: string,
  contactIds: readonly string[],
): Promise<Set<string>> {
  if (contactIds.length === 0) return new Set();
  const items = await deps.store.batchGet(
    contactIds.map((id) => keys.segmentMembership(projectId, id, segmentId)),
    { consistent: true },
  );
  return new Set(items.map((i) => String(i.contactId)));
}

export interface MemberIdPage {
  readonly contactIds: string[];
  readonly cursor: string;
  readonly hasMore: boolean;
}

/** One page of the segment's members (contact ids), oldest contact first. */
export async function memberIdPage(
  deps: StoreDeps,
  projectId: string,
  segmentId: string,
  options: { readonly cursor?: string; readonly limit: number },
): Promise<MemberIdPage> {
  const page = await deps.store.page(
    {
      index: 'segmentMembers',
      partition: keys.segmentMembersIndex(projectId, segmentId),
      attributes: ['contactId'],
    },
    { limit: options.limit, cursor: options.cursor },
  );
  return {
    contactIds: page.items.map((i) => String(i.contactId)),
    cursor: page.cursor,
    hasMore: page.hasMore,
  };
}

/**
 * Where the members list continues after its first `offset` members: the cursor of the index
 * read that skips them (`''` when offset is 0; undefined when fewer members exist). An offset
 * page reads the members before it (small items: about 40 to the read unit).
 */
export async function memberCursorAt(
  deps: StoreDeps,
  projectId: string,
  segmentId: string,
  offset: number,
): Promise<string | undefined> {
  if (offset === 0) return '';
  const query = {
    index: 'segmentMembers' as const,
    partition: keys.segmentMembersIndex(projectId, segmentId),
    attributes: ['pk', 'sk', ...Object.values(keyAttributes('segmentMembers'))],
  };
  let left = offset;
  let cursor: string | undefined;
  let last: Item | undefined;
  while (left > 0) {
    const out = await deps.store.query(query, { limit: Math.min(left, 1000), cursor });
    left -= out.items.length;
    last = out.items.at(-1) ?? last;
    if (left > 0 && !out.cursor) return undefined;
    cursor = out.cursor;
  }
  return last ? encodeCursor(last) : undefined;
}

/** How many members the segment has, counted from its index (background work and refresh only). */
export async function countMembers(deps: StoreDeps, projectId: string, segmentId: string): Promise<number> {
  return deps.store.count({
    index: 'segmentMembers',
    partition: keys.segmentMembersIndex(projectId, segmentId),
  });
}

/** The membership keys of a page of the segment's members (for deleting a segment's memberships). */
export async function membershipKeyPage(
  deps: StoreDeps,
  projectId: string,
  segmentId: string,
  limit: number,
): Promise<{ keys: Key[]; hasMore: boolean }> {
  const page = await deps.store.page(
    {
      index: 'segmentMembers',
      partition: keys.segmentMembersIndex(projectId, segmentId),
      attributes: ['pk', 'sk'],
    },
    { limit },
  );
  return { keys: page.items.map((i) => ({ pk: String(i.pk), sk: String(i.sk) })), hasMore: page.hasMore };
}

export async function deleteKeys(deps: StoreDeps, items: readonly Key[]): Promise<void> {
  if (items.length > 0) await deps.store.batchDelete(items);
}

// Snapshot --------------------------------------------------------------------------------------

export interface SnapshotEntry {
  readonly contactId: string;
  /** False for an exit whose event is still pending: no longer a member. */
  readonly present: boolean;
  /** An entry or exit event written with this entry's change and not yet known to be emitted. */
  readonly pending?: EventRecord;
}

/** The member set stored by the segment's last compute. */
export async function readSnapshot(deps: StoreDeps, projectId: string, segmentId: string) {
  const out = new Map<string, SnapshotEntry>();
  const query = { partition: keys.segmentSnapshotPartition(projectId, segmentId), consistent: true };
  for await (const item of deps.store.queryAll(query)) {
    const entry: SnapshotEntry = {
      contactId: String(item.sk),
      present: item.present !== false,
      ...(item.pending ? { pending: item.pending as EventRecord } : {}),
    };
    out.set(entry.contactId, entry);
  }
  return out;
}

/** Every live member id of the segment, from its index (compute reads the whole set). */
export async function allMemberIds(
  deps: StoreDeps,
  projectId: string,
  segmentId: string,
): Promise<Set<string>> {
  const out = new Set<string>();
  const query = {
    index: 'segmentMembers' as const,
    partition: keys.segmentMembersIndex(projectId, segmentId),
    attributes: ['contactId'],
  };
  for await (const item of deps.store.queryAll(query)) out.add(String(item.contactId));
  return out;
}

/**
 * Records an entry (`present`) or exit in the snapshot, with the event that announces it as
 * `pending` (null when the segment is not tracked). An exit whose event is pending keeps the item
 * until the event is emitted (`settleSnapshotEntry`).
 */
export async function writeSnapshotEntry(
  deps: StoreDeps,
  projectId: string,
  segmentId: string,
  contactId: string,
  present: boolean,
  pending: EventRecord | null,
): Promise<void> {
  const key = keys.segmentSnapshot(projectId, segmentId, contactId);
  if (!present && !pending) {
    await deps.store.write({ delete: key });
    return;
  }
  await deps.store.write({
    put: { ...key, entity: 'segmentSnapshot', present, ...(pending ? { pending } : {}) },
  });
}

/** After its pending event was emitted: an entry keeps the item without it, an exit deletes it. */
export async function settleSnapshotEntry(
  deps: StoreDeps,
  projectId: string,
  segmentId: string,
  contactId: string,
  present: boolean,
): Promise<void> {
  const key = keys.segmentSnapshot(projectId, segmentId, contactId);
  if (present) await deps.store.write({ update: key, expression: 'REMOVE pending' });
  else await deps.store.write({ delete: key });
}

/** A page of the snapshot's keys (for deleting a segment's snapshot). */
export async function snapshotKeyPage(
  deps: StoreDeps,
  projectId: string,
  segmentId: string,
  limit: number,
): Promise<{ keys: Key[]; hasMore: boolean }> {
  const page = await deps.store.page(
    {
      partition: keys.segmentSnapshotPartition(projectId, segmentId),
      attributes: ['pk', 'sk'],
      consistent: true,
    },
    { limit },
  );
  return { keys: page.items.map((i) => ({ pk: String(i.pk), sk: String(i.sk) })), hasMore: page.hasMore };
}
