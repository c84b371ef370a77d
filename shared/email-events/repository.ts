/**
 * What an SES event changes in the table: the email record (its status and first-time
 * timestamps, open and click counts, and the identities of the events applied to it), and the
 * project's suppression list.
 *
 * Applying is one conditional update of the record, and the record is its own deduplication: the
 * update adds the event's identity to the record's `appliedEvents` set on the condition that it is
 * not there yet, so an event delivered twice, or by both paths (SQS and HTTPS), changes the record
 * once, with no item of its own. The first event of a metric leaves its identity beside its time
 * (`openedBy` beside `openedAt`), so a redelivery can tell whether the event it repeats was the
 * first, after the record has moved on.
 */
import { eventStored } from '../events/repository';
import {
  attemptOutcome,
  type EmailRecord,
  type EmailStatus,
  emailRecordOf,
  outcomeEvent,
} from '../sending/repository';
import type { StoreDeps } from '../store/store';
import { keys } from '../table';
import type { EmailEventKind, SesEventFacts } from './parse';

/** How far along an email is: a status only ever moves to a higher rank. */
const RANK: Readonly<Record<EmailStatus, number>> = {
  SKIPPED: 0,
  SENDING: 0,
  SENT: 1,
  DELIVERY_DELAYED: 2,
  DELIVERED: 3,
  FAILED: 4,
  BOUNCED: 4,
  COMPLAINED: 5,
};

/** The status an event moves its email to, if any (opens and clicks move none). */
const STATUS_OF: Readonly<Partial<Record<EmailEventKind, EmailStatus>>> = {
  sent: 'SENT',
  delivery_delayed: 'DELIVERY_DELAYED',
  delivered: 'DELIVERED',
  bounced: 'BOUNCED',
  complained: 'COMPLAINED',
  failed: 'FAILED',
};

/** The record's first-time field of each metric counted once per email. */
const FIRST_OF: Readonly<Partial<Record<EmailEventKind, string>>> = {
  delivered: 'deliveredAt',
  opened: 'openedAt',
  clicked: 'clickedAt',
  bounced: 'bouncedAt',
  complained: 'complainedAt',
};

/** The record's counter of events that can happen many times. */
const COUNT_OF: Readonly<Partial<Record<EmailEventKind, string>>> = { opened: 'opens', clicked: 'clicks' };

/** An email record as the events leave it. */
export type TrackedEmail = EmailRecord & {
  readonly appliedEvents?: ReadonlySet<string> | readonly string[];
  readonly [field: string]: unknown;
};

export type RecordChange =
  /** The record changed now. `first`: this event set the metric's first-time field. */
  | { readonly applied: 'now'; readonly record: TrackedEmail; readonly first: boolean }
  /** An earlier delivery of this very event changed it already (a redelivery). */
  | { readonly applied: 'before'; readonly record: TrackedEmail; readonly first: boolean }
  /** No such email in the project. */
  | { readonly applied: 'no-record' };

const fromItem = (item: Record<string, unknown>) => emailRecordOf(item) as TrackedEmail;

const applied = (record: TrackedEmail, identity: string) => {
  const set = record.appliedEvents;
  if (!set) return false;
  return set instanceof Set ? set.has(identity) : (set as readonly string[]).includes(identity);
};

/** Whether the event with `identity` set the record's first-time field of its metric. */
const firstBy = (record: TrackedEmail, kind: EmailEventKind, identity: string) => {
  const field = FIRST_OF[kind];
  return field !== undefined && record[`${field.slice(0, -2)}By`] === identity;
};

/**
 * Applies one event to its email record, once. The status moves only forward (a Delivery that
 * arrives after the Complaint leaves COMPLAINED); the first event of each metric sets its time; an
 * open or a click adds to the email's count. One write when events come in order; an event that
 * would move the status back costs a failed write, a read and a write without the status.
 */
export async function applyToEmailRecord(
  deps: StoreDeps,
  facts: SesEventFacts,
  now: string,
  /**
   * This message was delivered before (its receive count is above one): it has most likely been
   * applied, so a read first, which costs less than the conditional write that would fail.
   */
  options: { readonly readFirst?: boolean } = {},
): Promise<RecordChange> {
  const key = keys.emailMessage(facts.projectId, facts.emailId);
  const status = STATUS_OF[facts.kind];
  const first = FIRST_OF[facts.kind];
  const count = COUNT_OF[facts.kind];
  const build = (withStatus: boolean) => {
    const set = ['updatedAt = :now'];
    const add = ['appliedEvents :ids'];
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {
      ':now': now,
      ':ids': new Set([facts.identity]),
      ':id': facts.identity,
    };
    if (withStatus && status) {
      set.push('#status = :status', 'statusRank = :rank');
      names['#status'] = 'status';
      values[':status'] = status;
      values[':rank'] = RANK[status];
    }
    if (first) {
      set.push(`#first = if_not_exists(#first, :at)`, `#firstBy = if_not_exists(#firstBy, :id)`);
      names['#first'] = first;
      names['#firstBy'] = `${first.slice(0, -2)}By`;
      values[':at'] = facts.at;
    }
    if (facts.kind === 'sent' || facts.kind === 'delivered') {
      set.push('messageId = if_not_exists(messageId, :messageId)');
      values[':messageId'] = facts.messageId;
    }
    if (count) {
      add.push('#count :one');
      names['#count'] = count;
      values[':one'] = 1;
    }
    const conditions = ['attribute_exists(pk)', 'NOT contains(appliedEvents, :id)'];
    if (withStatus && status) {
      // A SENDING record waits for its Send event to settle it (`settleSending`), which then
      // takes the status these events' times imply. One whose outcome is its `email.sent` event
      // stays SENDING once sent: its events move it (its Send event settles it apart).
      conditions.push(
        '(attribute_not_exists(statusRank) OR statusRank < :rank)',
        '(#status <> :sending OR attribute_exists(sentEventId))',
      );
      values[':sending'] = 'SENDING';
    }
    return {
      update: key,
      expression: `SET ${set.join(', ')} ADD ${add.join(', ')}`,
      names: Object.keys(names).length > 0 ? names : undefined,
      values,
      if: conditions.join(' AND '),
      returnNew: 'all' as const,
    };
  };

  const attempt = async (withStatus: boolean): Promise<RecordChange | undefined> => {
    let item: Record<string, unknown> | undefined;
    try {
      item = await deps.store.write(build(withStatus));
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return undefined;
      throw error;
    }
    if (!item) throw new Error('The update answered no item');
    const record = fromItem(item);
    return { applied: 'now', record, first: firstBy(record, facts.kind, facts.identity) };
  };

  if (options.readFirst) {
    const seen = await readRecord(deps, facts.projectId, facts.emailId);
    if (!seen) return { applied: 'no-record' };
    if (applied(seen, facts.identity))
      return { applied: 'before', record: seen, first: firstBy(seen, facts.kind, facts.identity) };
  }
  const done = await attempt(status !== undefined);
  if (done) return done;
  // The condition failed: no record, the event was applied before, or the status would move back.
  const record = await readRecord(deps, facts.projectId, facts.emailId);
  if (!record) return { applied: 'no-record' };
  if (applied(record, facts.identity))
    return { applied: 'before', record, first: firstBy(record, facts.kind, facts.identity) };
  const again = await attempt(false);
  if (again) return again;
  const last = await readRecord(deps, facts.projectId, facts.emailId);
  if (!last) return { applied: 'no-record' };
  if (applied(last, facts.identity))
    return { applied: 'before', record: last, first: firstBy(last, facts.kind, facts.identity) };
  throw new Error(`Email ${facts.emailId}: the event could not be applied`);
}

async function readRecord(deps: StoreDeps, projectId: string, emailId: string) {
  const item = await deps.store.get(keys.emailMessage(projectId, emailId), { consistent: true });
  return item ? fromItem(item) : undefined;
}

/**
 * How long a sender may hold a record SENDING while it is alive: more than the longest function
 * timeout (the jobs worker's 300 s). A Send event for a younger SENDING record may have overtaken
 * the sender's own outcome write; it waits this long before it settles anything.
 */
export const SENDING_GRACE_MS = 310_000;

/**
 * An SES Send event settles an email whose outcome a crash left unknown: SENDING becomes SENT.
 * Only then: a record already SENT (the usual case, set when SES answered) is not written, so a
 * Send event costs one read. A record SENDING for less than `SENDING_GRACE_MS` may belong to a
 * sender still at work: the answer says how long to wait (`waitMs`) and nothing is written.
 */
export async function settleSending(
  deps: StoreDeps,
  facts: SesEventFacts,
  now: string,
  /** This delivery already waited out the grace period (its delay was the period's rest). */
  options: { readonly waited?: boolean } = {},
): Promise<
  { readonly record: TrackedEmail; readonly settled: boolean; readonly waitMs?: number } | undefined
> {
  const key = keys.emailMessage(facts.projectId, facts.emailId);
  const item = await deps.store.get(key, { consistent: true });
  if (!item) return undefined;
  const record = fromItem(item);
  if (record.sentEventId !== undefined) return settleByEvent(deps, facts, now, record, options);
  if (record.status !== 'SENDING') return { record, settled: false };
  const waitMs = Date.parse(record.updatedAt) + SENDING_GRACE_MS - Date.parse(now);
  if (waitMs > 0 && !options.waited) return { record, settled: false, waitMs };
  // Events that came while it waited left their times: the status is the furthest they imply.
  const reached = reachedStatus(record);
  const settled = await deps.store.writeIf({
    update: key,
    expression:
      'SET #status = :sent, statusRank = :rank, messageId = :messageId, sentAt = :at, settledBy = :id, updatedAt = :now',
    names: { '#status': 'status' },
    values: {
      ':sent': reached,
      ':rank': RANK[reached],
      ':messageId': facts.messageId,
      ':at': facts.at,
      ':id': facts.identity,
      ':now': now,
      ':sending': 'SENDING',
    },
    if: '#status = :sending',
  });
  if (!settled)
    return { record: (await readRecord(deps, facts.projectId, facts.emailId)) ?? record, settled };
  return {
    record: {
      ...record,
      status: reached,
      messageId: facts.messageId,
      sentAt: facts.at,
      settledBy: facts.identity,
    },
    settled,
  };
}

/**
 * `settleSending` for a record whose outcome is its `email.sent` event (`sentEventId`): its
 * sender stores that event when SES answers, long before SES's Send event comes, so the usual
 * Send event costs two reads (the record, the event) and writes nothing. With no such event the
 * sender may still be at work (it waits out `SENDING_GRACE_MS` from the claim) or stopped after
 * the provider call: the record then gets `settledBy`, and the caller records the same event
 * (same id and time, `sentEventAt`), so of a sender that stored it late and the settle only one
 * is kept. SES's other events may have moved the record's status meanwhile; it is kept.
 */
async function settleByEvent(
  deps: StoreDeps,
  facts: SesEventFacts,
  now: string,
  first: TrackedEmail,
  options: { readonly waited?: boolean },
): Promise<{ readonly record: TrackedEmail; readonly settled: boolean; readonly waitMs?: number }> {
  const sent = outcomeEvent({ ...first, sentEventId: first.sentEventId! });
  if (first.settledBy !== undefined || attemptOutcome(first) !== 'sending')
    return { record: first, settled: false };
  if (await eventStored(deps, sent, { consistent: false })) return { record: first, settled: false };
  const waitMs = Date.parse(first.createdAt) + SENDING_GRACE_MS - Date.parse(now);
  if (waitMs > 0 && !options.waited) {
    // SES accepted it: its message id, noted at once, tells a campaign's settle not to send it
    // again (shared/campaigns/settle.ts), whatever comes of the wait.
    if (first.messageId === null) await noteMessageId(deps, first, facts.messageId);
    return { record: first, settled: false, waitMs };
  }
  if (await eventStored(deps, sent)) return { record: first, settled: false };
  let record = first;
  // An event applied between the read and the write moves the status: read again and retry.
  for (let attempt = 0; attempt < 3; attempt++) {
    const reached = record.status === 'SENDING' ? reachedStatus(record) : undefined;
    const settled = await deps.store.writeIf({
      update: keys.emailMessage(record.projectId, record.id),
      expression: `SET ${reached ? '#status = :reached, statusRank = :rank, ' : ''}messageId = :messageId, sentAt = :at, settledBy = :id, updatedAt = :now`,
      names: { '#status': 'status' },
      values: {
        ...(reached ? { ':reached': reached, ':rank': RANK[reached] } : {}),
        ':seen': record.status,
        ':messageId': facts.messageId,
        ':at': facts.at,
        ':id': facts.identity,
        ':now': now,
      },
      if: 'attribute_not_exists(settledBy) AND #status = :seen',
    });
    if (settled) {
      const status = reached ?? record.status;
      return {
        record: {
          ...record,
          status,
          messageId: facts.messageId,
          sentAt: facts.at,
          settledBy: facts.identity,
        },
        settled,
      };
    }
    const again = await readRecord(deps, record.projectId, record.id);
    if (!again || again.settledBy !== undefined) return { record: again ?? record, settled: false };
    record = again;
  }
  throw new Error(`Email ${facts.emailId}: its Send event could not settle it`);
}

/** Sets a record's message id unless it has one (a Send event for a message its sender may not have recorded yet). */
async function noteMessageId(deps: StoreDeps, record: EmailRecord, messageId: string): Promise<void> {
  await deps.store.writeIf({
    update: keys.emailMessage(record.projectId, record.id),
    expression: 'SET messageId = if_not_exists(messageId, :messageId)',
    if: 'attribute_exists(pk)',
    values: { ':messageId': messageId },
  });
}

/** The status a settled record takes: the furthest the times of the events applied meanwhile imply. */
function reachedStatus(record: TrackedEmail): EmailStatus {
  return record.complainedAt
    ? 'COMPLAINED'
    : record.bouncedAt
      ? 'BOUNCED'
      : record.deliveredAt
        ? 'DELIVERED'
        : 'SENT';
}

/** An address on the project's suppression list. */
export interface Suppression {
  readonly email: string;
  readonly reason: 'bounce' | 'complaint';
  readonly emailId: string;
  readonly at: string;
}

/** Puts an address on the suppression list (again: the latest reason stays). */
export async function suppress(deps: StoreDeps, projectId: string, s: Suppression): Promise<void> {
  await deps.store.write({
    put: {
      ...keys.suppression(projectId, s.email),
      entity: 'suppression',
      ...s,
      email: s.email.toLowerCase(),
    },
  });
}

/** Which of `emails` the project suppresses (lower case): one batch read. */
export async function suppressedAmong(
  deps: StoreDeps,
  projectId: string,
  emails: readonly string[],
): Promise<Set<string>> {
  const unique = [...new Set(emails.map((e) => e.toLowerCase()))];
  if (unique.length === 0) return new Set();
  const items = await deps.store.batchGet(unique.map((e) => keys.suppression(projectId, e)));
  return new Set(items.map((i) => String(i.sk)));
}
