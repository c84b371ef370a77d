/**
 * What becomes of one email: its entry in a send's result, and the record and lifecycle event
 * (`email.sent`, `email.failed`) that settle it. Shared by `compose.ts` (an email that never
 * reaches the provider), `deliver.ts` and the resume of an interrupted send.
 */
import { emit } from '../events/emit';
import type { EventRecord } from '../events/repository';
import type { Deps } from '../ports';
import type { StoreDeps } from '../store/store';
import { type EmailRecord, putEmailRecord, updateEmailRecord } from './repository';

export type OutcomeDeps = StoreDeps & Pick<Deps, 'clock' | 'queue'>;

export const EMAIL_SENT = 'email.sent';
export const EMAIL_FAILED = 'email.failed';

/**
 * `unknown`: an earlier attempt (same Idempotency-Key) stopped while the provider call for this
 * recipient was in flight; it may have gone out, so it is never sent again.
 */
export type RecipientStatus = 'sent' | 'skipped' | 'failed' | 'unknown';

/** One entry of the Send result; `status` and `reason` are added to `{contact, email}`. */
export interface SentEmail {
  readonly contact: { readonly id: string; readonly email: string };
  /** The email record id, `emailId` in lifecycle events. */
  readonly email: string;
  readonly status: RecipientStatus;
  /** Why it was skipped or failed (`unsubscribed`, `RENDER_ERROR`, a provider reason). */
  readonly reason?: string;
  readonly error?: string;
}

/** Ids of one email's record and events; a send under an Idempotency-Key derives them from its claim. */
export interface EmailIds {
  readonly email: string;
  readonly sentEvent: string;
  readonly failedEvent: string;
}

/** The `email.sent` event of a record that went out. */
export function sentEvent(
  record: EmailRecord,
  eventId: string,
  sent: { readonly messageId: string | null; readonly at: string; readonly contactEmail: string },
): EventRecord {
  return {
    id: eventId,
    projectId: record.projectId,
    contactId: record.contactId,
    email: sent.contactEmail,
    name: EMAIL_SENT,
    data: {
      emailId: record.id,
      messageId: sent.messageId,
      subject: record.subject,
      from: record.from,
      templateId: record.templateId,
      ...campaignOf(record),
    },
    createdAt: sent.at,
    ...(record.tallyUsage ? { tallyUsage: record.tallyUsage } : {}),
  };
}

/** `campaignId` in event data, for a campaign's email only. */
const campaignOf = (record: EmailRecord) => (record.campaignId ? { campaignId: record.campaignId } : {});

/** The `email.failed` event of a record that failed at `at` (its `updatedAt` once settled). */
export function failedEvent(
  record: EmailRecord,
  eventId: string,
  failure: { readonly reason: string; readonly message: string; readonly at: string },
): EventRecord {
  return {
    id: eventId,
    projectId: record.projectId,
    contactId: record.contactId,
    email: record.to,
    name: EMAIL_FAILED,
    data: {
      emailId: record.id,
      subject: record.subject,
      from: record.from,
      templateId: record.templateId,
      ...campaignOf(record),
      reason: failure.reason,
      error: failure.message,
    },
    createdAt: failure.at,
  };
}

/**
 * Settles an email as failed: its record FAILED (written, or updated when `recordExists`: the
 * provider was called), then its `email.failed` event. Answers the entry with `entry` as its base.
 */
export async function recordFailure(
  deps: OutcomeDeps,
  record: EmailRecord,
  failure: { readonly reason: string; readonly message: string; readonly eventId: string },
  entry: Pick<SentEmail, 'contact' | 'email'>,
  recordExists = false,
): Promise<SentEmail & { readonly status: 'failed' }> {
  const { reason, message } = failure;
  const at = deps.clock.now().toISOString();
  if (recordExists) {
    await updateEmailRecord(deps, record.projectId, record.id, {
      status: 'FAILED',
      reason,
      error: message,
      updatedAt: at,
    });
  } else {
    await putEmailRecord(deps, { ...record, status: 'FAILED', reason, error: message, updatedAt: at });
  }
  await emit(deps, failedEvent(record, failure.eventId, { reason, message, at }));
  return { ...entry, status: 'failed', reason, error: message };
}
