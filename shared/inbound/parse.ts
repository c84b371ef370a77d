/**
 * A received message, read: who sent it (the From address), its subject, the start of its text,
 * what it replies to and how many attachments it has. The MIME is parsed with postal-mime (the
 * parser the local mail sink uses), loaded on the first message so that the jobs worker's cold
 * start does not carry it; a message with an HTML body only has its text made by html-to-text,
 * loaded likewise.
 *
 * postal-mime is lenient: bytes that are not MIME at all parse as a message without headers (no
 * From, so nobody's). It rejects only what it refuses to walk (nesting or headers past its
 * limits); that is reported, never thrown, so a message nobody can read is dropped once instead
 * of being retried.
 */

/** The text kept on the `email.received` event: its start. */
export const MAX_TEXT_CHARS = 2000;
/** A subject longer than a header line may be (998 characters) is cut there. */
export const MAX_SUBJECT_CHARS = 998;

export interface InboundFacts {
  /** The From address, lower case; undefined when the message names none (or only a group). */
  readonly from: string | undefined;
  readonly subject: string | null;
  /** The text body (or the HTML body's text), at most `MAX_TEXT_CHARS`. */
  readonly text: string | null;
  /** The In-Reply-To header: the Message-ID of the message this replies to. */
  readonly inReplyTo: string | null;
  readonly attachments: number;
}

/** Reads a raw message; `{unreadable}` with the parser's reason when it cannot be read. */
export async function readInboundMessage(raw: Uint8Array): Promise<InboundFacts | { unreadable: string }> {
  const { default: PostalMime } = await import('postal-mime');
  let email: Awaited<ReturnType<typeof PostalMime.parse>>;
  try {
    email = await PostalMime.parse(raw);
  } catch (error) {
    return { unreadable: error instanceof Error ? error.message : String(error) };
  }
  const address = email.from?.address?.trim().toLowerCase();
  const text = email.text?.trim() ? email.text : email.html ? await htmlText(email.html) : undefined;
  return {
    from: address?.includes('@') ? address : undefined,
    subject: email.subject !== undefined ? cut(email.subject, MAX_SUBJECT_CHARS) : null,
    text: text !== undefined ? cut(text.trim(), MAX_TEXT_CHARS) : null,
    inReplyTo: email.inReplyTo?.trim() || null,
    attachments: email.attachments.length,
  };
}

async function htmlText(html: string): Promise<string> {
  const { convert } = await import('html-to-text');
  // The text is kept whole-line: wrapping would only add line breaks to the 2,000 characters.
  return convert(html, { wordwrap: false });
}

/** The first `max` UTF-16 units of `s`, never ending inside a surrogate pair. */
export function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  const end = /[\uD800-\uDBFF]/.test(s.charAt(max - 1)) ? max - 1 : max;
  return s.slice(0, end);
}
