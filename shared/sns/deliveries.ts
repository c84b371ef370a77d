/**
 * One SNS HTTPS delivery of the SES event topic (`POST /webhooks/sns`), the alternative to the
 * topic's SQS subscription (docs/email-events.md). Both paths end in the same
 * `ses.event` job (shared/email-events/messages.ts), which applies each SES event once
 * (deduplicated on the event's identity), so a delivery SNS repeats is harmless here.
 *
 * In order, nothing fetched or queued before the message has passed every earlier step:
 *
 * 1. the body is JSON (SNS sends it as text/plain): else 400;
 * 2. it is an SNS message with the fields its type signs (shared/sns/verify.ts): else 403;
 * 3. its `TopicArn` is the configured SES event topic (`config.sesEventsTopicArn`): else 403,
 *    and no certificate is fetched for a foreign topic;
 * 4. its signature verifies with the certificate at its `SigningCertURL`, an SNS host only: else
 *    403 (a certificate that cannot be fetched is a 500, so SNS delivers again);
 * 5. then by type: a SubscriptionConfirmation GETs its SubscribeURL, which confirms the
 *    subscription (a SubscribeURL off SNS's hosts is a 403, though SNS never signs one); a Notification whose Message is an SES event record is queued as
 *    a `ses.event` job; a Notification of anything else is answered 200 and logged, since SNS
 *    would deliver a refused one again and again until its retries run out; an
 *    UnsubscribeConfirmation changes nothing.
 *
 * Every refusal is answered in the error envelope (codes `BAD_REQUEST`,
 * `INVALID_SNS_MESSAGE`, `SNS_TOPIC_NOT_ACCEPTED`) and has nothing queued or fetched after it.
 */
import { isSesEventRecord, sesEventJobMessage } from '../email-events/messages';
import { badRequest, forbidden } from '../errors';
import { enqueue } from '../jobs/registry';
import type { Deps } from '../ports';
import { isSnsSubscribeUrl, withoutQuery } from './urls';
import { parseSnsMessage, type SnsMessageType, verifySnsMessage } from './verify';

export type SnsDeliveryDeps = Pick<Deps, 'queue' | 'snsEndpoints' | 'clock' | 'config'>;

/** What a delivery did. */
export interface SnsDeliveryOutcome {
  readonly type: SnsMessageType;
  readonly messageId: string;
  /**
   * `enqueued`: a `ses.event` job was queued; `confirmed`: the subscription was confirmed;
   * `ignored`: a notification that is no SES event; `none`: an unsubscribe confirmation.
   */
  readonly action: 'enqueued' | 'confirmed' | 'ignored' | 'none';
}

/** Handles one delivery's raw body; throws the refusals described above as `AppError`s. */
export async function receiveSnsDelivery(
  deps: SnsDeliveryDeps,
  rawBody: Buffer | undefined,
): Promise<SnsDeliveryOutcome> {
  let body: unknown;
  try {
    body = JSON.parse(rawBody?.toString('utf8') ?? '');
  } catch {
    throw badRequest('The body is not JSON');
  }
  const parsed = parseSnsMessage(body);
  if (!parsed.ok) throw invalidMessage(parsed.reason);
  const { message } = parsed;

  const topic = deps.config.sesEventsTopicArn;
  if (topic === undefined) {
    log('warn', 'SNS delivery refused: no SES event topic is configured (SES_EVENTS_TOPIC_ARN)', message);
    throw forbidden('SNS_TOPIC_NOT_ACCEPTED', 'This endpoint accepts no SNS topic');
  }
  if (message.TopicArn !== topic)
    throw forbidden('SNS_TOPIC_NOT_ACCEPTED', 'This endpoint does not accept messages of this topic');

  const verified = await verifySnsMessage(message, {
    certificate: (url) => deps.snsEndpoints.signingCertificate(url),
    now: deps.clock.now(),
  });
  if (!verified.ok) throw invalidMessage(verified.reason);

  const outcome = (action: SnsDeliveryOutcome['action']): SnsDeliveryOutcome => ({
    type: message.Type,
    messageId: message.MessageId,
    action,
  });
  switch (message.Type) {
    case 'SubscriptionConfirmation':
      if (!isSnsSubscribeUrl(message.SubscribeURL))
        throw invalidMessage('SubscribeURL is not on an SNS host');
      await deps.snsEndpoints.confirmSubscription(message.SubscribeURL);
      log('info', 'SNS subscription confirmed', message, {
        subscribeUrl: withoutQuery(message.SubscribeURL),
      });
      return outcome('confirmed');
    case 'UnsubscribeConfirmation':
      log('info', 'SNS subscription ended', message);
      return outcome('none');
    case 'Notification': {
      const event = parseJson(message.Message);
      if (!isSesEventRecord(event)) {
        log('warn', 'SNS notification ignored: its Message is not an SES event', message);
        return outcome('ignored');
      }
      await enqueue(deps, sesEventJobMessage, { event });
      return outcome('enqueued');
    }
  }
}

const invalidMessage = (reason: string) =>
  forbidden('INVALID_SNS_MESSAGE', `Not a message signed by Amazon SNS: ${reason}`);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function log(
  level: 'info' | 'warn',
  text: string,
  message: { readonly Type: string; readonly MessageId: string; readonly TopicArn: string },
  fields: Record<string, unknown> = {},
): void {
  const line = JSON.stringify({
    level,
    message: text,
    snsType: message.Type,
    snsMessageId: message.MessageId,
    topicArn: message.TopicArn,
    ...fields,
  });
  if (level === 'warn') console.warn(line);
  else console.log(line);
}
