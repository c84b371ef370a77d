/**
 * SNS signature verification (shared/sns/verify.ts) against messages signed in the test with a
 * generated RSA key and self-signed certificate, both signature versions, every message type.
 */
import { describe, expect, it, vi } from 'vitest';
import { parseSnsMessage, type SnsMessage, stringToSign, verifySnsMessage } from '../../../shared/sns/verify';
import {
  type SnsFields,
  sesDeliveryEvent,
  signSnsMessage,
  snsConfirmation,
  snsNotification,
  snsSigningKey,
  TEST_CERT_URL,
} from '../../integration/helpers/sns';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:sesame-ses-events';
const key = snsSigningKey();
const otherKey = snsSigningKey();

/** Parses and verifies `fields`, serving `pem` at every certificate URL. */
async function check(fields: SnsFields, pem = key.certificatePem, now = new Date()) {
  const parsed = parseSnsMessage(fields);
  if (!parsed.ok) return parsed;
  return verifySnsMessage(parsed.message, { certificate: async () => pem, now });
}

const notification = (extra: SnsFields = {}) => snsNotification(TOPIC, sesDeliveryEvent(), extra);

describe('the canonical string', () => {
  const base = {
    MessageId: 'm-1',
    TopicArn: TOPIC,
    Message: 'line one\nline two',
    Timestamp: '2026-01-02T03:04:05.678Z',
    SignatureVersion: '2',
    Signature: 'AAAA',
    SigningCertURL: TEST_CERT_URL,
  } as const;

  it('of a Notification: Message, MessageId, Subject when present, Timestamp, TopicArn, Type', () => {
    const withSubject = { ...base, Type: 'Notification', Subject: 'Hello' } satisfies SnsMessage;
    expect(stringToSign(withSubject)).toBe(
      `Message\nline one\nline two\nMessageId\nm-1\nSubject\nHello\nTimestamp\n2026-01-02T03:04:05.678Z\nTopicArn\n${TOPIC}\nType\nNotification\n`,
    );
    expect(stringToSign({ ...base, Type: 'Notification' })).toBe(
      `Message\nline one\nline two\nMessageId\nm-1\nTimestamp\n2026-01-02T03:04:05.678Z\nTopicArn\n${TOPIC}\nType\nNotification\n`,
    );
  });

  it.each(['SubscriptionConfirmation', 'UnsubscribeConfirmation'] as const)(
    'of a %s: Message, MessageId, SubscribeURL, Timestamp, Token, TopicArn, Type',
    (type) => {
      const message = {
        ...base,
        Type: type,
        SubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&Token=t',
        Token: 't',
      } satisfies SnsMessage;
      expect(stringToSign(message)).toBe(
        'Message\nline one\nline two\nMessageId\nm-1\nSubscribeURL\nhttps://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&Token=t\n' +
          `Timestamp\n2026-01-02T03:04:05.678Z\nToken\nt\nTopicArn\n${TOPIC}\nType\n${type}\n`,
      );
    },
  );
});

describe('verifySnsMessage', () => {
  describe.each(['1', '2'] as const)('SignatureVersion %s', (version) => {
    it('accepts a signed Notification, with and without a Subject', async () => {
      expect(await check(signSnsMessage(notification(), key.privateKey, version))).toEqual({ ok: true });
      expect(
        await check(
          signSnsMessage(notification({ Subject: 'Amazon SES Email Event' }), key.privateKey, version),
        ),
      ).toEqual({ ok: true });
    });

    it.each(['SubscriptionConfirmation', 'UnsubscribeConfirmation'] as const)(
      'accepts a signed %s',
      async (type) => {
        expect(await check(signSnsMessage(snsConfirmation(TOPIC, type), key.privateKey, version))).toEqual({
          ok: true,
        });
      },
    );

    it.each([
      ['Message', { Message: '{"eventType":"Bounce","mail":{}}' }],
      ['Subject', { Subject: 'Changed' }],
      ['Timestamp', { Timestamp: '2026-01-02T03:04:08.000Z' }],
      ['MessageId', { MessageId: 'another' }],
      ['TopicArn', { TopicArn: `${TOPIC}-2` }],
    ])('refuses a Notification whose %s was changed', async (_, change) => {
      const signed = signSnsMessage(notification({ Subject: 'Original' }), key.privateKey, version);
      expect(await check({ ...signed, ...change })).toEqual({
        ok: false,
        reason: 'The signature does not verify',
      });
    });

    it('refuses a Subject added to a Notification signed without one', async () => {
      const signed = signSnsMessage(notification(), key.privateKey, version);
      expect(await check({ ...signed, Subject: '' })).toMatchObject({ ok: false });
    });

    it.each([
      [
        'SubscribeURL',
        { SubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&Token=x' },
      ],
      ['Token', { Token: 'another-token' }],
      ['Type', { Type: 'UnsubscribeConfirmation' }],
    ])('refuses a SubscriptionConfirmation whose %s was changed', async (_, change) => {
      const signed = signSnsMessage(snsConfirmation(TOPIC), key.privateKey, version);
      expect(await check({ ...signed, ...change })).toEqual({
        ok: false,
        reason: 'The signature does not verify',
      });
    });

    it('refuses a signature made by another key', async () => {
      expect(await check(signSnsMessage(notification(), otherKey.privateKey, version))).toEqual({
        ok: false,
        reason: 'The signature does not verify',
      });
    });

    it('refuses a signature that is not base64 of a signature', async () => {
      const signed = signSnsMessage(notification(), key.privateKey, version);
      expect(await check({ ...signed, Signature: 'AAAA' })).toMatchObject({ ok: false });
      expect(await check({ ...signed, Signature: 'not base64!' })).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/^Signature: /),
      });
    });
  });

  it('refuses a message whose SignatureVersion is not the one it was signed with, or unknown', async () => {
    const v1 = signSnsMessage(notification(), key.privateKey, '1');
    const v2 = signSnsMessage(notification(), key.privateKey, '2');
    expect(await check({ ...v1, SignatureVersion: '2' })).toEqual({
      ok: false,
      reason: 'The signature does not verify',
    });
    expect(await check({ ...v2, SignatureVersion: '1' })).toEqual({
      ok: false,
      reason: 'The signature does not verify',
    });
    for (const version of ['3', '0', '', 'v2'])
      expect(await check({ ...v2, SignatureVersion: version })).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/^SignatureVersion: /),
      });
  });

  it.each([
    'Signature',
    'SignatureVersion',
    'SigningCertURL',
    'Message',
    'MessageId',
    'TopicArn',
    'Timestamp',
    'Type',
  ])('refuses a message without %s (unsigned, or not SNS)', async (field) => {
    const { [field]: _, ...rest } = signSnsMessage(notification(), key.privateKey);
    expect(await check(rest)).toMatchObject({ ok: false });
  });

  it('refuses a confirmation without its SubscribeURL or Token, and bodies that are no SNS message', async () => {
    const signed = signSnsMessage(snsConfirmation(TOPIC), key.privateKey);
    for (const field of ['SubscribeURL', 'Token']) {
      const { [field]: _, ...rest } = signed;
      expect(await check(rest)).toMatchObject({ ok: false });
    }
    for (const body of [null, 'text', [], 42, {}, { ...signed, Type: 'Other' }, { ...signed, Message: 5 }])
      expect(parseSnsMessage(body)).toMatchObject({ ok: false });
  });

  it.each([
    ['plain http', 'http://sns.us-east-1.amazonaws.com/SimpleNotificationService-abc.pem'],
    ['another host', 'https://example.com/SimpleNotificationService-abc.pem'],
    ['a look-alike suffix', 'https://sns.us-east-1.amazonaws.com.evil.com/SimpleNotificationService-abc.pem'],
    ['a look-alike subdomain', 'https://sns.us-east-1.evil.amazonaws.com/SimpleNotificationService-abc.pem'],
    ['an S3 bucket', 'https://sns-certs.s3.amazonaws.com/SimpleNotificationService-abc.pem'],
    ['userinfo', 'https://sns.us-east-1.amazonaws.com@evil.com/SimpleNotificationService-abc.pem'],
    [
      'userinfo before the host',
      'https://evil@sns.us-east-1.amazonaws.com/SimpleNotificationService-abc.pem',
    ],
    ['a port', 'https://sns.us-east-1.amazonaws.com:8443/SimpleNotificationService-abc.pem'],
    ['no .pem', 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-abc'],
  ])('refuses a certificate URL on %s without fetching it', async (_, url) => {
    const certificate = vi.fn(async () => key.certificatePem);
    const signed = signSnsMessage(notification({ SigningCertURL: url }), key.privateKey);
    const parsed = parseSnsMessage(signed);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(await verifySnsMessage(parsed.message, { certificate, now: new Date() })).toEqual({
      ok: false,
      reason: 'SigningCertURL is not an https URL of an SNS certificate',
    });
    expect(certificate).not.toHaveBeenCalled();
  });

  it('fetches the certificate named by the message, and rejects when it cannot be fetched', async () => {
    const signed = signSnsMessage(notification(), key.privateKey);
    const parsed = parseSnsMessage(signed);
    if (!parsed.ok) throw new Error('not parsed');
    const certificate = vi.fn(async () => key.certificatePem);
    await verifySnsMessage(parsed.message, { certificate, now: new Date() });
    expect(certificate).toHaveBeenCalledWith(TEST_CERT_URL);
    await expect(
      verifySnsMessage(parsed.message, {
        certificate: async () => Promise.reject(new Error('timeout')),
        now: new Date(),
      }),
    ).rejects.toThrow('timeout');
  });

  it('refuses a certificate that is expired, not yet valid, unreadable or not RSA', async () => {
    const signed = signSnsMessage(notification(), key.privateKey);
    const later = new Date(Date.now() + 2 * 86_400_000);
    expect(await check(signed, key.certificatePem, later)).toEqual({
      ok: false,
      reason: 'The signing certificate is not valid now',
    });
    expect(await check(signed, key.certificatePem, new Date(Date.now() - 2 * 3_600_000))).toMatchObject({
      ok: false,
    });
    expect(await check(signed, 'not a certificate')).toEqual({
      ok: false,
      reason: 'The signing certificate cannot be read',
    });
    const ec = snsSigningKey({ keyType: 'ec' });
    expect(await check(signSnsMessage(notification(), ec.privateKey), ec.certificatePem)).toEqual({
      ok: false,
      reason: 'The signing certificate does not hold an RSA key',
    });
  });
});
