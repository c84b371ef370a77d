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

import { createHash } from 'node:crypto';
import type { BucketCounts } from '../activity/metrics';
import { addTalliedUsage, type SendCategory } from '../billing/repository';
import type { Item, Key, Page, StoreDeps } from '../store/store';
import { indexEntry, keyAttributes, keys } from '../table';
import { type TallyMark, tallyOnce } from './tally-once';

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
 * Adds a tally batch's counts to a campaign run's counters (engagement, or sent for unknown), once
 * per batch; a deleted campaign's run is not recreated.
 */
async function addCampaignCounts(
  deps: StoreDeps,
  projectId: string,
  campaignId: string,
  counts: Readonly<Record<string, number>>,
  tally: TallyMark,
): Promise<void> {
  const entries = Object.entries(counts).filter(([, n]) => n !== 0);
  if (entries.length === 0) return;
  const once = tallyOnce(tally);
  await deps.store.writeIf({
    update: keys.campaignRun(projectId, campaignId),
    expression: `SET ${once.assign} ADD ${entries.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
    names: Object.fromEntries(entries.map(([name], i) => [`#c${i}`, name])),
    values: { ...Object.fromEntries(entries.map(([, n], i) => [`:c${i}`, n])), ...once.values },
    if: `attribute_exists(pk) AND ${once.condition}`,
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
 * (`tally-once.ts`).
 */
async function addToBucket(
  deps: StoreDeps,
  key: Key,
  entity: string,
  expiresAt: number,
  counts: Readonly<Record<string, number | undefined>>,
  tally?: TallyMark,
): Promise<void> {
  const entries = Object.entries(counts).filter(
    (e): e is [string, number] => typeof e[1] === 'number' && e[1] !== 0,
  );
  if (entries.length === 0) return;
  const once = tally ? tallyOnce(tally) : undefined;
  const update = {
    update: key,
    expression: `SET entity = :entity, expiresAt = :exp${once ? `, ${once.assign}` : ''} ADD ${entries
      .map((_, i) => `#c${i} :c${i}`)
      .join(', ')}`,
    names: Object.fromEntries(entries.map(([name], i) => [`#c${i}`, name])),
    values: {
      ':entity': entity,
      ':exp': expiresAt,
      ...once?.values,
      ...Object.fromEntries(entries.map(([, n], i) => [`:c${i}`, n])),
    },
  };
  if (once) await deps.store.writeIf({ ...update, if: once.condition });
  else await deps.store.write(update);
}

/** What one tally batch adds: per name (count, first and last time) and per hour. */
export interface TallyBatch {
  /** Unique per batch. */
  readonly id: string;
  /**
   * One more than the project's batch before: the counters it changed keep it, so applying it
   * again, or after a later batch, changes nothing (`tally-once.ts`). Absent in a batch begun
   * before batches were numbered, whose counters keep its id instead.
   */
  readonly seq?: number;
  /**
   * `settle`: events the tally's first pass missed, found by its second (`tally.ts`): they lie
   * behind the first pass's position. Absent: the first pass, from its position up to `to`.
   */
  readonly kind?: 'settle';
  /** The position (`eventPosition`, or a time followed by `~`) the batch counted up to. */
  readonly to: string;
  /** When its run began it (`tally.ts`, `TALLY_PENDING_FRESH_MS`). */
  readonly begunAt?: string;
  /**
   * A first-pass batch's window: where it began (its events are after this position) and the
   * `eventMark` of each event it met, concatenated. Applying the batch stores them
   * (`TallyWindow`) for the second pass. Absent in a settle batch (and one begun before windows).
   */
  readonly window?: { readonly from: string; readonly marks: string };
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
  /**
   * Events of the batch per contact id: each contact's event count (`contactEventTotal`); settle
   * batches only (and those begun before the tally had two passes).
   */
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

/**
 * Where the tally stands (`tally.ts`): its first pass has counted the events it met up to
 * `through`, its second pass every event up to `settled` (never after `through`); `seq` is the last
 * batch's number; `pending` is a batch begun and not finished.
 */
export interface TallyState {
  readonly through: string;
  readonly settled: string;
  readonly seq: number;
  readonly pending?: TallyBatch;
}

/** Before any event: sorts before every position (positions start with a year). */
export const TALLY_START = '0';

export async function getTallyState(deps: StoreDeps, projectId: string): Promise<TallyState> {
  const item = await deps.store.get(keys.eventTally(projectId), { consistent: true });
  const through = typeof item?.through === 'string' ? item.through : TALLY_START;
  return {
    through,
    // Before the second pass existed, everything up to `through` had settled.
    settled: typeof item?.settled === 'string' ? item.settled : through,
    seq: typeof item?.seq === 'number' ? item.seq : 0,
    ...(item?.pending ? { pending: item.pending as TallyBatch } : {}),
  };
}

/**
 * Records `batch` (numbered `state.seq + 1`) as begun from where `state` stands; false when
 * another run moved the state first (a batch pending or begun since, a position moved).
 */
export async function beginTally(deps: StoreDeps, projectId: string, state: TallyState, batch: TallyBatch) {
  const at =
    batch.kind === 'settle'
      ? '(settled = :from OR (attribute_not_exists(settled) AND through = :from))'
      : '(attribute_not_exists(through) OR through = :from)';
  return deps.store.writeIf({
    update: keys.eventTally(projectId),
    // A first pass's first numbered batch starts the second pass where the first stands.
    expression: `SET pending = :batch, seq = :seq, entity = :entity${batch.kind === 'settle' ? '' : ', settled = if_not_exists(settled, :from)'}`,
    if: `attribute_not_exists(pending) AND ${at} AND ${state.seq === 0 ? 'attribute_not_exists(seq)' : 'seq = :last'}`,
    values: {
      ':batch': batch,
      ':seq': batch.seq,
      ':entity': 'eventTally',
      ':from': batch.kind === 'settle' ? state.settled : state.through,
      ...(state.seq === 0 ? {} : { ':last': state.seq }),
    },
  });
}

/**
 * Adds a begun batch to the counters. Each counter it changes records the batch's id, in the same
 * write, so a batch applied again (a run that stopped midway, two runs finishing one batch) adds
 * to each counter once.
 */
export async function applyTally(deps: StoreDeps, projectId: string, batch: TallyBatch): Promise<void> {
  const once = tallyOnce(batch);
  // A settle batch's events are older than the names' last sighting: it leaves that as it is.
  const last = batch.kind === 'settle' ? 'if_not_exists(lastSeenAt, :last)' : ':last';
  await Promise.all([
    ...Object.entries(batch.names).map(([name, c]) =>
      deps.store.writeIf({
        update: keys.eventName(projectId, name),
        expression: `SET #name = :name, entity = :entity, firstSeenAt = if_not_exists(firstSeenAt, :first), lastSeenAt = ${last}, ${once.assign} ADD #count :n`,
        if: once.condition,
        names: { '#name': 'name', '#count': 'count' },
        values: {
          ':name': name,
          ':entity': 'eventName',
          ':first': c.first,
          ':last': c.last,
          ':n': c.n,
          ...once.values,
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
        batch,
      ),
    ),
    ...Object.entries(batch.days ?? {}).map(([day, counts]) =>
      addToBucket(deps, keys.eventDay(projectId, day), 'eventDay', dayExpiry(day), counts, batch),
    ),
    ...Object.entries(batch.minutes ?? {}).map(([minute, n]) =>
      addToBucket(
        deps,
        keys.eventMinute(projectId, minute),
        'eventMinute',
        minuteExpiry(minute),
        { activity: n },
        batch,
      ),
    ),
    ...Object.entries(batch.campaigns ?? {}).map(([campaignId, counts]) =>
      addCampaignCounts(deps, projectId, campaignId, counts, batch),
    ),
    ...Object.entries(batch.usage ?? {}).map(([month, counts]) =>
      addTalliedUsage(deps, projectId, month, counts, batch),
    ),
    ...Object.entries(batch.contacts ?? {}).map(([contactId, n]) =>
      addContactEvents(deps, projectId, contactId, n, batch),
    ),
    batch.window ? putTallyWindow(deps, projectId, batch) : undefined,
  ]);
}

/**
 * Adds a settle batch's events of one contact to the contact's count (only the tally's second
 * pass keeps contact counts, `tally.ts`), and moves the count's position to the batch's end. Once
 * per batch: by its number, or (a batch begun before batches were numbered, on an item no
 * numbered batch changed) by the position being before its end. A contact deleted meanwhile may be
 * left this small item: its partition's purge takes it when it runs after, the project's wipe
 * otherwise.
 */
async function addContactEvents(
  deps: StoreDeps,
  projectId: string,
  contactId: string,
  n: number,
  batch: TallyBatch,
) {
  const numbered = batch.seq !== undefined;
  await deps.store.writeIf({
    update: keys.contactEventCount(projectId, contactId),
    expression: `SET entity = :entity, through = :to${numbered ? ', tallySeq = :seq' : ''} ADD #count :n`,
    if: numbered
      ? 'attribute_not_exists(tallySeq) OR tallySeq < :seq'
      : 'attribute_not_exists(tallySeq) AND (attribute_not_exists(through) OR through < :to)',
    names: { '#count': 'count' },
    values: {
      ':entity': 'contactEventCount',
      ':to': batch.to,
      ':n': n,
      ...(numbered ? { ':seq': batch.seq } : {}),
    },
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

/**
 * Ends an applied batch: the tally's first pass (or its second, for a settle batch) now stands at
 * its `to`. False when another run ended it.
 */
export async function finishTally(deps: StoreDeps, projectId: string, batch: TallyBatch) {
  return deps.store.writeIf({
    update: keys.eventTally(projectId),
    expression: `SET ${batch.kind === 'settle' ? 'settled' : 'through'} = :to REMOVE pending`,
    if: 'pending.#id = :id',
    names: { '#id': 'id' },
    values: { ':to': batch.to, ':id': batch.id },
  });
}

/** Applies a begun batch and ends it (either is idempotent, so a batch may be completed twice). */
export async function completeTally(deps: StoreDeps, projectId: string, batch: TallyBatch): Promise<void> {
  await applyTally(deps, projectId, batch);
  await finishTally(deps, projectId, batch);
}

/** A tally window's events are kept for the second pass this long (it needs them for minutes). */
const TALLY_WINDOW_TTL_SECONDS = 24 * 3600;

/** What a first-pass batch counted: the events it met, after `from` and up to `to`. */
export interface TallyWindow {
  readonly from: string;
  readonly to: string;
  /** `eventMark` of each event met, concatenated. */
  readonly marks: string;
}

/** Characters of one `eventMark`. */
export const EVENT_MARK_LENGTH = 8;

/**
 * A short fingerprint of an event's position (48 bits of its SHA-256), as tally windows hold them:
 * 8 bytes an event. An event the first pass missed is taken for one it met only if its mark is
 * among those of the windows read with it (50,000 at most): about once in 5 billion such events.
 */
export function eventMark(position: string): string {
  return createHash('sha256').update(position).digest('base64url').slice(0, EVENT_MARK_LENGTH);
}

/** Every mark of `windows`' events. */
export function windowMarks(windows: readonly TallyWindow[]): Set<string> {
  const marks = new Set<string>();
  for (const w of windows)
    for (let i = 0; i < w.marks.length; i += EVENT_MARK_LENGTH)
      marks.add(w.marks.slice(i, i + EVENT_MARK_LENGTH));
  return marks;
}

/**
 * Stores a first-pass batch's window (the same again when the batch is applied again). Only a
 * begun batch has one: the second pass takes every window as counted.
 */
async function putTallyWindow(deps: StoreDeps, projectId: string, batch: TallyBatch): Promise<void> {
  if (!batch.window) return;
  const window: TallyWindow = { from: batch.window.from, to: batch.to, marks: batch.window.marks };
  await deps.store.write({
    put: {
      ...keys.eventTallyWindow(projectId, batch.to, batch.id),
      entity: 'eventTallyWindow',
      ...window,
      // From the batch's end (a position starts with its time), so every write of it is the same.
      expiresAt: Math.floor(Date.parse(batch.to.slice(0, 24)) / 1000) + TALLY_WINDOW_TTL_SECONDS,
    },
  });
}

/**
 * The windows of first-pass batches that end after `after` and at `upTo` or before, oldest end
 * first, at most `limit` (one strongly consistent query).
 */
export async function tallyWindows(
  deps: StoreDeps,
  projectId: string,
  after: string,
  upTo: string,
  limit: number,
): Promise<TallyWindow[]> {
  const prefix = keys.eventTallyWindowPrefix;
  // `W#<to>#<batch id>`: ids sort below `~`, so `W#<after>#~` is past every window ending at `after`.
  const out = await deps.store.query(
    {
      partition: keys.eventTally(projectId).pk,
      sort: { between: [`${prefix}${after}#~`, `${prefix}${upTo}#~`] },
      consistent: true,
    },
    { limit },
  );
  return out.items.map((i) => ({ from: String(i.from), to: String(i.to), marks: String(i.marks ?? '') }));
}

/** Windows one `countedEvents` reads at most: the first pass's last few minutes. */
const COUNTED_WINDOWS = 1000;

/**
 * Which events the counters include, for removing events from them: those up to the second
 * pass's position, those the first pass met after it (its windows), and those flagged `counted`.
 * A pending batch is finished first (applying it is idempotent).
 */
export async function countedEvents(
  deps: StoreDeps,
  projectId: string,
): Promise<{ readonly settled: string; counts(position: string, flagged: boolean): boolean }> {
  const state = await settledTally(deps, projectId);
  const marks =
    state.through > state.settled
      ? windowMarks(await tallyWindows(deps, projectId, state.settled, state.through, COUNTED_WINDOWS))
      : new Set<string>();
  return {
    settled: state.settled,
    counts: (position, flagged) =>
      flagged || position <= state.settled || (position <= state.through && marks.has(eventMark(position))),
  };
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
 * The tally's state with no batch pending: a pending batch is finished first (applying it is
 * idempotent), so the counters include exactly the events up to `settled`, those the first pass
 * met up to `through` (`countedEvents`) and those flagged.
 */
export async function settledTally(deps: StoreDeps, projectId: string): Promise<TallyState> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const state = await getTallyState(deps, projectId);
    if (!state.pending) return state;
    await completeTally(deps, projectId, state.pending);
  }
  throw new Error(`The event tally of project ${projectId} kept changing`);
}

/**
 * Deletes events by key; returns those that existed (a redelivered job deletes nothing twice,
 * so counters are lowered once per event), and lowers the name and hour counters by those the
 * counters include (`countedEvents`: met by the tally, or flagged `counted`, as late events were
 * before they were indexed at their write time). An event the tally has not met is simply gone
 * before it is counted. (A tally batch that begins between the position's
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
  const counters = await countedEvents(deps, projectId);
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
      // In its contact's count: read by the second pass, which alone keeps those.
      if (position <= counters.settled) tallied.push(event);
      if (counters.counts(position, old.counted === true)) counted.push(event);
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
 * Sets a name's registry count to the number of its stored events that the counters include
 * (`countedEvents`), and removes the item when that is none. The
 * write is conditional on the count read before counting, so a count added meanwhile (a tally
 * batch, a late event) is never lost: the loop starts over.
 */
export async function reconcileNameCount(deps: StoreDeps, projectId: string, name: string): Promise<number> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const counters = await countedEvents(deps, projectId);
    const before = await getEventName(deps, projectId, name);
    const actual = await countCountedEventsNamed(deps, projectId, name, counters);
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

/**
 * The events of a name the counters include: a count of those up to the second pass's position,
 * and a read of those after it (the last few minutes', and any flagged).
 */
async function countCountedEventsNamed(
  deps: StoreDeps,
  projectId: string,
  name: string,
  counters: Awaited<ReturnType<typeof countedEvents>>,
) {
  const partition = keys.eventNameIndex(projectId, name);
  const sortKey = keyAttributes('eventsByName').sortKey;
  const [settled, after] = await Promise.all([
    deps.store.count({
      index: 'eventsByName',
      partition,
      sort: { between: [TALLY_START, counters.settled] },
    }),
    (async () => {
      let n = 0;
      const query = {
        index: 'eventsByName',
        partition,
        sort: { between: [`${counters.settled}\u0000`, AFTER_ALL] },
        attributes: [sortKey, 'counted'],
      } as const;
      for await (const item of deps.store.queryAll(query))
        if (counters.counts(String(item[sortKey]), item.counted === true)) n++;
      return n;
    })(),
  ]);
  return settled + after;
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
