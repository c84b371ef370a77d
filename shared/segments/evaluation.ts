/**
 * Evaluating a project's dynamic segments on one contact: the definitions and field types an
 * instance keeps while the project's definitions version is unchanged (read on every use, one
 * strongly consistent read, so an edit is seen by the next write of every instance) and at most a
 * minute (field types, and a version bump a crash left unwritten), and the facts beyond the
 * contact's own fields that a condition may ask for, read from the contact's partition.
 *
 * Facts: `event.<name>` from the contact's events of that name, `email.<activity>` from its
 * `email.<activity>` lifecycle events (`email.sent`, `email.opened` ...), `segment.<id>` from its
 * membership items. Reading events costs a query of the contact's partition (its events, by time),
 * which is why contact writes re-evaluate only segments whose conditions need no event or email
 * facts; the others are re-evaluated by background work (see `membership.ts`).
 */

import {
  type ActivitySummary,
  type Condition,
  type ContactFacts,
  type EvaluationContext,
  evaluateCondition,
  needsFacts,
  referencedSegments,
  usesRelativeTime,
} from '../conditions';
import type { FieldType } from '../contacts/data';
import { type ContactRecord, listFieldTypes } from '../contacts/repository';
import type { StoreDeps } from '../store/store';
import { keys } from '../table';
import type { Tracked } from './announce';
import { listSegmentRecords, membershipsOf, type Segment, type SegmentRecord } from './repository';

/**
 * How long an instance keeps its copy of a project's segments at most, while the definitions
 * version holds: what bounds a change that did not move the version (a crash between a segment's
 * write and the version's), and field types new since the copy.
 */
export const DEFINITIONS_TTL_MS = 60_000;

/** A dynamic segment made ready for evaluation. */
export interface LiveSegment {
  readonly id: string;
  readonly version: number;
  readonly condition: Condition;
  /** The condition reads events or email activity: re-evaluated off the contact-write path. */
  readonly needsActivity: boolean;
  /** The condition reads other segments' membership. */
  readonly needsSegments: boolean;
  /** The condition compares with the current time, so membership drifts without writes. */
  readonly relativeTime: boolean;
  /** A tracked segment: each membership change is announced (`announce.ts`). */
  readonly tracked: Tracked | null;
}

export interface ProjectSegments {
  /** The project has segments (static ones included): a deleted contact leaves them. */
  readonly any: boolean;
  /** Dynamic segments, a segment after those its condition references. */
  readonly dynamic: readonly LiveSegment[];
  readonly fieldTypes: ReadonlyMap<string, FieldType>;
}

const NONE: ProjectSegments = { any: false, dynamic: [], fieldTypes: new Map() };

export function liveSegment(
  record: Pick<SegmentRecord, 'id' | 'version' | 'condition' | 'trackMembership' | 'slug' | 'name'>,
): LiveSegment {
  const condition = record.condition as Condition;
  const facts = needsFacts(condition);
  return {
    id: record.id,
    version: record.version,
    condition,
    needsActivity: facts.events || facts.emails,
    needsSegments: facts.segments,
    relativeTime: usesRelativeTime(condition),
    tracked: record.trackMembership ? { id: record.id, slug: record.slug, name: record.name } : null,
  };
}

/** Dynamic segments in an order where each comes after the segments it references. */
export function inDependencyOrder(segments: readonly LiveSegment[]): LiveSegment[] {
  const byId = new Map(segments.map((s) => [s.id, s]));
  const out: LiveSegment[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (s: LiveSegment) => {
    if (state.get(s.id)) return; // done, or a cycle (refused when saved): leave it where it is
    state.set(s.id, 'visiting');
    for (const ref of referencedSegments(s.condition)) {
      const dep = byId.get(ref);
      if (dep) visit(dep);
    }
    state.set(s.id, 'done');
    out.push(s);
  };
  for (const s of segments) visit(s);
  return out;
}

const cache = new WeakMap<
  object,
  Map<string, { at: number; version: number; value: Promise<ProjectSegments> }>
>();

/** The project's segment definitions version (0 before its first segment change). */
async function definitionsVersion(deps: StoreDeps, projectId: string): Promise<number> {
  const item = await deps.store.get(keys.segmentsVersion(projectId), { consistent: true });
  return Number(item?.v ?? 0);
}

/**
 * Moves the project's definitions version on, after a segment's create, edit or delete is
 * written: every instance's next `projectSegments` reloads. (Before the write, an instance could
 * load the old definitions under the new version.)
 */
export async function bumpSegmentsVersion(deps: StoreDeps, projectId: string): Promise<void> {
  await deps.store.write({
    update: keys.segmentsVersion(projectId),
    expression: 'SET entity = :entity ADD v :one',
    values: { ':entity': 'segmentsVersion', ':one': 1 },
  });
  cache.get(deps.store)?.delete(projectId);
}

/**
 * The project's dynamic segments and field types: this instance's copy while the project's
 * definitions version is the one it was loaded at (one consistent read) and it is under a minute
 * old, else loaded again.
 */
export async function projectSegments(
  deps: StoreDeps & { clock: { now(): Date } },
  projectId: string,
): Promise<ProjectSegments> {
  let perStore = cache.get(deps.store);
  if (!perStore) {
    perStore = new Map();
    cache.set(deps.store, perStore);
  }
  const version = await definitionsVersion(deps, projectId);
  const now = deps.clock.now().getTime();
  const hit = perStore.get(projectId);
  if (hit && hit.version === version && now - hit.at < DEFINITIONS_TTL_MS && now >= hit.at) return hit.value;
  const value = loadProjectSegments(deps, projectId);
  if (perStore.size > 1000) perStore.clear();
  perStore.set(projectId, { at: now, version, value });
  value.catch(() => perStore.delete(projectId));
  return value;
}

async function loadProjectSegments(deps: StoreDeps, projectId: string): Promise<ProjectSegments> {
  const records = await listSegmentRecords(deps, projectId);
  const dynamic = records.filter((r) => r.type === 'DYNAMIC' && r.condition);
  if (records.length === 0) return NONE;
  if (dynamic.length === 0) return { any: true, dynamic: [], fieldTypes: new Map() };
  const types = await listFieldTypes(deps, projectId);
  return {
    any: true,
    dynamic: inDependencyOrder(dynamic.map(liveSegment)),
    fieldTypes: new Map(types.map((t) => [t.path, t.type])),
  };
}

/** The field types of the project, for one evaluation outside the cached path (builds, compute). */
export async function fieldTypesOf(deps: StoreDeps, projectId: string): Promise<Map<string, FieldType>> {
  const types = await listFieldTypes(deps, projectId);
  return new Map(types.map((t) => [t.path, t.type]));
}

/** Summaries of the contact's events by name (one query of its partition's events). */
export async function activityOf(
  deps: StoreDeps,
  projectId: string,
  contactId: string,
): Promise<Map<string, ActivitySummary>> {
  const out = new Map<string, { count: number; firstAt: string; lastAt: string }>();
  const query = {
    partition: keys.contactPartition(projectId, contactId),
    sort: { beginsWith: keys.contactEventPrefix },
    attributes: ['name', 'createdAt'],
  };
  for await (const item of deps.store.queryAll(query)) {
    const name = String(item.name);
    const at = String(item.createdAt);
    const s = out.get(name);
    if (!s) out.set(name, { count: 1, firstAt: at, lastAt: at });
    else {
      s.count++;
      if (at < s.firstAt) s.firstAt = at;
      if (at > s.lastAt) s.lastAt = at;
    }
  }
  return out;
}

/** Facts over what was read of the contact: its activity and its memberships. */
export function factsOver(
  activity: ReadonlyMap<string, ActivitySummary> | undefined,
  memberships: ReadonlySet<string> | undefined,
): Partial<ContactFacts> {
  return {
    ...(activity
      ? {
          events: (name: string) => activity.get(name),
          emails: (kind: string) => activity.get(`email.${kind}`),
        }
      : {}),
    ...(memberships ? { memberOf: (id: string) => memberships.has(id) } : {}),
  };
}

/** Whether a live (not deleted) contact matches the segment. */
export function matches(
  segment: LiveSegment,
  contact: ContactRecord | undefined,
  ctx: EvaluationContext,
): boolean {
  if (!contact || contact.deletedAt) return false;
  return evaluateCondition(segment.condition, contact, ctx);
}

/** Reads what evaluating `segments` on the contact needs beyond its fields. */
export async function readFacts(
  deps: StoreDeps,
  projectId: string,
  contactId: string,
  segments: readonly LiveSegment[],
): Promise<{ activity?: Map<string, ActivitySummary>; memberships?: Set<string> }> {
  const [activity, memberships] = await Promise.all([
    segments.some((s) => s.needsActivity) ? activityOf(deps, projectId, contactId) : undefined,
    segments.some((s) => s.needsSegments) ? membershipsOf(deps, projectId, contactId) : undefined,
  ]);
  return { ...(activity ? { activity } : {}), ...(memberships ? { memberships } : {}) };
}

/**
 * Whether the periodic segment job visits the segment: tracked (compute on a schedule), a
 * condition that drifts without contact writes (events, email activity, relative time), or a
 * membership not yet built (a build lost to a crash is started again).
 */
export function needsPeriodicWork(
  segment: Pick<Segment, 'type' | 'condition' | 'trackMembership' | 'builtAt'>,
): boolean {
  if (segment.type !== 'DYNAMIC' || !segment.condition) return false;
  if (segment.trackMembership || !segment.builtAt) return true;
  const facts = needsFacts(segment.condition);
  return facts.events || facts.emails || usesRelativeTime(segment.condition);
}
