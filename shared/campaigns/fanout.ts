/**
 * A campaign's fan-out: its audience a batch at a time (a chunked job, shared/jobs/chunked.ts),
 * each recipient's email rendered and sent with the same rules, records and lifecycle events as
 * `/v1/send` (shared/sending: `renderMessage`, `deliverEmail`), at the account's send rate
 * (`send-rate.ts`).
 *
 * Exactly once per recipient, through crashes and redeliveries:
 * - Each recipient's email id is derived from (campaign, contact) (`ids.ts`), and its record's
 *   first write is a conditional put (`deliverEmail` with `claim`): the claim. Only the attempt
 *   whose claim lands calls the provider, and when the provider answers it writes the
 *   recipient's `email.sent` event, stamped at the claim, and nothing else: that event is the
 *   outcome (`EmailRecord.sentEventId`; the record is not rewritten SENT). Any other attempt finds
 *   the record and takes its outcome from it (`resume`): FAILED and SKIPPED are settled (a failed
 *   one's event emitted again if the attempt stopped before it, stored once), a record with its
 *   `email.sent` stored is sent, and one without means an attempt stopped between its claim and
 *   that event: the message may have gone out, so it is never sent again and counts as `unknown`
 *   (until its SES Send event settles it with that same event, shared/email-events).
 * - The run item holds the batch number and the audience position; a batch's counts are added
 *   with the move to the next position in one update conditional on the batch number, so a batch
 *   that runs twice (a worker that died before its checkpoint) is counted once: its claims, made
 *   the first time, are read back. A record carries the batch that claimed it, so a contact met
 *   again in a later batch (a segment's order that shifted) is neither sent nor counted twice.
 * - The run's state is read before every batch: a cancel (state `cancelled`) stops the fan-out
 *   before its next claim; the batch under way finishes and is counted.
 * - Once the audience has been read to its end, the run becomes `finished` and the campaign SENT
 *   with `totalRecipients` fixed (the run's recipients); a cancelled run ends the campaign
 *   CANCELLED the same way. A message that finds the run ended but the campaign not yet (a crash
 *   in between) ends it.
 *
 * The monthly campaigns cap (shared/billing/caps.ts): a send that starts (now, or when its schedule
 * fires) is refused when its audience would pass it (`roomNeededFor`); while it runs, each batch
 * reserves room for its recipients (`reserveBatch`, noted on the run so a batch run again reuses
 * it), those past the room granted are settled FAILED with reason `BILLING_LIMIT_REACHED`, and
 * what did not reach SES is given back once the batch is checkpointed. A run that meets the cap
 * so goes on to the end of its audience, failing the rest, and ends SENT. Without a cap a batch
 * reserves and notes nothing: its emails are marked for the event tally, which counts those sent.
 *
 * Throttling: each message is sent at a slot the shared rate limiter gave it; when SES still
 * throttles past the delivery policy's retries, that recipient's claim is given back and the
 * message is queued again after a pause (`THROTTLED_DELAY_S`), resuming the same batch.
 */
import { RetryableSendError } from '../adapters/aws/send-errors';
import {
  BILLING_LIMIT_REACHED,
  capReachedMessage,
  capRefusal,
  type Reservation,
  releaseSends,
  reserveSends,
} from '../billing/caps';
import type { ContactRecord } from '../contacts/repository';
import { suppressedAmong } from '../email-events/repository';
import { emit } from '../events/emit';
import { type ChunkOptions, chunkedJob, MOVED_ON, runChunked } from '../jobs/chunked';
import { enqueue, type JobMeta, scheduleJob } from '../jobs/registry';
import type { Deps } from '../ports';
import {
  HOLD_DELAY_S,
  holdExpired,
  PROJECT_DISABLED,
  type ProjectState,
  projectState,
} from '../projects/state';
import type { EmailContent } from '../sending/compose';
import { type DeliveryPolicy, deliverEmail, replaySent } from '../sending/deliver';
import { type EmailIds, failedEvent } from '../sending/outcomes';
import {
  claimEmailRecord,
  type EmailRecord,
  getEmailRecord,
  readAttemptOutcome,
} from '../sending/repository';
import { sleep } from '../store/store';
import { linkSettings } from '../subscriptions/links';
import { type Audience, audiencePage, prepareAudience } from './audience';
import { campaignEmailIds } from './ids';
import { CAMPAIGN_SEND_JOB, type CampaignSendMessage, campaignSendJobMessage } from './messages';
import {
  type CampaignRecord,
  type CampaignRun,
  cancelRun,
  cancelSendingCampaign,
  checkpointRun,
  endCampaignRun,
  finishRun,
  getCampaignRecord,
  getCampaignRun,
  NO_COUNTS,
  noteCapReservation,
  putNewRun,
  type RunCounts,
  recordRunError,
  replaceCampaign,
  startScheduledCampaign,
} from './repository';
import { roomNeededFor } from './room';
import { accountSendRate, type SendRateLimiter, sendRateLimiter } from './send-rate';
import { SETTLE_DELAY_S, settleUnknown } from './settle';

export { CAMPAIGN_SEND_JOB };

export interface FanOutOptions extends ChunkOptions {
  /** Recipients sent at once within a batch. @default 8 */
  readonly concurrency?: number;
  /** Seconds before a throttled batch is tried again. @default THROTTLED_DELAY_S */
  readonly throttledDelaySeconds?: number;
  /** Provider calls per recipient while SES asks to retry. @default CAMPAIGN_DELIVERY */
  readonly delivery?: DeliveryPolicy;
}

/** Audience entries per batch: one checkpoint, one state read, a few rate reservations each. */
export const DEFAULT_BATCH = 50;
/** A batch takes at most about this long at the send rate (so a slow rate makes smaller batches). */
const BATCH_SECONDS_AT_RATE = 10;
export const THROTTLED_DELAY_S = 30;
/** How long a `now` start looks for its request's write before it gives up (see `load`). */
const MAX_WAITS = 3;
const WAIT_DELAY_S = 2;
/**
 * A runner that finds a claim of another's younger than this without an outcome (two runners of
 * one batch: a redelivered message beside its continuation) waits for its outcome rather than
 * counting it `unknown`: long enough for a provider call and its first retries. One that waits
 * in vain (the other stopped, or SES throttled it longer) counts it `unknown`, and the settle
 * gives it its outcome later (settle.ts).
 */
const IN_FLIGHT_MS = 5000;
/** How often such a runner looks at the other's claim again. */
const IN_FLIGHT_POLL_MS = 100;
/** A send this late to its slot (or one slot's spacing, when longer) takes a new slot. */
const LATE_AFTER_MS = 25;
/** Rates (messages a second) up to which a late send takes a new slot (see `sendOne`). */
const PACED_UP_TO_RATE = 200;

/** Provider calls per recipient while SES asks to retry, with backoff from half a second. */
export const CAMPAIGN_DELIVERY: DeliveryPolicy = { attempts: 5, backoffMs: 500 };

/** The fan-out as loaded by one message: the campaign being sent and its run. */
interface Loaded {
  readonly campaign: CampaignRecord;
  readonly run: CampaignRun;
}

/** What one message works with: the loaded run (as of its last checkpoint) and what it prepared. */
interface FanOut extends Loaded {
  readonly content: EmailContent;
  /**
   * Rendering and MIME (liquidjs, html-to-text, nodemailer): loaded by a fan-out's first step, so
   * the jobs function's other jobs do not load them at every cold start (lib/bundling.ts).
   */
  readonly compose: typeof import('../sending/compose');
  readonly audience: Audience;
  readonly limiter: SendRateLimiter;
  readonly batchSize: number;
}

interface Batch {
  readonly next: FanOut;
  readonly items: number;
  readonly done: boolean;
  readonly counts: RunCounts;
  /** The run was cancelled: nothing was claimed, nothing is written. */
  readonly cancelled: boolean;
  /** The monthly cap's reservation of the batch, and how much of it reached (or may have reached) SES. */
  readonly reservation?: Reservation;
  readonly consumed: number;
  /** The contacts the batch counts `unknown`, for settle.ts. */
  readonly unknownIds: readonly string[];
}

type Outcome = 'sent' | 'failed' | 'skipped' | 'unknown' | 'counted-before';

/** A batch's outcomes, in order, and the contacts among them counted `unknown`. */
interface BatchOutcomes {
  readonly outcomes: readonly Outcome[];
  readonly unknownIds: readonly string[];
}

export function fanOutChunks(options: FanOutOptions = {}) {
  const concurrency = options.concurrency ?? 8;
  const delivery = options.delivery ?? CAMPAIGN_DELIVERY;
  return chunkedJob(campaignSendJobMessage, {
    budget: options,
    load,
    async start(deps: Deps, loaded: Loaded): Promise<FanOut> {
      const { campaign, run } = loaded;
      const [{ campaignContent }, compose] = await Promise.all([
        import('./content'),
        import('../sending/compose'),
      ]);
      const content = campaignContent(campaign, await linkSettings(deps.config));
      const rate = await accountSendRate(deps);
      return {
        ...loaded,
        content,
        compose,
        audience: await prepareAudience(deps, campaign.projectId, campaign, run.startedAt),
        limiter: sendRateLimiter(deps, rate),
        batchSize: Math.max(
          1,
          Math.min(options.chunkSize ?? DEFAULT_BATCH, Math.floor(rate * BATCH_SECONDS_AT_RATE)),
        ),
      };
    },
    async process(deps: Deps, state: FanOut): Promise<Batch | typeof MOVED_ON> {
      const { campaign, run } = state;
      const current = await getCampaignRun(deps, campaign.projectId, campaign.id);
      if (!current || current.runId !== run.runId || current.batch !== run.batch) return MOVED_ON;
      if (current.state === 'cancelled') {
        return {
          next: { ...state, run: current },
          items: 0,
          done: true,
          counts: NO_COUNTS,
          cancelled: true,
          consumed: 0,
          unknownIds: [],
        };
      }
      const page = await audiencePage(deps, state.audience, current.position, state.batchSize);
      // Addresses on the project's suppression list (a permanent bounce, a complaint) are skipped
      // without a send slot or room under the cap: one batch read for the batch.
      const suppressed = await suppressedAmong(
        deps,
        campaign.projectId,
        page.recipients.map((c) => c.email),
      );
      const sending = page.recipients.filter((c) => !suppressed.has(c.email.toLowerCase())).length;
      const reservation = await reserveBatch(deps, current, sending);
      if (!reservation) return MOVED_ON;
      const { outcomes, unknownIds } = await sendBatch(deps, state, page.recipients, {
        batch: current.batch,
        suppressed,
        granted: reservation.granted,
        tally: reservation.tally === true,
        concurrency,
        delivery,
      });
      const counts = countOf(outcomes);
      const next: CampaignRun = {
        ...current,
        batch: current.batch + 1,
        position: page.cursor,
        listed: page.done,
        recipients: current.recipients + counts.recipients,
        sent: current.sent + counts.sent,
        failed: current.failed + counts.failed,
        skipped: current.skipped + counts.skipped,
        unknown: current.unknown + counts.unknown,
      };
      return {
        next: { ...state, run: next },
        items: page.examined,
        done: page.done,
        counts,
        cancelled: false,
        reservation,
        consumed: outcomes.filter((o) => o === 'sent' || o === 'unknown').length,
        unknownIds,
      };
    },
    async checkpoint(deps: Deps, state: FanOut, batch: Batch): Promise<boolean> {
      if (batch.cancelled) return true;
      const at = deps.clock.now().toISOString();
      const { position, listed } = batch.next.run;
      const saved = await checkpointRun(
        deps,
        state.run,
        state.run.batch,
        { position, listed, at },
        batch.counts,
        batch.unknownIds,
      );
      // Recipients whose claim had no outcome: settled once no sender can still hold them.
      if (saved && batch.unknownIds.length > 0) await queueSettle(deps, state.run, batch.unknownIds, at);
      // Once the batch counts (never before: a batch run again must find its reservation whole),
      // what of its reservation did not reach SES is given back. A crash in between leaves it counted.
      if (saved && batch.reservation)
        await releaseSends(deps, batch.reservation, batch.reservation.granted - batch.consumed);
      return saved;
    },
    async finish(deps: Deps, state: FanOut) {
      await endRun(deps, state.campaign, state.run);
    },
    continuation: (m: CampaignSendMessage) => continuationOf(m),
    failure: {
      // The campaign stays SENDING: the run says why its message was dead-lettered, and
      // redriving the message resumes the fan-out where it stopped.
      async record(deps: Deps, loaded: Loaded, failure) {
        const { campaign, run } = loaded;
        await recordRunError(deps, campaign.projectId, campaign.id, run.runId, failure.message);
      },
      lastAttempt: {
        code: 'FANOUT_FAILED',
        message: 'The fan-out message kept failing and was dead-lettered; redrive it to resume the send',
      },
    },
  });
}

/**
 * The campaign and run this message is for, or undefined when there is nothing to do:
 * - a scheduled start (`trigger: schedule`) makes the campaign SENDING if it is still scheduled
 *   under this token; a schedule that fires for a campaign since sent, cancelled, rescheduled or
 *   deleted finds it otherwise and does nothing;
 * - a `now` start is queued by the send request just before it writes SENDING: a message that
 *   arrives first finds the campaign still DRAFT or SCHEDULED and looks again a little later (up
 *   to `MAX_WAITS` times; a request that failed after queueing leaves it to give up);
 * - a send that has ended (SENT, CANCELLED) or belongs to another run is left alone;
 * - the run is created on the first message; a run found ended (finished, cancelled, or read to
 *   its end) ends the campaign, if a crash came between the two.
 */
async function load(deps: Deps, m: CampaignSendMessage): Promise<Loaded | undefined> {
  let campaign = await getCampaignRecord(deps, m.projectId, m.campaignId, { consistent: true });
  if (!campaign) return undefined;
  // A deleted project's send does nothing; a disabled one's sends nothing (`holdForDisabledProject`).
  const project = await projectState(deps, m.projectId);
  if (project.state === 'gone') return undefined;
  if (project.state === 'disabled') {
    await holdForDisabledProject(deps, m, campaign, project);
    return undefined;
  }
  if (m.trigger === 'schedule' && campaign.status === 'SCHEDULED' && campaign.scheduleToken === m.runId) {
    // The monthly cap, as a send now checks it: an audience that would pass it does not start.
    const refusal = await capRefusal(
      deps,
      m.projectId,
      'campaigns',
      await roomNeededFor(deps, m.projectId, campaign),
    );
    if (refusal) {
      await unscheduleOverCap(deps, campaign, refusal);
      return undefined;
    }
    const at = deps.clock.now().toISOString();
    if (await startScheduledCampaign(deps, m.projectId, m.campaignId, m.runId, at)) {
      campaign = { ...campaign, status: 'SENDING', runId: m.runId, startedAt: at, scheduledFor: null };
    } else {
      campaign = await getCampaignRecord(deps, m.projectId, m.campaignId, { consistent: true });
      if (!campaign) return undefined;
    }
  }
  if (campaign.runId !== m.runId || campaign.status !== 'SENDING') {
    const pending = campaign.status === 'DRAFT' || campaign.status === 'SCHEDULED';
    if (m.trigger === 'now' && pending && m.waits < MAX_WAITS) {
      await enqueue(
        deps,
        campaignSendJobMessage,
        { ...m, waits: m.waits + 1 },
        { delaySeconds: WAIT_DELAY_S },
      );
    }
    return undefined;
  }
  let run = await getCampaignRun(deps, m.projectId, m.campaignId);
  if (!run) {
    const now = deps.clock.now().toISOString();
    const fresh: CampaignRun = {
      projectId: m.projectId,
      campaignId: m.campaignId,
      runId: m.runId,
      state: 'running',
      startedAt: campaign.startedAt ?? now,
      batch: 0,
      position: '',
      listed: false,
      ...NO_COUNTS,
      engagement: { delivered: 0, opened: 0, clicked: 0, bounced: 0, complained: 0, unsubscribed: 0 },
      error: null,
      capReservation: null,
      unknownIds: [],
      updatedAt: now,
    };
    run = (await putNewRun(deps, fresh)) ? fresh : await getCampaignRun(deps, m.projectId, m.campaignId);
    if (!run) return undefined;
  }
  if (run.runId !== m.runId) return undefined;
  if (run.state !== 'running' || run.listed) {
    await endRun(deps, campaign, run);
    return undefined;
  }
  return { campaign, run };
}

/**
 * A send of a disabled project (docs/accounts.md, "Disabled projects"):
 * - a schedule that fires does not start the campaign: it becomes a DRAFT again, as a cancelled
 *   schedule leaves it (to be scheduled again once the project is enabled);
 * - a send under way (or one whose request is still writing SENDING) is held: its message is
 *   scheduled again `HOLD_DELAY_S` later and goes on where the fan-out stopped once the project is enabled
 *   again; held past `MAX_HOLD_MS` from the project's `disabledAt`, it is cancelled (CANCELLED,
 *   with the recipients handled so far).
 */
async function holdForDisabledProject(
  deps: Deps,
  m: CampaignSendMessage,
  campaign: CampaignRecord,
  project: ProjectState,
): Promise<void> {
  const at = deps.clock.now().toISOString();
  const fields = { code: PROJECT_DISABLED, projectId: campaign.projectId, campaignId: campaign.id };
  if (m.trigger === 'schedule' && campaign.status === 'SCHEDULED' && campaign.scheduleToken === m.runId) {
    if (await backToDraft(deps, campaign, at))
      console.warn(
        JSON.stringify({
          level: 'warn',
          message: 'Scheduled campaign not started: its project is disabled; it is a DRAFT again',
          ...fields,
        }),
      );
    return;
  }
  const sending = campaign.status === 'SENDING' && campaign.runId === m.runId;
  const starting = m.trigger === 'now' && (campaign.status === 'DRAFT' || campaign.status === 'SCHEDULED');
  if (!sending && !starting) return;
  if (holdExpired(project, deps.clock.now())) {
    if (sending && (await cancelRun(deps, campaign.projectId, campaign.id, m.runId, at)))
      await cancelSendingCampaign(deps, campaign.projectId, campaign.id, m.runId, at);
    console.warn(
      JSON.stringify({
        level: 'warn',
        message: 'Campaign send given up: its project stayed disabled',
        ...fields,
      }),
    );
    return;
  }
  // A schedule named after the campaign: copies of this message (a redelivery) make one, not two.
  await scheduleJob(deps, campaignSendJobMessage, m, {
    name: `hold-campaign-${campaign.id}`,
    at: new Date(deps.clock.now().getTime() + HOLD_DELAY_S * 1000),
  });
}

/**
 * A SCHEDULED campaign whose schedule fired but that may not start becomes a DRAFT again, as a
 * cancelled schedule leaves it: false when it changed meanwhile (its version moved on).
 */
async function backToDraft(deps: Deps, campaign: CampaignRecord, at: string): Promise<boolean> {
  const draft: CampaignRecord = {
    ...campaign,
    status: 'DRAFT',
    scheduledFor: null,
    scheduleToken: null,
    updatedAt: at,
    version: campaign.version + 1,
  };
  return replaceCampaign(deps, draft, { version: campaign.version, status: ['SCHEDULED'] });
}

/**
 * A scheduled campaign whose audience would pass the monthly cap when its schedule fires is not
 * started: it becomes a DRAFT again, as a cancelled schedule leaves it, to be sent once there is
 * room (a higher cap, the next month). A campaign changed meanwhile (rescheduled, sent, deleted)
 * is left as it is: its version moved on.
 */
async function unscheduleOverCap(deps: Deps, campaign: CampaignRecord, refusal: Error): Promise<void> {
  const unscheduled = await backToDraft(deps, campaign, deps.clock.now().toISOString());
  console.warn(
    JSON.stringify({
      level: 'warn',
      message: unscheduled
        ? 'Scheduled campaign not started: its audience would pass the monthly cap; it is a DRAFT again'
        : 'Scheduled campaign over the monthly cap was changed meanwhile; left as it is',
      code: BILLING_LIMIT_REACHED,
      projectId: campaign.projectId,
      campaignId: campaign.id,
      error: refusal.message,
    }),
  );
}

/**
 * The monthly cap's reservation of the run's current batch for its `sending` recipients (those not
 * suppressed): as many as the cap leaves room for. A batch that runs again (its runner died before
 * the checkpoint, SES throttled it) finds its reservation noted on the run and reuses it, and of
 * two runners of one batch at once (a redelivered message beside its continuation) only the first
 * to note its reservation keeps it: the other gives its own back and takes the noted one. So a
 * redelivery never counts a batch twice; only a crash between the reservation and its note does
 * (at most one batch per crash, on the safe side of the cap). Undefined when the run moved on.
 */
async function reserveBatch(deps: Deps, run: CampaignRun, sending: number): Promise<Reservation | undefined> {
  const notedOf = (r: CampaignRun): Reservation | undefined => {
    const noted = r.capReservation;
    return noted && noted.batch === r.batch
      ? { projectId: r.projectId, category: 'campaigns', month: noted.month, granted: noted.granted }
      : undefined;
  };
  const noted = notedOf(run);
  if (noted) return noted;
  const reservation = await reserveSends(deps, run.projectId, 'campaigns', sending, 'up-to');
  // Nothing to note when nothing was reserved (no cap: the event tally counts the emails sent).
  if (sending === 0 || reservation.tally) return reservation;
  const note = { batch: run.batch, month: reservation.month, granted: reservation.granted };
  if (await noteCapReservation(deps, run, note)) return reservation;
  await releaseSends(deps, reservation, reservation.granted);
  const now = await getCampaignRun(deps, run.projectId, run.campaignId);
  return now && now.runId === run.runId && now.batch === run.batch ? notedOf(now) : undefined;
}

/** Ends a run read to its end (finished, or cancelled meanwhile) and its campaign (SENT, CANCELLED). */
async function endRun(deps: Deps, campaign: CampaignRecord, run: CampaignRun): Promise<void> {
  let ended = run;
  if (ended.state === 'running') {
    const at = deps.clock.now().toISOString();
    if (!(await finishRun(deps, campaign.projectId, campaign.id, run.runId, at))) {
      const now = await getCampaignRun(deps, campaign.projectId, campaign.id);
      if (!now || now.runId !== run.runId) return;
      ended = now;
    }
  }
  await endCampaignRun(deps, campaign.projectId, campaign.id, run.runId, {
    status: ended.state === 'cancelled' ? 'CANCELLED' : 'SENT',
    totalRecipients: ended.recipients,
    at: deps.clock.now().toISOString(),
  });
}

/** How one batch is sent. */
interface BatchPlan {
  readonly batch: number;
  /** Lower-case addresses on the project's suppression list. */
  readonly suppressed: ReadonlySet<string>;
  /** Recipients (not suppressed, in order) the monthly cap leaves room for; the rest fail with its reason. */
  readonly granted: number;
  /** The category has no cap: nothing was reserved, and the event tally counts the emails sent. */
  readonly tally: boolean;
  readonly concurrency: number;
  readonly delivery: DeliveryPolicy;
}

/**
 * Sends a batch's recipients at their rate slots, `concurrency` at a time; their outcomes, in
 * order. Suppressed recipients are skipped, and those past the room the cap granted are settled
 * FAILED with reason `BILLING_LIMIT_REACHED`, neither with a send slot.
 */
async function sendBatch(
  deps: Deps,
  state: FanOut,
  recipients: readonly ContactRecord[],
  plan: BatchPlan,
): Promise<BatchOutcomes> {
  const { batch, delivery } = plan;
  const isSuppressed = (c: ContactRecord) => plan.suppressed.has(c.email.toLowerCase());
  const sending = Math.min(plan.granted, recipients.filter((c) => !isSuppressed(c)).length);
  const reserved: number[] = [];
  while (reserved.length < sending)
    reserved.push(...(await state.limiter.reserve(sending - reserved.length)));
  let taken = 0;
  const plans = recipients.map((c): number | 'suppressed' | 'over-cap' => {
    if (isSuppressed(c)) return 'suppressed';
    return taken < sending ? reserved[taken++]! : 'over-cap';
  });
  const outcomes: Outcome[] = new Array(recipients.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < recipients.length) {
      const i = next++;
      try {
        const slot = plans[i]!;
        outcomes[i] =
          slot === 'suppressed'
            ? await skipSuppressed(deps, state, recipients[i]!, batch)
            : slot === 'over-cap'
              ? await failOverCap(deps, state, recipients[i]!, batch)
              : await sendOne(deps, state, recipients[i]!, { batch, slot, tally: plan.tally }, delivery);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(plan.concurrency, recipients.length) }, worker));
  if (failure) throw failure.error;
  return { outcomes, unknownIds: recipients.filter((_, i) => outcomes[i] === 'unknown').map((c) => c.id) };
}

/** A suppressed recipient: its record claimed SKIPPED (reason `suppressed`), nothing sent. */
async function skipSuppressed(
  deps: Deps,
  state: FanOut,
  contact: ContactRecord,
  batch: number,
): Promise<Outcome> {
  const { campaign, content, compose } = state;
  const ids = campaignEmailIds(campaign.id, contact.id);
  const recipient = { to: { email: contact.email }, contact };
  const record: EmailRecord = {
    ...compose.newEmailRecord(campaign.projectId, content, recipient, ids.email, deps.clock.now()),
    status: 'SKIPPED',
    reason: 'suppressed',
    campaignId: campaign.id,
    campaignBatch: batch,
  };
  if (!(await claimEmailRecord(deps, record))) return resume(deps, campaign.projectId, ids, batch);
  return 'skipped';
}

/**
 * A recipient past the monthly cap: its record claimed FAILED (reason `BILLING_LIMIT_REACHED`)
 * and its `email.failed` emitted, nothing rendered or sent.
 */
async function failOverCap(
  deps: Deps,
  state: FanOut,
  contact: ContactRecord,
  batch: number,
): Promise<Outcome> {
  const { campaign, content, compose } = state;
  const ids = campaignEmailIds(campaign.id, contact.id);
  const recipient = { to: { email: contact.email }, contact };
  const now = deps.clock.now();
  const failure = {
    reason: BILLING_LIMIT_REACHED,
    message: capReachedMessage('campaigns'),
    at: now.toISOString(),
  };
  const record: EmailRecord = {
    ...compose.newEmailRecord(campaign.projectId, content, recipient, ids.email, now),
    status: 'FAILED',
    reason: failure.reason,
    error: failure.message,
    campaignId: campaign.id,
    campaignBatch: batch,
  };
  if (!(await claimEmailRecord(deps, record))) return resume(deps, campaign.projectId, ids, batch);
  await emit(deps, failedEvent(record, ids.failedEvent, failure));
  return 'failed';
}

/** One recipient: rendered, claimed and sent at its slot; or its outcome read back from its record. */
async function sendOne(
  deps: Deps,
  state: FanOut,
  contact: ContactRecord,
  at: { readonly batch: number; readonly slot: number; readonly tally: boolean },
  delivery: DeliveryPolicy,
): Promise<Outcome> {
  const { campaign, content, compose } = state;
  const { projectId } = campaign;
  const { batch, slot } = at;
  const ids = campaignEmailIds(campaign.id, contact.id);
  const recipient = {
    to: { email: contact.email },
    contact,
    emailId: ids.email,
    ...(at.tally ? { tallyUsage: 'campaigns' as const } : {}),
  };
  const message = await compose.renderMessage(projectId, content, recipient, deps.clock.now());
  const base: EmailRecord = {
    ...compose.newEmailRecord(projectId, content, recipient, ids.email, deps.clock.now()),
    subject: message.subject,
    campaignId: campaign.id,
    campaignBatch: batch,
  };
  if (!message.ok) {
    const at = deps.clock.now().toISOString();
    const failure = { reason: message.reason, message: message.message, at };
    const record: EmailRecord = {
      ...base,
      status: 'FAILED',
      reason: failure.reason,
      error: failure.message,
      updatedAt: at,
    };
    if (!(await claimEmailRecord(deps, record))) return resume(deps, projectId, ids, batch);
    await emit(deps, failedEvent(record, ids.failedEvent, failure));
    return 'failed';
  }
  // At the slot, then claimed and handed to SES at once: nothing waits between the claim and the
  // provider call, so a worker that stops in between leaves as few claims without an outcome as
  // can be (one claim write's time per send in flight). A send that comes late to its slot (a
  // pause of the worker, a slow write) takes a new slot rather than going out at once beside the
  // sends of the slots that follow; above `PACED_UP_TO_RATE` a late send goes as it is (a worker
  // that cannot keep up with the rate is late by design; the sends in flight at most can bunch).
  const { limiter } = state;
  await limiter.until(slot);
  if (
    limiter.spacingMs >= 1000 / PACED_UP_TO_RATE &&
    deps.clock.now().getTime() > slot + Math.max(limiter.spacingMs, LATE_AFTER_MS)
  ) {
    const [later] = await limiter.reserve(1);
    await limiter.until(later!);
  }
  const now = deps.clock.now().toISOString();
  const composed = {
    status: 'composed' as const,
    // Its outcome is its `email.sent` event, stamped at the claim: no write of SENT on the record.
    record: { ...base, createdAt: now, updatedAt: now, sentEventId: ids.sentEvent },
    raw: message.raw,
    contact: { id: contact.id, email: contact.email },
    ids,
  };
  const out = await deliverEmail(deps, composed, delivery, { claim: true, releaseWhenRetryable: true });
  if (!out) return resume(deps, projectId, ids, batch);
  return out.status === 'sent' ? 'sent' : 'failed';
}

/**
 * The outcome an earlier attempt left in the recipient's record (its claim did not land because
 * the record exists). A record of an earlier batch is a recipient met twice: counted there.
 */
async function resume(deps: Deps, projectId: string, ids: EmailIds, batch: number): Promise<Outcome> {
  let record = await getEmailRecord(deps, projectId, ids.email, { consistent: true });
  for (;;) {
    // Given back meanwhile (another runner's throttled claim): this batch must run again.
    if (!record) throw new RetryableSendError('RATE_EXCEEDED', 'A claim was given back while it was read');
    if (record.campaignBatch !== batch) return 'counted-before';
    const outcome = await readAttemptOutcome(deps, record);
    // A young claim without an outcome is most likely another runner's send in flight (a
    // redelivered message beside its continuation): its outcome is awaited, not counted unknown.
    if (outcome !== 'sending' || deps.clock.now().getTime() >= Date.parse(record.createdAt) + IN_FLIGHT_MS)
      return settledOutcome(deps, record, ids, outcome);
    await sleep(IN_FLIGHT_POLL_MS);
    record = await getEmailRecord(deps, projectId, ids.email, { consistent: true });
  }
}

/** The outcome a batch counts for a claim that an earlier attempt (or another runner) made. */
async function settledOutcome(
  deps: Deps,
  record: EmailRecord,
  ids: EmailIds,
  outcome: Awaited<ReturnType<typeof readAttemptOutcome>>,
): Promise<Outcome> {
  switch (outcome) {
    // Settled by its SES Send event after a crash left it SENDING (that event records the same
    // `email.sent`, and counts nothing itself): it went out.
    case 'settled':
      return 'sent';
    case 'sent':
      // A record whose outcome is its event was found with the event stored (its dispatch queued).
      if (record.sentEventId === undefined) await replaySent(deps, record, ids);
      return 'sent';
    case 'failed':
      await emit(
        deps,
        failedEvent(record, ids.failedEvent, {
          reason: record.reason ?? 'SEND_ERROR',
          message: record.error ?? '',
          at: record.updatedAt,
        }),
        { replay: true },
      );
      return 'failed';
    case 'skipped':
      return 'skipped';
    case 'sending':
      return 'unknown';
  }
}

/**
 * Queues the settle of a batch's `unknown` recipients (their contacts `ids`, claimed before
 * `at`), delayed until no sender can still hold their claims (settle.ts).
 */
async function queueSettle(deps: Deps, run: CampaignRun, ids: readonly string[], at: string): Promise<void> {
  await enqueue(
    deps,
    campaignSendJobMessage,
    { ...continuationOf({ ...run, trigger: 'now', waits: 0 }), settle: { ids: [...ids], before: at } },
    { delaySeconds: SETTLE_DELAY_S },
  );
}

/** The message that goes on with a run: the same one (the position is on the run item). */
const continuationOf = (
  m: Pick<CampaignSendMessage, 'projectId' | 'campaignId' | 'runId' | 'trigger' | 'waits'>,
) => ({
  projectId: m.projectId,
  campaignId: m.campaignId,
  runId: m.runId,
  trigger: m.trigger,
  waits: m.waits,
});

function countOf(outcomes: readonly Outcome[]): RunCounts {
  const counts = { ...NO_COUNTS };
  for (const o of outcomes) {
    if (o === 'counted-before') continue;
    counts.recipients++;
    counts[o]++;
  }
  return counts;
}

/**
 * Runs one fan-out message. A batch that SES kept throttling (past the delivery policy's retries)
 * gave its claim back; the same message is queued again after a pause and resumes that batch.
 */
export async function runFanOut(
  deps: Deps,
  job: ReturnType<typeof fanOutChunks>,
  m: CampaignSendMessage,
  meta: Pick<JobMeta, 'lastAttempt'>,
  throttledDelaySeconds = THROTTLED_DELAY_S,
): Promise<void> {
  if (m.settle) {
    await settleUnknown(deps, { ...m, settle: m.settle }, CAMPAIGN_DELIVERY);
    return;
  }
  try {
    await runChunked(deps, job, m, meta);
  } catch (error) {
    if (!(error instanceof RetryableSendError)) throw error;
    console.warn(
      JSON.stringify({
        level: 'warn',
        message: 'Campaign fan-out throttled by the provider; resuming later',
        campaignId: m.campaignId,
        reason: error.reason,
        delaySeconds: throttledDelaySeconds,
      }),
    );
    await enqueue(deps, campaignSendJobMessage, continuationOf(m), { delaySeconds: throttledDelaySeconds });
  }
}
