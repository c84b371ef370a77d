/**
 * Email records: one per recipient of a send, addressed by the id `/v1/send` returns (the
 * `emailId` of lifecycle events). The SES message carries the project and email ids as tags, so
 * delivery events find their record by key. Records are in no index: nothing lists them (the
 * project's sends are listed through their `email.*` events), and an index entry would add a
 * write unit to both of a send's record writes.
 */
import type { SendCategory } from '../billing/repository';
import { eventStored } from '../events/repository';
import type { StoreDeps } from '../store/store';
import { keys } from '../table';
import type { TemplateType } from '../templates/schemas';

/**
 * SENDING while the provider is called (a record left in SENDING means the process stopped
 * there), then SENT, FAILED, or SKIPPED when the contact's subscription or the suppression list
 * excluded it. SES's events then move a sent email on (shared/email-events): DELIVERY_DELAYED,
 * DELIVERED, BOUNCED, COMPLAINED, or FAILED for a reject or a rendering failure. A record whose
 * outcome is its `email.sent` event (`sentEventId`: a campaign's or a workflow step's) is never
 * written SENT: it stays SENDING until those events move it.
 */
export type EmailStatus =
  | 'SENDING'
  | 'SENT'
  | 'FAILED'
  | 'SKIPPED'
  | 'DELIVERY_DELAYED'
  | 'DELIVERED'
  | 'BOUNCED'
  | 'COMPLAINED';

export interface EmailRecord {
  readonly id: string;
  readonly projectId: string;
  readonly contactId: string;
  readonly to: string;
  readonly from: string;
  readonly fromName: string | null;
  readonly replyTo: string | null;
  readonly subject: string;
  readonly templateId: string | null;
  readonly type: TemplateType;
  readonly status: EmailStatus;
  readonly messageId: string | null;
  /** Why it was skipped or failed (`unsubscribed`, `RENDER_ERROR`, a provider reason...). */
  readonly reason: string | null;
  readonly error: string | null;
  readonly createdAt: string;
  readonly sentAt: string | null;
  readonly updatedAt: string;
  /** The campaign that sent it (campaign emails only). */
  readonly campaignId?: string;
  /** The fan-out batch that claimed it (campaign emails only): counted with that batch alone. */
  readonly campaignBatch?: number;
  /**
   * When an unsubscribe through this email's links was first counted for its campaign (campaign
   * emails only, shared/subscriptions/routes.ts): later ones through it count no more.
   */
  readonly unsubscribeCreditedAt?: string;
  /**
   * The identity of the SES Send event that settled it after its sender stopped while it was
   * SENDING (shared/email-events/repository.ts, `settleSending`); that event recorded `email.sent`.
   */
  readonly settledBy?: string;
  /**
   * Sent while its category had no monthly cap, so nothing was reserved for it: its `email.sent`
   * event carries the category, and the event tally counts it in the month's usage
   * (shared/billing/caps.ts).
   */
  readonly tallyUsage?: SendCategory;
  /**
   * The id of the `email.sent` event that is this email's outcome (a campaign's email): its
   * sender never writes SENT on the record, whose claim stays SENDING until SES's events move it;
   * the event, stamped at the claim's `createdAt` (`sentEventAt`), is what says it went out. One
   * write fewer per recipient (docs/campaigns.md).
   */
  readonly sentEventId?: string;
}

/** When an email's `email.sent` event is stamped: its claim's time when that event is its outcome. */
export const sentEventAt = (record: EmailRecord) =>
  record.sentEventId !== undefined ? record.createdAt : (record.sentAt ?? record.updatedAt);

/** Where the `email.sent` that is a record's outcome is stored (for `eventStored`). */
export const outcomeEvent = (record: EmailRecord & { readonly sentEventId: string }) => ({
  projectId: record.projectId,
  contactId: record.contactId,
  createdAt: sentEventAt(record),
  id: record.sentEventId,
});

/**
 * What the attempt at an email came to, whatever SES's events made of it since: `sent` for any
 * email handed to SES (a later DELIVERED or BOUNCED, or FAILED by a Reject, included), `settled`
 * for one its Send event settled after the sender stopped, `sending` for one left in the provider
 * call, and `failed` or `skipped` for one never handed over. Read by the resumes of `/v1/send`
 * and of a campaign's fan-out, neither of which sends an email again once it was handed over.
 */
export type AttemptOutcome = 'sent' | 'settled' | 'sending' | 'failed' | 'skipped';

export function attemptOutcome(record: EmailRecord): AttemptOutcome {
  if (record.settledBy !== undefined) return 'settled';
  if (record.sentEventId !== undefined) {
    // Its outcome is its `email.sent` event (`readAttemptOutcome` looks it up): short of it, an
    // attempt is settled only when its sender settled it FAILED or SKIPPED (with a reason).
    if (record.status === 'SKIPPED') return 'skipped';
    if (record.status === 'FAILED' && record.reason !== null) return 'failed';
    return 'sending';
  }
  switch (record.status) {
    case 'SENDING':
      return 'sending';
    case 'SKIPPED':
      return 'skipped';
    case 'FAILED':
      return record.messageId !== null && record.sentAt !== null ? 'sent' : 'failed';
    default:
      return 'sent';
  }
}

/**
 * `attemptOutcome`, with the `email.sent` event of a record whose outcome it is looked up: `sent`
 * when that event is stored by its sender, `settled` when SES's Send event settled the record
 * (which writes `settledBy` before the same event, so an event found with no `settledBy` read
 * after it is the sender's), `sending` (unknown) while neither happened.
 */
export async function readAttemptOutcome(deps: StoreDeps, record: EmailRecord): Promise<AttemptOutcome> {
  const outcome = attemptOutcome(record);
  if (outcome !== 'sending' || record.sentEventId === undefined) return outcome;
  if (!(await eventStored(deps, outcomeEvent({ ...record, sentEventId: record.sentEventId }))))
    return 'sending';
  const now = await getEmailRecord(deps, record.projectId, record.id, { consistent: true });
  return now?.settledBy !== undefined ? 'settled' : 'sent';
}

export async function putEmailRecord(deps: StoreDeps, record: EmailRecord): Promise<void> {
  await deps.store.write({
    put: {
      ...keys.emailMessage(record.projectId, record.id),
      entity: 'email',
      ...record,
    },
  });
}

/**
 * Writes the record only if the email has none yet (a campaign's claim on its recipient): false
 * when it has one, which then stays as it is.
 */
export async function claimEmailRecord(deps: StoreDeps, record: EmailRecord): Promise<boolean> {
  // A claim whose outcome is its event leaves its unknown message id and send time out, so that
  // SES's events can set them (`if_not_exists`); they read back as null.
  const { messageId, sentAt, ...rest } = record;
  const unset = record.sentEventId !== undefined;
  return deps.store.writeIf({
    put: {
      ...keys.emailMessage(record.projectId, record.id),
      entity: 'email',
      ...rest,
      ...(unset && messageId === null ? {} : { messageId }),
      ...(unset && sentAt === null ? {} : { sentAt }),
    },
    if: 'attribute_not_exists(pk)',
  });
}

/**
 * Claims again a campaign email whose claim provably never reached SES (shared/campaigns/settle.ts):
 * the record, still SENDING as `record` shows it (claimed at its `createdAt`), with no message id
 * (SES's Send event for a message it accepted sets one as soon as it comes) and not settled,
 * gets the new claim time `at`. False when any of that changed: another settle re-claimed it, or
 * an event of SES showed that the message went out.
 */
export async function reclaimEmailRecord(deps: StoreDeps, record: EmailRecord, at: string): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.emailMessage(record.projectId, record.id),
    expression: 'SET createdAt = :at, updatedAt = :at',
    if: '#status = :sending AND createdAt = :claimed AND attribute_not_exists(messageId) AND attribute_not_exists(settledBy)',
    names: { '#status': 'status' },
    values: { ':at': at, ':sending': 'SENDING', ':claimed': record.createdAt },
  });
}

/** Deletes a record that is still SENDING (a claim given back: the provider refused to take it yet). */
export async function releaseEmailRecord(deps: StoreDeps, projectId: string, emailId: string) {
  return deps.store.writeIf({
    delete: keys.emailMessage(projectId, emailId),
    if: '#status = :sending',
    names: { '#status': 'status' },
    values: { ':sending': 'SENDING' },
  });
}

/** Changes fields of an existing record; rejects (a failed condition) when there is none. */
export async function updateEmailRecord(
  deps: StoreDeps,
  projectId: string,
  emailId: string,
  change: Partial<Pick<EmailRecord, 'status' | 'messageId' | 'reason' | 'error' | 'sentAt' | 'updatedAt'>>,
): Promise<void> {
  const entries = Object.entries(change).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return;
  await deps.store.write({
    update: keys.emailMessage(projectId, emailId),
    expression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
    names: Object.fromEntries(entries.map(([k], i) => [`#f${i}`, k])),
    values: Object.fromEntries(entries.map(([, v], i) => [`:v${i}`, v])),
    if: 'attribute_exists(pk)',
  });
}

export async function getEmailRecord(
  deps: StoreDeps,
  projectId: string,
  emailId: string,
  options: { readonly consistent?: boolean } = {},
): Promise<EmailRecord | undefined> {
  const item = await deps.store.get(keys.emailMessage(projectId, emailId), options);
  return item ? emailRecordOf(item) : undefined;
}

/** Notes that an unsubscribe through the email's links counted for its campaign (once). */
export async function markUnsubscribeCredited(
  deps: StoreDeps & { clock: { now(): Date } },
  projectId: string,
  emailId: string,
) {
  await deps.store.writeIf({
    update: keys.emailMessage(projectId, emailId),
    expression: 'SET unsubscribeCreditedAt = :at',
    if: 'attribute_exists(pk) AND attribute_not_exists(unsubscribeCreditedAt)',
    values: { ':at': deps.clock.now().toISOString() },
  });
}

/** A record from its item (a claim may leave `messageId` and `sentAt` out: null). */
export function emailRecordOf(item: Readonly<Record<string, unknown>>): EmailRecord {
  const { pk: _pk, sk: _sk, entity: _e, ...record } = item;
  return {
    ...record,
    messageId: item.messageId ?? null,
    sentAt: item.sentAt ?? null,
  } as unknown as EmailRecord;
}
