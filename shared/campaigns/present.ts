/**
 * A campaign and its figures as the API shows them, from its record and run: a module of its own
 * so that the activity routes (top campaigns) use them without the campaign service.
 */
import type { CampaignRecord, CampaignRun } from './repository';

/** The record's fields the API shows as they are stored. */
type ShownField =
  | 'id'
  | 'projectId'
  | 'name'
  | 'description'
  | 'subject'
  | 'body'
  | 'from'
  | 'fromName'
  | 'replyTo'
  | 'type'
  | 'status'
  | 'audienceType'
  | 'audienceCondition'
  | 'segmentId'
  | 'scheduledFor'
  | 'sentAt'
  | 'createdAt'
  | 'updatedAt';

/** The counters a campaign and its stats both show. */
export interface CampaignCounters {
  readonly totalRecipients: number;
  readonly sentCount: number;
  readonly deliveredCount: number;
  readonly openedCount: number;
  readonly clickedCount: number;
  readonly bouncedCount: number;
}

/** The API shape of a campaign. */
export type Campaign = Pick<CampaignRecord, ShownField> & CampaignCounters;

/**
 * The run's counters: `totalRecipients` is fixed once the fan-out ends, and while it runs counts
 * the recipients handled so far.
 */
function countersOf(record: CampaignRecord, run: CampaignRun | undefined): CampaignCounters {
  return {
    totalRecipients: record.totalRecipients ?? run?.recipients ?? 0,
    sentCount: run?.sent ?? 0,
    deliveredCount: run?.engagement.delivered ?? 0,
    openedCount: run?.engagement.opened ?? 0,
    clickedCount: run?.engagement.clicked ?? 0,
    bouncedCount: run?.engagement.bounced ?? 0,
  };
}

/** The campaign with its run's counters. */
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
    ...countersOf(record, run),
    sentAt: record.sentAt,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

export interface CampaignStats extends CampaignCounters {
  /**
   * Sesame's extension: recipients whose send a crash left without an outcome, until the
   * campaign's settle gives them one (settle.ts); 0 once every recipient is settled.
   */
  readonly unknownCount: number;
  readonly complainedCount: number;
  readonly unsubscribedCount: number;
  /** Percentages of `sentCount` (two decimals, at most 100), 0 when nothing was sent. */
  readonly openRate: number;
  readonly clickRate: number;
  readonly bounceRate: number;
  readonly deliveryRate: number;
}

/** A campaign's figures from its run's counters. */
export function statsOf(record: CampaignRecord, run: CampaignRun | undefined): CampaignStats {
  const counters = countersOf(record, run);
  // At most 100: a count can run ahead of `sentCount` while recipients are being settled.
  const rate = (n: number) =>
    counters.sentCount === 0 ? 0 : Math.min(100, Math.round((n / counters.sentCount) * 10_000) / 100);
  return {
    ...counters,
    unknownCount: run?.unknown ?? 0,
    complainedCount: run?.engagement.complained ?? 0,
    unsubscribedCount: run?.engagement.unsubscribed ?? 0,
    openRate: rate(counters.openedCount),
    clickRate: rate(counters.clickedCount),
    bounceRate: rate(counters.bouncedCount),
    deliveryRate: rate(counters.deliveredCount),
  };
}
