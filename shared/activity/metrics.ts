/**
 * What the activity feed and the analytics count: which events are activity, the type each shows
 * as, and the metrics the counters keep (per UTC minute, hour and day, written by the event tally
 * a batch at a time: shared/events/tally.ts).
 */

/** The metrics kept per bucket, by the event name that counts for each. */
export const METRIC_OF_EVENT = {
  'email.sent': 'sent',
  'email.delivered': 'delivered',
  'email.opened': 'opened',
  'email.clicked': 'clicked',
  'email.bounced': 'bounced',
  'email.complained': 'complained',
  'workflow.started': 'workflowsStarted',
} as const;

export type Metric = (typeof METRIC_OF_EVENT)[keyof typeof METRIC_OF_EVENT];
export const METRICS: readonly Metric[] = Object.values(METRIC_OF_EVENT);

/** Activity types named after their events (docs/email-events.md). */
const NAMED_TYPES = new Set([
  'email.sent',
  'email.delivered',
  'email.delivery_delayed',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'email.complained',
  'email.failed',
  'email.received',
  'contact.subscribed',
  'contact.unsubscribed',
  'workflow.started',
  'workflow.completed',
]);

/** The type a tracked event of any other name shows as. */
export const TRACKED_TYPE = 'event.tracked';

/** Every activity type, in a stable order. */
export const ACTIVITY_TYPES: readonly string[] = [...NAMED_TYPES, TRACKED_TYPE];

/**
 * The activity type of an event name: the name itself for the service's own events, `event.tracked`
 * for a name the project tracks; undefined for events that are not activity (segment entries and
 * exits, and any other reserved name outside the list).
 */
export function activityTypeOf(name: string): string | undefined {
  if (NAMED_TYPES.has(name)) return name;
  if (name.startsWith('segment.') || name.startsWith('email.') || name.startsWith('contact.'))
    return undefined;
  if (name.startsWith('workflow.')) return undefined;
  return TRACKED_TYPE;
}

/**
 * Totals kept beside the metrics that count once per email: every open and every click
 * (`email.opened` 4 times for one email is `opened` 1, `opens` 4).
 */
export const TOTAL_OF_METRIC: Partial<Record<Metric, 'opens' | 'clicks'>> = {
  opened: 'opens',
  clicked: 'clicks',
};

/** What one bucket counts: activity events, each metric, and the totals. */
export type BucketCounts = Partial<Record<Metric | 'activity' | 'opens' | 'clicks', number>>;

/**
 * Adds one event to a bucket's counts. `repeat`: an engagement event of an email that had one of
 * its kind before (`EventRecord.repeat`): activity and totals only, its metric counted once per email.
 */
export function countInto(bucket: Record<string, number>, name: string, repeat = false): void {
  if (activityTypeOf(name) === undefined) return;
  bucket.activity = (bucket.activity ?? 0) + 1;
  const metric = (METRIC_OF_EVENT as Readonly<Record<string, Metric>>)[name];
  if (!metric) return;
  const total = TOTAL_OF_METRIC[metric];
  if (total) bucket[total] = (bucket[total] ?? 0) + 1;
  if (!repeat) bucket[metric] = (bucket[metric] ?? 0) + 1;
}

/** `2026-11-21T20:15:33.000Z` -> the minute `2026-11-21T20:15` and the day `2026-11-21`. */
export const minuteOf = (iso: string) => iso.slice(0, 16);
export const dayOf = (iso: string) => iso.slice(0, 10);
