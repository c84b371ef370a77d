/**
 * Delivering one composed email: its record first (SENDING, so a process that stops during the
 * provider call leaves a trace), the provider call with the caller's retry policy, then the
 * record's outcome and its lifecycle event (for a record whose outcome is its `email.sent`, a
 * campaign's, the event alone: `EmailRecord.sentEventId`). And `resumeEmail`, which tells what an earlier
 * attempt with the same ids did, so that a caller that runs again (a resumed Idempotency-Key, a
 * redelivered job message) never sends one email twice.
 */
import { PermanentSendError, RetryableSendError } from '../adapters/aws/send-errors';
import { emit } from '../events/emit';
import type { Deps, RawEmail } from '../ports';
import { sleep } from '../store/store';
import type { ComposedEmail } from './compose';
import { type EmailIds, type OutcomeDeps, recordFailure, type SentEmail, sentEvent } from './outcomes';
import {
  claimEmailRecord,
  type EmailRecord,
  getEmailRecord,
  putEmailRecord,
  readAttemptOutcome,
  releaseEmailRecord,
  sentEventAt,
  updateEmailRecord,
} from './repository';

export type DeliverDeps = OutcomeDeps & Pick<Deps, 'mailer'>;

/** How hard to try the provider when it asks to retry (throttling, its own faults). */
export interface DeliveryPolicy {
  /** Provider calls per email at most. */
  readonly attempts: number;
  /**
   * Epoch ms (of `deps.clock`) after which no retry starts: a request's time budget. A background
   * job with its own retries may leave it out. @default none
   */
  readonly retryDeadline?: number;
  /** The first backoff, doubled per attempt and jittered (0.5x to 1.5x). @default 200 */
  readonly backoffMs?: number;
}

/** How a caller that claims its recipients (a campaign's fan-out) has `deliverEmail` behave. */
export interface DeliverOptions {
  /**
   * The record's first write is a claim: it is written only when the email has no record yet,
   * and when it has one (an earlier attempt claimed it), nothing is sent and undefined is
   * answered. @default false (the record is written whatever is there)
   */
  readonly claim?: boolean;
  /**
   * The record is written already, claimed again by the caller (`reclaimEmailRecord`: a campaign
   * email whose first claim never reached SES): no first write. @default false
   */
  readonly claimed?: boolean;
  /**
   * When the provider still asks to retry (throttling, its own faults) after the policy's
   * attempts, give the claim back (the record, still SENDING, is deleted) and throw the
   * `RetryableSendError` instead of settling the email as failed, so that the caller can try it
   * again later. @default false
   */
  readonly releaseWhenRetryable?: boolean;
  /**
   * Called once the record is written (the claim held), before `beforeSend`: a monthly cap's
   * reservation (shared/billing/caps.ts), made only by the attempt whose claim landed, so a
   * redelivery never counts the email twice. When it answers a refusal, nothing is sent and the
   * email is settled FAILED with the refusal's reason and message; when it throws, the claim is
   * given back (the record deleted) and the error thrown, for the caller to try again. @default none
   */
  readonly admit?: () => Promise<{ readonly reason: string; readonly message: string } | undefined>;
  /**
   * Called once the record is written (the claim held), just before the provider call: a caller
   * that paces its sends waits there for its turn. @default none
   */
  readonly beforeSend?: () => Promise<void>;
}

/**
 * Writes the record, calls the provider and settles the email: `sent` (record SENT, `email.sent`)
 * or `failed` (record FAILED, `email.failed`) once the provider refuses or the policy's retries
 * are spent. Errors of the store propagate: the email's state is then what its record says.
 */
export async function deliverEmail(
  deps: DeliverDeps,
  composed: ComposedEmail,
  policy: DeliveryPolicy,
): Promise<SentEmail>;
export async function deliverEmail(
  deps: DeliverDeps,
  composed: ComposedEmail,
  policy: DeliveryPolicy,
  options: DeliverOptions,
): Promise<SentEmail | undefined>;
export async function deliverEmail(
  deps: DeliverDeps,
  composed: ComposedEmail,
  policy: DeliveryPolicy,
  options: DeliverOptions = {},
): Promise<SentEmail | undefined> {
  const { record, ids } = composed;
  const entry = { contact: composed.contact, email: record.id };
  if (options.claimed) {
    // Written by the caller's re-claim.
  } else if (!options.claim) await putEmailRecord(deps, record);
  else if (!(await claimEmailRecord(deps, record))) return undefined;
  let refused: Awaited<ReturnType<NonNullable<DeliverOptions['admit']>>>;
  try {
    refused = await options.admit?.();
  } catch (error) {
    // Nothing was sent: the claim is given back, so that a retry claims and admits it again.
    await releaseEmailRecord(deps, record.projectId, record.id);
    throw error;
  }
  if (refused) return recordFailure(deps, record, { ...refused, eventId: ids.failedEvent }, entry, true);
  await options.beforeSend?.();
  let messageId: string;
  try {
    ({ messageId } = await sendWithRetry(deps, policy, {
      from: record.from,
      to: [record.to],
      raw: composed.raw,
      tags: {
        projectId: record.projectId,
        emailId: record.id,
        ...(record.campaignId ? { campaignId: record.campaignId } : {}),
      },
    }));
  } catch (error) {
    if (options.releaseWhenRetryable && error instanceof RetryableSendError) {
      await releaseEmailRecord(deps, record.projectId, record.id);
      throw error;
    }
    const failure = {
      reason: sendFailureReason(error),
      message: (error as Error).message,
      eventId: ids.failedEvent,
    };
    return recordFailure(deps, record, failure, entry, true);
  }
  let at: string;
  if (record.sentEventId === undefined) {
    at = deps.clock.now().toISOString();
    await updateEmailRecord(deps, record.projectId, record.id, {
      status: 'SENT',
      messageId,
      sentAt: at,
      updatedAt: at,
    });
  } else {
    // A record whose outcome is its `email.sent` event stays as claimed: the event, stamped at
    // the claim, says it went out.
    at = sentEventAt(record);
  }
  await emit(
    deps,
    sentEvent(record, record.sentEventId ?? ids.sentEvent, {
      messageId,
      at,
      contactEmail: composed.contact.email,
    }),
  );
  return { ...entry, status: 'sent' };
}

/**
 * The outcome an earlier attempt with these ids settled; undefined when the email must be
 * (re)sent: no record (never reached), or FAILED (tried again). SENT answers `sent` (and emits
 * `email.sent` if that attempt stopped before it did), SKIPPED answers `skipped`, and SENDING
 * (stopped during the provider call, which may have gone out) answers `unknown`, never resent.
 */
export async function resumeEmail(
  deps: OutcomeDeps,
  projectId: string,
  ids: EmailIds,
): Promise<SentEmail | undefined> {
  const record = await getEmailRecord(deps, projectId, ids.email);
  if (!record) return undefined;
  const outcome = await readAttemptOutcome(deps, record);
  // Never handed to SES: tried again.
  if (outcome === 'failed') return undefined;
  const entry = { contact: { id: record.contactId, email: record.to }, email: record.id };
  switch (outcome) {
    // SES's Send event settled a recipient this request's dead attempt left SENDING, and recorded
    // its `email.sent` event then (shared/email-events/apply.ts).
    case 'settled':
      return { ...entry, status: 'sent' };
    case 'sent':
      // The same event (id and time) as the attempt's own: stored once, dispatched once. One
      // that is the email's outcome was found stored (its dispatch queued with it).
      if (record.sentEventId === undefined) await replaySent(deps, record, ids);
      return { ...entry, status: 'sent' };
    case 'skipped':
      return { ...entry, status: 'skipped', reason: record.reason ?? 'unsubscribed' };
    case 'sending':
      return {
        ...entry,
        status: 'unknown',
        reason: 'OUTCOME_UNKNOWN',
        error: 'An earlier attempt stopped while this message was being handed to the provider',
      };
  }
}

/** Emits again the `email.sent` of a SENT record whose sender may have stopped before it did. */
export async function replaySent(deps: OutcomeDeps, record: EmailRecord, ids: EmailIds): Promise<void> {
  await emit(
    deps,
    sentEvent(record, ids.sentEvent, {
      messageId: record.messageId,
      at: sentEventAt(record),
      contactEmail: record.to,
    }),
    { replay: true },
  );
}

/** Calls the provider, retrying with jittered exponential backoff while it asks to retry. */
async function sendWithRetry(deps: DeliverDeps, policy: DeliveryPolicy, email: RawEmail) {
  const backoffMs = policy.backoffMs ?? 200;
  for (let attempt = 1; ; attempt++) {
    try {
      return await deps.mailer.sendRaw(email);
    } catch (error) {
      if (!(error instanceof RetryableSendError) || attempt >= policy.attempts) throw error;
      const delay = backoffMs * 2 ** (attempt - 1) * (0.5 + Math.random());
      if (policy.retryDeadline !== undefined && deps.clock.now().getTime() + delay > policy.retryDeadline)
        throw error;
      await sleep(delay);
    }
  }
}

function sendFailureReason(error: unknown): string {
  if (error instanceof RetryableSendError || error instanceof PermanentSendError) return error.reason;
  return 'SEND_ERROR';
}
