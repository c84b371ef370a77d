/**
 * `POST /webhooks/sns` through HTTP against the local runtime: SNS deliveries signed in the test
 * (a generated key, its self-signed certificate served by the local SNS stand-in under an SNS
 * URL), the `ses.event` jobs they queue, the subscription confirmations they GET, and every
 * refusal with nothing queued and nothing fetched.
 *
 * The jobs worker is replaced by a recorder: this file checks what reaches the queue, not what
 * the `ses.event` job then does with it.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LocalSnsEndpoints } from '../../shared/adapters/local/sns-endpoints';
import { SES_EVENT_JOB } from '../../shared/email-events/messages';
import { useLocalRuntime } from './helpers/local';
import {
  type SnsFields,
  sesDeliveryEvent,
  signSnsMessage,
  snsConfirmation,
  snsNotification,
  snsSigningKey,
  TEST_CERT_URL,
} from './helpers/sns';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:sesame-ses-events';
const OTHER_TOPIC = 'arn:aws:sns:us-east-1:123456789012:someone-else';

/** Every message the jobs queue delivered, parsed. */
const queued: Record<string, unknown>[] = [];

const rt = useLocalRuntime({
  env: { SES_EVENTS_TOPIC_ARN: TOPIC },
  handlers: {
    queues: {
      jobs:
        () =>
        async (event: SQSEvent): Promise<SQSBatchResponse> => {
          for (const record of event.Records) queued.push(JSON.parse(record.body));
          return { batchItemFailures: [] };
        },
    },
  },
});

const key = snsSigningKey();
const otherKey = snsSigningKey();

let sns: LocalSnsEndpoints;
beforeAll(() => {
  const port = rt.deps.snsEndpoints;
  if (!(port instanceof LocalSnsEndpoints)) throw new Error('expected the local SNS stand-in');
  sns = port;
  sns.registerCertificate(TEST_CERT_URL, key.certificatePem);
});

beforeEach(() => {
  queued.length = 0;
});

/** Posts `message` as SNS does: JSON as text/plain, with its type and id in headers. */
function deliver(message: SnsFields | string, contentType = 'text/plain; charset=UTF-8') {
  const fields = typeof message === 'string' ? {} : message;
  return rt.api('POST', '/webhooks/sns', {
    key: null,
    raw: typeof message === 'string' ? message : JSON.stringify(message),
    headers: {
      'content-type': contentType,
      'x-amz-sns-message-type': fields.Type,
      'x-amz-sns-message-id': fields.MessageId,
      'x-amz-sns-topic-arn': fields.TopicArn,
    },
  });
}

/** The queue's messages once it is idle. */
async function queuedAfterDrain() {
  await rt.drain();
  return [...queued];
}

describe('POST /webhooks/sns: notifications', () => {
  it('reads its topic from SES_EVENTS_TOPIC_ARN', () => {
    expect(rt.deps.config.sesEventsTopicArn).toBe(TOPIC);
  });

  it.each(['1', '2'] as const)(
    'queues one ses.event job with the SES event (SignatureVersion %s)',
    async (version) => {
      const event = sesDeliveryEvent();
      const message = signSnsMessage(
        snsNotification(TOPIC, event, { Subject: 'Amazon SES Email Event Notification' }),
        key.privateKey,
        version,
      );
      const res = await deliver(message);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: { type: 'Notification', messageId: message.MessageId, action: 'enqueued' },
      });
      expect(await queuedAfterDrain()).toEqual([{ type: SES_EVENT_JOB, event }]);
    },
  );

  it('reads the body whatever its content type (a delivery policy may send application/json)', async () => {
    const event = sesDeliveryEvent();
    const res = await deliver(
      signSnsMessage(snsNotification(TOPIC, event), key.privateKey),
      'application/json',
    );
    expect(res.status).toBe(200);
    expect(await queuedAfterDrain()).toEqual([{ type: SES_EVENT_JOB, event }]);
  });

  it('answers 200 and queues nothing for a notification that is no SES event', async () => {
    for (const payload of ['plain text', { hello: 'world' }, { eventType: 'Delivery' }]) {
      const res = await deliver(signSnsMessage(snsNotification(TOPIC, payload), key.privateKey));
      expect(res.status).toBe(200);
      expect(res.body.data.action).toBe('ignored');
    }
    expect(await queuedAfterDrain()).toEqual([]);
  });

  it('refuses a tampered message with 403 and queues nothing', async () => {
    const signed = signSnsMessage(snsNotification(TOPIC, sesDeliveryEvent()), key.privateKey);
    const tampered = { ...signed, Message: JSON.stringify(sesDeliveryEvent('forged')) };
    const res = await deliver(tampered);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      success: false,
      error: {
        code: 'INVALID_SNS_MESSAGE',
        message: 'Not a message signed by Amazon SNS: The signature does not verify',
        statusCode: 403,
      },
    });
    expect(typeof res.body.error.requestId).toBe('string');
    const otherSigner = await deliver(
      signSnsMessage(snsNotification(TOPIC, sesDeliveryEvent()), otherKey.privateKey),
    );
    expect(otherSigner.status).toBe(403);
    expect(await queuedAfterDrain()).toEqual([]);
  });

  it('refuses an unsigned message with 403 and queues nothing', async () => {
    const { Signature: _, ...unsigned } = signSnsMessage(
      snsNotification(TOPIC, sesDeliveryEvent()),
      key.privateKey,
    );
    const res = await deliver(unsigned);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('INVALID_SNS_MESSAGE');
    const noVersion = await deliver(snsNotification(TOPIC, sesDeliveryEvent()));
    expect(noVersion.status).toBe(403);
    expect(await queuedAfterDrain()).toEqual([]);
  });

  it('refuses a validly signed message of another topic with 403 and queues nothing', async () => {
    const res = await deliver(
      signSnsMessage(snsNotification(OTHER_TOPIC, sesDeliveryEvent()), key.privateKey),
    );
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('SNS_TOPIC_NOT_ACCEPTED');
    expect(await queuedAfterDrain()).toEqual([]);
  });

  it('refuses a certificate URL off SNS hosts with 403 and queues nothing', async () => {
    for (const url of [
      'https://sns.us-east-1.amazonaws.com.evil.com/SimpleNotificationService-1.pem',
      'http://sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem',
    ]) {
      const message = signSnsMessage(
        snsNotification(TOPIC, sesDeliveryEvent(), { SigningCertURL: url }),
        key.privateKey,
      );
      const res = await deliver(message);
      expect(res.status).toBe(403);
      expect(res.body.error.message).toMatch(/SigningCertURL/);
    }
    expect(await queuedAfterDrain()).toEqual([]);
  });

  it('answers 500 when the certificate cannot be fetched, so that SNS delivers again', async () => {
    const message = signSnsMessage(
      snsNotification(TOPIC, sesDeliveryEvent(), {
        SigningCertURL: 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-unknown.pem',
      }),
      key.privateKey,
    );
    const res = await deliver(message);
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('INTERNAL_SERVER_ERROR');
    expect(await queuedAfterDrain()).toEqual([]);
  });

  it('answers 400 to a body that is not JSON, and 403 to JSON that is no SNS message', async () => {
    const res = await deliver('{"Type": "Notification",');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect((await rt.api('POST', '/webhooks/sns', { key: null })).status).toBe(400);
    expect((await deliver(JSON.stringify({ hello: 'world' }))).status).toBe(403);
    expect(await queuedAfterDrain()).toEqual([]);
  });
});

describe('POST /webhooks/sns: subscriptions', () => {
  it('confirms a subscription to the configured topic by GETting its SubscribeURL', async () => {
    const before = sns.confirmations().length;
    const message = signSnsMessage(snsConfirmation(TOPIC), key.privateKey, '1');
    const res = await deliver(message);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'SubscriptionConfirmation', action: 'confirmed' });
    expect(sns.confirmations().slice(before)).toEqual([message.SubscribeURL]);
    expect(await queuedAfterDrain()).toEqual([]);
  });

  it('refuses a confirmation of another topic with 403 and GETs nothing', async () => {
    const before = sns.confirmations().length;
    const res = await deliver(signSnsMessage(snsConfirmation(OTHER_TOPIC), key.privateKey));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('SNS_TOPIC_NOT_ACCEPTED');
    expect(sns.confirmations()).toHaveLength(before);
  });

  it('refuses a tampered or unsigned confirmation, or one whose SubscribeURL is off SNS hosts, and GETs nothing', async () => {
    const before = sns.confirmations().length;
    const signed = signSnsMessage(snsConfirmation(TOPIC), key.privateKey);
    const offHost = signSnsMessage(
      snsConfirmation(TOPIC, 'SubscriptionConfirmation', {
        SubscribeURL: 'https://sns.us-east-1.amazonaws.com.evil.com/?Action=ConfirmSubscription&Token=t',
      }),
      key.privateKey,
    );
    const { Signature: _, ...unsigned } = signed;
    for (const message of [
      { ...signed, SubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&Token=x' },
      unsigned,
      offHost,
    ]) {
      const res = await deliver(message);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('INVALID_SNS_MESSAGE');
    }
    expect(sns.confirmations()).toHaveLength(before);
  });

  it('answers 200 to an unsubscribe confirmation and does nothing else', async () => {
    const before = sns.confirmations().length;
    const res = await deliver(
      signSnsMessage(snsConfirmation(TOPIC, 'UnsubscribeConfirmation'), key.privateKey),
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ type: 'UnsubscribeConfirmation', action: 'none' });
    expect(sns.confirmations()).toHaveLength(before);
    expect(await queuedAfterDrain()).toEqual([]);
  });
});
