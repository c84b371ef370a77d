/**
 * The event tally: keeps the event-name registry and the hourly counts off the request path, and
 * the monthly send usage of the categories without a cap (shared/billing/caps.ts).
 * Recording an event writes the event alone; the `events.tally` job reads the project's stored
 * events from the time index, oldest first, and adds them to the counters a batch at a time (one
 * write per name and per hour seen in the batch, however many events it holds), in two passes:
 *
 * - The first pass counts events as soon as they are half a second old (`TALLY_FAST_SETTLE_MS`), from
 *   where it last stopped. Each of its batches holds the marks of the events it counts, which
 *   applying it stores (a window, `TallyWindow`). It can miss an event: one whose write (or whose entry in
 *   the time index, which is eventually consistent) lands after the pass read past its position.
 * - The second pass (settle) follows two minutes behind (`TALLY_SETTLE_MS`), by when every write
 *   that started on time has landed: it reads the same events again, window by window, and counts
 *   those the first pass's windows do not hold. It alone keeps each contact's event count (every
 *   event it reads, one write per contact per batch, as many events as a batch holds: a contact's
 *   last few minutes are read from its events, `contactEventTotal`). An event written later than that is indexed at its
 *   write time (`repository.ts`, `putEvent`), so it is still ahead of the first pass; it is counted
 *   in the buckets of its own time, and its name's `lastSeenAt` is when the service saw it.
 *
 * Exact, with crashes and redeliveries: a batch is recorded as pending on the tally item, with
 * the next sequence number, before any counter changes, and each counter update carries that
 * number, conditionally (`tally-once.ts`): a run that stops midway leaves the batch for the next
 * run (or a concurrent one) to apply again, adding to each counter once, and a run that stalls
 * and applies a batch after a later one adds nothing. Ending the batch moves its pass's position,
 * conditional on the batch.
 *
 * Who runs it: every writer of events arms a tally for the project before its write, as a message
 * delayed by `TALLY_DELAY_S`, at most once a `TALLY_ARM_INTERVAL_MS` per instance; and one delayed
 * by `TALLY_SETTLE_DELAY_S`, at most once a `TALLY_SETTLE_ARM_INTERVAL_MS`. Each delay exceeds its
 * interval plus its pass's settle time, so the message armed before an instance's first event of
 * an interval runs after every event that instance writes in the interval can be counted: the
 * last events of a burst are counted without any later traffic, within about two seconds by
 * the first pass, and surely by the second (docs/events.md, "How counts are kept").
 */
import * as z from 'zod/mini';
import { countInto, dayOf, minuteOf } from '../activity/metrics';
import { defineJob, defineJobMessage, enqueue } from '../jobs/registry';
import type { Deps } from '../ports';
import type { StoreDeps } from '../store/store';
import {
  beginTally,
  completeTally,
  countSend,
  eventMark,
  eventsToTally,
  getTallyState,
  hourOf,
  type SendUsage,
  type TalliedEvent,
  type TallyBatch,
  type TallyState,
  tallyWindows,
  windowMarks,
} from './repository';

/** Events younger than this are left for the first pass's next run. */
export const TALLY_FAST_SETTLE_MS = 500;
/** The most often one instance arms a first-pass tally for one project. */
export const TALLY_ARM_INTERVAL_MS = 2_000;
/** The first-pass message's delay: more than its interval plus its settle time. */
export const TALLY_DELAY_S = 3;
/** The second pass counts what the first missed once events are this old (see the module comment). */
export const TALLY_SETTLE_MS = 120_000;
/** The most often one instance arms a second-pass tally for one project. */
export const TALLY_SETTLE_ARM_INTERVAL_MS = 60_000;
/** The second-pass message's delay: more than its interval plus its settle time. */
export const TALLY_SETTLE_DELAY_S = 190;
/** Events in one batch (one pending record, one write per name and hour in it). */
export const TALLY_BATCH_EVENTS = 1000;
/** Batches one message runs; more continue in a new message. */
export const TALLY_BATCHES_PER_MESSAGE = 10;
/**
 * A batch pending for less than this is taken to be in the hands of the run that began it: another
 * run that meets it tries again a second later instead of applying it too (each counter update of
 * a batch applied twice is a refused write, paid all the same). Older, its run is taken to have
 * stopped, and the run that meets it finishes it.
 */
export const TALLY_PENDING_FRESH_MS = 20_000;
/**
 * The first pass begins a batch at most this often per project, whatever the number of instances
 * arming it: a run that comes sooner after the last batch leaves the first pass to a message of
 * its own a moment later. Each batch costs about 7 write units however few events it holds.
 */
export const TALLY_FAST_SPACING_MS = 1_000;
/**
 * How many times in a row a message leaves a batch to another run before it applies the batch
 * itself (harmless: each counter takes a batch once, though each refused write is paid). Each
 * wait doubles (`DEFER_DELAY_S`, then 2, 4 and 8 s: 15 s in all, about the time a batch stays
 * fresh). Without a bound, a batch whose run was killed would be deferred until it is no longer
 * fresh by messages that SQS may deliver twice, every delivery sending one of its own: the bound
 * and the doubling waits keep that to a few generations.
 */
export const TALLY_MAX_DEFERRALS = 4;
/** How long a run that met a batch in another run's hands first waits before it tries again. */
const DEFER_DELAY_S = 1;
/** First-pass windows one settle batch reads at most. */
const SETTLE_WINDOWS = 50;
const PAGE = 500;

export const TALLY_JOB = 'events.tally';

export const tallyJobMessage = defineJobMessage({
  type: TALLY_JOB,
  schema: z.object({
    type: z.literal(TALLY_JOB),
    projectId: z.string().check(z.minLength(1)),
    /** Sent by a run that came within the first pass's spacing: this one runs the pass whatever. */
    spaced: z.optional(z.literal(true)),
    /** How many runs before this message left a batch to another run (`TALLY_MAX_DEFERRALS`). */
    deferrals: z.optional(z.number().check(z.int(), z.minimum(0))),
  }),
});

/** Per queue (one per instance, and per runtime in tests): project -> when each pass was last armed. */
const armed = new WeakMap<object, Map<string, { fast?: number; settle?: number }>>();

/**
 * Makes sure both passes of a tally will run for the project after an event written now can be
 * counted by each: sends each pass's delayed message unless this instance sent one within its
 * interval. Called before the event's write, so a crash between the two leaves a message that
 * finds nothing, never an event that no message will count.
 */
export async function armTally(deps: Pick<Deps, 'queue' | 'clock'>, projectId: string): Promise<void> {
  const byProject = armed.get(deps.queue) ?? new Map<string, { fast?: number; settle?: number }>();
  armed.set(deps.queue, byProject);
  const now = deps.clock.now().getTime();
  const last = byProject.get(projectId) ?? {};
  const due = (at: number | undefined, interval: number) =>
    at === undefined || now - at >= interval || now < at;
  const fast = due(last.fast, TALLY_ARM_INTERVAL_MS);
  const settle = due(last.settle, TALLY_SETTLE_ARM_INTERVAL_MS);
  if (!fast && !settle) return;
  await Promise.all([
    fast ? enqueue(deps, tallyJobMessage, { projectId }, { delaySeconds: TALLY_DELAY_S }) : undefined,
    settle
      ? enqueue(deps, tallyJobMessage, { projectId }, { delaySeconds: TALLY_SETTLE_DELAY_S })
      : undefined,
  ]);
  byProject.set(projectId, { fast: fast ? now : last.fast, settle: settle ? now : last.settle });
}

/** The counts of `key` in `of`, made empty on first use. */
function bucket(of: Record<string, Record<string, number>>, key: string): Record<string, number> {
  const found = of[key];
  if (found) return found;
  const made: Record<string, number> = {};
  of[key] = made;
  return made;
}

/** Sums events into a batch's counters. */
class BatchSum {
  readonly names: Record<string, { n: number; first: string; last: string }> = {};
  readonly hours: Record<string, number> = {};
  readonly campaigns: Record<string, Record<string, number>> = {};
  readonly hourMetrics: Record<string, Record<string, number>> = {};
  readonly days: Record<string, Record<string, number>> = {};
  readonly minutes: Record<string, number> = {};
  readonly usage: SendUsage = {};
  readonly contacts: Record<string, number> = {};
  /** Events added. */
  added = 0;

  /**
   * Adds `e` to the counters (`counters`: false for one the first pass counted already) and, with
   * `contact`, to its contact's count (only the second pass keeps those: see the module comment).
   */
  add(e: TalliedEvent, to: { counters: boolean; contact: boolean }): void {
    this.added++;
    // Every event counts for its contact (writers that flagged `counted` never counted contacts).
    if (to.contact) this.contacts[e.contactId] = (this.contacts[e.contactId] ?? 0) + 1;
    if (e.counted || !to.counters) return;
    // When the service saw it: its own time, or its write time when it was written late (its
    // index position), so `lastSeenAt` never moves back.
    const seenAt = e.position.slice(0, e.position.lastIndexOf('#'));
    const c = this.names[e.name];
    if (c) {
      c.n++;
      if (seenAt > c.last) c.last = seenAt;
    } else this.names[e.name] = { n: 1, first: seenAt, last: seenAt };
    const hour = hourOf(e.createdAt);
    this.hours[hour] = (this.hours[hour] ?? 0) + 1;
    const repeat = e.repeat === true;
    countInto(bucket(this.hourMetrics, hour), e.name, repeat);
    countInto(bucket(this.days, dayOf(e.createdAt)), e.name, repeat);
    const minute: Record<string, number> = {};
    countInto(minute, e.name, repeat);
    if (minute.activity) this.minutes[minuteOf(e.createdAt)] = (this.minutes[minuteOf(e.createdAt)] ?? 0) + 1;
    if (e.campaignCounts) {
      const run = bucket(this.campaigns, e.campaignCounts.campaignId);
      for (const [counter, n] of Object.entries(e.campaignCounts.counts))
        run[counter] = (run[counter] ?? 0) + n;
    }
    // A message sent while its category had no cap: counted in the month it was sent.
    if (e.tallyUsage) countSend(this.usage, e.createdAt, e.tallyUsage);
  }

  /** The batch, numbered after `state` and begun `now`. */
  batch(state: TallyState, now: Date, head: Pick<TallyBatch, 'id' | 'kind' | 'to' | 'window'>): TallyBatch {
    return {
      ...head,
      seq: state.seq + 1,
      begunAt: now.toISOString(),
      names: this.names,
      hours: this.hours,
      hourMetrics: this.hourMetrics,
      days: this.days,
      minutes: this.minutes,
      ...(Object.keys(this.campaigns).length > 0 ? { campaigns: this.campaigns } : {}),
      ...(Object.keys(this.usage).length > 0 ? { usage: this.usage } : {}),
      ...(Object.keys(this.contacts).length > 0 ? { contacts: this.contacts } : {}),
    };
  }
}

/**
 * Reads up to `TALLY_BATCH_EVENTS` events after `from` and up to `upTo` (a position, or a time
 * followed by `~`), passing each to `each`. `full`: more may follow; `last`: the last one's position.
 */
async function readEvents(
  deps: StoreDeps,
  projectId: string,
  from: string,
  upTo: string,
  each: (e: TalliedEvent) => void,
): Promise<{ read: number; last: string; full: boolean }> {
  let read = 0;
  let last = from;
  let cursor: string | undefined;
  do {
    const page = await eventsToTally(deps, projectId, {
      after: from,
      upTo,
      limit: Math.min(PAGE, TALLY_BATCH_EVENTS - read),
      cursor,
    });
    for (const e of page.events) {
      read++;
      last = e.position;
      each(e);
    }
    cursor = page.cursor || undefined;
  } while (cursor && read < TALLY_BATCH_EVENTS);
  return { read, last, full: cursor !== undefined };
}

/**
 * The first pass's next batch: up to `TALLY_BATCH_EVENTS` events after its position and at most
 * `TALLY_FAST_SETTLE_MS` old, with the window of their marks.
 */
async function nextFastBatch(
  deps: Deps,
  projectId: string,
  state: TallyState,
): Promise<{ batch: TallyBatch; full: boolean } | undefined> {
  const settledAt = new Date(deps.clock.now().getTime() - TALLY_FAST_SETTLE_MS).toISOString();
  // Every position of an event at `settledAt` or before sorts below `<settledAt>~`.
  const upTo = `${settledAt}~`;
  const sum = new BatchSum();
  const marks: string[] = [];
  const { read, last, full } = await readEvents(deps, projectId, state.through, upTo, (e) => {
    marks.push(eventMark(e.position));
    sum.add(e, { counters: true, contact: false });
  });
  if (read === 0) return undefined;
  // Read to the end: the position moves to the settle time (what lands behind it later is the
  // second pass's).
  const to = full ? last : upTo;
  if (to <= state.through) return undefined;
  const window = { from: state.through, marks: marks.join('') };
  return { batch: sum.batch(state, deps.clock.now(), { id: deps.ids.uuid(), to, window }), full };
}

/**
 * The second pass's next batch: the events after its position, up to the end of the last window
 * of the first pass that is `TALLY_SETTLE_MS` old (at most `SETTLE_WINDOWS` windows and
 * `TALLY_BATCH_EVENTS` events): those the windows do not hold for the counters, and all of them for
 * their contacts' counts. Undefined when no window is due.
 */
async function nextSettleBatch(
  deps: Deps,
  projectId: string,
  state: TallyState,
): Promise<{ batch: TallyBatch; full: boolean } | undefined> {
  const dueAt = new Date(deps.clock.now().getTime() - TALLY_SETTLE_MS).toISOString();
  const bound = state.through < `${dueAt}~` ? state.through : `${dueAt}~`;
  if (bound <= state.settled) return undefined;
  const windows = await tallyWindows(deps, projectId, state.settled, bound, SETTLE_WINDOWS);
  const end = windows.at(-1)?.to;
  if (end === undefined) return undefined;
  const met = windowMarks(windows);
  const sum = new BatchSum();
  const { read, last, full } = await readEvents(deps, projectId, state.settled, end, (e) => {
    sum.add(e, { counters: !met.has(eventMark(e.position)), contact: true });
  });
  const to = full ? last : end;
  if (read > 0 && to <= state.settled) return undefined;
  return { batch: sum.batch(state, deps.clock.now(), { id: deps.ids.uuid(), kind: 'settle', to }), full };
}

/**
 * How long until the first pass may begin a batch (`TALLY_FAST_SPACING_MS`): its last batch ended
 * at its position's time plus the settle time, unless it ended at an event (a full batch: more are
 * waiting, so no wait).
 */
function spacingLeft(state: TallyState, now: Date): number {
  if (!state.through.endsWith('~')) return 0;
  const endedAt = Date.parse(state.through.slice(0, -1)) + TALLY_FAST_SETTLE_MS;
  if (!Number.isFinite(endedAt)) return 0;
  return endedAt + TALLY_FAST_SPACING_MS - now.getTime();
}

/** Whether `batch` was begun by a run that is likely still applying it (`TALLY_PENDING_FRESH_MS`). */
function inOtherHands(batch: TallyBatch, now: Date): boolean {
  if (batch.begunAt === undefined) return false;
  const age = now.getTime() - Date.parse(batch.begunAt);
  return age >= 0 && age < TALLY_PENDING_FRESH_MS;
}

/**
 * One message of the tally job: finishes a pending batch, then runs the first pass a batch at a
 * time, then the second; when more remain than one message's share, continues in a new message.
 * Two runs at once are safe: one begins each batch, and either may apply and end it; a run that
 * meets a batch another run began moments ago leaves it to that run and tries again a second
 * later ('deferred', at most `TALLY_MAX_DEFERRALS` times in a row), as does the first pass of a
 * run that comes within `TALLY_FAST_SPACING_MS` of its last batch.
 */
export async function runTally(
  deps: Deps,
  projectId: string,
  options: { readonly spaced?: boolean; readonly deferrals?: number } = {},
): Promise<'done' | 'continued' | 'deferred'> {
  let fastDone = false;
  /** Milliseconds until the first pass may begin its next batch, when this run came too soon. */
  let fastLater = 0;
  for (let batches = 0; batches < TALLY_BATCHES_PER_MESSAGE; ) {
    const state = await getTallyState(deps, projectId);
    if (!fastDone && batches === 0 && !options.spaced) {
      fastLater = spacingLeft(state, deps.clock.now());
      if (fastLater > 0) fastDone = true;
    }
    const deferrals = options.deferrals ?? 0;
    if (state.pending && deferrals < TALLY_MAX_DEFERRALS && inOtherHands(state.pending, deps.clock.now())) {
      const next = {
        projectId,
        deferrals: deferrals + 1,
        ...(options.spaced ? { spaced: true as const } : {}),
      };
      await enqueue(deps, tallyJobMessage, next, { delaySeconds: DEFER_DELAY_S * 2 ** deferrals });
      return 'deferred';
    }
    if (state.pending) {
      await completeTally(deps, projectId, state.pending);
      batches++;
      continue;
    }
    const fast = fastDone ? undefined : await nextFastBatch(deps, projectId, state);
    if (fast) {
      if (!(await beginTally(deps, projectId, state, fast.batch))) continue;
      await completeTally(deps, projectId, fast.batch);
      batches++;
      if (!fast.full) fastDone = true;
      continue;
    }
    fastDone = true;
    const settle = await nextSettleBatch(deps, projectId, state);
    if (!settle) {
      if (fastLater <= 0) return 'done';
      const delaySeconds = Math.ceil(fastLater / 1000);
      await enqueue(deps, tallyJobMessage, { projectId, spaced: true }, { delaySeconds });
      return 'deferred';
    }
    if (!(await beginTally(deps, projectId, state, settle.batch))) continue;
    await completeTally(deps, projectId, settle.batch);
    batches++;
  }
  await enqueue(deps, tallyJobMessage, { projectId });
  return 'continued';
}

/** Counts a project's events into its name and hour counters (both passes). */
export const tallyJob = defineJob({
  ...tallyJobMessage,
  run: async (deps, m) => {
    await runTally(deps, m.projectId, { spaced: m.spaced === true, deferrals: m.deferrals ?? 0 });
  },
});
