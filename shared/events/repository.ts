/**
 * Events of a project. Each event lives in its contact's partition (so deleting a contact can
 * purge them with one query) and is indexed by time (`eventsByTime`) and by name (`eventsByName`).
 *
 * Two kinds of counters let names and statistics be read without reading the events: a registry
 * item per event name (count, first and last seen) and a count per UTC hour (kept 35 days). A
 * request that records an event does not write them: the tally job (`tally.ts`) counts stored
 * events in batches off the request path, reading the time index from where it last stopped.
 * An event written late (its time more than `LATE_MS` ago, so the tally may have read past it: a
 * replayed pending event, a dispatch job that stored it for a stopped emitter, an SES event that
 * waited in a backlog) goes into the time and name indexes at the time of its write instead of
 * its own, so the tally still meets it ahead of its position and counts it with the others (in the
 * buckets of its own time); its writer writes no counter.
 */

import type { BucketCounts } from '../activity/metrics';
import { addTalliedUsage, type SendCategory } from '../billing/repository';
import type { Item, Key, Page, StoreDeps } from '../store/store';
import { indexEntry, keyAttributes, keys } from '../table';

export interface EventRecord {
  readonly id: string;
  readonly projectId: string;
  readonly contactId: string;
  readonly name: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
  /** The contact's email when the event was recorded, for display (not updated later). */
  readonly email?: string;
  /**
   * What the event adds to a campaign's run counters (an SES event's first delivery, open...
   * of a campaign email): the tally adds it with the event's batch (`tally.ts`).
   */
  readonly campaignCounts?: {
    readonly campaignId: string;
    readonly counts: Readonly<Record<string, number>>;
  };
  /**
   * The send category whose monthly usage counts this event's message (an `email.sent` of an
   * email sent while its category had no cap): the tally adds it with the event's batch.
   */
  readonly tallyUsage?: SendCategory;
  /**
   * An engagement event of an email that had one of its kind before (a second open, a third
   * click): the activity feed lists it and the totals count it, but the metrics that count once per
   * email (`opened`, `clicked` ... in the stats, series and rates) do not.
   */
  readonly repeat?: true;
}

/** Hour buckets outlive the longest statistics window (30 days) by a margin. */
const HOUR_BUCKET_TTL_SECONDS = 35 * 24 * 3600;

/**
 * An event whose time is further than this in the past when it is written is indexed at its write
 * time (see the module comment). A write that starts sooner must land within `TALLY_SETTLE_MS`
 * minus this of the event's time (the tally never counts newer events): requests end within 29 s,
 * and one write takes far less than the minute left.
 */
export const LATE_MS = 60_000;

/** Where an event sorts in both indexes: `<createdAt>#<id>`. */
export const eventPosition = (e: Pick<EventRecord, 'createdAt' | 'id'>) => `${e.createdAt}#${e.id}`;

/**
 * The event's item. `indexedAt`: a late event's write time, its position in the indexes (see the
 * module comment); its key keeps its own time, so writing it again still finds it.
 */
export function eventItem(e: EventRecord, options: { indexedAt?: string } = {}): Record<string, unknown> {
  const position = options.indexedAt ? `${options.indexedAt}#${e.id}` : eventPosition(e);
  return {
    ...keys.contactEvent(e.projectId, e.contactId, e.createdAt, e.id),
    ...indexEntry('eventsByTime', keys.eventsIndex(e.projectId), position),
    ...indexEntry('eventsByName', keys.eventNameIndex(e.projectId, e.name), position),
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
 * Returns whether the event was new. An event written late (see `LATE_MS`; `now` is the writer's
 * time) is indexed at `now`, where the tally will meet it.
 * Domain code records events with `emit` (`emit.ts`), which calls this and hands the event to
 * its listeners.
 */
export async function putEvent(deps: StoreDeps, event: EventRecord, now: Date): Promise<boolean> {
  const late = now.getTime() - Date.parse(event.createdAt) > LATE_MS;
  return deps.store.writeIf({
    put: eventItem(event, late ? { indexedAt: now.toISOString() } : {}),
    if: 'attribute_not_exists(pk)',
  });
}

/**
 * Adds to a campaign run's counters (engagement, or sent for unknown); a deleted campaign's run is
 * not recreated. With `tally`, only once per tally batch.
 */
async function addCampaignCounts(
  deps: StoreDeps,
  projectId: string,
  campaignId: string,
  counts: Readonly<Record<string, number>>,
  tally?: string,
): Promise<void> {
  const entries = Object.entries(counts).filter(([, n]) => n !== 0);
  if (entries.length === 0) return;
  await deps.store.writeIf({
    update: keys.campaignRun(projectId, campaignId),
    expression: `${tally ? 'SET tally = :tally ' : ''}ADD ${entries.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
    names: Object.fromEntries(entries.map(([name], i) => [`#c${i}`, name])),
    values: {
      ...Object.fromEntries(entries.map(([, n], i) => [`:c${i}`, n])),
      ...(tally ? { ':tally': tally } : {}),
    },
    if: tally
      ? 'attribute_exists(pk) AND (attribute_not_exists(tally) OR tally <> :tally)'
      : 'attribute_exists(pk)',
  });
}

/** Whether this very event (same id and time) is stored: one strongly consistent read. */
export async function eventStored(
  deps: StoreDeps,
  event: Pick<EventRecord, 'projectId' | 'contactId' | 'createdAt' | 'id'>,
  options: { readonly consistent?: boolean } = { consistent: true },
): Promise<boolean> {
  const key = keys.contactEvent(event.projectId, event.contactId, event.createdAt, event.id);
  return (await deps.store.get(key, options)) !== undefined;
}

const hourExpiry = (hour: string) =>
  Math.floor(Date.parse(`${hour}:00:00.000Z`) / 1000) + HOUR_BUCKET_TTL_SECONDS;
/** Day buckets serve a year of daily analytics. */
const dayExpiry = (day: string) => Math.floor(Date.parse(`${day}T00:00:00.000Z`) / 1000) + 400 * 24 * 3600;
/** Minute buckets serve the recent count (a day at most). */
const minuteExpiry = (minute: string) => Math.floor(Date.parse(`${minute}:00.000Z`) / 1000) + 2 * 24 * 3600;

/**
 * Adds `counts` to a counter bucket (an hour, a day, a minute). With `tally`, once per tally batch
 * (the bucket keeps the id of the batch that changed it last).
 */
async function addToBucket(
  deps: StoreDeps,
  key: Key,
  entity: string,
  expiresAt: number,
  counts: Readonly<Record<string, number | undefined>>,
  tally?: string,
): Promise<void> {
  const entries = Object.entries(counts).filter(
    (e): e is [string, number] => typeof e[1] === 'number' && e[1] !== 0,
  );
  if (entries.length === 0) return;
  const update = {
    update: key,
    expression: `SET entity = :entity, expiresAt = :exp${tally ? ', tally = :tally' : ''} ADD ${entries
      .map((_, i) => `#c${i} :c${i}`)
      .join(', ')}`,
    names: Object.fromEntries(entries.map(([name], i) => [`#c${i}`, name])),
    values: {
      ':entity': entity,
      ':exp': expiresAt,
      ...(tally ? { ':tally': tally } : {}),
      ...Object.fromEntries(entries.map(([, n], i) => [`:c${i}`, n])),
    },
  };
  if (tally) await deps.store.writeIf({ ...update, if: 'attribute_not_exists(tally) OR tally <> :tally' });
  else await deps.store.write(update);
}

/** What one tally run adds: per name (count, first and last time) and per hour. */
export interface TallyBatch {
  /** Unique per batch: the counters it changed carry it, so applying it again changes nothing. */
  readonly id: string;
  /** The position (`eventPosition`, or a time followed by `~`) the batch counted up to. */
  readonly to: string;
  readonly names: Readonly<Record<string, { n: number; first: string; last: string }>>;
  readonly hours: Readonly<Record<string, number>>;
  /** Activity and its metrics per hour, day and minute (shared/activity/metrics.ts). */
  readonly hourMetrics?: Readonly<Record<string, BucketCounts>>;
  readonly days?: Readonly<Record<string, BucketCounts>>;
  readonly minutes?: Readonly<Record<string, number>>;
  /** What the batch's events add to campaign runs, by campaign (`EventRecord.campaignCounts`). */
  readonly campaigns?: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Messages the batch's events add to the monthly send usage, by month (`YYYY-MM`) and category. */
  readonly usage?: Readonly<Record<string, Readonly<Partial<Record<SendCategory, number>>>>>;
  /** Events of the batch per contact id: each contact's event count (`contactEventTotal`). */
  readonly contacts?: Readonly<Record<string, number>>;
}

/** Sends counted per month (`YYYY-MM`) and category, as `TallyBatch.usage` holds them. */
export type SendUsage = Record<string, Partial<Record<SendCategory, number>>>;

/** Counts one send of `category` at `at` (an `email.sent` event's time) in `usage`, in its month. */
export function countSend(usage: SendUsage, at: string, category: SendCategory): void {
  const month = usage[at.slice(0, 7)] ?? {};
  month[category] = (month[category] ?? 0) + 1;
  usage[at.slice(0, 7)] = month;
}

/** Where the tally stands: counted up to `through`; `pending` is a batch begun and not finished. */
export interface TallyState {
  readonly through: string;
  readonly pending?: TallyBatch;
}

/** Before any event: sorts before every position (positions start with a year). */
export const TALLY_START = '0';

export async function getTallyState(deps: StoreDeps, projectId: string): Promise<TallyState> {
  const item = await deps.store.get(keys.eventTally(projectId), { consistent: true });
  return {
    through: typeof item?.through === 'string' ? item.through : TALLY_START,
    ...(item?.pending ? { pending: item.pending as TallyBatch } : {}),
  };
}

/**
 * Records `batch` as begun from `from`; false when another run moved the state first (a batch
 * pending, or `through` no longer `from`).
 */
export async function beginTally(deps: StoreDeps, projectId: string, from: string, batch: TallyBatch) {
  return deps.store.writeIf({
    update: keys.eventTally(projectId),
    expression: 'SET pending = :batch, entity = :entity',
    if: 'attribute_not_exists(pending) AND (attribute_not_exists(through) OR through = :from)',
    values: { ':batch': batch, ':entity': 'eventTally', ':from': from },
  });
}

/**
 * Adds a begun batch to the counters. Each counter it changes records the batch's id, in the same
 * write, so a batch applied again (a run that stopped midway, two runs finishing one batch) adds
 * to each counter once.
 */
export async function applyTally(deps: StoreDeps, projectId: string, batch: TallyBatch): Promise<void> {
  const once = 'attribute_not_exists(tally) OR tally <> :tally';
  await Promise.all([
    ...Object.entries(batch.names).map(([name, c]) =>
      deps.store.writeIf({
        update: keys.eventName(projectId, name),
        expression:
          'SET #name = :name, entity = :entity, firstSeenAt = if_not_exists(firstSeenAt, :first), lastSeenAt = :last, tally = :tally ADD #count :n',
        if: once,
        names: { '#name': 'name', '#count': 'count' },
        values: {
          ':name': name,
          ':entity': 'eventName',
          ':first': c.first,
          ':last': c.last,
          ':n': c.n,
          ':tally': batch.id,
        },
      }),
    ),
    ...Object.entries(batch.hours).map(([hour, n]) =>
      addToBucket(
        deps,
        keys.eventHour(projectId, hour),
        'eventHour',
        hourExpiry(hour),
        {
          count: n,
          ...batch.hourMetrics?.[hour],
        },
        batch.id,
      ),
    ),
    ...Object.entries(batch.days ?? {}).map(([day, counts]) =>
      addToBucket(deps, keys.eventDay(projectId, day), 'eventDay', dayExpiry(day), counts, batch.id),
    ),
    ...Object.entries(batch.minutes ?? {}).map(([minute, n]) =>
      addToBucket(
        deps,
        keys.eventMinute(projectId, minute),
        'eventMinute',
        minuteExpiry(minute),
        { activity: n },
        batch.id,
      ),
    ),
    ...Object.entries(batch.campaigns ?? {}).map(([campaignId, counts]) =>
      addCampaignCounts(deps, projectId, campaignId, counts, batch.id),
    ),
    ...Object.entries(batch.usage ?? {}).map(([month, counts]) =>
      addTalliedUsage(deps, projectId, month, counts, batch.id),
    ),
    ...Object.entries(batch.contacts ?? {}).map(([contactId, n]) =>
      addContactEvents(deps, projectId, contactId, n, batch.to),
    ),
  ]);
}

/**
 * Adds a batch's events of one contact to the contact's count, and moves the count's position to
 * the batch's end. Conditional on the position being before it, so a batch applied again (or late,
 * after a later one) adds nothing. A contact deleted meanwhile may be left this small item: its
 * partition's purge takes it when it runs after, the project's wipe otherwise.
 */
async function addContactEvents(
  deps: StoreDeps,
  projectId: string,
  contactId: string,
  n: number,
  to: string,
) {
  await deps.store.writeIf({
    update: keys.contactEventCount(projectId, contactId),
    expression: 'SET entity = :entity, through = :to ADD #count :n',
    if: 'attribute_not_exists(through) OR through < :to',
    names: { '#count': 'count' },
    values: { ':entity': 'contactEventCount', ':to': to, ':n': n },
  });
}

/**
 * How many events a contact has, without reading them: the tally's count of them (up to its
 * position) plus the contact's events after that position, which the tally has not met yet (the
 * last few minutes' at most, `tally.ts`). An event written late (`LATE_MS`) with a time before that
 * position is missing from it until the tally meets it, a few minutes later. A contact the tally
 * never counted has no count item: all its events are counted (few, or stored before counts were
 * kept).
 */
export async function contactEventTotal(
  deps: StoreDeps,
  projectId: string,
  contactId: string,
): Promise<number> {
  const item = await deps.store.get(keys.contactEventCount(projectId, contactId));
  const through = typeof item?.through === 'string' ? item.through : TALLY_START;
  const prefix = keys.contactEventPrefix;
  const newer = await deps.store.count({
    partition: keys.contactPartition(projectId, contactId),
    sort: { between: [`${prefix}${through}\u0000`, `${prefix}${AFTER_ALL}`] },
  });
  return Math.max(0, Number(item?.count ?? 0)) + newer;
}

/** Ends an applied batch: the tally now stands at its `to`. False when another run ended it. */
export async function finishTally(deps: StoreDeps, projectId: string, batch: TallyBatch) {
  return deps.store.writeIf({
    update: keys.eventTally(projectId),
    expression: 'SET through = :to REMOVE pending',
    if: 'pending.#id = :id',
    names: { '#id': 'id' },
    values: { ':to': batch.to, ':id': batch.id },
  });
}

/** An event as the tally reads it from the time index. */
export interface TalliedEvent {
  readonly position: string;
  readonly name: string;
  readonly contactId: string;
  readonly createdAt: string;
  /** Counted by its writer (written late before writers indexed late events at their write time). */
  readonly counted: boolean;
  readonly campaignCounts?: EventRecord['campaignCounts'];
  readonly tallyUsage?: SendCategory;
  readonly repeat?: true;
}

/**
 * Up to `limit` events of the project after position `after` and up to `upTo` (included), oldest
 * first; `cursor` continues the same range ('' when it is read to the end).
 */
export async function eventsToTally(
  deps: StoreDeps,
  projectId: string,
  q: { after: string; upTo: string; limit: number; cursor?: string },
): Promise<{ events: TalliedEvent[]; cursor: string }> {
  const out = await deps.store.query(
    {
      index: 'eventsByTime',
      partition: keys.eventsIndex(projectId),
      sort: { between: [q.after, q.upTo] },
      attributes: [
        'id',
        'name',
        'contactId',
        'createdAt',
        'counted',
        'campaignCounts',
        'tallyUsage',
        'repeat',
        keyAttributes('eventsByTime').sortKey,
      ],
    },
    { limit: q.limit, cursor: q.cursor },
  );
  const events = out.items
    .map((i) => ({
      // Its place in the index: its own time, or its write time for a late event.
      position: String(i[keyAttributes('eventsByTime').sortKey]),
      name: String(i.name),
      contactId: String(i.contactId),
      createdAt: String(i.createdAt),
      counted: i.counted === true,
      ...(i.campaignCounts ? { campaignCounts: i.campaignCounts as EventRecord['campaignCounts'] } : {}),
      ...(typeof i.tallyUsage === 'string' ? { tallyUsage: i.tallyUsage as SendCategory } : {}),
      ...(i.repeat === true ? { repeat: true as const } : {}),
    }))
    .filter((e) => e.position > q.after);
  return { events, cursor: out.cursor };
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
 * The tally's position with no batch pending: a pending batch is finished first (applying it is
 * idempotent), so the counters include exactly the events up to `through` and those flagged.
 */
export async function settledTally(deps: StoreDeps, projectId: string): Promise<string> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const state = await getTallyState(deps, projectId);
    if (!state.pending) return state.through;
    await applyTally(deps, projectId, state.pending);
    await finishTally(deps, projectId, state.pending);
  }
  throw new Error(`The event tally of project ${projectId} kept changing`);
}

/**
 * Deletes events by key; returns those that existed (a redelivered job deletes nothing twice,
 * so counters are lowered once per event), and lowers the name and hour counters by those the
 * counters include: up to the tally's position in the time index (or flagged `counted`, as late
 * events were before they were indexed at their write time). An event the tally has not
 * reached is simply gone before it is counted. (A tally batch that begins between the position's
 * read and the delete, and reads the event before it goes, counts it once more: a window of one
 * request, documented in the README.)
 *
 * Except a sent message: the month's send usage keeps it. The tally adds an event's `tallyUsage`
 * when it meets the event, so for a deleted one it has not met the usage is added here, once the
 * delete answered that it existed: once, whoever else deletes it at the same time (a redelivered
 * job). A crash between the delete and this add is the one way such a message goes uncounted.
 */
export async function deleteEvents(
  deps: StoreDeps,
  projectId: string,
  items: readonly Key[],
): Promise<EventRecord[]> {
  if (items.length === 0) return [];
  const through = await settledTally(deps, projectId);
  const usage: SendUsage = {};
  const deleted: EventRecord[] = [];
  const counted: EventRecord[] = [];
  /** Met by the tally (so in their contact's count): up to its position. */
  const tallied: EventRecord[] = [];
  for (let i = 0; i < items.length; i += 25) {
    const chunk = items.slice(i, i + 25);
    const results = await Promise.all(
      chunk.map((item) => deps.store.write({ delete: { pk: item.pk, sk: item.sk }, returnOld: true })),
    );
    for (const old of results) {
      if (!old) continue;
      const event = fromEventItem(old);
      deleted.push(event);
      // Its place in the time index (its write time when it was written late).
      const position = String(old[keyAttributes('eventsByTime').sortKey] ?? eventPosition(event));
      if (position <= through) tallied.push(event);
      if (old.counted === true || position <= through) counted.push(event);
      else if (typeof old.tallyUsage === 'string')
        countSend(usage, event.createdAt, old.tallyUsage as SendCategory);
    }
  }
  const byName = new Map<string, number>();
  const byHour = new Map<string, number>();
  const byContact = new Map<string, number>();
  for (const e of tallied) byContact.set(e.contactId, (byContact.get(e.contactId) ?? 0) + 1);
  for (const e of counted) {
    byName.set(e.name, (byName.get(e.name) ?? 0) + 1);
    byHour.set(hourOf(e.createdAt), (byHour.get(hourOf(e.createdAt)) ?? 0) + 1);
  }
  await Promise.all([
    ...[...byName].map(([name, n]) => lowerCount(deps, keys.eventName(projectId, name), n)),
    ...[...byContact].map(([contactId, n]) =>
      lowerCount(deps, keys.contactEventCount(projectId, contactId), n),
    ),
    ...Object.entries(usage).map(([month, counts]) => addTalliedUsage(deps, projectId, month, counts)),
    // The activity metrics stay: what was sent and opened is history, the contact's or not.
    ...[...byHour].map(([hour, n]) =>
      addToBucket(deps, keys.eventHour(projectId, hour), 'eventHour', hourExpiry(hour), { count: -n }),
    ),
  ]);
  return deleted;
}

/**
 * Lowers a counter item's `count` (a name's registry item, a contact's event count) without creating
 * one where there is none.
 */
async function lowerCount(deps: StoreDeps, key: Key, by: number) {
  await deps.store.writeIf({
    update: key,
    expression: 'ADD #count :by',
    if: 'attribute_exists(pk)',
    names: { '#count': 'count' },
    values: { ':by': -by },
  });
}

/**
 * Sets a name's registry count to the number of its stored events that the counters include (up
 * to the tally's position, or flagged `counted`), and removes the item when that is none. The
 * write is conditional on the count read before counting, so a count added meanwhile (a tally
 * batch, a late event) is never lost: the loop starts over.
 */
export async function reconcileNameCount(deps: StoreDeps, projectId: string, name: string): Promise<number> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const through = await settledTally(deps, projectId);
    const before = await getEventName(deps, projectId, name);
    const actual = await countCountedEventsNamed(deps, projectId, name, through);
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

/** Positions sort below this (they start with a year). */
const AFTER_ALL = '~';

async function countCountedEventsNamed(deps: StoreDeps, projectId: string, name: string, through: string) {
  const partition = keys.eventNameIndex(projectId, name);
  const [tallied, flagged] = await Promise.all([
    deps.store.count({ index: 'eventsByName', partition, sort: { between: [TALLY_START, through] } }),
    deps.store.count({
      index: 'eventsByName',
      partition,
      sort: { between: [`${through}\u0000`, AFTER_ALL] },
      filter: 'counted = :counted',
      values: { ':counted': true },
    }),
  ]);
  return tallied + flagged;
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
