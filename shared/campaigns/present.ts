/**
 * A campaign and its figures as the API shows them, from its record and run: a module of its own
 * so that the activity routes (top campaigns) use them without the campaign service.
 */
import type { CampaignRecord, CampaignRun } from './repository';
import type { AudienceType, CampaignStatus } from './schemas';

/** The API shape of a campaign. */
export interface Campaign {
  readonly id: string;
  readonly projectId: string;
  readonly name: string;
  readonly description: string | null;
  readonly subject: string;
  readonly body: string;
  readonly from: string;
  readonly fromName: string | null;
  readonly replyTo: string | null;
  readonly type: CampaignRecord['type'];
  readonly status: CampaignStatus;
  readonly audienceType: AudienceType;
  readonly audienceCondition: CampaignRecord['audienceCondition'];
  readonly segmentId: string | null;
  readonly scheduledFor: string | null;
  readonly totalRecipients: number;
  readonly sentCount: number;
  readonly deliveredCount: number;
  readonly openedCount: number;
  readonly clickedCount: number;
  readonly bouncedCount: number;
  readonly sentAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/**
 * The campaign with its run's counters: `totalRecipients` is fixed once the fan-out ends, and
 * while it runs counts the recipients handled so far.
 */
export function present(record: CampaignRecord, run: CampaignRun | undefined): Campaign {
  return {
    id: record.id,
    projectId: record.projectId,
    name: record.name,
    description: record.description,
    subject: record.subject,
    body: record.body,
    from: record.from,
    fromName: record.fromName,
    replyTo: record.replyTo,
    type: record.type,
    status: record.status,
    audienceType: record.audienceType,
    audienceCondition: record.audienceCondition,
    segmentId: record.segmentId,
    scheduledFor: record.scheduledFor,
    totalRecipients: record.totalRecipients ?? run?.recipients ?? 0,
    sentCount: run?.sent ?? 0,
    deliveredCount: run?.engagement.delivered ?? 0,
    openedCount: run?.engagement.opened ?? 0,
    clickedCount: run?.engagement.clicked ?? 0,
    bouncedCount: run?.engagement.bounced ?? 0,
    sentAt: record.sentAt,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

export interface CampaignStats {
  readonly totalRecipients: number;
  readonly sentCount: number;
  readonly deliveredCount: number;
  readonly openedCount: number;
  readonly clickedCount: number;
  readonly bouncedCount: number;
  readonly complainedCount: number;
  readonly unsubscribedCount: number;
  /** Percentages of `sentCount` (two decimals), 0 when nothing was sent. */
  readonly openRate: number;
  readonly clickRate: number;
  readonly bounceRate: number;
  readonly deliveryRate: number;
}

/** A campaign's figures from its run's counters. */
export function statsOf(record: CampaignRecord, run: CampaignRun | undefined): CampaignStats {
  const sent = run?.sent ?? 0;
  const e = run?.engagement;
  const rate = (n: number) => (sent === 0 ? 0 : Math.round((n / sent) * 10_000) / 100);
  return {
    totalRecipients: present(record, run).totalRecipients,
    sentCount: sent,
    deliveredCount: e?.delivered ?? 0,
    openedCount: e?.opened ?? 0,
    clickedCount: e?.clicked ?? 0,
    bouncedCount: e?.bounced ?? 0,
    complainedCount: e?.complained ?? 0,
    unsubscribedCount: e?.unsubscribed ?? 0,
    openRate: rate(e?.opened ?? 0),
    clickRate: rate(e?.clicked ?? 0),
    bounceRate: rate(e?.bounced ?? 0),
    deliveryRate: rate(e?.delivered ?? 0),
  };
}
