/**
 * The job message of a received email (`inbound.received`), and the normalizer that makes it from
 * SES's notification.
 *
 * On AWS the receipt rule (lib/constructs/inbound-mail.ts) stores each message's raw MIME in the
 * inbound bucket under `inbound/<SES message id>`, then publishes SES's `Received` notification
 * to a topic that delivers it raw to the jobs queue. That notification (Amazon SES Developer
 * Guide, "Contents of notifications for Amazon SES email receiving") carries `receipt`
 * (`timestamp`, `recipients`: the envelope RCPT TO addresses the rule matched, the `spamVerdict`,
 * `virusVerdict`, `spfVerdict`, `dkimVerdict`, `dmarcVerdict` objects with a `status`, and
 * `action`: `{type: 'S3', bucketName, objectKeyPrefix, objectKey, topicArn}`) and `mail` (the
 * envelope and headers, `messageId`), but not the message itself: only an SNS action adds
 * `content`. The job message keeps what the job needs and names the stored object; the raw MIME
 * never travels on the queue (an SQS message holds at most 256 KB, a received email up to 40 MB).
 *
 * Locally `POST /_local/inbound` stores the message and enqueues the same job message.
 */
import * as z from 'zod/mini';
import { defineJobMessage, type Normalizer } from '../jobs/registry';

export const INBOUND_RECEIVED_JOB = 'inbound.received';

/** Where received messages are stored: SES's object key is this prefix and its message id. */
export const INBOUND_KEY_PREFIX = 'inbound/';

/**
 * The message id of the notification SES publishes when the receipt rule is created (it also
 * writes the test object `inbound/AMAZON_SES_SETUP_NOTIFICATION`): not mail anyone sent.
 */
export const SES_SETUP_NOTIFICATION_ID = 'AMAZON_SES_SETUP_NOTIFICATION';

/** SES's verdict statuses: PASS, FAIL, GRAY, PROCESSING_FAILED (spam and virus: DISABLED when scanning is off). */
const verdictStatus = z.string().check(z.minLength(1), z.maxLength(32));

const verdicts = z.object({
  spam: z.optional(verdictStatus),
  virus: z.optional(verdictStatus),
  spf: z.optional(verdictStatus),
  dkim: z.optional(verdictStatus),
  dmarc: z.optional(verdictStatus),
});

export type InboundVerdicts = z.infer<typeof verdicts>;

// A type (not an interface) so that it is a QueueMessage.
export type InboundReceivedMessage = {
  readonly type: typeof INBOUND_RECEIVED_JOB;
  /** The stored raw message's key in the inbound bucket: `inbound/<SES message id>`. */
  readonly key: string;
  /** SES's id of the received message; the `email.received` event's id derives from it. */
  readonly messageId: string;
  /**
   * When SES received it (ISO): the event's time, so that a redelivery writes the very same event
   * (its key holds the time).
   */
  readonly receivedAt: string;
  /** The envelope recipients the receipt rule matched (RCPT TO), as SES lists them. */
  readonly recipients: readonly string[];
  readonly verdicts: InboundVerdicts;
};

export const inboundReceivedJobMessage = defineJobMessage<InboundReceivedMessage>({
  type: INBOUND_RECEIVED_JOB,
  schema: z.object({
    type: z.literal(INBOUND_RECEIVED_JOB),
    // Only keys under the prefix: the function may read nothing else of the bucket anyway.
    key: z.string().check(
      z.maxLength(1024),
      z.refine(
        (k) => k.startsWith(INBOUND_KEY_PREFIX) && k.length > INBOUND_KEY_PREFIX.length,
        `expected a key under ${INBOUND_KEY_PREFIX}`,
      ),
    ),
    messageId: z.string().check(z.minLength(1), z.maxLength(256)),
    receivedAt: z.iso.datetime(),
    recipients: z.array(z.string().check(z.minLength(3), z.maxLength(320))).check(z.minLength(1)),
    verdicts,
  }),
});

const status = z.optional(z.object({ status: z.optional(z.string()) }));

/** The part of a `Received` notification of an S3 action that the job message is made of. */
const receivedNotification = z.object({
  notificationType: z.literal('Received'),
  receipt: z.object({
    timestamp: z.string(),
    recipients: z.array(z.string()),
    spamVerdict: status,
    virusVerdict: status,
    spfVerdict: status,
    dkimVerdict: status,
    dmarcVerdict: status,
    action: z.object({ type: z.literal('S3'), objectKey: z.string() }),
  }),
  mail: z.object({ messageId: z.string() }),
});

/** A notification of received mail stored by an S3 action: `notificationType` Received, action S3. */
export function isReceivedS3Notification(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { notificationType, receipt } = body as { notificationType?: unknown; receipt?: unknown };
  const action = (receipt as { action?: { type?: unknown } } | null | undefined)?.action;
  return notificationType === 'Received' && typeof action === 'object' && action?.type === 'S3';
}

/**
 * Turns an SQS body that is SES's `Received` notification of an S3 action (the inbound topic's
 * raw delivery) into an `inbound.received` job message; bodies of other shapes, and received-mail
 * notifications of other actions (an SNS action's carries the message itself, which Sesame's rule
 * never sends), are left to the other normalizers, so they fail as unknown and are dead-lettered
 * where an operator sees them. A notification of this shape that lacks a field becomes a message
 * the job's schema refuses (dead-lettered likewise): it is SES's, and never malformed by chance.
 */
export const inboundNormalizer: Normalizer = (body) => {
  if (!isReceivedS3Notification(body)) return undefined;
  const parsed = receivedNotification.safeParse(body);
  if (!parsed.success) return [{ type: INBOUND_RECEIVED_JOB }];
  const { receipt, mail } = parsed.data;
  const verdictsOf = {
    spam: receipt.spamVerdict?.status,
    virus: receipt.virusVerdict?.status,
    spf: receipt.spfVerdict?.status,
    dkim: receipt.dkimVerdict?.status,
    dmarc: receipt.dmarcVerdict?.status,
  };
  const message: InboundReceivedMessage = {
    type: INBOUND_RECEIVED_JOB,
    key: receipt.action.objectKey,
    messageId: mail.messageId,
    receivedAt: receipt.timestamp,
    recipients: receipt.recipients,
    // Only the verdicts SES gave (a JSON message drops undefined values anyway).
    verdicts: Object.fromEntries(Object.entries(verdictsOf).filter(([, v]) => v !== undefined)),
  };
  return [message];
};
