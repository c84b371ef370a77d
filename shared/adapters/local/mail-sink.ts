/**
 * MailerPort for the local runtime: nothing leaves the machine. Every message is kept with its
 * raw MIME, parsed (postal-mime) on demand so that tests and the `/_local/mail` page can read its
 * subject, bodies and headers.
 *
 * With a data folder (`npm start`), a message lives on disk: its raw MIME as `<id>.eml` under
 * `mail/`, and one line per message in `mail/index.jsonl` holding its index entry
 * (`SinkIndexEntry`: envelope, subject, size, the From/To/Cc headers, a short preview of the text,
 * the attachment count). Memory holds the index entries only (a few hundred bytes a message,
 * whatever its size); the raw MIME and its parsed parts are read from disk when asked for and not
 * kept. An index line written before the entries held more than the envelope gets the rest from
 * its `.eml` on first listing. Without a data folder (tests), everything stays in memory.
 *
 * Sends are refused the way SES refuses them (size and recipient count), with the same typed
 * errors as the SES adapter. Listeners registered with `onSent` see every accepted message; the
 * runtime uses that to emit SES-like events.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import PostalMime from 'postal-mime';
import { type Clock, type MailerPort, type RawEmail, systemClock } from '../../ports';
import { PermanentSendError } from '../aws/send-errors';
import { Journal, readFileIfExists, writeFileAtomic } from './files';
import { consoleLogger, type LocalLogger } from './log';

/** SES's maximum message size, headers and attachments included. */
export const MAX_RAW_MESSAGE_BYTES = 40 * 1024 * 1024;
/** SES's maximum number of recipients per message. */
export const MAX_RECIPIENTS = 50;

/** What the sink records at send time (the SES envelope). */
export interface SinkEnvelope {
  /** The message id returned to the sender, shaped like an SES MessageId. */
  readonly id: string;
  readonly from: string;
  readonly to: readonly string[];
  readonly tags: Readonly<Record<string, string>>;
  /** ISO time. */
  readonly createdAt: string;
}

export interface SinkAttachment {
  readonly filename: string | null;
  readonly contentType: string;
  readonly disposition: string | null;
  readonly contentId: string | undefined;
  readonly size: number;
}

/** A kept message with what its MIME says. */
export interface SinkMessage extends SinkEnvelope {
  readonly subject: string | undefined;
  readonly html: string | undefined;
  readonly text: string | undefined;
  /** Header names lower-cased; a repeated header's values joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly attachments: readonly SinkAttachment[];
  /** Set when the MIME could not be parsed (the message is still kept, as SES would send it). */
  readonly parseError?: string;
}

export type SentListener = (message: SinkMessage, raw: Uint8Array) => void | Promise<void>;

/** An event published for a message: SES's record, as `ses-events.ts` builds it. */
export interface SinkEvent {
  readonly eventType: string;
  readonly [field: string]: unknown;
}

/** Characters of the body text an index entry keeps (`SinkIndexEntry.preview`). */
export const PREVIEW_CHARS = 140;

/**
 * What the sink keeps in memory of a message: what list views and their filters need, never the
 * bodies. Each field is bounded (SES's own limits on recipients and tags, the preview's length).
 */
export interface SinkIndexEntry extends SinkEnvelope {
  readonly subject: string | undefined;
  /** Bytes of the raw MIME. */
  readonly size: number;
  /** The From, To and Cc headers as written (lower-cased names), those present. */
  readonly headers: Readonly<{ from?: string; to?: string; cc?: string }>;
  /** The first `PREVIEW_CHARS` characters of the body text, whitespace collapsed. */
  readonly preview: string;
  readonly attachments: number;
  readonly parseError?: string;
}

/** The text of an HTML body, roughly (tags dropped, entities left): for search and previews only. */
function roughText(html: string): string {
  return html
    .replace(/<(style|script)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ');
}

/** A message's body text: the text part, else the HTML's text, roughly. */
export const bodyText = (m: { readonly text?: string; readonly html?: string }): string =>
  m.text ?? (m.html ? roughText(m.html) : '');

/** The index entry of a parsed message of `size` bytes. */
export function indexEntryOf(m: SinkMessage, size: number): SinkIndexEntry {
  const headers: { from?: string; to?: string; cc?: string } = {};
  for (const name of ['from', 'to', 'cc'] as const)
    if (m.headers[name] !== undefined) headers[name] = m.headers[name];
  return {
    id: m.id,
    from: m.from,
    to: m.to,
    tags: m.tags,
    createdAt: m.createdAt,
    subject: m.subject,
    size,
    headers,
    preview: bodyText(m).replace(/\s+/g, ' ').trim().slice(0, PREVIEW_CHARS),
    attachments: m.attachments.length,
    ...(m.parseError ? { parseError: m.parseError } : {}),
  };
}

/** What the sink holds in memory, for checking that it stays bounded per message. */
export interface SinkMemory {
  readonly messages: number;
  /** Bytes of raw MIME held (0 with a data folder). */
  readonly rawBytes: number;
  /** Parsed messages held (0 with a data folder). */
  readonly parsed: number;
  /** Bytes of the index entries, as JSON. */
  readonly indexBytes: number;
}

export interface MailSinkOptions {
  /** The sink keeps its files under `<dataDir>/mail`; in memory when undefined. */
  readonly dataDir?: string;
  /** @default systemClock */
  readonly clock?: Clock;
  readonly logger?: LocalLogger;
}

interface Entry {
  readonly envelope: SinkEnvelope;
  /** Undefined only for an index line from before index entries, until it is first listed. */
  index: SinkIndexEntry | undefined;
  /** In memory only (no data folder): the raw MIME and its parse. */
  raw: Uint8Array | undefined;
  parsed: Promise<SinkMessage> | undefined;
}

export class MailSink implements MailerPort {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<SentListener>();
  private readonly folder: string | undefined;
  private readonly index: Journal<SinkEnvelope | SinkIndexEntry> | undefined;
  /** The SES-shaped events published for each message (`ses-events.ts`), oldest first. */
  private readonly published = new Map<string, SinkEvent[]>();
  private readonly eventLog: Journal<{ readonly messageId: string; readonly event: SinkEvent }> | undefined;
  private readonly clock: Clock;
  private readonly logger: LocalLogger;

  constructor(options: MailSinkOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? consoleLogger;
    if (options.dataDir) {
      this.folder = join(options.dataDir, 'mail');
      this.index = new Journal<SinkEnvelope | SinkIndexEntry>(join(this.folder, 'index.jsonl'));
      for (const line of this.index.read()) {
        const { id, from, to, tags, createdAt } = line;
        const index = 'size' in line ? line : undefined;
        this.entries.set(id, {
          envelope: { id, from, to, tags, createdAt },
          index,
          raw: undefined,
          parsed: undefined,
        });
      }
      this.eventLog = new Journal(join(this.folder, 'events.jsonl'));
      for (const { messageId, event } of this.eventLog.read()) this.keepEvent(messageId, event);
    }
  }

  /** Keeps an event published for message `messageId` (shown on the mail page). */
  recordEvent(messageId: string, event: SinkEvent): void {
    this.eventLog?.append({ messageId, event });
    this.keepEvent(messageId, event);
  }

  /** The events published for a message, oldest first. */
  eventsOf(messageId: string): readonly SinkEvent[] {
    return this.published.get(messageId) ?? [];
  }

  private keepEvent(messageId: string, event: SinkEvent) {
    const list = this.published.get(messageId) ?? [];
    list.push(event);
    this.published.set(messageId, list);
  }

  /** The sink has no account quota: the configured rate (SES_MAX_SEND_RATE or 14) applies. */
  async maxSendRate(): Promise<number | undefined> {
    return undefined;
  }

  async sendRaw(email: RawEmail): Promise<{ messageId: string }> {
    if (email.raw.byteLength > MAX_RAW_MESSAGE_BYTES) {
      throw new PermanentSendError('MESSAGE_REJECTED', 'Message length is more than 40 MB');
    }
    if (email.to.length === 0) throw new PermanentSendError('BAD_REQUEST', 'Missing final recipients');
    if (email.to.length > MAX_RECIPIENTS) {
      throw new PermanentSendError('BAD_REQUEST', `Recipient count exceeds ${MAX_RECIPIENTS}`);
    }
    const now = this.clock.now();
    const envelope: SinkEnvelope = {
      id: sesMessageId(now),
      from: email.from,
      to: [...email.to],
      tags: { ...email.tags },
      createdAt: now.toISOString(),
    };
    const raw = Uint8Array.from(email.raw);
    const message = await parseMessage(envelope, raw);
    const index = indexEntryOf(message, raw.byteLength);
    if (this.folder && this.index) {
      // The .eml first: an index line never points at a missing file.
      writeFileAtomic(join(this.folder, `${envelope.id}.eml`), raw);
      this.index.append(index);
      this.entries.set(envelope.id, { envelope, index, raw: undefined, parsed: undefined });
    } else {
      this.entries.set(envelope.id, { envelope, index, raw, parsed: Promise.resolve(message) });
    }
    for (const listener of this.listeners) {
      try {
        await listener(message, raw);
      } catch (error) {
        this.logger.error(`[mail] a sent-mail listener failed for ${envelope.id}`, error);
      }
    }
    return { messageId: envelope.id };
  }

  /** Registers a listener for every accepted message; returns its removal. */
  onSent(listener: SentListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Every kept message, newest first, parsed (with a data folder, each read from disk: for lists
   * and filters, `entries()` answers from memory).
   */
  async list(): Promise<SinkMessage[]> {
    const messages: SinkMessage[] = [];
    // One at a time: a data folder's messages are read, parsed and answered without all being
    // read at once.
    for (const entry of [...this.entries.values()].reverse()) messages.push(await this.parse(entry));
    return messages;
  }

  /** Every message's index entry, newest first: what list views and filters need, from memory. */
  async indexEntries(): Promise<SinkIndexEntry[]> {
    const out: SinkIndexEntry[] = [];
    for (const entry of [...this.entries.values()].reverse()) out.push(await this.indexOf(entry));
    return out;
  }

  async get(id: string): Promise<SinkMessage | undefined> {
    const entry = this.entries.get(id);
    return entry ? this.parse(entry) : undefined;
  }

  /** The message's MIME source as sent. */
  raw(id: string): Uint8Array | undefined {
    const entry = this.entries.get(id);
    return entry ? this.rawOf(entry) : undefined;
  }

  /** The ids of every kept message, oldest first (nothing parsed). */
  messageIds(): string[] {
    return [...this.entries.keys()];
  }

  get size(): number {
    return this.entries.size;
  }

  /** What the sink holds in memory: with a data folder, index entries only. */
  memory(): SinkMemory {
    let rawBytes = 0;
    let parsed = 0;
    let indexBytes = 0;
    for (const e of this.entries.values()) {
      rawBytes += e.raw?.byteLength ?? 0;
      if (e.parsed) parsed++;
      indexBytes += Buffer.byteLength(JSON.stringify(e.index ?? e.envelope));
    }
    return { messages: this.entries.size, rawBytes, parsed, indexBytes };
  }

  /** Forgets one message, its events and its file; false when there is no such message. */
  delete(id: string): boolean {
    if (!this.entries.delete(id)) return false;
    if (this.published.delete(id) && this.eventLog) {
      const rest = [...this.published].flatMap(([messageId, events]) =>
        events.map((event) => ({ messageId, event })),
      );
      this.eventLog.rewrite(rest);
    }
    if (this.folder && this.index) {
      // The index first: an index line never points at a missing file.
      this.index.rewrite([...this.entries.values()].map((e) => e.index ?? e.envelope));
      rmSync(join(this.folder, `${id}.eml`), { force: true });
    }
    return true;
  }

  /** Forgets every message (and deletes their files). */
  clear(): void {
    this.entries.clear();
    this.published.clear();
    this.eventLog?.rewrite([]);
    if (this.folder && this.index) {
      for (const name of safeReaddir(this.folder)) {
        if (name.endsWith('.eml')) rmSync(join(this.folder, name), { force: true });
      }
      this.index.rewrite([]);
    }
  }

  /** The raw MIME: held in memory without a data folder, read from disk (and not kept) with one. */
  private rawOf(entry: Entry): Uint8Array | undefined {
    if (entry.raw || !this.folder) return entry.raw;
    return readFileIfExists(join(this.folder, `${entry.envelope.id}.eml`));
  }

  private parse(entry: Entry): Promise<SinkMessage> {
    return entry.parsed ?? parseMessage(entry.envelope, this.rawOf(entry));
  }

  private async indexOf(entry: Entry): Promise<SinkIndexEntry> {
    if (!entry.index) {
      const raw = this.rawOf(entry);
      entry.index = indexEntryOf(await parseMessage(entry.envelope, raw), raw?.byteLength ?? 0);
    }
    return entry.index;
  }
}

/** Parses a kept message; never rejects (a parse failure is reported in `parseError`). */
export async function parseMessage(
  envelope: SinkEnvelope,
  raw: Uint8Array | undefined,
): Promise<SinkMessage> {
  const empty = { subject: undefined, html: undefined, text: undefined, headers: {}, attachments: [] };
  if (!raw) return { ...envelope, ...empty, parseError: 'The message file is missing' };
  try {
    const email = await PostalMime.parse(raw);
    const headers: Record<string, string> = {};
    for (const h of email.headers)
      headers[h.key] = h.key in headers ? `${headers[h.key]}, ${h.value}` : h.value;
    return {
      ...envelope,
      subject: email.subject,
      html: email.html,
      text: email.text,
      headers,
      attachments: email.attachments.map((a) => ({
        filename: a.filename,
        contentType: a.mimeType,
        disposition: a.disposition,
        contentId: a.contentId,
        size: typeof a.content === 'string' ? a.content.length : a.content.byteLength,
      })),
    };
  } catch (error) {
    return { ...envelope, ...empty, parseError: error instanceof Error ? error.message : String(error) };
  }
}

/** SES-like id: 16 hex digits of the time, a random part, and `-000000`; file-name safe. */
function sesMessageId(now: Date): string {
  return `${now.getTime().toString(16).padStart(16, '0')}-${crypto.randomUUID()}-000000`;
}

function safeReaddir(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
