/**
 * The event tally: keeps the event-name registry and the hourly counts off the request path, and
 * the monthly send usage of the categories without a cap (shared/billing/caps.ts).
 * Recording an event writes the event alone; the `events.tally` job reads the project's stored
 * events from the time index, oldest first, from where it last stopped, and adds them to the
 * counters a batch at a time (one write per name and per hour seen in the batch, however many
 * events it holds).
 *
 * Exact, with crashes and redeliveries:
 * - The tally counts only events older than `TALLY_SETTLE_MS`, so an event whose write is still
 *   on its way (at most `LATE_MS` after its time, plus one write) is never passed over. An event
 *   written later than that is indexed at its write time (`repository.ts`, `putEvent`), so it is
 *   still ahead of the tally's position; it is counted in the buckets of its own time, and its
 *   name's `lastSeenAt` is when the service saw it.
 * - A batch is recorded as pending on the tally item before any counter changes, and each counter
 *   update carries the batch id, conditionally: a run that stops midway leaves the batch for the
 *   next run (or a concurrent one) to apply again, adding to each counter once. Ending the batch
 *   moves the position, conditional on the batch.
 *
 * Who runs it: every writer of events arms a tally for the project before its write, at most once
 * a `TALLY_ARM_INTERVAL_MS` per instance (`armTally`), as a message delayed by `TALLY_DELAY_S`.
 * That delay exceeds the interval plus the settle time, so the message armed before an instance's
 * first event of an interval runs after every event that instance writes in the interval has
 * settled: the last events of a burst are counted without any later traffic. Counts therefore lag
 * events by two to four minutes (docs/events.md, "How counts are kept").
 */
import * as z from 'zod/mini';
import { countInto, dayOf, minuteOf } from '../activity/metrics';
import { defineJob, defineJobMessage, enqueue } from '../jobs/registry';
import type { Deps } from '../ports';
import type { StoreDeps } from '../store/store';
import {
  applyTally,
  beginTally,
  countSend,
  eventsToTally,
  finishTally,
  getTallyState,
  hourOf,
  type SendUsage,
  type TallyBatch,
} from './repository';

/** Events younger than this are left for a later run (see the module comment). */
export const TALLY_SETTLE_MS = 120_000;
/** The most often one instance arms a tally for one project. */
export const TALLY_ARM_INTERVAL_MS = 60_000;
/** The armed message's delay: more than the interval plus the settle time. */
export const TALLY_DELAY_S = 190;
/** Events in one batch (one pending record, one write per name and hour in it). */
export const TALLY_BATCH_EVENTS = 1000;
/** Batches one message runs; more continue in a new message. */
export const TALLY_BATCHES_PER_MESSAGE = 10;
const PAGE = 500;

export const TALLY_JOB = 'events.tally';

export const tallyJobMessage = defineJobMessage({
  type: TALLY_JOB,
  schema: z.object({ type: z.literal(TALLY_JOB), projectId: z.string().check(z.minLength(1)) }),
});

/** Per queue (one per instance, and per runtime in tests): project -> when it was last armed. */
const armed = new WeakMap<object, Map<string, number>>();

/**
 * Makes sure a tally will run for the project after an event written now has settled: sends the
 * delayed message unless this instance sent one within the interval. Called before the event's
 * write, so a crash between the two leaves a message that finds nothing, never an event that no
 * message will count.
 */
export async function armTally(deps: Pick<Deps, 'queue' | 'clock'>, projectId: string): Promise<void> {
  const byProject = armed.get(deps.queue) ?? new Map<string, number>();
  armed.set(deps.queue, byProject);
  const now = deps.clock.now().getTime();
  const last = byProject.get(projectId);
  if (last !== undefined && now - last < TALLY_ARM_INTERVAL_MS && now >= last) return;
  await enqueue(deps, tallyJobMessage, { projectId }, { delaySeconds: TALLY_DELAY_S });
  byProject.set(projectId, now);
}

/** The counts of `key` in `of`, made empty on first use. */
function bucket(of: Record<string, Record<string, number>>, key: string): Record<string, number> {
  const found = of[key];
  if (found) return found;
  const made: Record<string, number> = {};
  of[key] = made;
  return made;
}

/** Reads up to `TALLY_BATCH_EVENTS` settled events after `from` and sums them as a batch. */
async function nextBatch(
  deps: StoreDeps & Pick<Deps, 'ids'>,
  projectId: string,
  from: string,
  settledAt: string,
): Promise<{ batch: TallyBatch; full: boolean } | undefined> {
  // Every position of an event at `settledAt` or before sorts below `<settledAt>~`.
  const upTo = `${settledAt}~`;
  const names: Record<string, { n: number; first: string; last: string }> = {};
  const hours: Record<string, number> = {};
  const campaigns: Record<string, Record<string, number>> = {};
  const hourMetrics: Record<string, Record<string, number>> = {};
  const days: Record<string, Record<string, number>> = {};
  const minutes: Record<string, number> = {};
  const usage: SendUsage = {};
  const contacts: Record<string, number> = {};
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
      // Every event counts for its contact (writers that flagged `counted` never counted contacts).
      contacts[e.contactId] = (contacts[e.contactId] ?? 0) + 1;
      if (e.counted) continue;
      // When the service saw it: its own time, or its write time when it was written late (its
      // index position), so `lastSeenAt` never moves back.
      const seenAt = e.position.slice(0, e.position.lastIndexOf('#'));
      const c = names[e.name];
      if (c) {
        c.n++;
        c.last = seenAt;
      } else names[e.name] = { n: 1, first: seenAt, last: seenAt };
      const hour = hourOf(e.createdAt);
      hours[hour] = (hours[hour] ?? 0) + 1;
      const repeat = e.repeat === true;
      countInto(bucket(hourMetrics, hour), e.name, repeat);
      countInto(bucket(days, dayOf(e.createdAt)), e.name, repeat);
      const minute: Record<string, number> = {};
      countInto(minute, e.name, repeat);
      if (minute.activity) minutes[minuteOf(e.createdAt)] = (minutes[minuteOf(e.createdAt)] ?? 0) + 1;
      if (e.campaignCounts) {
        const run = bucket(campaigns, e.campaignCounts.campaignId);
        for (const [counter, n] of Object.entries(e.campaignCounts.counts))
          run[counter] = (run[counter] ?? 0) + n;
      }
      // A message sent while its category had no cap: counted in the month it was sent.
      if (e.tallyUsage) countSend(usage, e.createdAt, e.tallyUsage);
    }
    cursor = page.cursor || undefined;
  } while (cursor && read < TALLY_BATCH_EVENTS);
  if (read === 0) return undefined;
  const full = cursor !== undefined;
  // Read to the end: the position moves to the settle time, past any event that may come later
  // with an older time (it would be written late, so indexed at its write time, ahead of here).
  const to = full ? last : upTo;
  if (to <= from) return undefined;
  return {
    batch: {
      id: deps.ids.uuid(),
      to,
      names,
      hours,
      hourMetrics,
      days,
      minutes,
      ...(Object.keys(campaigns).length > 0 ? { campaigns } : {}),
      ...(Object.keys(usage).length > 0 ? { usage } : {}),
      ...(Object.keys(contacts).length > 0 ? { contacts } : {}),
    },
    full,
  };
}

/**
 * One message of the tally job: finishes a pending batch, then counts settled events a batch at a
 * time; when more remain than one message's share, continues in a new message. Two runs at once
 * are safe: one begins each batch, and either may apply and end it.
 */
export async function runTally(deps: Deps, projectId: string): Promise<'done' | 'continued'> {
  for (let batches = 0; batches < TALLY_BATCHES_PER_MESSAGE; ) {
    const state = await getTallyState(deps, projectId);
    if (state.pending) {
      await applyTally(deps, projectId, state.pending);
      await finishTally(deps, projectId, state.pending);
      batches++;
      continue;
    }
    const settledAt = new Date(deps.clock.now().getTime() - TALLY_SETTLE_MS).toISOString();
    const next = await nextBatch(deps, projectId, state.through, settledAt);
    if (!next) return 'done';
    if (!(await beginTally(deps, projectId, state.through, next.batch))) continue;
    await applyTally(deps, projectId, next.batch);
    await finishTally(deps, projectId, next.batch);
    batches++;
    if (!next.full) return 'done';
  }
  await enqueue(deps, tallyJobMessage, { projectId });
  return 'continued';
}

/** Counts a project's settled events into its name and hour counters. */
export const tallyJob = defineJob({
  ...tallyJobMessage,
  run: async (deps, m) => {
    await runTally(deps, m.projectId);
  },
});
