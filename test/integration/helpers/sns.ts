/**
 * SNS as a test plays it: an RSA key with a self-signed X.509 certificate made in the test (a
 * small DER writer over node:crypto, no CLI and no fixture file), and SNS messages signed with it
 * the way AWS documents ("Verifying the signatures of Amazon SNS messages").
 *
 * The canonical string is written out here again, field by field, rather than taken from
 * shared/sns/verify.ts, so that a mistake there fails the tests instead of being signed along.
 */
import { generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';

/** A signing identity: a key and the certificate of its public half. */
export interface SnsSigningKey {
  readonly privateKey: KeyObject;
  readonly certificatePem: string;
}

export interface CertificateOptions {
  /** @default an hour ago */
  readonly notBefore?: Date;
  /** @default a day from now */
  readonly notAfter?: Date;
  /** @default 'sns.amazonaws.com' */
  readonly commonName?: string;
  /** @default 'rsa' */
  readonly keyType?: 'rsa' | 'ec';
}

/** A new key and a self-signed certificate for it (SHA256withRSA, or ECDSA for an EC key). */
export function snsSigningKey(options: CertificateOptions = {}): SnsSigningKey {
  const keyType = options.keyType ?? 'rsa';
  const { privateKey, publicKey } =
    keyType === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const now = Date.now();
  const name = seq(set(seq(oid('2.5.4.3'), utf8(options.commonName ?? 'sns.amazonaws.com'))));
  const algorithm =
    keyType === 'rsa'
      ? seq(oid('1.2.840.113549.1.1.11'), Buffer.from([0x05, 0x00])) // sha256WithRSAEncryption
      : seq(oid('1.2.840.10045.4.3.2')); // ecdsa-with-SHA256
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))), // v3
    integer(Buffer.from(randomUUID().replace(/-/g, '').slice(0, 16), 'hex')),
    algorithm,
    name,
    seq(
      time(options.notBefore ?? new Date(now - 3_600_000)),
      time(options.notAfter ?? new Date(now + 86_400_000)),
    ),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = seq(tbs, algorithm, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const lines = der.toString('base64').match(/.{1,64}/g)!;
  return {
    privateKey,
    certificatePem: `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`,
  };
}

/** An SNS message as it arrives, before or after signing (all fields strings). */
export type SnsFields = Record<string, string>;

/** AWS's canonical string: the signed fields of the message's type, in order, `name\nvalue\n` each. */
export function canonicalString(message: SnsFields): string {
  const fields =
    message.Type === 'Notification'
      ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  return fields
    .filter((field) => message[field] !== undefined)
    .map((field) => `${field}\n${message[field]}\n`)
    .join('');
}

/** `message` with `SignatureVersion` and the `Signature` of its canonical string by `key`. */
export function signSnsMessage(message: SnsFields, key: KeyObject, version: '1' | '2' = '2'): SnsFields {
  const signature = sign(version === '1' ? 'sha1' : 'sha256', Buffer.from(canonicalString(message)), key);
  return { ...message, SignatureVersion: version, Signature: signature.toString('base64') };
}

export const TEST_CERT_URL =
  'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000000000000000000000000000test.pem';

/** An SES event record as the configuration set publishes it (a delivery). */
export function sesDeliveryEvent(messageId = `ses-${randomUUID()}`): Record<string, unknown> {
  return {
    eventType: 'Delivery',
    mail: {
      timestamp: '2026-01-02T03:04:05.000Z',
      source: 'news@example.com',
      messageId,
      destination: ['ann@example.org'],
      tags: { emailId: ['e-1'] },
    },
    delivery: {
      timestamp: '2026-01-02T03:04:06.000Z',
      recipients: ['ann@example.org'],
      processingTimeMillis: 812,
      smtpResponse: '250 ok',
    },
  };
}

/** An unsigned Notification of `topicArn` carrying `message` (an object is sent as its JSON). */
export function snsNotification(topicArn: string, message: unknown, extra: SnsFields = {}): SnsFields {
  return {
    Type: 'Notification',
    MessageId: randomUUID(),
    TopicArn: topicArn,
    Message: typeof message === 'string' ? message : JSON.stringify(message),
    Timestamp: '2026-01-02T03:04:07.123Z',
    SigningCertURL: TEST_CERT_URL,
    UnsubscribeURL: `https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${topicArn}:sub`,
    ...extra,
  };
}

/** An unsigned SubscriptionConfirmation (or UnsubscribeConfirmation) of `topicArn`. */
export function snsConfirmation(
  topicArn: string,
  type: 'SubscriptionConfirmation' | 'UnsubscribeConfirmation' = 'SubscriptionConfirmation',
  extra: SnsFields = {},
): SnsFields {
  const token = randomUUID().replace(/-/g, '').repeat(4);
  const region = topicArn.split(':')[3];
  return {
    Type: type,
    MessageId: randomUUID(),
    Token: token,
    TopicArn: topicArn,
    Message: `You have chosen to subscribe to the topic ${topicArn}.\nTo confirm the subscription, visit the SubscribeURL included in this message.`,
    SubscribeURL: `https://sns.${region}.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${topicArn}&Token=${token}`,
    Timestamp: '2026-01-02T03:04:07.123Z',
    SigningCertURL: TEST_CERT_URL,
    ...extra,
  };
}

// DER, just enough of it for a certificate.

function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length =
    n < 0x80
      ? Buffer.from([n])
      : n < 0x100
        ? Buffer.from([0x81, n])
        : n < 0x10000
          ? Buffer.from([0x82, n >> 8, n & 0xff])
          : Buffer.from([0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}

const seq = (...parts: Buffer[]) => tlv(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]) => tlv(0x31, Buffer.concat(parts));
const utf8 = (text: string) => tlv(0x0c, Buffer.from(text, 'utf8'));

/** A positive INTEGER from big-endian bytes. */
function integer(bytes: Buffer): Buffer {
  // DER's minimal form: no leading zero byte unless the next one has its high bit set (a random
  // serial starting 0x00 0x1f was otherwise unreadable, about one certificate in 500).
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0 && !(bytes[start + 1]! & 0x80)) start++;
  const minimal = bytes.subarray(start);
  return tlv(0x02, minimal[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), minimal]) : minimal);
}

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [first! * 40 + second!];
  for (const arc of rest) {
    const groups = [arc & 0x7f];
    for (let v = arc >> 7; v > 0; v >>= 7) groups.unshift((v & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime, YYMMDDHHMMSSZ (years 1950 to 2049). */
function time(date: Date): Buffer {
  const iso = date.toISOString();
  const text = `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return tlv(0x17, Buffer.from(text, 'ascii'));
}
