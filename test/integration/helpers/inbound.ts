/**
 * Helpers for tests of received mail (shared/inbound): SES's notification of a stored message, raw
 * MIME messages, and `POST /_local/inbound`.
 */
import { inboundReceivedJobMessage } from '../../../shared/inbound/messages';
import { enqueue } from '../../../shared/jobs/registry';
import type { ApiResponse, Json } from './api';
import type { LocalTestRuntime } from './local';

/**
 * What SES publishes for a message its receipt rule's S3 action stored, as the inbound topic
 * delivers it raw to the jobs queue (no `content`: only an SNS action adds the message itself).
 */
export function receivedNotification(
  overrides: { messageId?: string; recipients?: string[]; timestamp?: string; virus?: string } = {},
) {
  const messageId = overrides.messageId ?? 'o3vrnil0e2ic28trm7dfhrc2v0clambda4nbp0g81';
  const recipients = overrides.recipients ?? ['reply@inbound.acme.io'];
  return {
    notificationType: 'Received',
    receipt: {
      timestamp: overrides.timestamp ?? '2026-03-02T10:15:30.123Z',
      processingTimeMillis: 420,
      recipients,
      spamVerdict: { status: 'PASS' },
      virusVerdict: { status: overrides.virus ?? 'PASS' },
      spfVerdict: { status: 'PASS' },
      dkimVerdict: { status: 'GRAY' },
      dmarcVerdict: { status: 'PASS' },
      dmarcPolicy: 'none',
      action: {
        type: 'S3',
        topicArn: 'arn:aws:sns:eu-west-1:123456789012:Sesame-prod-Stateful-InboundMailTopic',
        bucketName: 'sesame-prod-stateful-inboundmailbucket',
        objectKeyPrefix: 'inbound/',
        objectKey: `inbound/${messageId}`,
      },
    },
    mail: {
      timestamp: '2026-03-02T10:15:29.700Z',
      source: 'ann@example.org',
      messageId,
      destination: recipients,
      headersTruncated: false,
      headers: [
        { name: 'From', value: 'Ann <ann@example.org>' },
        { name: 'To', value: recipients.join(', ') },
        { name: 'Subject', value: 'Re: Hello' },
      ],
      commonHeaders: {
        returnPath: 'ann@example.org',
        from: ['Ann <ann@example.org>'],
        date: 'Mon, 2 Mar 2026 10:15:28 +0000',
        to: recipients,
        messageId: '<CA+abc@mail.example.org>',
        subject: 'Re: Hello',
      },
    },
  };
}

export interface RawMessageInput {
  readonly from?: string;
  readonly to?: string;
  readonly subject?: string;
  readonly text?: string;
  readonly html?: string;
  readonly inReplyTo?: string;
  /** Attachments by file name, each a small text file. */
  readonly attachments?: readonly string[];
}

/** A raw RFC 5322 message: text, HTML or both, with attachments when asked. */
export function rawMessage(input: RawMessageInput = {}): string {
  const headers = [
    ...(input.from !== undefined ? [`From: ${input.from}`] : []),
    `To: ${input.to ?? 'reply@example.com'}`,
    ...(input.subject !== undefined ? [`Subject: ${input.subject}`] : []),
    'Date: Mon, 02 Mar 2026 10:15:28 +0000',
    `Message-ID: <${Math.random().toString(36).slice(2)}@mail.example.org>`,
    ...(input.inReplyTo ? [`In-Reply-To: ${input.inReplyTo}`] : []),
    'MIME-Version: 1.0',
  ];
  const parts: string[] = [];
  if (input.text !== undefined) parts.push(`Content-Type: text/plain; charset=utf-8\r\n\r\n${input.text}`);
  if (input.html !== undefined) parts.push(`Content-Type: text/html; charset=utf-8\r\n\r\n${input.html}`);
  const files = (input.attachments ?? []).map(
    (name) =>
      `Content-Type: text/plain; name="${name}"\r\nContent-Disposition: attachment; filename="${name}"\r\n` +
      `Content-Transfer-Encoding: base64\r\n\r\n${Buffer.from(`contents of ${name}`).toString('base64')}`,
  );
  if (parts.length === 1 && files.length === 0) return `${headers.join('\r\n')}\r\n${parts[0]}\r\n`;
  const boundary = 'sesame-test-boundary';
  const body =
    files.length === 0
      ? [...parts]
      : [
          parts.length > 1
            ? `Content-Type: multipart/alternative; boundary="alt"\r\n\r\n${parts.map((p) => `--alt\r\n${p}\r\n`).join('')}--alt--`
            : (parts[0] ?? 'Content-Type: text/plain\r\n\r\n'),
          ...files,
        ];
  const kind = files.length === 0 ? 'alternative' : 'mixed';
  return (
    `${headers.join('\r\n')}\r\nContent-Type: multipart/${kind}; boundary="${boundary}"\r\n\r\n` +
    `${body.map((p) => `--${boundary}\r\n${p}\r\n`).join('')}--${boundary}--\r\n`
  );
}

/** `POST /_local/inbound` with a raw message (no key: `_local` routes take none). */
export function postInbound(
  rt: LocalTestRuntime,
  raw: string | Uint8Array,
  query: Record<string, string> = {},
  contentType = 'message/rfc822',
): Promise<ApiResponse> {
  return rt.api('POST', '/_local/inbound', {
    key: null,
    raw,
    query,
    headers: { 'content-type': contentType },
  });
}

/** Puts the job `POST /_local/inbound` answered with on the queue again: a redelivery. */
export async function enqueueAgain(rt: LocalTestRuntime, answered: Json): Promise<void> {
  const { key, messageId, receivedAt, recipients, verdicts } = answered;
  await enqueue(rt.deps, inboundReceivedJobMessage, { key, messageId, receivedAt, recipients, verdicts });
}
