/**
 * An SES event-publishing record, read: which of Sesame's emails it is about (the project and
 * email ids the send put in the message's tags), what happened, to which recipient and when, and
 * the event's identity (message id, event type, recipient, timestamp), on which it is applied once.
 *
 * SES's shapes (Amazon SES Developer Guide, "Contents of event data that Amazon SES publishes to
 * Amazon SNS"): `eventType` (`Send`, `Delivery`, `DeliveryDelay`, `Bounce`, `Complaint`, `Reject`,
 * `Open`, `Click`, `Rendering Failure`, `Subscription`), `mail` (`messageId`, `timestamp`,
 * `destination`, `tags` as lists of values), and one object named after the type.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';

/** What Sesame does with each SES event type, and the `email.*` event it emits. */
export const SES_EVENT_KINDS = {
  Send: 'sent',
  Delivery: 'delivered',
  DeliveryDelay: 'delivery_delayed',
  Bounce: 'bounced',
  Complaint: 'complained',
  Reject: 'failed',
  'Rendering Failure': 'failed',
  Open: 'opened',
  Click: 'clicked',
} as const;

export type SesEventType = keyof typeof SES_EVENT_KINDS;
export type EmailEventKind = (typeof SES_EVENT_KINDS)[SesEventType];

const tagValues = z.optional(z.array(z.string()));
const recipients = z.array(z.object({ emailAddress: z.string() }));

const schema = z.object({
  eventType: z.string(),
  mail: z.object({
    messageId: z.string().check(z.minLength(1)),
    timestamp: z.string(),
    destination: z.optional(z.array(z.string())),
    tags: z.optional(z.object({ emailId: tagValues, projectId: tagValues })),
  }),
  delivery: z.optional(z.object({ timestamp: z.string(), recipients: z.optional(z.array(z.string())) })),
  deliveryDelay: z.optional(
    z.object({
      timestamp: z.string(),
      delayType: z.optional(z.string()),
      delayedRecipients: z.optional(recipients),
    }),
  ),
  bounce: z.optional(
    z.object({
      timestamp: z.string(),
      bounceType: z.string(),
      bounceSubType: z.optional(z.string()),
      bouncedRecipients: z.optional(recipients),
    }),
  ),
  complaint: z.optional(
    z.object({
      timestamp: z.string(),
      complaintFeedbackType: z.optional(z.string()),
      complainedRecipients: z.optional(recipients),
    }),
  ),
  reject: z.optional(z.object({ reason: z.optional(z.string()) })),
  failure: z.optional(z.object({ errorMessage: z.optional(z.string()) })),
  open: z.optional(z.object({ timestamp: z.string() })),
  click: z.optional(z.object({ timestamp: z.string(), link: z.string() })),
});

/** One SES event, as Sesame applies it. */
export interface SesEventFacts {
  readonly type: SesEventType;
  readonly kind: EmailEventKind;
  readonly projectId: string;
  readonly emailId: string;
  readonly messageId: string;
  /** The recipient it is about (a Sesame email has one). */
  readonly recipient: string;
  /** When it happened, by SES's clock (ISO). */
  readonly at: string;
  /** Stable over redeliveries and paths: a hash of message id, type, recipient and timestamp. */
  readonly identity: string;
  /** Per-type details carried to the `email.*` event. */
  readonly details: Readonly<Record<string, string | null>>;
  /** A permanent bounce or a complaint: the address is suppressed and the contact unsubscribed. */
  readonly suppresses: boolean;
}

/** Why a record is not applied: not an SES event Sesame knows, or not about one of its emails. */
export type Unapplicable =
  | { readonly skip: 'malformed'; readonly why: string }
  | { readonly skip: 'unhandled-type'; readonly type: string }
  | { readonly skip: 'untagged'; readonly messageId: string };

/** Reads an SES event record; answers why not when it cannot be applied. */
export function readSesEvent(record: unknown): SesEventFacts | Unapplicable {
  const parsed = schema.safeParse(record);
  if (!parsed.success) {
    return {
      skip: 'malformed',
      why: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    };
  }
  const e = parsed.data;
  if (!Object.hasOwn(SES_EVENT_KINDS, e.eventType)) return { skip: 'unhandled-type', type: e.eventType };
  const type = e.eventType as SesEventType;
  const projectId = e.mail.tags?.projectId?.[0];
  const emailId = e.mail.tags?.emailId?.[0];
  if (!projectId || !emailId) return { skip: 'untagged', messageId: e.mail.messageId };

  const first = (list: readonly { emailAddress: string }[] | undefined) => list?.[0]?.emailAddress;
  let at = e.mail.timestamp;
  let recipient = e.mail.destination?.[0];
  let details: Record<string, string | null> = {};
  let suppresses = false;
  switch (type) {
    case 'Delivery':
      if (!e.delivery) return { skip: 'malformed', why: 'delivery: missing' };
      at = e.delivery.timestamp;
      recipient = e.delivery.recipients?.[0] ?? recipient;
      break;
    case 'DeliveryDelay':
      if (!e.deliveryDelay) return { skip: 'malformed', why: 'deliveryDelay: missing' };
      at = e.deliveryDelay.timestamp;
      recipient = first(e.deliveryDelay.delayedRecipients) ?? recipient;
      details = { delayType: e.deliveryDelay.delayType ?? null };
      break;
    case 'Bounce':
      if (!e.bounce) return { skip: 'malformed', why: 'bounce: missing' };
      at = e.bounce.timestamp;
      recipient = first(e.bounce.bouncedRecipients) ?? recipient;
      details = { bounceType: e.bounce.bounceType, bounceSubType: e.bounce.bounceSubType ?? null };
      suppresses = e.bounce.bounceType === 'Permanent';
      break;
    case 'Complaint':
      if (!e.complaint) return { skip: 'malformed', why: 'complaint: missing' };
      at = e.complaint.timestamp;
      recipient = first(e.complaint.complainedRecipients) ?? recipient;
      details = { complaintFeedbackType: e.complaint.complaintFeedbackType ?? null };
      suppresses = true;
      break;
    case 'Open':
      if (!e.open) return { skip: 'malformed', why: 'open: missing' };
      at = e.open.timestamp;
      break;
    case 'Click':
      if (!e.click) return { skip: 'malformed', why: 'click: missing' };
      at = e.click.timestamp;
      details = { link: e.click.link };
      break;
    case 'Reject':
      details = { reason: 'REJECTED', error: e.reject?.reason ?? null };
      break;
    case 'Rendering Failure':
      details = { reason: 'RENDERING_FAILURE', error: e.failure?.errorMessage ?? null };
      break;
    case 'Send':
      break;
  }
  if (!recipient) return { skip: 'malformed', why: 'no recipient' };
  const identity = createHash('sha256')
    .update(JSON.stringify([e.mail.messageId, type, recipient.toLowerCase(), at]))
    .digest('base64url')
    .slice(0, 22);
  return {
    type,
    kind: SES_EVENT_KINDS[type],
    projectId,
    emailId,
    messageId: e.mail.messageId,
    recipient,
    at,
    identity,
    details,
    suppresses,
  };
}
