/**
 * `GET /workflows/fields`: what a workflow's CONDITION steps and templates can refer to. The
 * contact's standard fields, the project's custom fields with their inferred types (the same
 * type records as `GET /contacts/fields`), and, for an event (`?eventName=`, or `?workflowId=` for
 * that workflow's trigger), the keys of its `data` as seen in its 50 most recent events (one
 * indexed read), with the type inferred from those values.
 */
import type { FieldType } from '../contacts/data';
import { inferType } from '../contacts/data';
import { listFields, STANDARD_FIELDS } from '../contacts/fields';
import { notFound } from '../errors';
import { listEventsPage } from '../events/repository';
import type { Deps } from '../ports';
import { getWorkflowRecord } from './repository';
import type { FieldsQuery } from './schemas';

type FieldsDeps = Pick<Deps, 'store' | 'clock' | 'queue' | 'ids'>;

/** Recent events of a name read to learn its data keys. */
export const EVENT_SAMPLE_SIZE = 50;
/** Nested objects in event data are followed this deep (`event.a.b.c`), as contact data nests. */
const MAX_DEPTH = 5;

export interface FieldRef {
  readonly field: string;
  readonly type: FieldType;
}

export interface WorkflowFields {
  readonly contact: FieldRef[];
  readonly custom: FieldRef[];
  /** Null when no event is named (no `eventName`, or a workflow without an event trigger). */
  readonly event: {
    readonly name: string;
    /** How many recent events the keys come from (at most `EVENT_SAMPLE_SIZE`; 0 when none yet). */
    readonly sampled: number;
    readonly fields: FieldRef[];
  } | null;
}

export async function workflowFields(
  deps: FieldsDeps,
  projectId: string,
  q: FieldsQuery,
): Promise<WorkflowFields> {
  let eventName = q.eventName ?? null;
  if (eventName === null && q.workflowId !== undefined) {
    const workflow = await getWorkflowRecord(deps, projectId, q.workflowId);
    if (!workflow) throw notFound('Workflow');
    eventName = workflow.triggerType === 'EVENT' ? workflow.triggerConfig.eventName : null;
  }
  const [all, event] = await Promise.all([
    listFields(deps, projectId),
    eventName === null ? Promise.resolve(null) : eventFields(deps, projectId, eventName),
  ]);
  return {
    contact: Object.entries(STANDARD_FIELDS).map(([field, type]) => ({ field, type })),
    custom: all.filter((f) => f.isCustom).map(({ field, type }) => ({ field, type })),
    event,
  };
}

async function eventFields(deps: FieldsDeps, projectId: string, name: string) {
  const { events } = await listEventsPage(deps, projectId, { limit: EVENT_SAMPLE_SIZE, name });
  const seen = new Map<string, Map<FieldType, number>>();
  for (const e of events) collect(e.data, 'data.event', 1, seen);
  const fields = [...seen]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([field, types]) => ({ field, type: mostFrequent(types) }));
  return { name, sampled: events.length, fields };
}

/** Counts the type of every leaf path of `data` (arrays are leaves, objects are followed). */
function collect(data: unknown, prefix: string, depth: number, seen: Map<string, Map<FieldType, number>>) {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return;
  for (const [key, value] of Object.entries(data)) {
    if (value === null || value === undefined) continue;
    const path = `${prefix}.${key}`;
    if (typeof value === 'object' && !Array.isArray(value) && depth < MAX_DEPTH) {
      collect(value, path, depth + 1, seen);
      continue;
    }
    const type = inferType(value as Parameters<typeof inferType>[0]);
    const counts = seen.get(path) ?? new Map<FieldType, number>();
    counts.set(type, (counts.get(type) ?? 0) + 1);
    seen.set(path, counts);
  }
}

/** The type most values had; a tie goes to `string`, which every value can be compared as. */
function mostFrequent(counts: Map<FieldType, number>): FieldType {
  let best: FieldType = 'string';
  let most = -1;
  for (const [type, n] of counts) {
    if (n > most || (n === most && type === 'string')) {
      best = type;
      most = n;
    }
  }
  return best;
}
