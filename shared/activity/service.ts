/**
 * The activity feed and the analytics (`/activity`, `/analytics`). Figures come from counters the
 * event tally keeps per UTC minute, hour and day (`metrics.ts`), and from the campaigns' run
 * counters; the feed reads stored events through their indexes. No request scans events or
 * emails: a feed page reads what it returns (plus the events its filter leaves out between them),
 * a figure reads one counter per bucket of its window.
 *
 * The counters include an event once the tally has counted it: two to four minutes after it
 * happened (docs/events.md, "How counts are kept").
 */

import { statsOf } from '../campaigns/present';
import { batchGetCampaigns, listCampaignSummaries } from '../campaigns/repository';
import { badRequest } from '../errors';
import { type EventRecord, fromEventItem, listEventNames } from '../events/repository';
import { cursorKey, type Item, type Query, type StoreDeps } from '../store/store';
import { keyAttributes, keys } from '../table';
import { dueWaits } from '../workflows/executions-repository';
import { getWorkflowRecord } from '../workflows/repository';
import { ACTIVITY_TYPES, activityTypeOf, TRACKED_TYPE } from './metrics';

const DAY_MS = 86_400_000;

export interface ActivityItem {
  readonly id: string;
  readonly type: string;
  readonly timestamp: string;
  readonly contactId: string;
  readonly contactEmail: string | null;
  readonly metadata: Readonly<Record<string, unknown>>;
}

export interface FeedQuery {
  readonly limit: number;
  readonly cursor?: string;
  readonly types?: readonly string[];
  readonly contactId?: string;
  readonly startDate?: Date;
  readonly endDate?: Date;
}

type Deps = StoreDeps & { readonly clock: { now(): Date } };

/** Where a feed page stopped: the position (`<createdAt>#<id>`) of its last item. */
const encodeCursor = (position: string) => Buffer.from(position).toString('base64url');

function decodeCursor(cursor: string): string {
  const position = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^\d{4}-\d{2}-\d{2}T[\d:.]+Z#[\w-]+$/.test(position)) throw badRequest('Invalid cursor', { cursor });
  return position;
}

/** Names the service reserves: `event.tracked` is every other name. */
const RESERVED_PREFIXES = ['email.', 'contact.', 'segment.', 'workflow.'];

/**
 * `GET /activity`: newest first, within `[startDate, endDate]` (30 days to now by default). With
 * `contactId`, that contact's events; with `types`, each named type is read from its own name's
 * index and `event.tracked` from the time index, and the pages are merged; otherwise the time index.
 */
export async function listActivity(
  deps: Deps,
  projectId: string,
  q: FeedQuery,
): Promise<{ data: ActivityItem[]; cursor: string | null; hasMore: boolean }> {
  const end = q.endDate ?? deps.clock.now();
  const start = q.startDate ?? new Date(end.getTime() - 30 * DAY_MS);
  if (start > end) throw badRequest('startDate is after endDate', { startDate: start.toISOString() });
  // Positions below `upper` (exclusive of a cursor's own item, dropped after the read).
  const after = q.cursor ? decodeCursor(q.cursor) : undefined;
  const lower = start.toISOString();
  const upper = after ?? `${end.toISOString()}~`;
  const wanted = q.types && q.types.length > 0 ? new Set(q.types) : undefined;
  const isWanted = (e: EventRecord) => {
    const type = activityTypeOf(e.name);
    return type !== undefined && (!wanted || wanted.has(type));
  };

  const sources: { query: Omit<Query, 'sort'>; prefix: string }[] = [];
  if (q.contactId) {
    sources.push({ query: { partition: keys.contactPartition(projectId, q.contactId) }, prefix: 'EV#' });
  } else if (wanted) {
    for (const type of wanted) {
      if (type === TRACKED_TYPE) {
        sources.push({ query: trackedOnly(keys.eventsIndex(projectId)), prefix: '' });
      } else {
        sources.push({
          query: { index: 'eventsByName', partition: keys.eventNameIndex(projectId, type) },
          prefix: '',
        });
      }
    }
  } else {
    sources.push({
      query: {
        index: 'eventsByTime',
        partition: keys.eventsIndex(projectId),
        filter: 'NOT begins_with(#name, :segment)',
        names: { '#name': 'name' },
        values: { ':segment': 'segment.' },
      },
      prefix: '',
    });
  }

  const pages = await Promise.all(
    sources.map(async ({ query, prefix }) => {
      const page = await deps.store.page(
        { ...query, sort: { between: [`${prefix}${lower}`, `${prefix}${upper}`] } },
        // One more than the page tells whether more follow; one more again when the range
        // includes the cursor's own item, which is dropped.
        { limit: q.limit + (after ? 2 : 1), forward: false, maxRequests: 3 },
      );
      // An item's place is its sort key in what was read: its own time, or for an event written
      // late its write time in the indexes (shared/events/repository.ts).
      const sortKey = keyAttributes(query.index).sortKey;
      const items = page.items
        .map((item) => ({ event: fromEventItem(item), at: String(item[sortKey]).slice(prefix.length) }))
        .filter(({ event, at }) => isWanted(event) && at !== after);
      // A source with more to read stopped at its cursor's key: below that, it has not looked
      // (a filtered source may stop after its requests with fewer items than the page).
      const frontier = page.hasMore ? stoppedAt(page.cursor, sortKey, prefix) : undefined;
      return { items, frontier };
    }),
  );
  // Only what every source has read down to can be answered in order.
  const floor = pages.reduce<string | undefined>(
    (max, p) => (p.frontier !== undefined && (max === undefined || p.frontier > max) ? p.frontier : max),
    undefined,
  );
  const merged = pages
    .flatMap((p) => p.items)
    .filter(({ at }) => floor === undefined || at >= floor)
    .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  const items = merged.slice(0, q.limit);
  const full = merged.length > q.limit;
  const hasMore = full || floor !== undefined;
  // Next: below the page's last item, or below the floor when the page ends there.
  const next = full || items.length === q.limit ? items[items.length - 1]?.at : floor;
  return {
    data: items.map(({ event }) => present(event)),
    cursor: hasMore && next !== undefined ? encodeCursor(next) : null,
    hasMore: hasMore && next !== undefined,
  };
}

/** The sort key a page's cursor resumes below (the store's cursor is the key it stopped at). */
function stoppedAt(cursor: string, sortKey: string, prefix: string): string | undefined {
  const at = cursorKey(cursor)[sortKey];
  return typeof at === 'string' ? at.slice(prefix.length) : undefined;
}

/** The time index, without the service's own events: the tracked ones. */
function trackedOnly(partition: string): Omit<Query, 'sort'> {
  return {
    index: 'eventsByTime',
    partition,
    filter: RESERVED_PREFIXES.map((_, i) => `NOT begins_with(#name, :p${i})`).join(' AND '),
    names: { '#name': 'name' },
    values: Object.fromEntries(RESERVED_PREFIXES.map((p, i) => [`:p${i}`, p])),
  };
}

function present(e: EventRecord): ActivityItem {
  const type = activityTypeOf(e.name) ?? e.name;
  return {
    id: e.id,
    type,
    timestamp: e.createdAt,
    contactId: e.contactId,
    contactEmail: e.email ?? null,
    metadata: type === TRACKED_TYPE ? { event: e.name, ...e.data } : e.data,
  };
}

/** Counter buckets of a partition from `from` to `to` (sort keys, both included). */
async function buckets(
  deps: StoreDeps,
  partition: string,
  from: string,
  to: string,
): Promise<Map<string, Item>> {
  const out = new Map<string, Item>();
  for await (const item of deps.store.queryAll({ partition, sort: { between: [from, to] } }))
    out.set(String(item.sk), item);
  return out;
}

const num = (item: Item | undefined, name: string) => Number(item?.[name] ?? 0);
/**
 * `n` as a percentage of `of` (two decimals), 0 when `of` is 0, at most 100: opens in a window can
 * belong to emails sent before it.
 */
const rate = (n: number, of: number) => (of === 0 ? 0 : Math.min(100, Math.round((n / of) * 10_000) / 100));

/** `GET /activity/stats?days=`: totals of the last `days` UTC days (today included). */
export async function activityStats(deps: Deps, projectId: string, days: number) {
  const now = deps.clock.now();
  const from = new Date(now.getTime() - (days - 1) * DAY_MS).toISOString().slice(0, 10);
  const items = await buckets(deps, keys.eventDaysPartition(projectId), from, now.toISOString().slice(0, 10));
  const total = (name: string) => [...items.values()].reduce((sum, item) => sum + num(item, name), 0);
  // Every open and click; a day counted before the totals were kept has its metric as its total.
  const all = (name: 'opens' | 'clicks', metric: 'opened' | 'clicked') =>
    [...items.values()].reduce((sum, item) => sum + Math.max(num(item, name), num(item, metric)), 0);
  const sent = total('sent');
  return {
    totalEvents: total('activity'),
    totalEmailsSent: sent,
    totalEmailsDelivered: total('delivered'),
    totalEmailsOpened: total('opened'),
    totalEmailsClicked: total('clicked'),
    totalEmailsBounced: total('bounced'),
    totalEmailsComplained: total('complained'),
    totalWorkflowsStarted: total('workflowsStarted'),
    totalOpens: all('opens', 'opened'),
    totalClicks: all('clicks', 'clicked'),
    openRate: rate(total('opened'), sent),
    clickRate: rate(total('clicked'), sent),
  };
}

/** `GET /activity/recent-count?minutes=`: activity of the last `minutes` minutes. */
export async function recentCount(deps: Deps, projectId: string, minutes: number) {
  const now = deps.clock.now();
  const from = new Date(now.getTime() - (minutes - 1) * 60_000).toISOString().slice(0, 16);
  const items = await buckets(
    deps,
    keys.eventMinutesPartition(projectId),
    from,
    now.toISOString().slice(0, 16),
  );
  const count = [...items.values()].reduce((sum, item) => sum + num(item, 'activity'), 0);
  return { count, minutes };
}

/** `GET /activity/types`: the activity types the project's events have shown, in a stable order. */
export async function activityTypes(deps: Deps, projectId: string) {
  const seen = new Set<string>();
  for (const name of await listEventNames(deps, projectId)) {
    const type = activityTypeOf(name.name);
    if (type) seen.add(type);
  }
  return { types: ACTIVITY_TYPES.filter((t) => seen.has(t)) };
}

/**
 * `GET /activity/upcoming?limit&daysAhead`: scheduled campaigns going out, and WAITING workflow
 * executions whose wait ends (a DELAY's end, a WAIT_FOR_EVENT's timeout), within the window,
 * soonest first. The waits come from the project's due-time partition (`dueWaits`), so their part
 * reads about `limit` small items and executions whatever the number waiting; a wait for an event
 * without a timeout has no due time and is not listed.
 */
export async function upcoming(deps: Deps, projectId: string, q: { limit: number; daysAhead: number }) {
  const now = deps.clock.now();
  const until = new Date(now.getTime() + q.daysAhead * DAY_MS).toISOString();
  const [campaigns, waits] = await Promise.all([
    listCampaignSummaries(deps, projectId),
    dueWaits(deps, projectId, now.toISOString(), until, q.limit),
  ]);
  const names = new Map<string, string>();
  await Promise.all(
    [...new Set(waits.map((w) => w.wait.workflowId))].map(async (id) => {
      const workflow = await getWorkflowRecord(deps, projectId, id);
      if (workflow) names.set(id, workflow.name);
    }),
  );
  const scheduled = campaigns
    .filter((c) => c.status === 'SCHEDULED' && c.scheduledFor !== null && c.scheduledFor <= until)
    .map((c) => ({
      type: 'campaign.scheduled' as const,
      at: c.scheduledFor!,
      campaignId: c.id,
      executionId: null,
      name: c.name,
    }));
  // A wait of a workflow deleted meanwhile is left out (its purge deletes its due item).
  const waiting = waits.flatMap(({ wait }) => {
    const name = names.get(wait.workflowId);
    return name === undefined
      ? []
      : [
          {
            type: 'workflow.waiting' as const,
            at: wait.at,
            workflowId: wait.workflowId,
            executionId: wait.executionId,
            name,
          },
        ];
  });
  const activities = [...scheduled, ...waiting]
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
    .slice(0, q.limit);
  return { activities };
}

export type Granularity = 'hour' | 'day';

/** `GET /analytics/timeseries`: one bucket per hour or day of the window, zeros included. */
export async function timeseries(
  deps: Deps,
  projectId: string,
  q: { start: Date; end: Date; granularity: Granularity },
) {
  const hourly = q.granularity === 'hour';
  const width = hourly ? 13 : 10;
  const step = hourly ? 3_600_000 : DAY_MS;
  const first = q.start.toISOString().slice(0, width);
  const last = q.end.toISOString().slice(0, width);
  const partition = hourly ? keys.eventHoursPartition(projectId) : keys.eventDaysPartition(projectId);
  const items = await buckets(deps, partition, first, last);
  const series: Record<string, string | number>[] = [];
  const startMs = Date.parse(hourly ? `${first}:00:00.000Z` : `${first}T00:00:00.000Z`);
  for (let t = startMs; ; t += step) {
    const key = new Date(t).toISOString().slice(0, width);
    if (key > last) break;
    const item = items.get(key);
    series.push({
      date: hourly ? `${key}:00:00.000Z` : key,
      sent: num(item, 'sent'),
      delivered: num(item, 'delivered'),
      opened: num(item, 'opened'),
      clicked: num(item, 'clicked'),
      bounced: num(item, 'bounced'),
      complained: num(item, 'complained'),
    });
  }
  return { series };
}

/** Every campaign of the project with its figures (the summaries, then records and runs by 100). */
async function campaignFigures(deps: Deps, projectId: string) {
  const summaries = (await listCampaignSummaries(deps, projectId)).sort((a, b) =>
    a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0,
  );
  const out: { id: string; name: string; status: string; stats: ReturnType<typeof statsOf> }[] = [];
  for (let i = 0; i < summaries.length; i += 100) {
    const ids = summaries.slice(i, i + 100).map((s) => s.id);
    for (const { record, run } of await batchGetCampaigns(deps, projectId, ids))
      out.push({ id: record.id, name: record.name, status: record.status, stats: statsOf(record, run) });
  }
  return out;
}

const figures = (c: Awaited<ReturnType<typeof campaignFigures>>[number]) => ({
  id: c.id,
  name: c.name,
  sentCount: c.stats.sentCount,
  openedCount: c.stats.openedCount,
  clickedCount: c.stats.clickedCount,
  openRate: c.stats.openRate,
  clickRate: c.stats.clickRate,
});

/** `GET /analytics/top-campaigns?metric&limit`: the campaigns with most sent, opened or clicked. */
export type TopMetric = 'sent' | 'opened' | 'clicked';

export async function topCampaigns(deps: Deps, projectId: string, q: { metric: TopMetric; limit: number }) {
  const field = ({ sent: 'sentCount', opened: 'openedCount', clicked: 'clickedCount' } as const)[q.metric];
  const all = (await campaignFigures(deps, projectId)).map(figures);
  all.sort((a, b) => b[field] - a[field] || a.name.localeCompare(b.name));
  return { campaigns: all.slice(0, q.limit) };
}

/** `GET /analytics/campaign-stats`: every campaign's figures, with its status, newest first. */
export async function campaignBreakdown(deps: Deps, projectId: string) {
  const all = await campaignFigures(deps, projectId);
  return { campaigns: all.map((c) => ({ ...figures(c), status: c.status })) };
}

/** `GET /analytics/top-events?limit`: the most frequent event names (the name registry's counts). */
export async function topEvents(deps: Deps, projectId: string, limit: number) {
  const names = (await listEventNames(deps, projectId)).filter((n) => !n.name.startsWith('segment.'));
  names.sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  return { events: names.slice(0, limit).map((n) => ({ name: n.name, count: n.count })) };
}
