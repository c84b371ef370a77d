/**
 * What the local inbox shows of a kept message, read from its raw MIME with postal-mime: the
 * list's summary and search, the message view (headers in their order, bodies, parts), the HTML
 * body made ready for its sandboxed frame (`cid:` references pointing at the message's own parts),
 * and the headers a downloaded part is served with.
 */
import PostalMime, { type Address, type Attachment, type Email } from 'postal-mime';
import { bodyText, type SinkIndexEntry, type SinkMessage } from '../../adapters/local/mail-sink';

/** One line of the list. */
export interface MessageSummary {
  readonly id: string;
  /** The From header as written (`Name <address>`), else the envelope sender. */
  readonly from: string;
  readonly to: readonly string[];
  readonly subject: string;
  readonly createdAt: string;
  /** The first characters of the text body. */
  readonly snippet: string;
  readonly attachments: number;
  readonly parseError?: string;
}

/** A message part, numbered in the order postal-mime lists them. */
export interface PartInfo {
  readonly index: number;
  readonly filename: string;
  readonly contentType: string;
  readonly size: number;
  readonly disposition: string | null;
  readonly contentId: string | null;
  /** Shown inside the HTML body (referenced there by its Content-ID), not only attached. */
  readonly inline: boolean;
}

export interface MessageDetail {
  readonly id: string;
  readonly createdAt: string;
  readonly envelope: { readonly from: string; readonly to: readonly string[] };
  readonly from: string;
  readonly to: readonly string[];
  readonly cc: readonly string[];
  readonly replyTo: readonly string[];
  readonly subject: string;
  readonly date: string | null;
  readonly messageId: string | null;
  readonly tags: Readonly<Record<string, string>>;
  /** Every header in the order the message has them, names as written. */
  readonly headers: readonly { readonly name: string; readonly value: string }[];
  readonly text: string | null;
  readonly hasHtml: boolean;
  readonly parts: readonly PartInfo[];
  /** Bytes of the raw message. */
  readonly size: number;
  readonly parseError?: string;
}

const SNIPPET_CHARS = 140;

/** `Name <address>`, or the bare address. */
export function formatAddress(a: Address): string[] {
  if (a.group) return a.group.flatMap(formatAddress);
  return [a.name ? `${a.name} <${a.address}>` : a.address];
}

const addresses = (list: readonly Address[] | undefined) => (list ?? []).flatMap(formatAddress);

/** One line of the list, from the message's index entry (no body read). */
export function summarize(m: SinkIndexEntry): MessageSummary {
  return {
    id: m.id,
    from: m.headers.from ?? m.from,
    to: m.to,
    subject: m.subject ?? '',
    createdAt: m.createdAt,
    snippet: m.preview.slice(0, SNIPPET_CHARS),
    attachments: m.attachments,
    ...(m.parseError ? { parseError: m.parseError } : {}),
  };
}

/** The words of a search, lower-cased. */
const wordsOf = (query: string) => query.toLowerCase().match(/\S+/g) ?? [];

/** Whether a search has a word not limited to a field (`from:`, `to:`, `subject:`): one the text may hold. */
export function searchesText(query: string): boolean {
  return wordsOf(query).some((word) => !/^(from|to|subject):(.+)$/.test(word));
}

/**
 * Whether a message matches a search: every word of `query` must be found (case-insensitively) in
 * the sender, the recipients (envelope, To and Cc), the subject or `text` (the body text: an index
 * entry's preview, or a message's whole text, its own by default); `from:`, `to:` and `subject:` limit
 * a word to that field. An empty query matches everything.
 */
export function matches(
  m: Pick<SinkIndexEntry, 'from' | 'to' | 'subject' | 'headers'> & Parameters<typeof bodyText>[0],
  query: string,
  text: string = bodyText(m),
): boolean {
  const words = wordsOf(query);
  if (words.length === 0) return true;
  const from = `${m.from}\n${m.headers.from ?? ''}`.toLowerCase();
  const to = `${m.to.join('\n')}\n${m.headers.to ?? ''}\n${m.headers.cc ?? ''}`.toLowerCase();
  const subject = (m.subject ?? '').toLowerCase();
  const all = `${from}\n${to}\n${subject}\n${text.toLowerCase()}`;
  return words.every((word) => {
    const field = /^(from|to|subject):(.+)$/.exec(word);
    if (!field) return all.includes(word);
    const value = field[2]!;
    return (field[1] === 'from' ? from : field[1] === 'to' ? to : subject).includes(value);
  });
}

/** Parses a raw message; a message postal-mime refuses is reported by the caller, not thrown. */
export async function parseRaw(raw: Uint8Array): Promise<Email> {
  return PostalMime.parse(raw, { attachmentEncoding: 'arraybuffer' });
}

const bareContentId = (id: string | undefined) => (id ? id.replace(/^<|>$/g, '').trim() : '');

/** The part each `cid:` reference of the HTML names, by Content-ID (RFC 2392: URL-encoded). */
function partByContentId(attachments: readonly Attachment[], reference: string): number {
  let wanted = reference;
  try {
    wanted = decodeURIComponent(reference);
  } catch {
    // Not valid percent-encoding: compared as it is.
  }
  const exact = attachments.findIndex((a) => bareContentId(a.contentId) === wanted);
  if (exact >= 0) return exact;
  const lower = wanted.toLowerCase();
  return attachments.findIndex((a) => bareContentId(a.contentId).toLowerCase() === lower);
}

const CID_REFERENCE = /\bcid:([^\s"'()<>]+)/gi;

/** The message's numbered parts, each marked inline when the HTML body shows it by Content-ID. */
export function partsOf(email: Email): PartInfo[] {
  const referenced = new Set<number>();
  for (const [, reference] of (email.html ?? '').matchAll(CID_REFERENCE)) {
    const index = partByContentId(email.attachments, reference!);
    if (index >= 0) referenced.add(index);
  }
  return email.attachments.map((a, index) => ({
    index,
    filename: a.filename ?? defaultName(index, a.mimeType),
    contentType: a.mimeType,
    size: typeof a.content === 'string' ? a.content.length : a.content.byteLength,
    disposition: a.disposition,
    contentId: bareContentId(a.contentId) || null,
    inline: referenced.has(index),
  }));
}

function defaultName(index: number, mimeType: string): string {
  const subtype = /^[a-z]+\/([a-z0-9]+)$/.exec(mimeType)?.[1];
  return `part-${index + 1}${subtype ? `.${subtype}` : ''}`;
}

export function detailOf(m: SinkMessage, raw: Uint8Array, email: Email | undefined): MessageDetail {
  const base = {
    id: m.id,
    createdAt: m.createdAt,
    envelope: { from: m.from, to: m.to },
    tags: m.tags,
    size: raw.byteLength,
  };
  if (!email) {
    return {
      ...base,
      from: m.from,
      to: m.to,
      cc: [],
      replyTo: [],
      subject: '',
      date: null,
      messageId: null,
      headers: [],
      text: null,
      hasHtml: false,
      parts: [],
      parseError: m.parseError ?? 'The message could not be parsed',
    };
  }
  return {
    ...base,
    from: email.from ? formatAddress(email.from).join(', ') : m.from,
    to: addresses(email.to),
    cc: addresses(email.cc),
    replyTo: addresses(email.replyTo),
    subject: email.subject ?? '',
    date: email.date ?? null,
    messageId: email.messageId ?? null,
    headers: email.headers.map((h) => ({ name: h.originalKey || h.key, value: h.value })),
    text: email.text ?? null,
    hasHtml: email.html !== undefined,
    parts: partsOf(email),
  };
}

/**
 * The HTML body as its frame gets it: each `cid:` reference to one of the message's parts becomes
 * that part's URL (`partUrl(index)`), and links open in a new tab (the frame itself may not
 * navigate). References to no part are left as they are.
 */
export function framedHtml(email: Email, partUrl: (index: number) => string): string {
  const html = (email.html ?? '').replace(CID_REFERENCE, (whole, reference: string) => {
    const index = partByContentId(email.attachments, reference);
    return index >= 0 ? partUrl(index) : whole;
  });
  const base = '<base target="_blank">';
  const head = /<head(\s[^>]*)?>/i.exec(html);
  if (head)
    return `${html.slice(0, head.index + head[0].length)}${base}${html.slice(head.index + head[0].length)}`;
  return `${base}${html}`;
}

/** The bytes of part `index`, or undefined when the message has no such part. */
export function partContent(email: Email, index: number): Uint8Array | undefined {
  const part = email.attachments[index];
  if (!part) return undefined;
  if (typeof part.content === 'string') return new TextEncoder().encode(part.content);
  return part.content instanceof Uint8Array ? part.content : new Uint8Array(part.content);
}

/** A MIME type safe to send as Content-Type (`type/subtype`, parameters dropped), else octet-stream. */
export function safeContentType(mimeType: string): string {
  const type = mimeType.split(';')[0]!.trim().toLowerCase();
  return /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(type)
    ? type
    : 'application/octet-stream';
}

/**
 * `Content-Disposition: attachment` naming `filename` (RFC 6266): an ASCII fallback with anything
 * unsafe replaced, and the exact name as UTF-8 in `filename*`.
 */
export function attachmentDisposition(filename: string): string {
  const name =
    filename
      .replace(/[\\/]/g, '_')
      .replace(/[\p{Cc}]/gu, '')
      .trim() || 'attachment';
  const fallback = name.replace(/[^A-Za-z0-9 !#$&+,.;=@^_`{}~()[\]-]/g, '_');
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
