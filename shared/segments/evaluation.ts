/**
 * Evaluating a project's dynamic segments on one contact: the definitions and field types an
 * instance keeps for a minute (as it keeps API keys and field types), and the facts beyond the
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
import { listSegmentRecords, membershipsOf, type Segment, type SegmentRecord } from './repository';

/** How long an instance trusts its copy of a project's segments: edits reach others within it. */
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
}

export interface ProjectSegments {
  /** The project has segments (static ones included): a deleted contact leaves them. */
  readonly any: boolean;
  /** Dynamic segments, a segment after those its condition references. */
  readonly dynamic: readonly LiveSegment[];
  readonly fieldTypes: ReadonlyMap<string, FieldType>;
}

const NONE: ProjectSegments = { any: false, dynamic: [], fieldTypes: new Map() };

export function liveSegment(record: Pick<SegmentRecord, 'id' | 'version' | 'condition'>): LiveSegment {
  const condition = record.condition as Condition;
  const facts = needsFacts(condition);
  return {
    id: record.id,
    version: record.version,
    condition,
    needsActivity: facts.events || facts.emails,
    needsSegments: facts.segments,
    relativeTime: usesRelativeTime(condition),
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

const cache = new WeakMap<object, Map<string, { at: number; value: Promise<ProjectSegments> }>>();

/** The project's dynamic segments and field types, read at most once a minute per instance. */
export function projectSegments(deps: StoreDeps & { clock: { now(): Date } }, projectId: string) {
  let perStore = cache.get(deps.store);
  if (!perStore) {
    perStore = new Map();
    cache.set(deps.store, perStore);
  }
  const now = deps.clock.now().getTime();
  const hit = perStore.get(projectId);
  if (hit && now - hit.at < DEFINITIONS_TTL_MS && now >= hit.at) return hit.value;
  const value = loadProjectSegments(deps, projectId);
  if (perStore.size > 1000) perStore.clear();
  perStore.set(projectId, { at: now, value });
  value.catch(() => perStore.delete(projectId));
  return value;
}

/** Drops this instance's copy after it changed a segment, so its next write sees the change. */
export function forgetProjectSegments(deps: StoreDeps, projectId: string): void {
  cache.get(deps.store)?.delete(projectId);
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
