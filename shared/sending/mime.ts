/**
 * Builds the RFC 5322 message with nodemailer's MailComposer: multipart/alternative (text and
 * HTML), multipart/related for inline images referenced by `cid:`, multipart/mixed for
 * attachments, RFC 2047 encoding of non-ASCII subjects and names, folded header lines. File and
 * URL access of the composer are off: content only ever comes from the request.
 */
import MailComposer from 'nodemailer/lib/mail-composer';

export interface MimeAddress {
  readonly email: string;
  readonly name?: string | null;
}

export interface MimeAttachment {
  readonly filename: string;
  readonly content: Buffer;
  readonly contentType: string;
  readonly contentId?: string;
  readonly disposition: 'attachment' | 'inline';
}

export interface MimeMessage {
  readonly from: MimeAddress;
  readonly to: MimeAddress;
  readonly replyTo?: string | null;
  readonly subject: string;
  readonly html: string;
  readonly text: string;
  readonly date: Date;
  /** Custom headers, already validated (names and values free of CR and LF). */
  readonly headers?: Readonly<Record<string, string>>;
  /** One-click unsubscribe URL: adds List-Unsubscribe and List-Unsubscribe-Post (RFC 8058). */
  readonly listUnsubscribeUrl?: string;
  readonly attachments?: readonly MimeAttachment[];
}

const formatAddress = (a: MimeAddress) => (a.name ? { name: a.name, address: a.email } : a.email);

export function buildMime(message: MimeMessage): Promise<Buffer> {
  const headers: Record<string, string> = { ...message.headers };
  if (message.listUnsubscribeUrl) {
    // Our own URL (no spaces or angle brackets), so the header is written as is.
    headers['List-Unsubscribe'] = `<${message.listUnsubscribeUrl}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  const composer = new MailComposer({
    from: formatAddress(message.from),
    to: formatAddress(message.to),
    ...(message.replyTo ? { replyTo: message.replyTo } : {}),
    subject: message.subject,
    html: message.html,
    text: message.text,
    date: message.date,
    headers,
    attachments: (message.attachments ?? []).map((a) => ({
      filename: a.filename,
      content: a.content,
      contentType: a.contentType,
      contentDisposition: a.disposition,
      ...(a.contentId ? { cid: a.contentId } : {}),
    })),
    disableFileAccess: true,
    disableUrlAccess: true,
    xMailer: false,
  });
  return composer.compile().build();
}
