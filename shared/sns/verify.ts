/**
 * Verifying the signature of an Amazon SNS message delivered over HTTPS (AWS, "Verifying the
 * signatures of Amazon SNS messages"): the JSON body's fields, the canonical string SNS signed,
 * the signing certificate named by `SigningCertURL` (fetched only from SNS's own hosts,
 * ./urls.ts), and an RSA signature over that string: SHA1withRSA for `SignatureVersion` "1",
 * SHA256withRSA for "2".
 *
 * The certificate is trusted because it is fetched over HTTPS from SNS's host (TLS checks that
 * host's certificate against the system's CAs), as AWS's own validators do; its validity period
 * and its key type are checked here. The canonical string is each signed field's name and value,
 * each followed by a newline, in this (byte) order:
 *
 * - Notification: Message, MessageId, Subject (only when the message has one), Timestamp,
 *   TopicArn, Type;
 * - SubscriptionConfirmation and UnsubscribeConfirmation: Message, MessageId, SubscribeURL,
 *   Timestamp, Token, TopicArn, Type.
 *
 * Nothing else is signed (`UnsubscribeURL`, `MessageAttributes` are not), so nothing else is read
 * from a verified message.
 */
import { createVerify, X509Certificate } from 'node:crypto';
import * as z from 'zod/mini';
import { isSnsCertificateUrl } from './urls';

const text = z.string().check(z.minLength(1));
const base64 = z.string().check(z.regex(/^[A-Za-z0-9+/]+={0,2}$/, 'expected base64'));

/** What every message type carries and signs, or carries to be verified. */
const common = {
  MessageId: text,
  TopicArn: text,
  Message: z.string(),
  Timestamp: text,
  SignatureVersion: z.enum(['1', '2']),
  Signature: base64,
  SigningCertURL: text,
};

const notificationSchema = z.object({
  Type: z.literal('Notification'),
  ...common,
  /** Present only when the publisher gave one; then it is signed. */
  Subject: z.optional(z.string()),
});

const confirmationSchema = z.object({
  Type: z.enum(['SubscriptionConfirmation', 'UnsubscribeConfirmation']),
  ...common,
  SubscribeURL: text,
  Token: text,
});

const messageSchema = z.discriminatedUnion('Type', [notificationSchema, confirmationSchema]);

/** An SNS message as delivered to an HTTP/S endpoint: its signed fields and how it was signed. */
export type SnsMessage = z.infer<typeof messageSchema>;
export type SnsMessageType = SnsMessage['Type'];

/** Why a message is refused; `reason` says what is wrong, never echoing a secret. */
export type SnsRejection = { readonly ok: false; readonly reason: string };

/**
 * The message of a parsed JSON body, when it has the fields its type signs and how it was signed
 * (a supported `SignatureVersion`, a `Signature`, a `SigningCertURL`); other fields are dropped.
 */
export function parseSnsMessage(
  body: unknown,
): { readonly ok: true; readonly message: SnsMessage } | SnsRejection {
  const parsed = messageSchema.safeParse(body);
  if (parsed.success) return { ok: true, message: parsed.data };
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.');
  return { ok: false, reason: field ? `${field}: ${issue!.message}` : 'Not an SNS message' };
}

/** The canonical string SNS signs for `message` (see the module comment). */
export function stringToSign(message: SnsMessage): string {
  const fields: [string, string][] =
    message.Type === 'Notification'
      ? [
          ['Message', message.Message],
          ['MessageId', message.MessageId],
          ...(message.Subject === undefined ? [] : ([['Subject', message.Subject]] as [string, string][])),
          ['Timestamp', message.Timestamp],
          ['TopicArn', message.TopicArn],
          ['Type', message.Type],
        ]
      : [
          ['Message', message.Message],
          ['MessageId', message.MessageId],
          ['SubscribeURL', message.SubscribeURL],
          ['Timestamp', message.Timestamp],
          ['Token', message.Token],
          ['TopicArn', message.TopicArn],
          ['Type', message.Type],
        ];
  return fields.map(([name, value]) => `${name}\n${value}\n`).join('');
}

export interface VerifyOptions {
  /** The PEM certificate at an SNS certificate URL (`SnsEndpointsPort.signingCertificate`). */
  readonly certificate: (url: string) => Promise<string>;
  /** Now, to check the certificate's validity period. */
  readonly now: Date;
}

/**
 * Whether SNS signed `message`: its certificate URL is SNS's, the certificate is a valid RSA
 * certificate now, and the signature over the canonical string verifies with its key by the
 * algorithm of its `SignatureVersion`. A certificate that cannot be fetched rejects (the caller's
 * failure, not the message's: SNS delivers again); everything else answers.
 */
export async function verifySnsMessage(
  message: SnsMessage,
  options: VerifyOptions,
): Promise<{ readonly ok: true } | SnsRejection> {
  if (!isSnsCertificateUrl(message.SigningCertURL))
    return { ok: false, reason: 'SigningCertURL is not an https URL of an SNS certificate' };
  const pem = await options.certificate(message.SigningCertURL);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch {
    return { ok: false, reason: 'The signing certificate cannot be read' };
  }
  const now = options.now.getTime();
  if (now < Date.parse(certificate.validFrom) || now > Date.parse(certificate.validTo))
    return { ok: false, reason: 'The signing certificate is not valid now' };
  if (certificate.publicKey.asymmetricKeyType !== 'rsa')
    return { ok: false, reason: 'The signing certificate does not hold an RSA key' };
  const verifier = createVerify(message.SignatureVersion === '1' ? 'RSA-SHA1' : 'RSA-SHA256');
  verifier.update(stringToSign(message), 'utf8');
  let valid: boolean;
  try {
    valid = verifier.verify(certificate.publicKey, message.Signature, 'base64');
  } catch {
    valid = false;
  }
  return valid ? { ok: true } : { ok: false, reason: 'The signature does not verify' };
}
