/**
 * Builds the RFC 5322 message with nodemailer's MailComposer: multipart/alternative (text and
 * HTML), multipart/related for inline images referenced by `cid:`, multipart/mixed for
 * attachments, RFC 2047 encoding of non-ASCII subjects and names, folded header lines. File and
 * URL access of the composer are off: content only ever comes from the request.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import * as b64 from 'nodemailer/lib/base64';
import MailComposer from 'nodemailer/lib/mail-composer';
import * as mimeFuncs from 'nodemailer/lib/mime-funcs';
import * as qp from 'nodemailer/lib/qp';
import { RESERVED_HEADERS } from './schemas';

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

const ASCII = /^[\x20-\x7e]*$/;
const PLAIN_ADDRESS = /^[\x21-\x7e]+@[\x21-\x7e]+$/;

const headerLine = (name: string, value: string) =>
  mimeFuncs.foldLines(
    `${name}: ${ASCII.test(value) ? value : mimeFuncs.encodeWords(value, 'Q', 52, true)}`,
    76,
  );

function addressText(a: MimeAddress): string {
  if (!a.name) return a.email;
  const name = !ASCII.test(a.name)
    ? mimeFuncs.encodeWord(a.name, 'Q', 52)
    : /^[\w ]*$/.test(a.name)
      ? a.name
      : mimeFuncs.quoteString(a.name);
  return `${name} <${a.email}>`;
}

/** A text part: quoted-printable, or base64 when most of it is not ASCII (as the composer picks). */
function textPart(type: string, content: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: counting non-ASCII characters
  const nonAscii = content.length - content.replace(/[^\x00-\x7f]/g, '').length;
  const base64 = nonAscii > content.length / 2;
  const encoded = base64
    ? b64.wrap(Buffer.from(content, 'utf8').toString('base64'), 76)
    : qp.wrap(qp.encode(content), 76);
  return (
    `Content-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: ${base64 ? 'base64' : 'quoted-printable'}\r\n\r\n` +
    `${encoded.replace(/\r?\n/g, '\r\n')}\r\n`
  );
}

/** One attachment part (headers and base64 body); the same for every message of a send. */
const attachmentParts = new WeakMap<MimeAttachment, string>();
function attachmentPart(a: MimeAttachment): string {
  let part = attachmentParts.get(a);
  if (part !== undefined) return part;
  const name = ASCII.test(a.filename)
    ? mimeFuncs.quoteString(a.filename)
    : `"${mimeFuncs.encodeWords(a.filename, 'Q', 52)}"`;
  const filename = mimeFuncs
    .buildHeaderParam('filename', a.filename, 50)
    .map(
      (p: { key: string; value: string }) =>
        `${p.key}=${ASCII.test(p.value) && !/[\s";=]/.test(p.value) && !p.key.endsWith('*') ? p.value : p.key.endsWith('*') ? p.value : mimeFuncs.quoteString(p.value)}`,
    )
    .join(';\r\n ');
  part =
    `${mimeFuncs.foldLines(`Content-Type: ${a.contentType}; name=${name}`, 76)}\r\n` +
    (a.contentId ? `Content-ID: <${a.contentId}>\r\n` : '') +
    'Content-Transfer-Encoding: base64\r\n' +
    `Content-Disposition: ${a.disposition}; ${filename}\r\n\r\n` +
    `${b64.wrap(a.content.toString('base64'), 76).replace(/\r?\n/g, '\r\n')}\r\n`;
  attachmentParts.set(a, part);
  return part;
}

function multipart(subtype: string, parts: readonly string[]): string {
  const boundary = `--_Sesame-${randomBytes(12).toString('hex')}-${subtype}`;
  return (
    `Content-Type: multipart/${subtype};\r\n boundary="${boundary}"\r\n\r\n` +
    parts.map((p) => `--${boundary}\r\n${p}`).join('') +
    `--${boundary}--\r\n`
  );
}

/**
 * The same message as `buildMime` (same headers, parts and structure, other boundaries and
 * Message-ID), written directly: no streams, attachment parts encoded once per attachment.
 * Falls back to the composer for what it does not write itself (addresses that are not plain
 * ASCII, a Reply-To that is not one plain address, custom headers of names it writes, an empty
 * text or HTML part, which the composer leaves out).
 */
export function buildMimeLean(message: MimeMessage): Promise<Buffer> | Buffer {
  const custom = Object.entries(message.headers ?? {});
  if (
    message.text === '' ||
    message.html === '' ||
    !PLAIN_ADDRESS.test(message.from.email) ||
    !PLAIN_ADDRESS.test(message.to.email) ||
    (message.replyTo && !PLAIN_ADDRESS.test(message.replyTo)) ||
    // Names the builder writes itself are all reserved: only a caller that skipped the request
    // schema could pass one, and the composer handles it.
    custom.some(([name]) => RESERVED_HEADERS.has(name.toLowerCase()))
  )
    return buildMime(message);
  let head = '';
  for (const [name, value] of custom) head += `${headerLine(name, value)}\r\n`;
  if (message.listUnsubscribeUrl) {
    head += `List-Unsubscribe: <${message.listUnsubscribeUrl}>\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n`;
  }
  head += `${mimeFuncs.foldLines(`From: ${addressText(message.from)}`, 76)}\r\n`;
  head += `${mimeFuncs.foldLines(`To: ${addressText(message.to)}`, 76)}\r\n`;
  if (message.replyTo) head += `Reply-To: ${message.replyTo}\r\n`;
  head += `${headerLine('Subject', message.subject)}\r\n`;
  head += `Date: ${message.date.toUTCString().replace(/GMT/, '+0000')}\r\n`;
  head += `Message-ID: <${randomUUID()}@${message.from.email.split('@').pop()}>\r\nMIME-Version: 1.0\r\n`;

  let root = multipart('alternative', [
    textPart('text/plain', message.text),
    textPart('text/html', message.html),
  ]);
  const attachments = message.attachments ?? [];
  const inline = attachments.filter((a) => a.disposition === 'inline' && a.contentId);
  const files = attachments.filter((a) => !inline.includes(a));
  if (inline.length > 0) root = multipart('related', [root, ...inline.map(attachmentPart)]);
  if (files.length > 0) root = multipart('mixed', [root, ...files.map(attachmentPart)]);
  return Buffer.from(head + root, 'utf8');
}
