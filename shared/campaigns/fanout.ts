/**
 * A campaign's fan-out: its audience split into ranges that parallel lanes send a batch at a time
 * (a chunked job, shared/jobs/chunked.ts), each recipient's email rendered and sent with the same
 * rules, records and lifecycle events as `/v1/send` (shared/sending: `renderMessage`,
 * `deliverEmail`), at the account's send rate (`send-rate.ts`), which every lane shares.
 *
 * Lanes and ranges, so that a campaign reaches the configured rate:
 * - A lane is a sequence of messages (the first, then its continuations after each budget). Lane
 *   0 is the send's own message; when its first range does not reach the audience's end, it
 *   queues lanes 1 to `lanesFor(rate)` - 1 and notes them on the run (`lanes`). On AWS each lane
 *   is its own Lambda invocation, so the CPU of rendering and MIME grows with the lanes; locally
 *   they share the one process.
 * - A lane claims the run's next range (`claimNext`): it reads two batches' worth of the audience
 *   from the run's position, writes the range's item (its recipients' contact ids, its batch size,
 *   where the audience goes on; the first write of it wins, so every claimer of that range reads
 *   the same recipients), and moves the run past it with one update conditional on the range's
 *   number, adding it to the run's `ranges` (its lane, its next batch). Then it sends the range's
 *   batches, and claims the next. A lane's message that finds a range of its lane in `ranges` (its
 *   runner stopped, a redelivered copy) goes on with it before it claims another.
 * - Each lane keeps `inFlightFor(its share of the rate, the provider latency it measured)` sends
 *   in flight, and reserves send slots a group at a time as its sends reach them (`slotFeed`).
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
 * - A batch's counts are added to the run with the move of its range to its next batch (or, after
 *   its last, the range's removal from `ranges`) in one update conditional on the range's batch
 *   (`checkpointRange`), so a batch that runs twice (a worker that died before its checkpoint, two
 *   copies of a lane's message) is counted once: its claims, made the first time, are read back. A
 *   record carries the batch that claimed it (numbered across ranges, `RANGE_STRIDE`), so a contact
 *   met again in a later batch or range (a segment's order that shifted) is neither sent nor
 *   counted twice.
 * - The run's state is read before every batch: a cancel (state `cancelled`) stops each lane before
 *   its next claim; the batch under way finishes and is counted, and the lane drops its range.
 * - The campaign ends when the run has ended (`hasEnded`: the audience split to its end, or the run
 *   cancelled, and no range left in `ranges`), by whichever lane finds it so first, finishing last:
 *   the run becomes `finished` and the campaign SENT with `totalRecipients` fixed (the run's
 *   recipients); a cancelled run ends the campaign CANCELLED the same way. A message that finds the
 *   run ended but the campaign not yet (a crash in between) ends it.
 *
 * The monthly campaigns cap (shared/billing/caps.ts): a send that starts (now, or when its schedule
 * fires) is refused when its audience would pass it (`roomNeededFor`); while it runs, each batch
 * reserves room for its recipients (`reserveBatch`, noted on its range's entry of the run so a
 * batch run again reuses it), those past the room granted are settled FAILED with reason
 * `BILLING_LIMIT_REACHED`, and
 * what did not reach SES is given back once the batch is checkpointed. A run that meets the cap
 * so goes on to the end of its audience, failing the rest, and ends SENT. Without a cap a batch
 * reserves and notes nothing: its emails are marked for the event tally, which counts those sent.
 *
 * Throttling: each message is sent at a slot the shared rate limiter gave it; when SES still
 * throttles past the delivery policy's retries, that recipient's claim is given back and the
 * lane's message is queued again after a pause (`THROTTLED_DELAY_S`), resuming the same batch.
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
import { type ContactRecord, readContactRecords } from '../contacts/repository';
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
import { leftOutAmong, leftOutReason, subscriptionAllows } from './eligibility';
import { campaignEmailIds } from './ids';
import { CAMPAIGN_SEND_JOB, type CampaignSendMessage, campaignSendJobMessage } from './messages';
import {
  type CampaignRecord,
  type CampaignRun,
  cancelRun,
  cancelSendingCampaign,
  checkpointRange,
  claimRange,
  endCampaignRun,
  finishRun,
  getCampaignRecord,
  getCampaignRun,
  getRange,
  holdClaim,
  NO_COUNTS,
  noteCapReservation,
  noteRunLanes,
  putNewRun,
  putRange,
  type RunCounts,
  recordRunError,
  replaceCampaign,
  startScheduledCampaign,
  upgradeRun,
} from './repository';
import { roomNeededFor } from './room';
import { accountSendRate, type SendRateLimiter, sendRateLimiter } from './send-rate';
import { SETTLE_DELAY_S, settleUnknown } from './settle';

export { CAMPAIGN_SEND_JOB };

export interface FanOutOptions extends ChunkOptions {
  /**
   * Recipients sent at once by one lane. @default sized from the lane's share of the rate and
   * the provider latency measured (`inFlightFor`)
   */
  readonly concurrency?: number;
  /** Audience candidates per range. @default `RANGE_BATCHES` batches */
  readonly rangeSize?: number;
  /** Lanes of a large audience. @default sized from the rate (`lanesFor`) */
  readonly lanes?: number;
  /** Seconds before a throttled batch is tried again. @default THROTTLED_DELAY_S */
  readonly throttledDelaySeconds?: number;
  /** Provider calls per recipient while SES asks to retry. @default CAMPAIGN_DELIVERY */
  readonly delivery?: DeliveryPolicy;
}

/** Audience entries per batch at least (unless the rate is slow): one checkpoint, one state read, a few rate reservations each. */
export const DEFAULT_BATCH = 50;
/** Recipients per batch at most: its slots, its suppression read, its contacts read. */
const MAX_BATCH = 500;
/** A lane's batch holds about this long of sending at its share of the rate (at least `DEFAULT_BATCH`). */
const BATCH_SECONDS = 3;
/** A batch takes at most about this long at the lane's rate (so a slow rate makes smaller batches). */
const BATCH_SECONDS_AT_RATE = 10;
/** Batches per range: a range's overhead (its item, its claim) is shared by this many batches. */
const RANGE_BATCHES = 2;
/**
 * Messages a second one lane is planned for: one lane's process renders, builds the MIME and
 * writes the records of every recipient it sends (bench:campaign prints that CPU per recipient).
 */
const LANE_RATE = 100;
/**
 * Lanes at most: the jobs queue runs five messages at once (shared/manifest.ts), and one is left
 * to the other jobs (an import, a purge) so that a campaign does not hold them up.
 */
export const MAX_LANES = 4;
/** Sends in flight per lane, at least and at most. */
const MIN_IN_FLIGHT = 8;
const MAX_IN_FLIGHT = 64;
/** In flight per lane: its share of the rate x the provider latency measured, with this margin. */
const IN_FLIGHT_MARGIN = 1.5;
/** The provider latency assumed before a lane has measured one (seconds). */
const FIRST_LATENCY_S = 0.25;
/** Weight of one send's latency in the lane's moving mean (about the last twenty sends). */
const LATENCY_WEIGHT = 0.05;
/** Range `n`'s batch `k` is numbered `(n + 1) x RANGE_STRIDE + k` on its records (`campaignBatch`). */
const RANGE_STRIDE = 1_000_000;
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
/** How long a lane's hold on claiming the next range keeps the other lanes from reading its page. */
const CLAIM_HOLD_MS = 30_000;
/** How often a lane that waits for another's claim looks at the run again. */
const CLAIM_POLL_MS = 200;
/** Slots a lane reserves at a time: this long of its share of the rate (the sends in flight at least). */
const SLOTS_AHEAD_S = 0.25;
/** A send this late to its slot (or one slot's spacing, when longer) takes a new slot. */
const LATE_AFTER_MS = 25;
/** Rates (messages a second) up to which a late send takes a new slot (see `sendOne`). */
const PACED_UP_TO_RATE = 200;

/** Provider calls per recipient while SES asks to retry, with backoff from half a second. */
export const CAMPAIGN_DELIVERY: DeliveryPolicy = { attempts: 5, backoffMs: 500 };

/** Lanes for a large audience at `rate`: two at least (one sends while the other checkpoints), `MAX_LANES` at most. */
export const lanesFor = (rate: number) => Math.min(MAX_LANES, Math.max(2, Math.ceil(rate / LANE_RATE)));

/**
 * Sends in flight a lane needs to keep up with `rate` (its share) when a provider call takes
 * `latencySeconds`: rate x latency, with a margin, within [`MIN_IN_FLIGHT`, `MAX_IN_FLIGHT`].
 */
export const inFlightFor = (rate: number, latencySeconds: number) =>
  Math.min(MAX_IN_FLIGHT, Math.max(MIN_IN_FLIGHT, Math.ceil(rate * latencySeconds * IN_FLIGHT_MARGIN)));

/** The fan-out as loaded by one message: the campaign being sent and its run. */
interface Loaded {
  readonly campaign: CampaignRecord;
  readonly run: CampaignRun;
}

/** The range a lane is sending: its number, its recipients and its next batch. */
interface LaneRange {
  readonly no: number;
  readonly ids: readonly string[];
  readonly batchSize: number;
  /** The recipients' contacts as this message's claim read them (none when it went on with a range). */
  readonly records?: ReadonlyMap<string, ContactRecord>;
  readonly batch: number;
}

/** What one message works with: the loaded run (as last read) and what it prepared. */
interface FanOut extends Loaded {
  readonly content: EmailContent;
  /**
   * Rendering and MIME (liquidjs, html-to-text, nodemailer): loaded by a fan-out's first step, so
   * the jobs function's other jobs do not load them at every cold start (lib/bundling.ts).
   */
  readonly compose: typeof import('../sending/compose');
  /** The audience, prepared when this message first claims a range (a lane that only sends does without). */
  readonly audience: () => Promise<Audience>;
  readonly limiter: SendRateLimiter;
  readonly rate: number;
  /** Lanes a large audience is sent in (lane 0 queues the others). */
  readonly lanes: number;
  readonly lane: number;
  /** The provider latency this message measured (seconds, a moving mean), for the sends in flight. */
  readonly latency: { seconds: number };
  readonly range?: LaneRange;
}

type Batch =
  /** Nothing written: a claim another lane won, or a lane with nothing left (`done`). */
  | { readonly kind: 'none'; readonly next: FanOut; readonly items: 0; readonly done: boolean }
  /** A range of a cancelled run, left unsent: it leaves the ranges being sent. */
  | {
      readonly kind: 'drop';
      readonly next: FanOut;
      readonly items: 0;
      readonly done: false;
      readonly range: LaneRange;
    }
  | {
      readonly kind: 'batch';
      readonly next: FanOut;
      readonly items: number;
      readonly done: false;
      readonly range: LaneRange;
      readonly last: boolean;
      readonly counts: RunCounts;
      /** The monthly cap's reservation of the batch, and how much of it reached (or may have reached) SES. */
      readonly reservation: Reservation;
      readonly consumed: number;
      /** The contacts the batch counts `unknown`, for settle.ts. */
      readonly unknownIds: readonly string[];
    };

type Outcome = 'sent' | 'failed' | 'skipped' | 'unknown' | 'counted-before';

/** A batch's outcomes, in order, and the contacts among them counted `unknown`. */
interface BatchOutcomes {
  readonly outcomes: readonly Outcome[];
  readonly unknownIds: readonly string[];
}

export function fanOutChunks(options: FanOutOptions = {}) {
  const delivery = options.delivery ?? CAMPAIGN_DELIVERY;
  /** Batch and range sizes at a lane's share `laneRate` of the rate. */
  const sizes = (laneRate: number) => {
    const batch = Math.max(
      1,
      Math.min(
        options.chunkSize ?? Math.max(DEFAULT_BATCH, Math.floor(laneRate * BATCH_SECONDS)),
        MAX_BATCH,
        Math.floor(laneRate * BATCH_SECONDS_AT_RATE),
      ),
    );
    return { batch, range: Math.max(1, options.rangeSize ?? batch * RANGE_BATCHES) };
  };
  return chunkedJob(campaignSendJobMessage, {
    budget: options,
    load,
    async start(deps: Deps, loaded: Loaded, m: CampaignSendMessage): Promise<FanOut> {
      const { campaign, run } = loaded;
      const [{ campaignContent }, compose] = await Promise.all([
        import('./content'),
        import('../sending/compose'),
      ]);
      const content = campaignContent(campaign, await linkSettings(deps.config));
      const rate = await accountSendRate(deps);
      let audience: Promise<Audience> | undefined;
      return {
        ...loaded,
        content,
        compose,
        audience: () => {
          audience ??= prepareAudience(deps, campaign.projectId, campaign, run.startedAt);
          return audience;
        },
        limiter: sendRateLimiter(deps, rate),
        rate,
        lanes: options.lanes ?? lanesFor(rate),
        lane: m.lane,
        latency: { seconds: FIRST_LATENCY_S },
      };
    },
    async process(deps: Deps, state: FanOut, m: CampaignSendMessage): Promise<Batch | typeof MOVED_ON> {
      const { campaign } = state;
      const current = await getCampaignRun(deps, campaign.projectId, campaign.id);
      if (!current || current.runId !== state.run.runId) return MOVED_ON;
      // Batches and ranges are sized for the lanes planned; the sends in flight for those started.
      const size = sizes(state.rate / state.lanes);
      const lanes = Math.max(1, current.lanes);
      let range = state.range;
      if (range) {
        // Another runner of this range (a redelivered message beside its continuation) is ahead.
        if (current.ranges[range.no]?.batch !== range.batch) return MOVED_ON;
      } else {
        range = await ownRange(deps, current, state.lane);
        if (!range) {
          if (current.state !== 'running' || current.listed)
            return { kind: 'none', next: { ...state, run: current }, items: 0, done: true };
          range = await claimNext(deps, state, current, m, size);
          // Another lane claimed that range first (or a cancel came): look again.
          if (!range) return { kind: 'none', next: { ...state, run: current }, items: 0, done: false };
        }
      }
      const after = { ...state, run: current, range: undefined };
      if (current.state === 'cancelled') return { kind: 'drop', next: after, items: 0, done: false, range };
      const { batchSize } = range;
      const ids = range.ids.slice(range.batch * batchSize, (range.batch + 1) * batchSize);
      const last = (range.batch + 1) * batchSize >= range.ids.length;
      // The contacts as the claim read them; read again by a later message that goes on with the
      // range (a contact deleted or unsubscribed since its range was listed is no longer a recipient).
      const listed = range.records ?? new Map<string, ContactRecord>();
      const missing = ids.filter((id) => !listed.has(id));
      const found =
        missing.length > 0 ? await readContactRecords(deps, campaign.projectId, missing, false) : listed;
      const recipients = ids.flatMap((id) => {
        const c = listed.get(id) ?? found.get(id);
        return c && !c.deletedAt && subscriptionAllows(campaign.type, c) ? [c] : [];
      });
      // Suppressed addresses (a permanent bounce, a complaint), and MARKETING or HEADLESS mail to
      // contacts snoozed past now, are skipped without a send slot or room under the cap
      // (eligibility.ts: one batch read of the suppression list for the batch).
      const { suppressed, snoozed } = await leftOutAmong(
        deps,
        campaign.projectId,
        campaign.type,
        recipients,
        deps.clock.now(),
      );
      const sending = recipients.filter((c) => !leftOutReason(c, { suppressed, snoozed })).length;
      const batchNo = (range.no + 1) * RANGE_STRIDE + range.batch;
      const reservation = await reserveBatch(deps, current, range, sending);
      if (!reservation) return MOVED_ON;
      const { outcomes, unknownIds } = await sendBatch(deps, state, recipients, {
        batch: batchNo,
        suppressed,
        snoozed,
        granted: reservation.granted,
        tally: reservation.tally === true,
        concurrency: options.concurrency ?? inFlightFor(state.rate / lanes, state.latency.seconds),
        laneRate: state.rate / lanes,
        delivery,
      });
      return {
        kind: 'batch',
        next: last ? after : { ...after, range: { ...range, batch: range.batch + 1 } },
        items: ids.length,
        done: false,
        range,
        last,
        counts: countOf(outcomes),
        reservation,
        consumed: outcomes.filter((o) => o === 'sent' || o === 'unknown').length,
        unknownIds,
      };
    },
    async checkpoint(deps: Deps, state: FanOut, batch: Batch): Promise<boolean> {
      if (batch.kind === 'none') return true;
      const at = deps.clock.now().toISOString();
      const { range } = batch;
      if (batch.kind === 'drop')
        return checkpointRange(deps, state.run, range.no, range.batch, { last: true, at }, NO_COUNTS);
      const saved = await checkpointRange(
        deps,
        state.run,
        range.no,
        range.batch,
        { last: batch.last, at },
        batch.counts,
        batch.unknownIds,
      );
      // Recipients whose claim had no outcome: settled once no sender can still hold them.
      if (saved && batch.unknownIds.length > 0) await queueSettle(deps, state.run, batch.unknownIds, at);
      // Once the batch counts (never before: a batch run again must find its reservation whole),
      // what of its reservation did not reach SES is given back. A crash in between leaves it counted.
      if (saved) await releaseSends(deps, batch.reservation, batch.reservation.granted - batch.consumed);
      return saved;
    },
    async finish(deps: Deps, state: FanOut) {
      // This lane has nothing left: the send ends once every range has (whichever lane ends last).
      const run = await getCampaignRun(deps, state.campaign.projectId, state.campaign.id);
      if (run && run.runId === state.run.runId && hasEnded(run)) await endRun(deps, state.campaign, run);
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

/** No range is left to claim (the audience split to its end, or the run cancelled) and none is being sent. */
const hasEnded = (run: CampaignRun) =>
  (run.state !== 'running' || run.listed) && Object.keys(run.ranges).length === 0;

/**
 * A range of `lane` being sent (the lowest), which a runner of the lane left (a message that
 * stopped, a crash): the lane goes on with it before it claims another.
 */
async function ownRange(deps: Deps, run: CampaignRun, lane: number): Promise<LaneRange | undefined> {
  const own = Object.entries(run.ranges)
    .filter(([, r]) => r.lane === lane)
    .map(([no, r]) => ({ no: Number(no), batch: r.batch }))
    .sort((a, b) => a.no - b.no)[0];
  if (!own) return undefined;
  const range = await getRange(deps, run, own.no);
  if (!range) throw new Error(`Range ${own.no} of campaign ${run.campaignId} is being sent but has no item`);
  return { no: own.no, ids: range.ids, batchSize: range.batchSize, batch: own.batch };
}

/**
 * Claims the run's next range for this message's lane: reads `size.range` candidates of the audience
 * from the run's position, writes the range (its recipients, where the audience goes on) unless a
 * runner of the same range wrote it first, then moves the run past it, conditional on the range
 * number (`claimRange`). Lane 0's first claim of an audience that goes on past it queues the other
 * lanes. Undefined when the claim did not land (another lane's did), or when the range holds no
 * recipient (the run moved past it all the same).
 */
async function claimNext(
  deps: Deps,
  state: FanOut,
  run: CampaignRun,
  m: CampaignSendMessage,
  size: { readonly batch: number; readonly range: number },
): Promise<LaneRange | undefined> {
  const no = run.batch;
  // One lane at a time reads the next range's page: the others wait for its claim rather than
  // read the same page (a hold whose runner stopped is taken over by its lane's next message at
  // once, by the other lanes once `CLAIM_HOLD_MS` old).
  const now = deps.clock.now().getTime();
  const { lane } = state;
  const held = run.claim && run.claim.no === no && run.claim.lane !== lane && run.claim.until > now;
  if (held || !(await holdClaim(deps, run, { no, lane, now, until: now + CLAIM_HOLD_MS }))) {
    await sleep(CLAIM_POLL_MS);
    return undefined;
  }
  const page = await audiencePage(deps, await state.audience(), run.position, size.range);
  const range = await putRange(deps, run, no, {
    ids: page.recipients.map((c) => c.id),
    batchSize: size.batch,
    next: page.cursor,
    done: page.done,
  });
  const at = deps.clock.now().toISOString();
  const empty = range.ids.length === 0;
  const claim = { lane: state.lane, position: range.next, listed: range.done, empty, at };
  if (!(await claimRange(deps, run, no, claim))) return undefined;
  if (state.lane === 0 && !range.done && run.lanes === 0) await startLanes(deps, run, m, state.lanes);
  if (empty) return undefined;
  const records = new Map(page.recipients.map((c) => [c.id, c]));
  return { no, ids: range.ids, batchSize: range.batchSize, batch: 0, records };
}

/**
 * Queues lanes 1 to `lanes` - 1 of a run, then notes them on the run. A crash between the
 * two queues them again when lane 0's message comes back: a lane's copies send its ranges once
 * (each batch is conditional on its range's batch), so that costs only their messages.
 */
async function startLanes(
  deps: Deps,
  run: CampaignRun,
  m: CampaignSendMessage,
  lanes: number,
): Promise<void> {
  if (lanes < 2) return;
  for (let lane = 1; lane < lanes; lane++)
    await enqueue(deps, campaignSendJobMessage, continuationOf({ ...m, lane, waits: 0 }));
  await noteRunLanes(deps, run, lanes);
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
      ranges: {},
      lanes: 0,
      ...NO_COUNTS,
      engagement: { delivered: 0, opened: 0, clicked: 0, bounced: 0, complained: 0, unsubscribed: 0 },
      error: null,
      unknownIds: [],
      updatedAt: now,
    };
    run = (await putNewRun(deps, fresh)) ? fresh : await getCampaignRun(deps, m.projectId, m.campaignId);
    if (!run) return undefined;
  }
  if (run.runId !== m.runId) return undefined;
  // A run a fan-out of an earlier version started (no ranges yet) goes on in ranges from its position.
  if (run.legacy && !(await upgradeRun(deps, run))) return undefined;
  if (hasEnded(run)) {
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
  // A schedule named after the campaign and the lane: copies of this message (a redelivery) make
  // one, not two, and each lane comes back (a lane's ranges are sent by its own messages).
  await scheduleJob(deps, campaignSendJobMessage, m, {
    name: m.lane === 0 ? `hold-campaign-${campaign.id}` : `hold-campaign-${campaign.id}-${m.lane}`,
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
 * The monthly cap's reservation of a range's current batch for its `sending` recipients (those not
 * suppressed): as many as the cap leaves room for. A batch that runs again (its runner died before
 * the checkpoint, SES throttled it) finds its reservation noted on its range and reuses it, and of
 * two runners of one batch at once (a redelivered message beside its continuation) only the first
 * to note its reservation keeps it: the other gives its own back and takes the noted one. So a
 * redelivery never counts a batch twice; only a crash between the reservation and its note does
 * (at most one batch per crash, on the safe side of the cap). Undefined when the range moved on.
 */
async function reserveBatch(
  deps: Deps,
  run: CampaignRun,
  range: LaneRange,
  sending: number,
): Promise<Reservation | undefined> {
  const notedOf = (r: CampaignRun): Reservation | undefined => {
    const progress = r.ranges[range.no];
    const noted = progress?.capReservation;
    return noted && progress.batch === range.batch && noted.batch === range.batch
      ? { projectId: r.projectId, category: 'campaigns', month: noted.month, granted: noted.granted }
      : undefined;
  };
  const noted = notedOf(run);
  if (noted) return noted;
  const reservation = await reserveSends(deps, run.projectId, 'campaigns', sending, 'up-to');
  // Nothing to note when nothing was reserved (no cap: the event tally counts the emails sent).
  if (sending === 0 || reservation.tally) return reservation;
  const note = { batch: range.batch, month: reservation.month, granted: reservation.granted };
  if (await noteCapReservation(deps, run, range.no, note)) return reservation;
  await releaseSends(deps, reservation, reservation.granted);
  const now = await getCampaignRun(deps, run.projectId, run.campaignId);
  return now && now.runId === run.runId && now.ranges[range.no]?.batch === range.batch
    ? notedOf(now)
    : undefined;
}

/**
 * Ends a run that has ended (`hasEnded`: split to its end, or cancelled, with no range left) and
 * its campaign (SENT, CANCELLED), with the run's recipients as `totalRecipients`.
 */
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
  /** Contacts (ids) snoozed past now: skipped with reason `snoozed` (MARKETING and HEADLESS only). */
  readonly snoozed: ReadonlySet<string>;
  /** Recipients (not suppressed, in order) the monthly cap leaves room for; the rest fail with its reason. */
  readonly granted: number;
  /** The category has no cap: nothing was reserved, and the event tally counts the emails sent. */
  readonly tally: boolean;
  readonly concurrency: number;
  /** The lane's share of the rate (messages a second): how many slots it reserves at a time. */
  readonly laneRate: number;
  readonly delivery: DeliveryPolicy;
}

/**
 * The send slots of a batch's `count` sends, reserved from the shared limiter a group at a time
 * (`group`: the sends in flight, or `SLOTS_AHEAD_S` of the lane's rate when more) as the sends
 * reach them, not all at the batch's start: each lane holds only the slots it is about to use, so
 * lanes share the rate as they keep up with it, and one that falls behind (a busy CPU) does not
 * leave a batch's worth of slots to come late to. `take` answers the next slot, in order.
 */
function slotFeed(limiter: SendRateLimiter, count: number, group: number) {
  const pool: number[] = [];
  let reserved = 0;
  let refill: Promise<void> | undefined;
  return {
    async take(): Promise<number> {
      while (pool.length === 0) {
        if (reserved >= count) throw new Error('More send slots taken than the batch sends');
        refill ??= limiter
          .reserve(Math.min(group, count - reserved))
          .then((got) => {
            reserved += got.length;
            pool.push(...got);
          })
          .finally(() => {
            refill = undefined;
          });
        await refill;
      }
      return pool.shift()!;
    },
  };
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
  const reasons = recipients.map((c) => leftOutReason(c, plan));
  const sending = Math.min(plan.granted, reasons.filter((r) => r === undefined).length);
  let granted = 0;
  const plans = reasons.map(
    (reason): 'send' | 'suppressed' | 'snoozed' | 'over-cap' =>
      reason ?? (granted++ < sending ? 'send' : 'over-cap'),
  );
  const slots = slotFeed(
    state.limiter,
    sending,
    Math.max(plan.concurrency, Math.ceil(plan.laneRate * SLOTS_AHEAD_S)),
  );
  const outcomes: Outcome[] = new Array(recipients.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < recipients.length) {
      const i = next++;
      try {
        const slot = plans[i]!;
        outcomes[i] =
          slot === 'suppressed' || slot === 'snoozed'
            ? await skipRecipient(deps, state, recipients[i]!, batch, slot)
            : slot === 'over-cap'
              ? await failOverCap(deps, state, recipients[i]!, batch)
              : await sendOne(deps, state, recipients[i]!, { batch, slots, tally: plan.tally }, delivery);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(plan.concurrency, recipients.length) }, worker));
  if (failure) throw failure.error;
  return { outcomes, unknownIds: recipients.filter((_, i) => outcomes[i] === 'unknown').map((c) => c.id) };
}

/**
 * A suppressed or snoozed recipient: its record claimed SKIPPED (reason `suppressed` or
 * `snoozed`), nothing sent.
 */
async function skipRecipient(
  deps: Deps,
  state: FanOut,
  contact: ContactRecord,
  batch: number,
  reason: 'suppressed' | 'snoozed',
): Promise<Outcome> {
  const { campaign, content, compose } = state;
  const ids = campaignEmailIds(campaign.id, contact.id);
  const recipient = { to: { email: contact.email }, contact };
  const record: EmailRecord = {
    ...compose.newEmailRecord(campaign.projectId, content, recipient, ids.email, deps.clock.now()),
    status: 'SKIPPED',
    reason,
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
  at: {
    readonly batch: number;
    readonly slots: { take(): Promise<number> };
    readonly tally: boolean;
  },
  delivery: DeliveryPolicy,
): Promise<Outcome> {
  const { campaign, content, compose } = state;
  const { projectId } = campaign;
  const { batch } = at;
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
  const slot = await at.slots.take();
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
  const started = performance.now();
  const out = await deliverEmail(deps, composed, delivery, { claim: true, releaseWhenRetryable: true });
  if (!out) return resume(deps, projectId, ids, batch);
  // The lane's in-flight sends are sized from this (the claim and the provider call).
  const { latency } = state;
  latency.seconds += LATENCY_WEIGHT * ((performance.now() - started) / 1000 - latency.seconds);
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
    {
      ...continuationOf({ ...run, trigger: 'now', waits: 0, lane: 0 }),
      settle: { ids: [...ids], before: at },
    },
    { delaySeconds: SETTLE_DELAY_S },
  );
}

/** The message that goes on with a lane: the same one (the positions are on the run item). */
const continuationOf = (
  m: Pick<CampaignSendMessage, 'projectId' | 'campaignId' | 'runId' | 'trigger' | 'waits' | 'lane'>,
) => ({
  projectId: m.projectId,
  campaignId: m.campaignId,
  runId: m.runId,
  trigger: m.trigger,
  waits: m.waits,
  lane: m.lane,
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
