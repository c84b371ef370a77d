/**
 * Campaign use cases. Every write of a definition checks
 * before storing anything (Liquid syntax: 422; the sender domain registered and verified: 403;
 * the segment of a SEGMENT audience: 404), and every change of state is a write conditional on
 * the version read, retried a few times when another request changed the campaign meanwhile.
 *
 * States (docs/campaigns.md): DRAFT -> SCHEDULED (send with `scheduledFor`) or SENDING
 * (send now); SCHEDULED -> SENDING (its schedule fires, or send now), SCHEDULED (send again with
 * another time: rescheduled) or DRAFT (cancel); SENDING -> SENT (every recipient settled) or
 * CANCELLED (cancel). Only a DRAFT can be changed (PUT); a SENDING campaign cannot be deleted.
 *
 * Starting a send writes in an order a crash cannot break: the fan-out's message (or the one-off
 * schedule) first, then the campaign's new state, then the old schedule is deleted. A message or
 * schedule whose state write never landed finds the campaign otherwise and does nothing
 * (`fanout.ts`, `load`); a schedule left behind fires for nothing.
 */
import { PermanentSendError, RetryableSendError } from '../adapters/aws/send-errors';
import { requireRoomFor } from '../billing/caps';
import type { ContactRecord } from '../contacts/repository';
import { findContactsByEmail } from '../contacts/repository';
import { requireVerifiedSenderDomain } from '../domains/sender';
import { AppError, badRequest, conflict, notFound } from '../errors';
import { enqueue, scheduleJob } from '../jobs/registry';
import { type OffsetPage, pageOf } from '../offset-list';
import type { Deps } from '../ports';
import { getSegmentRecord } from '../segments/members';
import { sleep } from '../store/store';
import { linkSettings } from '../subscriptions/links';
import { campaignScheduleName, campaignSendJobMessage } from './messages';
import { type Campaign, type CampaignStats, present, statsOf } from './present';
import {
  batchGetCampaigns,
  type CampaignRecord,
  cancelRun,
  cancelSendingCampaign,
  deleteCampaignItem,
  deleteCampaignRun,
  getCampaignRecord,
  getCampaignWithRun,
  listCampaignSummaries,
  putNewCampaign,
  replaceCampaign,
} from './repository';
import { roomNeededFor } from './room';
import { type CampaignInput, type CampaignStatus, type ListCampaignsQuery, MAX_NAME_CHARS } from './schemas';

export type CampaignDeps = Pick<
  Deps,
  'store' | 'clock' | 'ids' | 'queue' | 'scheduler' | 'mailer' | 'config'
>;

/** Attempts of a read-modify-write before the request gives up (409 CAMPAIGN_BUSY). */
const MAX_ATTEMPTS = 5;

const notSendable = (status: CampaignStatus, why?: string) =>
  new AppError(400, 'CAMPAIGN_NOT_SENDABLE', why ?? `A ${status} campaign cannot be sent`, {
    details: { status },
    suggestion: 'Send a DRAFT or SCHEDULED campaign; duplicate a sent or cancelled one to send it again',
  });

const busy = (campaignId: string) =>
  conflict('CAMPAIGN_BUSY', 'The campaign is being changed by another request; retry shortly', {
    campaignId,
  });

const backoff = (attempt: number) =>
  attempt > 0 ? sleep(Math.min(200, 5 * 2 ** attempt) * Math.random()) : Promise.resolve();

/** Checks a definition's content and references before it is stored (422, 403, 404). */
async function checkDefinition(deps: CampaignDeps, projectId: string, input: CampaignInput): Promise<void> {
  // The renderer is loaded on the first write, not at every cold start (lib/bundling.ts).
  const { compileAll } = await import('../rendering');
  compileAll([
    { field: 'subject', source: input.subject, kind: 'text' },
    { field: 'body', source: input.body, kind: 'html' },
  ]);
  await requireVerifiedSenderDomain(deps, projectId, input.from);
  if (input.segmentId && !(await getSegmentRecord(deps, projectId, input.segmentId)))
    throw notFound('Segment');
}

export async function createCampaign(
  deps: CampaignDeps,
  projectId: string,
  input: CampaignInput,
): Promise<Campaign> {
  await checkDefinition(deps, projectId, input);
  return putDraft(deps, { projectId, ...input });
}

/** Stores a new DRAFT campaign with this definition (a create, or a duplicate's copy). */
async function putDraft(
  deps: CampaignDeps,
  definition: Omit<CampaignRecord, DraftState | 'id' | 'createdAt' | 'updatedAt' | 'version'>,
): Promise<Campaign> {
  const now = deps.clock.now().toISOString();
  const record: CampaignRecord = {
    ...definition,
    id: deps.ids.uuid(),
    status: 'DRAFT',
    scheduledFor: null,
    totalRecipients: null,
    sentAt: null,
    createdAt: now,
    updatedAt: now,
    version: 1,
    runId: null,
    scheduleToken: null,
    startedAt: null,
    completedAt: null,
  };
  if (!(await putNewCampaign(deps, record))) throw new Error('A new campaign id collided');
  return present(record, undefined);
}

/** What a new draft starts with, whatever the campaign it may copy. */
type DraftState =
  | 'status'
  | 'scheduledFor'
  | 'totalRecipients'
  | 'sentAt'
  | 'runId'
  | 'scheduleToken'
  | 'startedAt'
  | 'completedAt';

async function requireCampaign(deps: CampaignDeps, projectId: string, campaignId: string) {
  const found = await getCampaignWithRun(deps, projectId, campaignId);
  if (!found) throw notFound('Campaign');
  return found;
}

export async function getCampaign(
  deps: CampaignDeps,
  projectId: string,
  campaignId: string,
): Promise<Campaign> {
  const { record, run } = await requireCampaign(deps, projectId, campaignId);
  return present(record, run);
}

/** A campaign read for a change: strongly consistent, so the version it carries is current. */
async function current(deps: CampaignDeps, projectId: string, campaignId: string): Promise<CampaignRecord> {
  const record = await getCampaignRecord(deps, projectId, campaignId, { consistent: true });
  if (!record) throw notFound('Campaign');
  return record;
}

/**
 * `PUT`: replaces the definition of a DRAFT campaign (every field as on create; status, schedule
 * and counters are not the caller's). Any other state is a 400 CAMPAIGN_NOT_EDITABLE: cancel a
 * SCHEDULED campaign first (it becomes a DRAFT again); a sent one can be duplicated.
 */
export async function replaceCampaignDefinition(
  deps: CampaignDeps,
  projectId: string,
  campaignId: string,
  input: CampaignInput,
): Promise<Campaign> {
  let checked = false;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    await backoff(attempt);
    const record = await current(deps, projectId, campaignId);
    if (record.status !== 'DRAFT') {
      throw new AppError(400, 'CAMPAIGN_NOT_EDITABLE', `A ${record.status} campaign cannot be changed`, {
        details: { status: record.status },
        suggestion:
          record.status === 'SCHEDULED'
            ? 'Cancel the schedule first (POST /campaigns/{id}/cancel): the campaign becomes a DRAFT again'
            : 'Duplicate the campaign (POST /campaigns/{id}/duplicate) and change the copy',
      });
    }
    if (!checked) {
      await checkDefinition(deps, projectId, input);
      checked = true;
    }
    const next: CampaignRecord = {
      ...record,
      ...input,
      updatedAt: deps.clock.now().toISOString(),
      version: record.version + 1,
    };
    if (await replaceCampaign(deps, next, { version: record.version, status: ['DRAFT'] }))
      return present(next, undefined);
  }
  throw busy(campaignId);
}

/**
 * Deletes a campaign and its run. A SENDING campaign is refused (409 CAMPAIGN_SENDING: its
 * fan-out is active; cancel it first); a SCHEDULED one loses its schedule too.
 */
export async function deleteCampaign(
  deps: CampaignDeps,
  projectId: string,
  campaignId: string,
): Promise<void> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    await backoff(attempt);
    const record = await current(deps, projectId, campaignId);
    if (record.status === 'SENDING') {
      throw conflict('CAMPAIGN_SENDING', 'The campaign is being sent; cancel it before deleting it', {
        campaignId,
        status: record.status,
      });
    }
    if (!(await deleteCampaignItem(deps, projectId, campaignId, [record.status]))) continue;
    if (record.status === 'SCHEDULED' && record.scheduleToken)
      await deps.scheduler.cancel(campaignScheduleName(campaignId, record.scheduleToken));
    await deleteCampaignRun(deps, projectId, campaignId);
    return;
  }
  throw busy(campaignId);
}

/** A new DRAFT with the campaign's definition, named "<name> (copy)"; the original is unchanged. */
export async function duplicateCampaign(
  deps: CampaignDeps,
  projectId: string,
  campaignId: string,
): Promise<Campaign> {
  const source = await current(deps, projectId, campaignId);
  const suffix = ' (copy)';
  return putDraft(deps, {
    ...source,
    name: `${source.name.slice(0, MAX_NAME_CHARS - suffix.length)}${suffix}`,
  });
}

export interface SendOutcome {
  readonly campaign: Campaign;
  readonly message: string;
}

/**
 * `POST /campaigns/{id}/send`, from DRAFT or SCHEDULED (a SCHEDULED campaign sent again is
 * rescheduled, or sent now). With `scheduledFor`, a one-off schedule (replacing the campaign's
 * schedule, if any) starts the send at that time; without, the fan-out is queued now. The
 * sender domain must still be verified (403) and a SEGMENT audience's segment must still exist.
 * A send now whose audience would pass the monthly campaigns cap is refused (403
 * `BILLING_LIMIT_REACHED`, `roomNeededFor`); a scheduled one is checked when it fires (fanout.ts).
 */
export async function sendCampaign(
  deps: CampaignDeps,
  projectId: string,
  campaignId: string,
  scheduledFor: Date | null,
): Promise<SendOutcome> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    await backoff(attempt);
    const record = await current(deps, projectId, campaignId);
    if (record.status !== 'DRAFT' && record.status !== 'SCHEDULED') throw notSendable(record.status);
    const now = deps.clock.now();
    if (scheduledFor && scheduledFor.getTime() <= now.getTime()) {
      throw badRequest('scheduledFor is in the past', {
        scheduledFor: scheduledFor.toISOString(),
        now: now.toISOString(),
      });
    }
    if (attempt === 0) {
      await requireVerifiedSenderDomain(deps, projectId, record.from);
      if (record.segmentId && !(await getSegmentRecord(deps, projectId, record.segmentId)))
        throw notSendable(record.status, 'The segment of the campaign no longer exists');
      // The monthly cap, before a send starts now (a scheduled one is checked when it fires).
      if (!scheduledFor)
        await requireRoomFor(deps, projectId, 'campaigns', await roomNeededFor(deps, projectId, record));
    }
    const previousSchedule =
      record.status === 'SCHEDULED' && record.scheduleToken
        ? campaignScheduleName(campaignId, record.scheduleToken)
        : undefined;
    let next: CampaignRecord;
    let undo: (() => Promise<void>) | undefined;
    if (scheduledFor) {
      const token = deps.ids.uuid().replace(/-/g, '').slice(0, 12);
      const name = campaignScheduleName(campaignId, token);
      await scheduleJob(
        deps,
        campaignSendJobMessage,
        { projectId, campaignId, runId: token, trigger: 'schedule' },
        { name, at: scheduledFor },
      );
      undo = () => deps.scheduler.cancel(name);
      next = {
        ...record,
        status: 'SCHEDULED',
        scheduledFor: scheduledFor.toISOString(),
        scheduleToken: token,
        updatedAt: now.toISOString(),
        version: record.version + 1,
      };
    } else {
      const runId = deps.ids.uuid();
      await enqueue(deps, campaignSendJobMessage, { projectId, campaignId, runId, trigger: 'now' });
      next = {
        ...record,
        status: 'SENDING',
        scheduledFor: null,
        scheduleToken: null,
        runId,
        startedAt: now.toISOString(),
        updatedAt: now.toISOString(),
        version: record.version + 1,
      };
    }
    if (!(await replaceCampaign(deps, next, { version: record.version, status: [record.status] }))) {
      // Changed meanwhile: the queued message gives up by itself; the new schedule is removed.
      await undo?.();
      continue;
    }
    if (previousSchedule) await deps.scheduler.cancel(previousSchedule);
    return {
      campaign: present(next, undefined),
      message: scheduledFor
        ? `Campaign scheduled for ${scheduledFor.toISOString()}`
        : 'Campaign is being sent',
    };
  }
  throw busy(campaignId);
}

/**
 * `POST /campaigns/{id}/cancel`: a SCHEDULED campaign becomes a DRAFT again (its schedule is
 * deleted); a SENDING one becomes CANCELLED: its fan-out claims no recipient after the batch
 * under way, and the recipients already handled stay counted. Any other state is a 400
 * CAMPAIGN_NOT_CANCELLABLE (so is a send whose fan-out has just finished).
 */
export async function cancelCampaign(
  deps: CampaignDeps,
  projectId: string,
  campaignId: string,
): Promise<Campaign> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    await backoff(attempt);
    const record = await current(deps, projectId, campaignId);
    const at = deps.clock.now().toISOString();
    if (record.status === 'SCHEDULED') {
      const next: CampaignRecord = {
        ...record,
        status: 'DRAFT',
        scheduledFor: null,
        scheduleToken: null,
        updatedAt: at,
        version: record.version + 1,
      };
      if (!(await replaceCampaign(deps, next, { version: record.version, status: ['SCHEDULED'] }))) continue;
      if (record.scheduleToken)
        await deps.scheduler.cancel(campaignScheduleName(campaignId, record.scheduleToken));
      return present(next, undefined);
    }
    if (record.status === 'SENDING' && record.runId) {
      // The run first: the fan-out reads it before each batch, and ends the campaign CANCELLED
      // itself if this request stops before the campaign's own write below.
      if (!(await cancelRun(deps, projectId, campaignId, record.runId, at))) {
        throw notCancellable('SENDING', 'The campaign has just finished sending');
      }
      await cancelSendingCampaign(deps, projectId, campaignId, record.runId, at);
      const after = await requireCampaign(deps, projectId, campaignId);
      return present(after.record, after.run);
    }
    throw notCancellable(record.status);
  }
  throw busy(campaignId);
}

const notCancellable = (status: CampaignStatus, why?: string) =>
  new AppError(400, 'CAMPAIGN_NOT_CANCELLABLE', why ?? `A ${status} campaign cannot be cancelled`, {
    details: { status },
    suggestion: 'Only SCHEDULED and SENDING campaigns can be cancelled',
  });

/**
 * The offset list, as GET /templates: the project's campaign summaries (no bodies) are
 * filtered and sorted, then the requested page's campaigns and runs are read.
 */
export async function listCampaigns(
  deps: CampaignDeps,
  projectId: string,
  q: ListCampaignsQuery,
): Promise<OffsetPage<Campaign>> {
  const search = q.search ? q.search.toLowerCase() : undefined;
  const matches = (await listCampaignSummaries(deps, projectId)).filter(
    (c) =>
      (q.status === undefined || c.status === q.status) &&
      (search === undefined || [c.name, c.subject, c.from].some((s) => s.toLowerCase().includes(search))),
  );
  const { ids, shape } = pageOf(matches, q);
  const found = await batchGetCampaigns(deps, projectId, ids);
  return { data: found.map(({ record, run }) => present(record, run)), ...shape };
}

/** `GET /campaigns/{id}/stats`: from the campaign's run (one read each of the campaign and run). */
export async function campaignStats(
  deps: CampaignDeps,
  projectId: string,
  campaignId: string,
): Promise<CampaignStats> {
  const { record, run } = await requireCampaign(deps, projectId, campaignId);
  return statsOf(record, run);
}

/** The contact id a test send's links carry when the address is no contact (the pages find nobody). */
const NO_CONTACT = '00000000-0000-0000-0000-000000000000';

export interface TestSendResult {
  readonly email: string;
  readonly subject: string;
  readonly messageId: string;
  /** Whether the address is a contact of the project (whose data rendered the message). */
  readonly contact: boolean;
}

/**
 * `POST /campaigns/{id}/test`: the campaign's message, rendered for `email` (with that contact's
 * data when the address is a contact, else with none), subject prefixed `[Test] `, mailed to that
 * one address whatever its subscription, under the content type's footer and list-header rules.
 * Counted nowhere: no email record, no lifecycle event, no campaign counter (the SES tags name
 * the campaign and mark the message `test`).
 */
export async function testSendCampaign(
  deps: CampaignDeps,
  projectId: string,
  campaignId: string,
  email: string,
): Promise<TestSendResult> {
  const record = await current(deps, projectId, campaignId);
  await requireVerifiedSenderDomain(deps, projectId, record.from);
  // Rendering and MIME are loaded by the first test send, not at every cold start.
  const [{ campaignContent }, { renderMessage }] = await Promise.all([
    import('./content'),
    import('../sending/compose'),
  ]);
  const content = campaignContent(record, await linkSettings(deps.config), '[Test] ');
  const lower = email.toLowerCase();
  const found = (await findContactsByEmail(deps, projectId, [lower])).get(lower);
  const now = deps.clock.now();
  const contact: ContactRecord = found ?? {
    id: NO_CONTACT,
    email,
    emailLower: lower,
    subscribed: true,
    snoozedUntil: null,
    data: {},
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    version: 0,
  };
  const message = await renderMessage(projectId, content, { to: { email }, contact }, now);
  if (!message.ok) {
    const render = message.reason === 'RENDER_ERROR';
    throw new AppError(
      422,
      render ? 'TEMPLATE_RENDER_ERROR' : 'MESSAGE_TOO_LARGE',
      render
        ? `The campaign could not be rendered: ${message.message}`
        : `The message is too large: ${message.message}`,
    );
  }
  try {
    const { messageId } = await deps.mailer.sendRaw({
      from: record.from,
      to: [email],
      raw: message.raw,
      tags: { projectId, campaignId, test: 'true' },
    });
    return { email, subject: message.subject, messageId, contact: found !== undefined };
  } catch (error) {
    if (error instanceof RetryableSendError) {
      throw new AppError(
        503,
        'EMAIL_SEND_THROTTLED',
        'The email provider is throttling or unavailable; retry later',
        {
          headers: { 'Retry-After': '60' },
          details: { reason: error.reason },
        },
      );
    }
    if (error instanceof PermanentSendError) {
      throw new AppError(502, 'EMAIL_SEND_FAILED', `The email could not be sent: ${error.message}`, {
        details: { reason: error.reason },
      });
    }
    throw error;
  }
}
