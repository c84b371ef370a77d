/**
 * Applying one SES event (the `ses.event` job): the email record moves on
 * (`repository.ts`, once per event identity), the `email.*` lifecycle event is recorded with the
 * email's fields and the event's own, and a permanent bounce or a complaint puts the address on the
 * project's suppression list and unsubscribes the contact (`contact.unsubscribed`, source `bounce`
 * or `complaint`).
 *
 * Every step is idempotent, so a redelivery after a crash at any point completes what the first
 * attempt began: the record update is conditional on the event's identity, the lifecycle event's
 * id is derived from it (a second write stores nothing and dispatches nothing), the suppression is
 * a put of the same item, and unsubscribing an unsubscribed contact changes nothing.
 *
 * Campaign counters are never written here: the event carries what it adds to its campaign's run
 * (`campaignCounts`: a metric the first time per email), and the event tally adds them a batch at a time
 * (shared/events/tally.ts), so no run item is written once per event.
 *
 * An event for an email Sesame does not have (deleted, or not one of its sends) and an event it
 * cannot read are dropped with a log line: a retry would never find more.
 */
import { nameUuid } from '../campaigns/ids';
import { findContact, patchContact } from '../contacts/service';
import { AppError } from '../errors';
import { emit } from '../events/emit';
import { type EventRecord, eventStored } from '../events/repository';
import { enqueue } from '../jobs/registry';
import type { Deps } from '../ports';
import { sentEventAt } from '../sending/repository';
import { sesEventJobMessage } from './messages';
import { readSesEvent, type SesEventFacts } from './parse';
import { applyToEmailRecord, settleSending, suppress, type TrackedEmail } from './repository';

export type ApplyOutcome =
  | 'applied'
  | 'applied-before'
  | 'nothing-to-settle'
  | 'deferred'
  | 'unknown-email'
  | 'malformed'
  | 'unhandled-type'
  | 'untagged';

/** Engagement a campaign counts once per email, by lifecycle event kind. */
const ENGAGEMENT: Readonly<Record<string, string>> = {
  delivered: 'delivered',
  opened: 'opened',
  clicked: 'clicked',
  bounced: 'bounced',
  complained: 'complained',
};

function log(message: string, fields: Record<string, unknown>) {
  console.warn(JSON.stringify({ level: 'warn', message, ...fields }));
}

export async function applySesEvent(
  deps: Deps,
  raw: Record<string, unknown>,
  options: {
    readonly deferred?: boolean;
    /** The queue delivered this message before (see `applyToEmailRecord`'s `readFirst`). */
    readonly redelivered?: boolean;
  } = {},
): Promise<ApplyOutcome> {
  const facts = readSesEvent(raw);
  if ('skip' in facts) {
    log('SES event not applied', { ...facts });
    return facts.skip;
  }
  const now = deps.clock.now().toISOString();

  if (facts.kind === 'sent') {
    // SES accepted the message. The sender recorded that when SES answered, unless it stopped
    // in between: then the record is still SENDING and this settles it.
    const out = await settleSending(deps, facts, now, { waited: options.deferred === true });
    if (!out) return unknownEmail(facts);
    if (out.waitMs !== undefined) {
      // The sender may still be at work: look again once it cannot be (one more delivery, delayed
      // by the rest of the grace period; SQS delays up to 15 minutes, the period is about 5).
      await enqueue(
        deps,
        sesEventJobMessage,
        { event: raw, deferred: true },
        { delaySeconds: Math.ceil(out.waitMs / 1000) },
      );
      return 'deferred';
    }
    const mine = out.settled || out.record.settledBy === facts.identity;
    if (!mine) return 'nothing-to-settle';
    await emitOnce(deps, lifecycleEvent(facts, out.record, { settled: true }), !out.settled);
    return out.settled ? 'applied' : 'applied-before';
  }

  const change = await applyToEmailRecord(deps, facts, now, { readFirst: options.redelivered === true });
  if (change.applied === 'no-record') return unknownEmail(facts);
  const { record, first } = change;
  let unsubscribes = false;
  if (facts.suppresses) {
    const contact = await findContact(deps, facts.projectId, record.contactId);
    unsubscribes = contact?.subscribed === true && change.applied === 'now';
  }
  await emitOnce(deps, lifecycleEvent(facts, record, { first, unsubscribes }), change.applied === 'before');
  if (facts.suppresses) {
    await suppress(deps, facts.projectId, {
      email: facts.recipient,
      reason: facts.kind === 'complained' ? 'complaint' : 'bounce',
      emailId: facts.emailId,
      at: facts.at,
    });
    await unsubscribe(deps, facts, record);
  }
  return change.applied === 'now' ? 'applied' : 'applied-before';
}

/**
 * Records the lifecycle event. For a redelivery (`again`) a read first: the first delivery has
 * usually stored it, and a read costs less than the conditional write that would fail.
 */
async function emitOnce(deps: Deps, event: EventRecord, again: boolean): Promise<void> {
  if (again && (await eventStored(deps, event))) return;
  await emit(deps, event, { replay: again });
}

function unknownEmail(facts: SesEventFacts): ApplyOutcome {
  log('SES event for an unknown email dropped', {
    projectId: facts.projectId,
    emailId: facts.emailId,
    eventType: facts.type,
    messageId: facts.messageId,
  });
  return 'unknown-email';
}

/** The `email.<kind>` event of an SES event, with an id derived from the SES event's identity. */
function lifecycleEvent(
  facts: SesEventFacts,
  record: TrackedEmail,
  how: { readonly first?: boolean; readonly unsubscribes?: boolean; readonly settled?: boolean },
): EventRecord {
  const campaignId = record.campaignId;
  // A settle counts nothing itself: the campaign's settle moves its recipient from `unknown`
  // (shared/campaigns/settle.ts), and a batch that finds it settled counts it sent.
  let counts: Record<string, number> | undefined;
  const metric = ENGAGEMENT[facts.kind];
  if (campaignId && how.first && metric) {
    counts = { [metric]: 1, ...(how.unsubscribes ? { unsubscribed: 1 } : {}) };
  }
  // A record whose outcome is its sender's `email.sent` is settled with that very event (same id
  // and time): of a sender that stored it late and this, one is kept.
  const own = how.settled === true && record.sentEventId !== undefined;
  return {
    id: own ? record.sentEventId! : nameUuid(`sesame:ses-event:${facts.identity}`),
    projectId: facts.projectId,
    contactId: record.contactId,
    email: facts.recipient,
    name: `email.${facts.kind}`,
    data: {
      emailId: record.id,
      messageId: facts.messageId,
      subject: record.subject,
      from: record.from,
      templateId: record.templateId,
      ...(campaignId ? { campaignId } : {}),
      ...facts.details,
      ...(how.first !== undefined && metric ? { first: how.first } : {}),
    },
    createdAt: own ? sentEventAt(record) : facts.at,
    ...(campaignId && counts ? { campaignCounts: { campaignId, counts } } : {}),
    // The Send event that settles an email stands for its sender's `email.sent`.
    ...(how.settled && record.tallyUsage ? { tallyUsage: record.tallyUsage } : {}),
    // A second open (click ...) of the email: in the feed and the totals, not in the unique metrics.
    ...(how.first === false && metric ? { repeat: true as const } : {}),
  };
}

/** Unsubscribes the email's contact after a permanent bounce or a complaint, if it still exists. */
async function unsubscribe(deps: Deps, facts: SesEventFacts, record: TrackedEmail): Promise<void> {
  try {
    await patchContact(deps, facts.projectId, record.contactId, {
      subscribed: false,
      source: facts.kind === 'complained' ? 'complaint' : 'bounce',
    });
  } catch (error) {
    // The contact was deleted since the send: the suppression alone remains.
    if (error instanceof AppError && error.statusCode === 404) return;
    throw error;
  }
}
