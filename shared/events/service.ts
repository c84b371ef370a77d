/**
 * Event use cases behind the events endpoints: recent events (all or by name), one contact's
 * events, names with counts, statistics, where a name is referenced, and deleting every event of
 * a name (in the background).
 *
 * Totals and statistics come from counters kept by the tally (see `repository.ts`), so none of
 * these reads grows with the number of events, a contact's own total included.
 */
import { findContact } from '../contacts/service';
import { DEFINITION_KINDS, type DefinitionKind, definitionItems } from '../definitions/repository';
import { notFound, validationError } from '../errors';
import { chunkedJob, cursorInMessage, type MessageCursor, runChunked } from '../jobs/chunked';
import { enqueue } from '../jobs/registry';
import type { Deps } from '../ports';
import type { StoreDeps } from '../store/store';
import { DELETE_EVENTS_JOB, type DeleteEventsMessage, deleteEventsJobMessage } from './messages';
import { isReservedEventName, reservedEventIssue } from './names';
import {
  anyEventNamed,
  contactEventTotal,
  deleteEvents,
  type EventNameRecord,
  type EventRecord,
  eventKeysNamed,
  getEventName,
  hourlyCounts,
  hourOf,
  listContactEventsPage,
  listEventNames,
  listEventsPage,
  reconcileNameCount,
} from './repository';

type EventDeps = StoreDeps & Pick<Deps, 'clock' | 'ids' | 'queue'>;

/** An event as the API shows it. */
export interface EventView {
  readonly id: string;
  readonly name: string;
  readonly contactId: string;
  readonly email?: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
}

export const presentEvent = (e: EventRecord): EventView => ({
  id: e.id,
  name: e.name,
  contactId: e.contactId,
  ...(e.email === undefined ? {} : { email: e.email }),
  data: e.data,
  createdAt: e.createdAt,
});

export interface CursorPage<T> {
  readonly data: T[];
  readonly cursor: string;
  readonly hasMore: boolean;
  readonly total: number;
}

/** Recent events of the project, newest first; with `name`, only events of that name. */
export async function listEvents(
  deps: EventDeps,
  projectId: string,
  q: { limit: number; cursor?: string; name?: string },
): Promise<CursorPage<EventView>> {
  const page = await listEventsPage(deps, projectId, q);
  let total = 0;
  if (!q.cursor) {
    total =
      q.name === undefined
        ? (await listEventNames(deps, projectId)).reduce((sum, n) => sum + n.count, 0)
        : Math.max(0, (await getEventName(deps, projectId, q.name))?.count ?? 0);
  }
  return { data: page.events.map(presentEvent), cursor: page.cursor, hasMore: page.hasMore, total };
}

/** Events of one contact, newest first; 404 for a contact that is not (or no longer) there. */
export async function listContactEvents(
  deps: EventDeps,
  projectId: string,
  contactId: string,
  q: { limit: number; cursor?: string },
): Promise<CursorPage<EventView>> {
  if (!(await findContact(deps, projectId, contactId))) throw notFound('Contact');
  const page = await listContactEventsPage(deps, projectId, contactId, q);
  const total = q.cursor ? 0 : await contactEventTotal(deps, projectId, contactId);
  return { data: page.events.map(presentEvent), cursor: page.cursor, hasMore: page.hasMore, total };
}

/** Distinct event names with their counts, most frequent first. */
export async function eventNames(deps: EventDeps, projectId: string): Promise<{ names: EventNameRecord[] }> {
  const names = await listEventNames(deps, projectId);
  names.sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  return { names };
}

export interface EventStats {
  readonly total: number;
  readonly uniqueNames: number;
  /** The current UTC hour and the 23 before it. */
  readonly last24Hours: number;
  /** The current UTC hour and the 167 before it. */
  readonly last7Days: number;
  /** The current UTC hour and the 719 before it. */
  readonly last30Days: number;
  readonly topEvents: { name: string; count: number }[];
  /** Events per UTC day, the last 30 days (today included), oldest first. */
  readonly daily: { date: string; count: number }[];
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Aggregated statistics from the counters: one query over names, one over at most 744 hours. */
export async function eventStats(deps: EventDeps, projectId: string): Promise<EventStats> {
  const now = deps.clock.now().getTime();
  const hourAgo = (h: number) => hourOf(new Date(now - h * HOUR_MS).toISOString());
  const firstDay = new Date(now - 29 * DAY_MS).toISOString().slice(0, 10);
  const [names, hours] = await Promise.all([
    listEventNames(deps, projectId),
    hourlyCounts(deps, projectId, `${firstDay}T00`, hourAgo(0)),
  ]);
  const since = (from: string) => {
    let sum = 0;
    for (const [hour, n] of hours) if (hour >= from) sum += n;
    return Math.max(0, sum);
  };
  const daily: { date: string; count: number }[] = [];
  for (let d = 29; d >= 0; d--) {
    const date = new Date(now - d * DAY_MS).toISOString().slice(0, 10);
    let count = 0;
    for (const [hour, n] of hours) if (hour.startsWith(date)) count += n;
    daily.push({ date, count: Math.max(0, count) });
  }
  const sorted = [...names].sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  return {
    total: names.reduce((sum, n) => sum + n.count, 0),
    uniqueNames: names.length,
    last24Hours: since(hourAgo(23)),
    last7Days: since(hourAgo(7 * 24 - 1)),
    last30Days: since(hourAgo(30 * 24 - 1)),
    topEvents: sorted.slice(0, 10).map((n) => ({ name: n.name, count: n.count })),
    daily,
  };
}

export interface EventUsage {
  readonly event: string;
  readonly segments: { id: string; name: string }[];
  readonly campaigns: { id: string; name: string }[];
  readonly workflows: { id: string; name: string }[];
}

/**
 * Segments, campaigns and workflows that reference an event name: a condition on
 * `event.<name>` (segment conditions, campaign audiences, CONDITION steps), or the name as a
 * workflow trigger or WAIT_FOR_EVENT step (`eventName`). A name no event carries yet can still
 * be referenced (a workflow waiting for its first signup), so unknown names are not a 404.
 */
export async function eventUsage(deps: EventDeps, projectId: string, name: string): Promise<EventUsage> {
  const usage: EventUsage = { event: name, segments: [], campaigns: [], workflows: [] };
  const lists: Record<DefinitionKind, EventUsage['segments']> = {
    segment: usage.segments,
    campaign: usage.campaigns,
    workflow: usage.workflows,
  };
  for (const kind of DEFINITION_KINDS) {
    // A definition may span several items (`WORKFLOW#<id>`, `WORKFLOW#<id>#STEP#...`): group by id.
    const found = new Map<string, { name: string; referenced: boolean }>();
    for await (const { id, path, item } of definitionItems(deps, projectId, kind)) {
      const entry = found.get(id) ?? { name: '', referenced: false };
      if (path.length === 0 && typeof item.name === 'string') entry.name = item.name;
      if (!item.deletedAt && referencesEvent(item, name)) entry.referenced = true;
      found.set(id, entry);
    }
    for (const [id, entry] of found) if (entry.referenced) lists[kind].push({ id, name: entry.name });
  }
  return usage;
}

/** True when a definition (any nesting) filters on `event.<name>` or names the event as `eventName`. */
export function referencesEvent(node: unknown, name: string): boolean {
  if (Array.isArray(node)) return node.some((n) => referencesEvent(n, name));
  if (typeof node !== 'object' || node === null) return false;
  const obj = node as Record<string, unknown>;
  if (obj.field === `event.${name}`) return true;
  if (obj.eventName === name) return true;
  return Object.values(obj).some((v) => referencesEvent(v, name));
}

/**
 * Starts deleting every event of a name: 202 with a job id; the jobs queue does the work, since a
 * name can have millions of events. Reserved (service-emitted) names are refused: their events
 * feed the activity feed, segment conditions and workflow triggers.
 */
export async function requestEventDeletion(
  deps: EventDeps,
  projectId: string,
  name: string,
): Promise<{ jobId: string; name: string; status: 'queued' }> {
  if (isReservedEventName(name)) throw validationError([reservedEventIssue('eventName', name)]);
  const record = await getEventName(deps, projectId, name);
  if (!(record && record.count > 0) && !(await anyEventNamed(deps, projectId, name))) {
    throw notFound(`Event name "${name}"`);
  }
  const message: DeleteEventsMessage = {
    type: DELETE_EVENTS_JOB,
    projectId,
    name,
    before: deps.clock.now().toISOString(),
    jobId: deps.ids.uuid(),
  };
  await enqueue(deps, deleteEventsJobMessage, message);
  return { jobId: message.jobId, name, status: 'queued' };
}

/** Events deleted per job message at most; the rest goes on in a continuation message. */
export const DELETE_BATCH_PER_MESSAGE = 1000;
const DELETE_PAGE = 100;

/**
 * The deletion job, as a chunked job (shared/jobs/chunked.ts): deletes events of the name up to
 * `before`, a page a chunk and at most `DELETE_BATCH_PER_MESSAGE` a message; the continuation
 * message carries the index position. When done, sets the name's count to what is left. Safe to
 * run twice: deleting is idempotent and counters are lowered only for events that still existed.
 */
export const eventDeletionChunks = chunkedJob(deleteEventsJobMessage, {
  budget: { maxItems: DELETE_BATCH_PER_MESSAGE },
  ...cursorInMessage<DeleteEventsMessage, DeleteEventsMessage>(),
  async process(deps: EventDeps, { cursor }: MessageCursor, m: DeleteEventsMessage) {
    const page = await eventKeysNamed(deps, m.projectId, m.name, {
      before: m.before,
      limit: DELETE_PAGE,
      cursor,
    });
    await deleteEvents(deps, m.projectId, page.keys);
    return { next: { cursor: page.cursor || undefined }, items: page.keys.length, done: !page.cursor };
  },
  finish: (deps: EventDeps, _state, m) => reconcileNameCount(deps, m.projectId, m.name),
});

/** Runs one message of the deletion job; `perMessage` overrides how many events it deletes at most. */
export async function runEventDeletion(
  deps: EventDeps,
  m: DeleteEventsMessage,
  options: { perMessage?: number } = {},
): Promise<'continued' | 'done'> {
  const outcome = await runChunked(deps, eventDeletionChunks, m, undefined, { maxItems: options.perMessage });
  return outcome === 'continued' ? 'continued' : 'done';
}
