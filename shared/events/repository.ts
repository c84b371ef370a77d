/**
 * Events of a project. Each event lives in its contact's partition (so deleting a contact can
 * purge them with one query) and is indexed by time (`eventsByTime`) and by name (`eventsByName`).
 *
 * Two kinds of counters are kept on write, so that names and statistics never read the events
 * themselves: a registry item per event name (count, first and last seen) and a count per UTC
 * hour (kept 35 days). Both are bumped only when the event item is new, so re-writing an event
 * (a retried write, a contact's pending events) never counts twice. A crash between the event
 * write and the counter writes leaves a count one low; deleting events by name reconciles that
 * name's count exactly (see `reconcileNameCount`).
 */
import type { Item, Key, Page, StoreDeps } from '../store/store';
import { indexEntry, keys } from '../table';

export interface EventRecord {
  readonly id: string;
  readonly projectId: string;
  readonly contactId: string;
  readonly name: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
  /** The contact's email when the event was recorded, for display (not updated later). */
  readonly email?: string;
}

/** Hour buckets outlive the longest statistics window (30 days) by a margin. */
const HOUR_BUCKET_TTL_SECONDS = 35 * 24 * 3600;

export function eventItem(e: EventRecord): Record<string, unknown> {
  const sortKey = `${e.createdAt}#${e.id}`;
  return {
    ...keys.contactEvent(e.projectId, e.contactId, e.createdAt, e.id),
    ...indexEntry('eventsByTime', keys.eventsIndex(e.projectId), sortKey),
    ...indexEntry('eventsByName', keys.eventNameIndex(e.projectId, e.name), sortKey),
    entity: 'event',
    ...e,
  };
}

export function fromEventItem(item: Item): EventRecord {
  return {
    id: String(item.id),
    projectId: String(item.projectId),
    contactId: String(item.contactId),
    name: String(item.name),
    data: (item.data ?? {}) as Record<string, unknown>,
    createdAt: String(item.createdAt),
    ...(typeof item.email === 'string' ? { email: item.email } : {}),
  };
}

/** `2026-11-21T20:15:00.000Z` -> `2026-11-21T20` (the hour bucket's sort key). */
export const hourOf = (iso: string) => iso.slice(0, 13);

/**
 * Stores an event once: writing the same event (same id and time) again changes nothing.
 * Returns whether the event was new (and counted). Domain code records events with `emit`
 * (`emit.ts`), which calls this and hands the event to its listeners.
 */
export async function putEvent(deps: StoreDeps, event: EventRecord): Promise<boolean> {
  const isNew = await deps.store.writeIf({ put: eventItem(event), if: 'attribute_not_exists(pk)' });
  if (!isNew) return false;
  await Promise.all([
    bumpName(deps, event.projectId, event.name, 1, event.createdAt),
    bumpHour(deps, event.projectId, hourOf(event.createdAt), 1),
  ]);
  return true;
}

/** Whether this very event (same id and time) is stored: one strongly consistent read. */
export async function eventStored(deps: StoreDeps, event: EventRecord): Promise<boolean> {
  const key = keys.contactEvent(event.projectId, event.contactId, event.createdAt, event.id);
  return (await deps.store.get(key, { consistent: true })) !== undefined;
}

async function bumpName(deps: StoreDeps, projectId: string, name: string, by: number, at: string) {
  await deps.store.write({
    update: keys.eventName(projectId, name),
    expression:
      'SET #name = :name, entity = :entity, firstSeenAt = if_not_exists(firstSeenAt, :at), lastSeenAt = :at ADD #count :by',
    names: { '#name': 'name', '#count': 'count' },
    values: { ':name': name, ':entity': 'eventName', ':at': at, ':by': by },
  });
}

async function bumpHour(deps: StoreDeps, projectId: string, hour: string, by: number) {
  const expiresAt = Math.floor(Date.parse(`${hour}:00:00.000Z`) / 1000) + HOUR_BUCKET_TTL_SECONDS;
  await deps.store.write({
    update: keys.eventHour(projectId, hour),
    expression: 'SET entity = :entity, expiresAt = :exp ADD #count :by',
    names: { '#count': 'count' },
    values: { ':entity': 'eventHour', ':exp': expiresAt, ':by': by },
  });
}

export interface EventNameRecord {
  readonly name: string;
  readonly count: number;
  readonly firstSeenAt: string;
  readonly lastSeenAt: string;
}

const fromNameItem = (item: Item): EventNameRecord => ({
  name: String(item.name ?? item.sk),
  count: Number(item.count ?? 0),
  firstSeenAt: String(item.firstSeenAt ?? ''),
  lastSeenAt: String(item.lastSeenAt ?? ''),
});

/** Every event name of the project with its count (one query over the registry partition). */
export async function listEventNames(deps: StoreDeps, projectId: string): Promise<EventNameRecord[]> {
  const out: EventNameRecord[] = [];
  for await (const item of deps.store.queryAll({ partition: keys.eventNamesPartition(projectId) })) {
    const record = fromNameItem(item);
    if (record.count > 0) out.push(record);
  }
  return out;
}

export async function getEventName(
  deps: StoreDeps,
  projectId: string,
  name: string,
): Promise<EventNameRecord | undefined> {
  const item = await deps.store.get(keys.eventName(projectId, name), { consistent: true });
  return item ? fromNameItem(item) : undefined;
}

/** Counts per UTC hour (`YYYY-MM-DDTHH` -> count) from `fromHour` to `toHour`, both included. */
export async function hourlyCounts(
  deps: StoreDeps,
  projectId: string,
  fromHour: string,
  toHour: string,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const query = {
    partition: keys.eventHoursPartition(projectId),
    sort: { between: [fromHour, toHour] },
  } as const;
  for await (const item of deps.store.queryAll(query)) {
    counts.set(String(item.sk), Number(item.count ?? 0));
  }
  return counts;
}

/** Whether any event of this name exists (one indexed read of at most one item). */
export async function anyEventNamed(deps: StoreDeps, projectId: string, name: string): Promise<boolean> {
  const out = await deps.store.query(
    { index: 'eventsByName', partition: keys.eventNameIndex(projectId, name) },
    { limit: 1 },
  );
  return out.items.length > 0;
}

/**
 * Deletes events by key; returns those that existed (a redelivered job deletes nothing twice,
 * so counters are lowered once per event), and lowers the name and hour counters by them.
 */
export async function deleteEvents(
  deps: StoreDeps,
  projectId: string,
  items: readonly Key[],
): Promise<EventRecord[]> {
  const deleted: EventRecord[] = [];
  for (let i = 0; i < items.length; i += 25) {
    const chunk = items.slice(i, i + 25);
    const results = await Promise.all(
      chunk.map((item) => deps.store.write({ delete: { pk: item.pk, sk: item.sk }, returnOld: true })),
    );
    for (const old of results) if (old) deleted.push(fromEventItem(old));
  }
  const byName = new Map<string, number>();
  const byHour = new Map<string, number>();
  for (const e of deleted) {
    byName.set(e.name, (byName.get(e.name) ?? 0) + 1);
    byHour.set(hourOf(e.createdAt), (byHour.get(hourOf(e.createdAt)) ?? 0) + 1);
  }
  await Promise.all([
    ...[...byName].map(([name, n]) => lowerName(deps, projectId, name, n)),
    ...[...byHour].map(([hour, n]) => bumpHour(deps, projectId, hour, -n)),
  ]);
  return deleted;
}

/** Lowers a name's count without creating a registry item for a name that has none. */
async function lowerName(deps: StoreDeps, projectId: string, name: string, by: number) {
  await deps.store.writeIf({
    update: keys.eventName(projectId, name),
    expression: 'ADD #count :by',
    if: 'attribute_exists(pk)',
    names: { '#count': 'count' },
    values: { ':by': -by },
  });
}

/**
 * Sets a name's registry count to the number of its events actually stored, and removes the
 * item when none are left. The write is conditional on the count read before counting, so an
 * event recorded meanwhile is never lost (the loop starts over).
 */
export async function reconcileNameCount(deps: StoreDeps, projectId: string, name: string): Promise<number> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const before = await getEventName(deps, projectId, name);
    const actual = await countEventsNamed(deps, projectId, name);
    const expected = before ? { ':seen': before.count } : {};
    const key = keys.eventName(projectId, name);
    if (actual === 0 && !before) return 0;
    const written =
      actual === 0
        ? await deps.store.writeIf({
            delete: key,
            if: '#count = :seen',
            names: { '#count': 'count' },
            values: expected,
          })
        : await deps.store.writeIf({
            update: key,
            expression: 'SET #count = :actual, #name = :name, entity = :entity',
            if: before ? '#count = :seen' : 'attribute_not_exists(pk)',
            names: { '#count': 'count', '#name': 'name' },
            values: { ':actual': actual, ':name': name, ':entity': 'eventName', ...expected },
          });
    if (written) return actual;
  }
  throw new Error(`Event name ${name} kept changing while its count was reconciled`);
}

async function countEventsNamed(deps: StoreDeps, projectId: string, name: string): Promise<number> {
  return deps.store.count({ index: 'eventsByName', partition: keys.eventNameIndex(projectId, name) });
}

/** A page of the project's events, newest first; with `name`, of that name only. */
export async function listEventsPage(
  deps: StoreDeps,
  projectId: string,
  q: { limit: number; cursor?: string; name?: string },
): Promise<{ events: EventRecord[]; cursor: string; hasMore: boolean }> {
  const page = await deps.store.page(
    q.name === undefined
      ? { index: 'eventsByTime', partition: keys.eventsIndex(projectId) }
      : { index: 'eventsByName', partition: keys.eventNameIndex(projectId, q.name) },
    { limit: q.limit, cursor: q.cursor, forward: false },
  );
  return eventsOf(page);
}

const contactEvents = (projectId: string, contactId: string) => ({
  partition: keys.contactPartition(projectId, contactId),
  sort: { beginsWith: keys.contactEventPrefix },
});

/** A page of one contact's events, newest first. */
export async function listContactEventsPage(
  deps: StoreDeps,
  projectId: string,
  contactId: string,
  q: { limit: number; cursor?: string },
): Promise<{ events: EventRecord[]; cursor: string; hasMore: boolean }> {
  const page = await deps.store.page(contactEvents(projectId, contactId), {
    limit: q.limit,
    cursor: q.cursor,
    forward: false,
  });
  return eventsOf(page);
}

const eventsOf = (page: Page) => ({
  events: page.items.map(fromEventItem),
  cursor: page.cursor,
  hasMore: page.hasMore,
});

/** How many events a contact has (reads them all). */
export async function countContactEvents(deps: StoreDeps, projectId: string, contactId: string) {
  return deps.store.count(contactEvents(projectId, contactId));
}

/**
 * The keys of up to `limit` events of a name recorded up to `before` (included), oldest first,
 * from `cursor` on; the cursor of the rest is '' when there is none.
 */
export async function eventKeysNamed(
  deps: StoreDeps,
  projectId: string,
  name: string,
  q: { before: string; limit: number; cursor?: string },
): Promise<{ keys: Key[]; cursor: string }> {
  const out = await deps.store.query(
    {
      index: 'eventsByName',
      partition: keys.eventNameIndex(projectId, name),
      // The index's sort key is `<createdAt>#<id>`; `~` sorts after `#`, so `before` itself is in.
      sort: { below: `${q.before}~` },
      attributes: ['pk', 'sk'],
    },
    { limit: q.limit, cursor: q.cursor },
  );
  return { keys: out.items.map((i) => ({ pk: String(i.pk), sk: String(i.sk) })), cursor: out.cursor };
}
