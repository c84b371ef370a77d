/**
 * The job that applies one SES event (shared/email-events): SES's configuration set publishes
 * each send, delivery, bounce, complaint, open, click... as JSON to an SNS topic; the topic
 * delivers it to the jobs queue (raw message delivery: the SQS body is the SES event itself, turned
 * into this message by `sesEventNormalizer`), and `POST /webhooks/sns` enqueues it from an HTTPS
 * delivery. Either way the same job applies it, once (deduplicated on the SES event's identity).
 */
import * as z from 'zod/mini';
import { defineJobMessage, type Normalizer } from '../jobs/registry';

export const SES_EVENT_JOB = 'ses.event';

export type SesEventMessage = {
  readonly type: typeof SES_EVENT_JOB;
  /** The SES event-publishing record as SES wrote it (`eventType`, `mail`, and the type's own field). */
  readonly event: Record<string, unknown>;
  /**
   * Set when a Send event was put back to wait out the grace period of a record still SENDING
   * (shared/email-events/apply.ts): its delay was that period, so this delivery settles.
   */
  readonly deferred?: true;
};

export const sesEventJobMessage = defineJobMessage<SesEventMessage>({
  type: SES_EVENT_JOB,
  schema: z.object({
    type: z.literal(SES_EVENT_JOB),
    event: z.record(z.string(), z.unknown()),
    deferred: z.optional(z.literal(true)),
  }),
});

/** An SES event-publishing record: what SES puts on the topic (`eventType` and `mail`). */
export function isSesEventRecord(body: unknown): body is Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const record = body as Record<string, unknown>;
  return typeof record.eventType === 'string' && typeof record.mail === 'object' && record.mail !== null;
}

/**
 * Turns an SQS body that is an SES event (the topic's raw delivery) into a `ses.event` job
 * message; bodies of other shapes are left to the other normalizers.
 */
export const sesEventNormalizer: Normalizer = (body) =>
  isSesEventRecord(body) ? [{ type: SES_EVENT_JOB, event: body } satisfies SesEventMessage] : undefined;
