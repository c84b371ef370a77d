/**
 * Campaign items and campaign runs. Only this module knows their keys.
 *
 * - The campaign: `CAMPAIGN#<id>` in the project's partition (the definitions' place, which the
 *   field, event and template usage reports read generically), holding its definition (`name`,
 *   `segmentId`, `audienceCondition` as the parsed tree, top level), its `status`, and the
 *   internal `version` (guards every read-modify-write), `runId` (the send that owns a SENDING
 *   campaign), `scheduleToken` (the one-off schedule that may start a SCHEDULED one) and
 *   `startedAt` (the instant the send began: later contacts are not in an ALL or FILTERED audience).
 * - The run: one small item per sent campaign (`P#<pid>#CAMPAIGN#<id>` / `#RUN`): how far the
 *   audience has been split into ranges (`batch`, the ranges claimed; `position`, where the next
 *   starts; `listed`), the ranges being sent (`ranges`, a map from range number to its lane, its
 *   next batch and the monthly cap's reservation of that batch: at most a few, one per lane),
 *   the lanes started (`lanes`), and what became of the recipients (`recipients`, `sent`,
 *   `failed`, `skipped`, `unknown`), each batch's changes written in one update conditional on its
 *   range's batch, the contacts counted `unknown` (`unknownIds`, a string set: the few a crash
 *   leaves, which settle.ts settles without a scan). The campaign item is rewritten only when the
 *   send starts and ends, so a fan-out never rewrites a body of up to 256 KB, and counters never
 *   contend with edits.
 * - A range: `RANGE#<runId>#<n>` in the run's partition, written once when range n is claimed and
 *   never changed: the recipients' contact ids in audience order (at most `rangeSize` candidates'
 *   worth, a few KB), the size of its batches, and where the audience goes on after it. It expires a month later (TTL).
 */
import type { Condition } from '../conditions';
import type { Item, StoreDeps } from '../store/store';
import { keys } from '../table';
import type { TemplateType } from '../templates/schemas';
import type { AudienceType, CampaignStatus } from './schemas';

/** The stored campaign (the API shape adds the run's counters: see `present` in present.ts). */
export interface CampaignRecord {
  readonly id: string;
  readonly projectId: string;
  readonly name: string;
  readonly description: string | null;
  readonly subject: string;
  readonly body: string;
  readonly from: string;
  readonly fromName: string | null;
  readonly replyTo: string | null;
  readonly type: TemplateType;
  readonly status: CampaignStatus;
  readonly audienceType: AudienceType;
  readonly audienceCondition: Condition | null;
  readonly segmentId: string | null;
  readonly scheduledFor: string | null;
  /** Fixed when the fan-out completes (or is cancelled); null before. */
  readonly totalRecipients: number | null;
  readonly sentAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly version: number;
  readonly runId: string | null;
  readonly scheduleToken: string | null;
  readonly startedAt: string | null;
  readonly completedAt: string | null;
}

const FIELDS = [
  'id',
  'projectId',
  'name',
  'description',
  'subject',
  'body',
  'from',
  'fromName',
  'replyTo',
  'type',
  'status',
  'audienceType',
  'audienceCondition',
  'segmentId',
  'scheduledFor',
  'totalRecipients',
  'sentAt',
  'createdAt',
  'updatedAt',
  'version',
  'runId',
  'scheduleToken',
  'startedAt',
  'completedAt',
] as const satisfies readonly (keyof CampaignRecord)[];

function toItem(record: CampaignRecord): Item {
  return { ...keys.campaign(record.projectId, record.id), entity: 'campaign', ...record };
}

function fromItem(item: Item): CampaignRecord {
  const out: Record<string, unknown> = {};
  for (const field of FIELDS) out[field] = item[field] ?? null;
  out.version = Number(item.version ?? 1);
  return out as unknown as CampaignRecord;
}

export async function getCampaignRecord(
  deps: StoreDeps,
  projectId: string,
  campaignId: string,
  options: { readonly consistent?: boolean } = {},
): Promise<CampaignRecord | undefined> {
  const item = await deps.store.get(keys.campaign(projectId, campaignId), options);
  return item ? fromItem(item) : undefined;
}

/** Creates a campaign; false when the id is taken. */
export function putNewCampaign(deps: StoreDeps, record: CampaignRecord): Promise<boolean> {
  return deps.store.writeIf({ put: toItem(record), if: 'attribute_not_exists(pk)' });
}

/**
 * Writes `record` over the campaign if it is still at `expected.version` (and, when given, in
 * one of `expected.status`); false when it changed, is gone, or is in another state.
 */
export function replaceCampaign(
  deps: StoreDeps,
  record: CampaignRecord,
  expected: { readonly version: number; readonly status?: readonly CampaignStatus[] },
): Promise<boolean> {
  const states = Object.fromEntries((expected.status ?? []).map((s, i) => [`:s${i}`, s]));
  return deps.store.writeIf({
    put: toItem(record),
    if: `attribute_exists(pk) AND version = :v${
      expected.status ? ` AND #status IN (${Object.keys(states).join(', ')})` : ''
    }`,
    ...(expected.status ? { names: { '#status': 'status' } } : {}),
    values: { ':v': expected.version, ...states },
  });
}

/** Deletes a campaign that is in one of `states`; false when it is not (or is gone). */
export function deleteCampaignItem(
  deps: StoreDeps,
  projectId: string,
  campaignId: string,
  states: readonly CampaignStatus[],
): Promise<boolean> {
  const values = Object.fromEntries(states.map((s, i) => [`:s${i}`, s]));
  return deps.store.writeIf({
    delete: keys.campaign(projectId, campaignId),
    if: `#status IN (${Object.keys(values).join(', ')})`,
    names: { '#status': 'status' },
    values,
  });
}

/**
 * A SCHEDULED campaign whose schedule `token` fired becomes SENDING under the run `token`;
 * false when it is no longer scheduled under that token (rescheduled, sent, cancelled, deleted).
 */
export function startScheduledCampaign(
  deps: StoreDeps,
  projectId: string,
  campaignId: string,
  token: string,
  at: string,
): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.campaign(projectId, campaignId),
    expression:
      'SET #status = :sending, runId = :token, startedAt = :at, updatedAt = :at, scheduledFor = :null, scheduleToken = :null ADD version :one',
    if: '#status = :scheduled AND scheduleToken = :token',
    names: { '#status': 'status' },
    values: {
      ':sending': 'SENDING',
      ':scheduled': 'SCHEDULED',
      ':token': token,
      ':at': at,
      ':null': null,
      ':one': 1,
    },
  });
}

/**
 * Ends the send `runId` of a campaign as `status` (SENT or CANCELLED) with its recipients fixed;
 * true also when it had ended so already (idempotent: a cancelled campaign gets its final
 * recipients from the fan-out's end), false when the campaign is not this run's.
 */
export async function endCampaignRun(
  deps: StoreDeps,
  projectId: string,
  campaignId: string,
  runId: string,
  end: { readonly status: 'SENT' | 'CANCELLED'; readonly totalRecipients: number; readonly at: string },
): Promise<boolean> {
  const key = keys.campaign(projectId, campaignId);
  const names = { '#status': 'status' };
  const ended = await deps.store.writeIf({
    update: key,
    expression: `SET #status = :end, totalRecipients = :n, completedAt = :at, updatedAt = :at${
      end.status === 'SENT' ? ', sentAt = :at' : ''
    } ADD version :one`,
    if: 'runId = :run AND #status = :sending',
    names,
    values: {
      ':end': end.status,
      ':n': end.totalRecipients,
      ':at': end.at,
      ':run': runId,
      ':sending': 'SENDING',
      ':one': 1,
    },
  });
  if (ended) return true;
  // Ended already (a cancel request, or an earlier attempt of this end): its recipients only.
  return deps.store.writeIf({
    update: key,
    expression: 'SET totalRecipients = :n',
    if: 'runId = :run AND #status = :end',
    names,
    values: { ':end': end.status, ':n': end.totalRecipients, ':run': runId },
  });
}

/** A SENDING campaign of the run `runId` becomes CANCELLED (its fan-out fixes `totalRecipients`). */
export function cancelSendingCampaign(
  deps: StoreDeps,
  projectId: string,
  campaignId: string,
  runId: string,
  at: string,
): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.campaign(projectId, campaignId),
    expression: 'SET #status = :cancelled, completedAt = :at, updatedAt = :at ADD version :one',
    if: 'runId = :run AND #status = :sending',
    names: { '#status': 'status' },
    values: { ':cancelled': 'CANCELLED', ':sending': 'SENDING', ':run': runId, ':at': at, ':one': 1 },
  });
}

/** What the list filters and sorts on, without the (possibly large) body. */
export interface CampaignSummary {
  readonly id: string;
  readonly name: string;
  readonly subject: string;
  readonly from: string;
  readonly status: CampaignStatus;
  /** When a SCHEDULED campaign goes out. */
  readonly scheduledFor: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** Every campaign of the project, without bodies (one Query of the project's campaign items). */
export async function listCampaignSummaries(deps: StoreDeps, projectId: string): Promise<CampaignSummary[]> {
  const out: CampaignSummary[] = [];
  const prefix = keys.definitionPrefixes.campaign;
  for await (const item of deps.store.queryAll({
    partition: keys.projectPartition(projectId),
    sort: { beginsWith: prefix },
    attributes: ['sk', 'id', 'name', 'subject', 'from', 'status', 'scheduledFor', 'createdAt', 'updatedAt'],
  })) {
    // Only the campaigns' own items (a definition may keep items below it: `CAMPAIGN#<id>#...`).
    if (String(item.sk).slice(prefix.length).includes('#')) continue;
    out.push({
      id: String(item.id),
      name: String(item.name ?? ''),
      subject: String(item.subject ?? ''),
      from: String(item.from ?? ''),
      status: item.status as CampaignStatus,
      scheduledFor: typeof item.scheduledFor === 'string' ? item.scheduledFor : null,
      createdAt: String(item.createdAt),
      updatedAt: String(item.updatedAt),
    });
  }
  return out;
}

/** Full records and runs for up to 100 ids (batched reads), in the order given; gone ids left out. */
export async function batchGetCampaigns(
  deps: StoreDeps,
  projectId: string,
  ids: readonly string[],
): Promise<{ record: CampaignRecord; run: CampaignRun | undefined }[]> {
  if (ids.length === 0) return [];
  if (ids.length > 100) throw new Error('batchGetCampaigns reads at most 100 campaigns');
  const items = await deps.store.batchGet(
    ids.flatMap((id) => [keys.campaign(projectId, id), keys.campaignRun(projectId, id)]),
  );
  const records = new Map<string, CampaignRecord>();
  const runs = new Map<string, CampaignRun>();
  for (const item of items) {
    if (item.entity === 'campaignRun') runs.set(String(item.campaignId), runFromItem(item));
    else records.set(String(item.id), fromItem(item));
  }
  return ids.flatMap((id) => {
    const record = records.get(id);
    return record ? [{ record, run: runs.get(id) }] : [];
  });
}

/** A range being sent: its lane, its next batch, and the monthly cap's reservation of that batch. */
export interface RangeProgress {
  readonly lane: number;
  /** Batches of the range done (checkpointed); the next is number `batch`. */
  readonly batch: number;
  /**
   * The monthly cap's reservation of one of the range's batches (shared/billing/caps.ts): the
   * batch it is for, the month it is counted in and how many sends it granted; a batch that runs
   * again reuses it rather than reserving twice. Null before the range's first reservation.
   */
  readonly capReservation: CapReservation | null;
}

export interface CapReservation {
  readonly batch: number;
  readonly month: string;
  readonly granted: number;
}

/** Where a run stands; `cancelled` is set by the cancel request, `finished` by the fan-out. */
export type RunState = 'running' | 'cancelled' | 'finished';

/** What became of a run's recipients (one batch's change, or the run's totals). */
export interface RunCounts {
  readonly recipients: number;
  readonly sent: number;
  readonly failed: number;
  readonly skipped: number;
  readonly unknown: number;
}

export const COUNT_NAMES = ['recipients', 'sent', 'failed', 'skipped', 'unknown'] as const;

export const ENGAGEMENT_METRICS = [
  'delivered',
  'opened',
  'clicked',
  'bounced',
  'complained',
  'unsubscribed',
] as const;
export type EngagementMetric = (typeof ENGAGEMENT_METRICS)[number];

export const NO_COUNTS: RunCounts = { recipients: 0, sent: 0, failed: 0, skipped: 0, unknown: 0 };

export interface CampaignRun extends RunCounts {
  readonly projectId: string;
  readonly campaignId: string;
  readonly runId: string;
  readonly state: RunState;
  /** The audience cut-off: contacts created later are not in an ALL or FILTERED audience. */
  readonly startedAt: string;
  /** Ranges claimed; the next range claimed is number `batch`. */
  readonly batch: number;
  /** Where the next range starts in the audience ('' at its start). */
  readonly position: string;
  /** The audience has been split to its end: no range is claimed any more. */
  readonly listed: boolean;
  /** The ranges claimed and not yet ended, by number. */
  readonly ranges: Readonly<Record<string, RangeProgress>>;
  /** Lanes (parallel fan-out messages) started for the run; 0 until lane 0 starts the others. */
  readonly lanes: number;
  /**
   * A lane's hold on claiming range `no` (it reads that range's page meanwhile), until `until`
   * (epoch ms): the other lanes wait for its claim. Undefined when none was taken.
   */
  readonly claim?: { readonly no: number; readonly lane: number; readonly until: number };
  /** The item has no `ranges` (a run an earlier fan-out started, or a cancel before the first message). */
  readonly legacy?: true;
  /**
   * Engagement, once per contact and metric, added by the event tally from the SES events'
   * `campaignCounts` (shared/email-events/apply.ts): `delivered`, `opened`, `clicked`, `bounced`,
   * `complained`, `unsubscribed`.
   */
  readonly engagement: Readonly<Record<EngagementMetric, number>>;
  /** The last error of a fan-out message that the queue gave up on (dead-lettered). */
  readonly error: string | null;
  /**
   * The contacts counted `unknown` and not settled yet (their claim was found with no outcome):
   * at most the sends in flight when a runner stopped. settle.ts moves each to its outcome.
   */
  readonly unknownIds: readonly string[];
  readonly updatedAt: string;
}

function runFromItem(item: Item): CampaignRun {
  const n = (name: string) => Number(item[name] ?? 0);
  return {
    projectId: String(item.projectId ?? ''),
    campaignId: String(item.campaignId ?? ''),
    runId: String(item.runId ?? ''),
    state: (item.state as RunState | undefined) ?? 'running',
    startedAt: String(item.startedAt ?? ''),
    batch: n('batch'),
    position: String(item.position ?? ''),
    listed: item.listed === true,
    ranges: rangesFromItem(item.ranges),
    lanes: n('lanes'),
    ...(typeof item.claimNo === 'number'
      ? {
          claim: { no: item.claimNo, lane: Number(item.claimLane ?? 0), until: Number(item.claimUntil ?? 0) },
        }
      : {}),
    ...(item.ranges === undefined ? { legacy: true as const } : {}),
    recipients: n('recipients'),
    sent: n('sent'),
    failed: n('failed'),
    skipped: n('skipped'),
    unknown: n('unknown'),
    engagement: Object.fromEntries(ENGAGEMENT_METRICS.map((m) => [m, n(m)])) as Record<
      EngagementMetric,
      number
    >,
    error: typeof item.error === 'string' ? item.error : null,
    unknownIds: [...((item.unknownIds as Iterable<string> | undefined) ?? [])].map(String).sort(),
    updatedAt: String(item.updatedAt ?? ''),
  };
}

function rangesFromItem(value: unknown): Record<string, RangeProgress> {
  const out: Record<string, RangeProgress> = {};
  if (!value || typeof value !== 'object') return out;
  for (const [no, raw] of Object.entries(value as Record<string, Item>)) {
    out[no] = {
      lane: Number(raw.lane ?? 0),
      batch: Number(raw.batch ?? 0),
      capReservation:
        typeof raw.capBatch === 'number'
          ? { batch: raw.capBatch, month: String(raw.capMonth ?? ''), granted: Number(raw.capGranted ?? 0) }
          : null,
    };
  }
  return out;
}

/** The campaign's run, read consistently (what the fan-out and cancel act on). */
export async function getCampaignRun(
  deps: StoreDeps,
  projectId: string,
  campaignId: string,
): Promise<CampaignRun | undefined> {
  const item = await deps.store.get(keys.campaignRun(projectId, campaignId), { consistent: true });
  return item ? runFromItem(item) : undefined;
}

/** Creates the run of a send that starts; false when the campaign has a run already. */
export function putNewRun(deps: StoreDeps, run: CampaignRun): Promise<boolean> {
  const { engagement, ranges: _none, unknownIds: _empty, ...item } = run;
  return deps.store.writeIf({
    put: {
      ...keys.campaignRun(run.projectId, run.campaignId),
      entity: 'campaignRun',
      ...item,
      ...engagement,
      ranges: {},
    },
    if: 'attribute_not_exists(pk)',
  });
}

/**
 * Claims range `no` (the run's next, `batch`) for `lane`: the position moves past it and, when
 * it has recipients, it joins the ranges being sent, on the condition that the run is still
 * running at that range (false when another lane claimed it first, or the run was cancelled).
 */
export function claimRange(
  deps: StoreDeps,
  run: Pick<CampaignRun, 'projectId' | 'campaignId' | 'runId'>,
  no: number,
  claim: {
    readonly lane: number;
    readonly position: string;
    readonly listed: boolean;
    readonly empty: boolean;
    readonly at: string;
  },
): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.campaignRun(run.projectId, run.campaignId),
    expression: `SET #batch = :next, #position = :position, listed = :listed, updatedAt = :at${
      claim.empty ? '' : ', ranges.#no = :range'
    }`,
    if: 'runId = :run AND #batch = :no AND #state = :running',
    names: {
      '#batch': 'batch',
      '#position': 'position',
      '#state': 'state',
      ...(claim.empty ? {} : { '#no': String(no) }),
    },
    values: {
      ':next': no + 1,
      ':position': claim.position,
      ':listed': claim.listed,
      ':at': claim.at,
      ':run': run.runId,
      ':no': no,
      ':running': 'running',
      ...(claim.empty ? {} : { ':range': { lane: claim.lane, batch: 0 } }),
    },
  });
}

/**
 * Takes the hold on claiming range `no` for `lane` (see `CampaignRun.claim`) until `until`, on
 * the condition that the run is running at that range and no other lane holds it past `now` (the
 * lane's own hold, left by its runner that stopped, is taken over at once); false otherwise.
 */
export function holdClaim(
  deps: StoreDeps,
  run: Pick<CampaignRun, 'projectId' | 'campaignId' | 'runId'>,
  hold: { readonly no: number; readonly lane: number; readonly now: number; readonly until: number },
): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.campaignRun(run.projectId, run.campaignId),
    expression: 'SET claimNo = :no, claimLane = :lane, claimUntil = :until',
    if: 'runId = :run AND #batch = :no AND #state = :running AND (attribute_not_exists(claimNo) OR claimNo <> :no OR claimLane = :lane OR claimUntil < :now)',
    names: { '#batch': 'batch', '#state': 'state' },
    values: {
      ':no': hold.no,
      ':lane': hold.lane,
      ':until': hold.until,
      ':now': hold.now,
      ':run': run.runId,
      ':running': 'running',
    },
  });
}

/**
 * Gives a run item without `ranges` (a run an earlier version of the fan-out started: its
 * position is where its next range starts) the empty map its ranges go into; false when the run
 * is another send's.
 */
export async function upgradeRun(
  deps: StoreDeps,
  run: Pick<CampaignRun, 'projectId' | 'campaignId' | 'runId'>,
): Promise<boolean> {
  if (
    await deps.store.writeIf({
      update: keys.campaignRun(run.projectId, run.campaignId),
      expression: 'SET ranges = :empty',
      if: 'runId = :run AND attribute_not_exists(ranges)',
      values: { ':empty': {}, ':run': run.runId },
    })
  )
    return true;
  const now = await getCampaignRun(deps, run.projectId, run.campaignId);
  return now !== undefined && now.runId === run.runId && !now.legacy;
}

/** Notes that the run's lanes (1 to `lanes` - 1: lane 0 is the start message) were queued. */
export function noteRunLanes(
  deps: StoreDeps,
  run: Pick<CampaignRun, 'projectId' | 'campaignId' | 'runId'>,
  lanes: number,
): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.campaignRun(run.projectId, run.campaignId),
    expression: 'SET lanes = :lanes',
    if: 'runId = :run AND (attribute_not_exists(lanes) OR lanes < :lanes)',
    values: { ':lanes': lanes, ':run': run.runId },
  });
}

/**
 * Writes one batch of range `no`: its counts added (and its `unknown` contacts to `unknownIds`),
 * the range moved to its next batch, or, after its last (`last`, or a cancelled range dropped
 * with no counts), removed from the ranges being sent; on the condition that the range is still
 * at batch `from` (a runner that finds it moved on stops, so a batch counts once). The state is
 * not touched: a cancel that lands meanwhile stays.
 */
export function checkpointRange(
  deps: StoreDeps,
  run: Pick<CampaignRun, 'projectId' | 'campaignId' | 'runId'>,
  no: number,
  from: number,
  end: { readonly last: boolean; readonly at: string },
  counts: RunCounts,
  unknownIds: readonly string[] = [],
): Promise<boolean> {
  // DynamoDB refuses an empty set: the ids are added only when there are some.
  const unknown = unknownIds.length > 0 ? ', unknownIds :unknownIds' : '';
  const move = end.last
    ? 'REMOVE ranges.#no SET updatedAt = :at'
    : 'SET ranges.#no.#batch = :next, updatedAt = :at';
  return deps.store.writeIf({
    update: keys.campaignRun(run.projectId, run.campaignId),
    expression: `${move} ADD ${COUNT_NAMES.map((name) => `#${name} :${name}`).join(', ')}${unknown}`,
    if: 'runId = :run AND ranges.#no.#batch = :from',
    names: {
      '#no': String(no),
      '#batch': 'batch',
      ...Object.fromEntries(COUNT_NAMES.map((name) => [`#${name}`, name])),
    },
    values: {
      ...(end.last ? {} : { ':next': from + 1 }),
      ':at': end.at,
      ':run': run.runId,
      ':from': from,
      ...Object.fromEntries(COUNT_NAMES.map((name) => [`:${name}`, counts[name]])),
      ...(unknownIds.length > 0 ? { ':unknownIds': new Set(unknownIds) } : {}),
    },
  });
}

/**
 * Moves one contact of the run's `unknownIds` to its outcome: the id leaves the set and the count
 * moves from `unknown` to `to`, on the condition that the id is still in the set, so a settle that
 * runs twice moves it once. False when it was settled already (or the run is another send's).
 */
export function settleRunUnknown(
  deps: StoreDeps,
  run: Pick<CampaignRun, 'projectId' | 'campaignId' | 'runId'>,
  contactId: string,
  to: 'sent' | 'failed' | 'skipped',
): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.campaignRun(run.projectId, run.campaignId),
    expression: 'DELETE unknownIds :ids ADD #to :one, #unknown :minus',
    if: 'runId = :run AND contains(unknownIds, :id)',
    names: { '#to': to, '#unknown': 'unknown' },
    values: { ':ids': new Set([contactId]), ':one': 1, ':minus': -1, ':run': run.runId, ':id': contactId },
  });
}

/**
 * Notes the monthly cap's reservation of batch `reservation.batch` of range `no` on the run, on
 * the condition that the range is still at that batch and has no reservation noted for it; false
 * when it moved on (another runner checkpointed it) or another runner of the batch noted its own first.
 */
export function noteCapReservation(
  deps: StoreDeps,
  run: Pick<CampaignRun, 'projectId' | 'campaignId' | 'runId'>,
  no: number,
  reservation: CapReservation,
): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.campaignRun(run.projectId, run.campaignId),
    expression:
      'SET ranges.#no.capBatch = :batch, ranges.#no.capMonth = :month, ranges.#no.capGranted = :granted',
    if: 'runId = :run AND ranges.#no.#batch = :batch AND (attribute_not_exists(ranges.#no.capBatch) OR ranges.#no.capBatch <> :batch)',
    names: { '#no': String(no), '#batch': 'batch' },
    values: {
      ':batch': reservation.batch,
      ':month': reservation.month,
      ':granted': reservation.granted,
      ':run': run.runId,
    },
  });
}

/** What range `no` of a run holds: its recipients' contact ids, and where the audience goes on. */
export interface CampaignRange {
  readonly ids: readonly string[];
  /** Recipients per batch: fixed with the range, so every runner of it cuts the same batches. */
  readonly batchSize: number;
  /** The audience position after the range, and whether the audience ends with it. */
  readonly next: string;
  readonly done: boolean;
}

/** A range's item lasts a month (TTL): longer than a send, a hold included, can take. */
const RANGE_TTL_SECONDS = 30 * 86_400;

/**
 * Writes range `no` unless it exists: the range as written first (by this call or another
 * runner's), which every claimer of that range then uses.
 */
export async function putRange(
  deps: StoreDeps & { readonly clock: { now(): Date } },
  run: Pick<CampaignRun, 'projectId' | 'campaignId' | 'runId'>,
  no: number,
  range: CampaignRange,
): Promise<CampaignRange> {
  const key = keys.campaignRange(run.projectId, run.campaignId, run.runId, no);
  const expiresAt = Math.ceil(deps.clock.now().getTime() / 1000) + RANGE_TTL_SECONDS;
  const item = {
    ...key,
    entity: 'campaignRange',
    ids: [...range.ids],
    batchSize: range.batchSize,
    next: range.next,
    done: range.done,
    expiresAt,
  };
  if (await deps.store.writeIf({ put: item, if: 'attribute_not_exists(pk)' })) return range;
  const found = await getRange(deps, run, no);
  if (!found) throw new Error(`Range ${no} of campaign ${run.campaignId} vanished as it was claimed`);
  return found;
}

export async function getRange(
  deps: StoreDeps,
  run: Pick<CampaignRun, 'projectId' | 'campaignId' | 'runId'>,
  no: number,
): Promise<CampaignRange | undefined> {
  const item = await deps.store.get(keys.campaignRange(run.projectId, run.campaignId, run.runId, no), {
    consistent: true,
  });
  if (!item) return undefined;
  return {
    ids: (item.ids as unknown[]).map(String),
    batchSize: Number(item.batchSize),
    next: String(item.next ?? ''),
    done: item.done === true,
  };
}

/** A running run becomes `finished`; false when it is not running (a cancel came first). */
export function finishRun(deps: StoreDeps, projectId: string, campaignId: string, runId: string, at: string) {
  return deps.store.writeIf({
    update: keys.campaignRun(projectId, campaignId),
    expression: 'SET #state = :finished, updatedAt = :at',
    if: 'runId = :run AND #state = :running',
    names: { '#state': 'state' },
    values: { ':finished': 'finished', ':running': 'running', ':run': runId, ':at': at },
  });
}

/**
 * Marks the run `runId` cancelled, creating it (state only) when its fan-out has not started
 * yet; false when the run has finished (or is another send's).
 */
export function cancelRun(deps: StoreDeps, projectId: string, campaignId: string, runId: string, at: string) {
  return deps.store.writeIf({
    update: keys.campaignRun(projectId, campaignId),
    expression:
      'SET #state = :cancelled, runId = :run, projectId = :pid, campaignId = :cid, entity = :entity, updatedAt = :at',
    if: 'attribute_not_exists(pk) OR (runId = :run AND #state IN (:running, :cancelled))',
    names: { '#state': 'state' },
    values: {
      ':cancelled': 'cancelled',
      ':running': 'running',
      ':run': runId,
      ':pid': projectId,
      ':cid': campaignId,
      ':entity': 'campaignRun',
      ':at': at,
    },
  });
}

/** Records why the fan-out's message was given up (dead-lettered); the run itself stays as it is. */
export async function recordRunError(
  deps: StoreDeps,
  projectId: string,
  campaignId: string,
  runId: string,
  error: string,
): Promise<void> {
  await deps.store.writeIf({
    update: keys.campaignRun(projectId, campaignId),
    expression: 'SET #error = :error',
    if: 'runId = :run',
    names: { '#error': 'error' },
    values: { ':error': error, ':run': runId },
  });
}

export async function deleteCampaignRun(deps: StoreDeps, projectId: string, campaignId: string) {
  await deps.store.write({ delete: keys.campaignRun(projectId, campaignId) });
}

export async function getCampaignWithRun(
  deps: StoreDeps,
  projectId: string,
  campaignId: string,
): Promise<{ record: CampaignRecord; run: CampaignRun | undefined } | undefined> {
  const [found] = await batchGetCampaigns(deps, projectId, [campaignId]);
  return found;
}
