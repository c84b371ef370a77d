/**
 * Segment use cases. A segment is DYNAMIC (a condition tree, its membership kept as data by
 * `membership.ts` and built by `build.ts`) or STATIC (members added and removed by email). Every
 * read here is of stored data: `memberCount` is a counter, the members page reads the segment's
 * index. Compute compares the live membership with the snapshot of the last compute.
 */
import { referencedSegments } from '../conditions';
import { emptyPatch } from '../contacts/data';
import {
  type Contact,
  present as presentContact,
  readClaims,
  readContactRecords,
} from '../contacts/repository';
import { definitionItems } from '../definitions/repository';
import { badRequest, conflict, notFound, validationError } from '../errors';
import { emit } from '../events/emit';
import type { Deps } from '../ports';
import { sleep } from '../store/store';
import { announceMembership } from './announce';
import { requestBuild } from './build';
import { requestSegmentCleanup } from './cleanup';
import { bumpSegmentsVersion, needsPeriodicWork } from './evaluation';
import {
  addMemberCounts,
  allMemberIds,
  claimSlug,
  countMembers,
  deleteMembership,
  deleteSegmentItem,
  getSegmentRecord,
  listSegmentRecords,
  markSegment,
  memberCursorAt,
  memberIdPage,
  putMembership,
  putNewSegment,
  readSnapshot,
  releaseSlug,
  replaceSegment,
  type Segment,
  type SegmentRecord,
  settleSnapshotEntry,
  writeSnapshotEntry,
} from './repository';
import type {
  AddMembersInput,
  CreateSegmentInput,
  MembersPageQuery,
  PatchSegmentInput,
  RemoveMembersInput,
} from './schemas';

export type SegmentDeps = Pick<Deps, 'store' | 'clock' | 'ids' | 'queue'>;

const MAX_ATTEMPTS = 5;
/** Slugs tried (`name`, `name-2` ... ) before a random suffix. */
const SLUG_TRIES = 20;

/** Campaign states in which a campaign's audience must stay (deleting the segment is a 409). */
const ACTIVE_CAMPAIGN_STATES: ReadonlySet<string> = new Set(['SCHEDULED', 'SENDING']);

/** The API shape: the record without internal fields; a STATIC segment's condition is null. */
export function present(record: SegmentRecord): Segment {
  const { version: _version, ...segment } = record;
  return segment;
}

/** `Onboarding: Trial users!` -> `onboarding-trial-users`; an empty result is `segment`. */
export function slugOf(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return slug || 'segment';
}

async function claimUniqueSlug(deps: SegmentDeps, projectId: string, name: string, segmentId: string) {
  const base = slugOf(name);
  for (let i = 1; i <= SLUG_TRIES; i++) {
    const slug = i === 1 ? base : `${base}-${i}`;
    if (await claimSlug(deps, projectId, slug, segmentId)) return slug;
  }
  const slug = `${base}-${segmentId.slice(0, 8)}`;
  if (await claimSlug(deps, projectId, slug, segmentId)) return slug;
  throw new Error('No free slug for the segment');
}

/** 422 when the condition references segments that do not exist, or the segment itself (a cycle). */
async function checkReferences(
  deps: SegmentDeps,
  projectId: string,
  segmentId: string,
  condition: SegmentRecord['condition'],
) {
  if (!condition) return;
  const refs = referencedSegments(condition);
  if (refs.length === 0) return;
  const all = new Map((await listSegmentRecords(deps, projectId)).map((s) => [s.id, s]));
  const issues = [];
  for (const ref of refs) {
    if (ref === segmentId || reaches(all, ref, segmentId))
      issues.push({
        field: 'condition',
        code: 'segment_cycle',
        message: `segment.${ref} would make the segment depend on itself`,
      });
    else if (!all.has(ref))
      issues.push({
        field: 'condition',
        code: 'unknown_segment',
        message: `No segment ${ref} in this project`,
      });
  }
  if (issues.length > 0) throw validationError(issues);
}

/** Whether `from`'s condition references `target`, directly or through other segments. */
function reaches(all: ReadonlyMap<string, SegmentRecord>, from: string, target: string): boolean {
  const seen = new Set<string>();
  const stack = [from];
  for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
    if (seen.has(id)) continue;
    seen.add(id);
    const condition = all.get(id)?.condition;
    if (!condition) continue;
    for (const ref of referencedSegments(condition)) {
      if (ref === target) return true;
      stack.push(ref);
    }
  }
  return false;
}

export async function createSegment(
  deps: SegmentDeps,
  projectId: string,
  input: CreateSegmentInput,
): Promise<Segment> {
  const id = deps.ids.uuid();
  await checkReferences(deps, projectId, id, input.condition);
  const slug = await claimUniqueSlug(deps, projectId, input.name, id);
  const now = deps.clock.now().toISOString();
  const record: SegmentRecord = {
    id,
    projectId,
    name: input.name,
    slug,
    description: input.description,
    type: input.type,
    condition: input.condition,
    trackMembership: input.trackMembership,
    memberCount: 0,
    // A static segment's membership is what is added to it; a dynamic one's is built by a job.
    builtAt: input.type === 'STATIC' ? now : null,
    lastComputedAt: null,
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
  if (!(await putNewSegment(deps, record, needsPeriodicWork(record))))
    throw new Error('A new segment id collided');
  await bumpSegmentsVersion(deps, projectId);
  // A crash before this leaves the segment unbuilt; the periodic job starts its build.
  if (record.type === 'DYNAMIC') await requestBuild(deps, record);
  return present(record);
}

export async function listSegments(deps: SegmentDeps, projectId: string): Promise<Segment[]> {
  const records = await listSegmentRecords(deps, projectId);
  return records.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).map(present);
}

async function requireSegment(deps: SegmentDeps, projectId: string, segmentId: string, consistent = false) {
  const record = await getSegmentRecord(deps, projectId, segmentId, { consistent });
  if (!record) throw notFound('Segment');
  return record;
}

export async function getSegment(deps: SegmentDeps, projectId: string, segmentId: string): Promise<Segment> {
  return present(await requireSegment(deps, projectId, segmentId));
}

/**
 * Changes name, description, condition (dynamic only) or trackMembership. The slug stays as it was
 * made at creation, so the `segment.<slug>.*` events that workflows listen to keep their names. A
 * new condition is a new version of the definition, whose membership is built again.
 */
export async function patchSegment(
  deps: SegmentDeps,
  projectId: string,
  segmentId: string,
  input: PatchSegmentInput,
): Promise<Segment> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt > 0) await sleep(Math.min(200, 5 * 2 ** attempt) * Math.random());
    const current = await requireSegment(deps, projectId, segmentId, true);
    if (input.condition !== undefined && current.type === 'STATIC')
      throw badRequest('A STATIC segment has no condition; its members are added and removed by email');
    if (input.condition !== undefined) await checkReferences(deps, projectId, segmentId, input.condition);
    const conditionChanged =
      input.condition !== undefined && JSON.stringify(input.condition) !== JSON.stringify(current.condition);
    const record: SegmentRecord = {
      ...current,
      name: input.name ?? current.name,
      description: input.description === undefined ? current.description : input.description,
      trackMembership: input.trackMembership ?? current.trackMembership,
      condition: conditionChanged ? (input.condition ?? null) : current.condition,
      builtAt: conditionChanged ? null : current.builtAt,
      updatedAt: deps.clock.now().toISOString(),
      version: current.version + 1,
    };
    if (!(await replaceSegment(deps, record, current.version, needsPeriodicWork(record)))) continue;
    await bumpSegmentsVersion(deps, projectId);
    if (conditionChanged) await requestBuild(deps, record);
    return present(record);
  }
  throw conflict('SEGMENT_BUSY', 'The segment is being changed by another request; retry shortly', {
    segmentId,
  });
}

/** The campaigns (SCHEDULED or SENDING) and segments whose definitions use the segment. */
async function activeUsers(deps: SegmentDeps, projectId: string, segmentId: string) {
  const campaigns: { id: string; name: string; status: string }[] = [];
  for await (const { path, item } of definitionItems(deps, projectId, 'campaign')) {
    if (path.length > 0 || item.segmentId !== segmentId) continue;
    if (ACTIVE_CAMPAIGN_STATES.has(String(item.status)))
      campaigns.push({ id: String(item.id), name: String(item.name ?? ''), status: String(item.status) });
  }
  const segments = (await listSegmentRecords(deps, projectId))
    .filter((s) => s.id !== segmentId && s.condition && referencedSegments(s.condition).includes(segmentId))
    .map((s) => ({ id: s.id, name: s.name }));
  return { campaigns, segments };
}

/**
 * Deletes the segment: 409 while a SCHEDULED or SENDING campaign sends to it, or another
 * segment's condition references it. Its memberships and snapshot are removed by a job.
 */
export async function deleteSegment(deps: SegmentDeps, projectId: string, segmentId: string) {
  const record = await requireSegment(deps, projectId, segmentId, true);
  const users = await activeUsers(deps, projectId, segmentId);
  if (users.campaigns.length > 0)
    throw conflict('SEGMENT_IN_USE', 'The segment is the audience of a scheduled or sending campaign', {
      campaigns: users.campaigns,
    });
  if (users.segments.length > 0)
    throw conflict('SEGMENT_IN_USE', "Other segments' conditions reference this segment", {
      segments: users.segments,
    });
  // The cleanup is queued first: a crash after it still removes what the segment left.
  await requestSegmentCleanup(deps, projectId, segmentId);
  await deleteSegmentItem(deps, projectId, segmentId);
  await releaseSlug(deps, projectId, record.slug, segmentId);
  await bumpSegmentsVersion(deps, projectId);
  return { id: segmentId, deleted: true as const };
}

export interface MembersPage {
  readonly data: Contact[];
  readonly page: number;
  readonly pageSize: number;
  readonly total: number;
  readonly totalPages: number;
}

/**
 * A page of the segment's members (contacts, oldest first), read from its index: page `n` reads
 * the members before it (small items) and the page's contacts. `total` is the member count.
 */
export async function membersPage(
  deps: SegmentDeps,
  projectId: string,
  segmentId: string,
  q: MembersPageQuery,
): Promise<MembersPage> {
  const segment = await requireSegment(deps, projectId, segmentId);
  const total = segment.memberCount;
  const shape = { page: q.page, pageSize: q.pageSize, total, totalPages: Math.ceil(total / q.pageSize) };
  const cursor = await memberCursorAt(deps, projectId, segmentId, (q.page - 1) * q.pageSize);
  if (cursor === undefined) return { data: [], ...shape };
  const ids = await memberIdPage(deps, projectId, segmentId, {
    cursor: cursor || undefined,
    limit: q.pageSize,
  });
  const contacts = await readContactRecords(deps, projectId, ids.contactIds);
  const data = ids.contactIds
    .map((id) => contacts.get(id))
    .filter((c) => c !== undefined && !c.deletedAt)
    .map((c) => presentContact(c!));
  return { data, ...shape };
}

async function requireStatic(deps: SegmentDeps, projectId: string, segmentId: string) {
  const segment = await requireSegment(deps, projectId, segmentId);
  if (segment.type !== 'STATIC')
    throw badRequest(
      'Members are added and removed only on a STATIC segment; a DYNAMIC one follows its condition',
    );
  return segment;
}

/** Live contacts by lower-case email (one batched read of claims, one of contacts). */
async function contactsByEmail(deps: SegmentDeps, projectId: string, emails: readonly string[]) {
  const lower = [...new Set(emails.map((e) => e.trim().toLowerCase()))];
  const claims = await readClaims(deps, projectId, lower);
  const contacts = await readContactRecords(
    deps,
    projectId,
    [...claims.values()].map((c) => c.contactId),
  );
  const out = new Map<string, { id: string; createdAt: string }>();
  for (const email of lower) {
    const contact = contacts.get(claims.get(email)?.contactId ?? '');
    if (contact && !contact.deletedAt && contact.emailLower === email) out.set(email, contact);
  }
  return { lower, found: out };
}

/**
 * Adds contacts to a STATIC segment by email. Emails of no contact are created when
 * `createMissing` (with `subscribed`, default true, as a new contact of the API), else listed
 * in `notFound`. `added` counts contacts that were not members already.
 */
export async function addMembers(
  deps: SegmentDeps,
  projectId: string,
  segmentId: string,
  input: AddMembersInput,
): Promise<{ added: number; created: number; notFound: string[] }> {
  await requireStatic(deps, projectId, segmentId);
  const { lower, found } = await contactsByEmail(deps, projectId, input.emails);
  const notFoundEmails: string[] = [];
  let created = 0;
  for (const email of lower) {
    if (found.has(email)) continue;
    if (!input.createMissing) {
      notFoundEmails.push(email);
      continue;
    }
    // The contact service loads with the first contact a request creates (no other route needs it).
    const { upsertContact } = await import('../contacts/service');
    const result = await upsertContact(
      deps,
      projectId,
      { email, subscribed: input.subscribed, patch: emptyPatch(), source: 'api' },
      { defaultSubscribed: true },
    );
    if (result.isNew) created++;
    found.set(email, result.contact);
  }
  const at = deps.clock.now().toISOString();
  let added = 0;
  for (const contact of found.values()) {
    if (await putMembership(deps, projectId, segmentId, contact, at)) added++;
  }
  await addMemberCounts(deps, projectId, new Map([[segmentId, added]]));
  return { added, created, notFound: notFoundEmails };
}

/** Removes contacts from a STATIC segment by email; emails of no member are listed in `notFound`. */
export async function removeMembers(
  deps: SegmentDeps,
  projectId: string,
  segmentId: string,
  input: RemoveMembersInput,
): Promise<{ removed: number; notFound: string[] }> {
  await requireStatic(deps, projectId, segmentId);
  const { lower, found } = await contactsByEmail(deps, projectId, input.emails);
  const notFoundEmails: string[] = [];
  let removed = 0;
  for (const email of lower) {
    const contact = found.get(email);
    if (contact && (await deleteMembership(deps, projectId, segmentId, contact.id))) removed++;
    else notFoundEmails.push(email);
  }
  await addMemberCounts(deps, projectId, new Map([[segmentId, -removed]]));
  return { removed, notFound: notFoundEmails };
}

/** `POST /segments/{id}/refresh`: counts the members again; writes nothing but the count. */
export async function refreshSegment(deps: SegmentDeps, projectId: string, segmentId: string) {
  await requireSegment(deps, projectId, segmentId);
  const memberCount = await countMembers(deps, projectId, segmentId);
  await markSegment(deps, projectId, segmentId, { memberCount });
  return { memberCount };
}

export { segmentEventName } from './announce';

/**
 * `POST /segments/{id}/compute` (and the periodic job, for tracked segments): compares the live
 * membership with the snapshot of the last compute, stores the new set, and for a tracked segment
 * emits `segment.<slug>.entry` / `.exit` for each contact that entered or left. Each change is
 * written with its event as `pending` before the event is emitted, and settled after; a compute
 * that finds pending events (a crash came between) emits them first (idempotently: same id and
 * time), so every change has its one event.
 */
export async function computeSegment(
  deps: SegmentDeps,
  projectId: string,
  segmentId: string,
): Promise<{ added: number; removed: number; memberCount: number }> {
  const segment = await requireSegment(deps, projectId, segmentId, true);
  if (segment.type !== 'DYNAMIC')
    throw badRequest(
      'Only a DYNAMIC segment is computed; a STATIC one changes only when members are added or removed',
    );
  const [live, snapshot] = await Promise.all([
    allMemberIds(deps, projectId, segmentId),
    readSnapshot(deps, projectId, segmentId),
  ]);
  for (const entry of snapshot.values()) {
    if (!entry.pending) continue;
    await emit(deps, entry.pending, { replay: true });
    await settleSnapshotEntry(deps, projectId, segmentId, entry.contactId, entry.present);
  }
  const now = deps.clock.now().toISOString();
  let added = 0;
  let removed = 0;
  // A tracked segment's changes are announced conditionally (`announce.ts`): one a writer
  // announced meanwhile is not announced, nor counted, again.
  const change = async (contactId: string, present: boolean) => {
    if (segment.trackMembership) return announceMembership(deps, projectId, segment, contactId, present);
    await writeSnapshotEntry(deps, projectId, segmentId, contactId, present, null);
    return true;
  };
  for (const contactId of live) {
    if (snapshot.get(contactId)?.present) continue;
    if (await change(contactId, true)) added++;
  }
  for (const [contactId, entry] of snapshot) {
    if (!entry.present || live.has(contactId)) continue;
    if (await change(contactId, false)) removed++;
  }
  await markSegment(deps, projectId, segmentId, { memberCount: live.size, lastComputedAt: now });
  return { added, removed, memberCount: live.size };
}
