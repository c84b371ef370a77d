/**
 * Live membership of dynamic segments, kept as data (`repository.ts`: one item per contact and
 * segment, in the `segmentMembers` index), so that member counts and member pages are reads.
 *
 * Who keeps it:
 * - Every contact write (create, update, delete; one request's, or a chunk of an import, bulk job
 *   or field strip) calls `syncContactSegments` after the contact item is written: the project's
 *   dynamic segments whose conditions read only the contact (its fields, its other segments) are
 *   evaluated on the new state and compared with the contact's stored memberships (one query of
 *   its partition; none for a new contact), and only differences are written: 2 write units per
 *   membership that changes (the item and its index entry), plus the segment's count (one update
 *   per segment per request, or per chunk). A write that leaves memberships as they were writes
 *   nothing more; a contact whose item is not rewritten (data unchanged) is not evaluated.
 * - Segments whose conditions read events or email activity, or compare with the current time,
 *   drift without contact writes: the periodic segment job re-evaluates them (`jobs.ts`).
 * - Creating a dynamic segment or changing its condition builds its membership over every contact
 *   (`jobs.ts`), and again a minute later (a writer that evaluated with the definitions before).
 *
 * How stale it can be: every write reads the project's definitions version (`projectSegments`), so
 * it evaluates the definitions as of its read; a write that read them just before a change, and a
 * version bump a crash left unwritten (definitions then up to `DEFINITIONS_TTL_MS` old), are what
 * the second build pass covers; a process that stops between a contact write and its membership
 * writes leaves them until the contact's next write (which compares with what is stored, so it
 * repairs them) or the segment's next build.
 */
import type { ContactRecord } from '../contacts/repository';
import { type AnnounceDeps, announceMembership } from './announce';
import { factsOver, type LiveSegment, matches, type ProjectSegments, projectSegments } from './evaluation';
import { addMemberCounts, deleteMembership, membershipsOf, putMembership } from './repository';

/** A tracked segment's changes are announced with their events, which need the queue and ids. */
export type MembershipDeps = AnnounceDeps;

const bump = (deltas: Map<string, number>, id: string, by: number) =>
  deltas.set(id, (deltas.get(id) ?? 0) + by);

/**
 * Brings the contact's memberships in line with its new state (`after`; undefined or a tombstone
 * when it was deleted, which leaves every segment, static ones included). Count changes go into
 * `deltas` when a caller sums a chunk; otherwise they are written before this returns.
 */
export async function syncContactSegments(
  deps: MembershipDeps,
  projectId: string,
  before: ContactRecord | undefined,
  after: ContactRecord | undefined,
  deltas?: Map<string, number>,
): Promise<void> {
  const own = deltas ?? new Map<string, number>();
  const contact = after ?? before;
  if (!contact) return;
  const segments = await projectSegments(deps, projectId);
  const removed = !after || after.deletedAt !== undefined;
  if (removed) {
    if (!segments.any) return;
    const stored = await membershipsOf(deps, projectId, contact.id);
    for (const segmentId of stored) {
      if (await deleteMembership(deps, projectId, segmentId, contact.id)) bump(own, segmentId, -1);
    }
  } else {
    const candidates = segments.dynamic.filter((s) => !s.needsActivity);
    if (candidates.length === 0) return;
    // A new contact has no memberships yet; an existing one's are read (and repaired if a crash
    // left them behind).
    const stored = before ? await membershipsOf(deps, projectId, contact.id) : new Set<string>();
    await applyEvaluation(deps, projectId, after, candidates, segments, stored, own);
  }
  if (!deltas) await addMemberCounts(deps, projectId, own);
}

/**
 * Evaluates `candidates` (in dependency order) on the contact, with `stored` its current
 * memberships (updated in place), and writes the differences.
 */
export async function applyEvaluation(
  deps: MembershipDeps,
  projectId: string,
  contact: ContactRecord,
  candidates: readonly LiveSegment[],
  segments: Pick<ProjectSegments, 'fieldTypes'>,
  stored: Set<string>,
  deltas: Map<string, number>,
  activity?: Parameters<typeof factsOver>[0],
): Promise<void> {
  const now = deps.clock.now();
  const at = now.toISOString();
  const ctx = { now, fieldTypes: segments.fieldTypes, ...factsOver(activity, stored) };
  for (const segment of candidates) {
    const member = matches(segment, contact, ctx);
    if (member === stored.has(segment.id)) continue;
    let changed: boolean;
    if (member) {
      stored.add(segment.id);
      changed = await putMembership(deps, projectId, segment.id, contact, at);
      if (changed) bump(deltas, segment.id, 1);
    } else {
      stored.delete(segment.id);
      changed = await deleteMembership(deps, projectId, segment.id, contact.id);
      if (changed) bump(deltas, segment.id, -1);
    }
    if (changed && segment.tracked)
      await announceMembership(deps, projectId, segment.tracked, contact.id, member);
  }
}
