/**
 * Audience count use cases (docs/campaigns.md, "The audience before sending"): start a count
 * (its item, then its job's first message) and read one back. Two reads or writes per request,
 * whatever the audience's size: the counting itself is the job's (`count.ts`), which the route
 * group does not load.
 */
import { conflict, notFound } from '../errors';
import { enqueue } from '../jobs/registry';
import type { Deps } from '../ports';
import { type AudienceCountRecord, type CountRef, getCount, putCount } from './count-repository';
import { audienceCountJobMessage } from './messages';
import { getCampaignRecord } from './repository';
import type { AudienceCountInput } from './schemas';

export type CountDeps = Pick<Deps, 'store' | 'clock' | 'ids' | 'queue'>;

/** What a campaign's audience is counted from: a campaign not yet sent. */
const COUNTABLE = ['DRAFT', 'SCHEDULED'];

/** The public shape of a count (`audienceCountAnswer`). */
export function presentCount(count: AudienceCountRecord) {
  const { unsubscribed, suppressed, snoozed } = count.excluded;
  return {
    id: count.id,
    campaignId: count.campaignId,
    status: count.status,
    type: count.type,
    audienceType: count.audienceType,
    audienceCondition: count.audienceCondition,
    segmentId: count.segmentId,
    count: count.count,
    matched: count.count + unsubscribed + suppressed + snoozed,
    excluded: { unsubscribed, suppressed, snoozed },
    sample: count.sample,
    computedAt: count.at,
    createdAt: count.createdAt,
    completedAt: count.completedAt,
    ...(count.error ? { error: count.error } : {}),
  };
}

export type AudienceCount = ReturnType<typeof presentCount>;

/** Stores a new count and queues its first message (a campaign's replaces its previous count). */
async function start(
  deps: CountDeps,
  projectId: string,
  audience: Pick<
    AudienceCountRecord,
    'campaignId' | 'type' | 'audienceType' | 'audienceCondition' | 'segmentId'
  >,
): Promise<AudienceCount> {
  const at = deps.clock.now().toISOString();
  const runId = deps.ids.uuid();
  const count: AudienceCountRecord = {
    id: audience.campaignId ?? runId,
    projectId,
    ...audience,
    runId,
    status: 'queued',
    at,
    position: '',
    chunk: 0,
    examined: 0,
    count: 0,
    excluded: { unsubscribed: 0, suppressed: 0, snoozed: 0 },
    sample: [],
    createdAt: at,
    completedAt: null,
  };
  await putCount(deps, count);
  await enqueue(deps, audienceCountJobMessage, {
    projectId,
    runId,
    ...(audience.campaignId ? { campaignId: audience.campaignId } : { countId: count.id }),
  });
  return presentCount(count);
}

/**
 * `POST /campaigns/{id}/audience`: counts the campaign's audience as it is defined now. 404 for
 * an unknown campaign; 409 `CAMPAIGN_ALREADY_SENT` once a send has started (SENDING, SENT,
 * CANCELLED): its recipients are in its stats.
 */
export async function startCampaignCount(
  deps: CountDeps,
  projectId: string,
  campaignId: string,
): Promise<AudienceCount> {
  const campaign = await getCampaignRecord(deps, projectId, campaignId, { consistent: true });
  if (!campaign) throw notFound('Campaign');
  if (!COUNTABLE.includes(campaign.status))
    throw conflict(
      'CAMPAIGN_ALREADY_SENT',
      `A ${campaign.status} campaign's audience is not counted: its send has started; its stats count its recipients`,
      { campaignId, status: campaign.status },
    );
  return start(deps, projectId, {
    campaignId,
    type: campaign.type,
    audienceType: campaign.audienceType,
    audienceCondition: campaign.audienceType === 'FILTERED' ? campaign.audienceCondition : null,
    segmentId: campaign.audienceType === 'SEGMENT' ? campaign.segmentId : null,
  });
}

/** `POST /audiences`: counts a condition tree alone, under the rules of the content type given. */
export async function startTreeCount(
  deps: CountDeps,
  projectId: string,
  input: AudienceCountInput,
): Promise<AudienceCount> {
  return start(deps, projectId, {
    campaignId: null,
    type: input.type,
    audienceType: 'FILTERED',
    audienceCondition: input.condition,
    segmentId: null,
  });
}

async function read(deps: CountDeps, ref: CountRef): Promise<AudienceCount> {
  const count = await getCount(deps, ref, deps.clock.now(), { consistent: true });
  if (!count) throw notFound('Audience count');
  return presentCount(count);
}

/** `GET /campaigns/{id}/audience`: the campaign's latest count; 404 for an unknown campaign or none. */
export async function getCampaignCount(
  deps: CountDeps,
  projectId: string,
  campaignId: string,
): Promise<AudienceCount> {
  if (!(await getCampaignRecord(deps, projectId, campaignId))) throw notFound('Campaign');
  return read(deps, { projectId, campaignId });
}

/** `GET /audiences/{id}`: a tree's count (kept `COUNT_RETENTION_DAYS`). */
export const getTreeCount = (deps: CountDeps, projectId: string, countId: string) =>
  read(deps, { projectId, countId });
