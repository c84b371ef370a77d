/**
 * MailerPort for the local runtime: nothing leaves the machine. Every message is kept with its
 * raw MIME and parsed (postal-mime) so that tests and the `/_local/mail` page can read its
 * subject, bodies and headers. With a data folder, each message is written as `<id>.eml` under
 * `mail/` with one line per message in `mail/index.jsonl`; otherwise everything stays in memory.
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

export interface MailSinkOptions {
  /** The sink keeps its files under `<dataDir>/mail`; in memory when undefined. */
  readonly dataDir?: string;
  /** @default systemClock */
  readonly clock?: Clock;
  readonly logger?: LocalLogger;
}

interface Entry {
  readonly envelope: SinkEnvelope;
  raw: Uint8Array | undefined;
  parsed: Promise<SinkMessage> | undefined;
}

export class MailSink implements MailerPort {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<SentListener>();
  private readonly folder: string | undefined;
  private readonly index: Journal<SinkEnvelope> | undefined;
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
      this.index = new Journal<SinkEnvelope>(join(this.folder, 'index.jsonl'));
      for (const envelope of this.index.read()) {
        this.entries.set(envelope.id, { envelope, raw: undefined, parsed: undefined });
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
    if (this.folder && this.index) {
      // The .eml first: an index line never points at a missing file.
      writeFileAtomic(join(this.folder, `${envelope.id}.eml`), raw);
      this.index.append(envelope);
    }
    const entry: Entry = { envelope, raw, parsed: undefined };
    this.entries.set(envelope.id, entry);
    const message = await this.parse(entry);
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

  /** Every kept message, newest first. */
  async list(): Promise<SinkMessage[]> {
    const entries = [...this.entries.values()].reverse();
    const messages = await Promise.all(entries.map((e) => this.parse(e)));
    return messages;
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
      this.index.rewrite([...this.entries.values()].map((e) => e.envelope));
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

  private rawOf(entry: Entry): Uint8Array | undefined {
    if (!entry.raw && this.folder)
      entry.raw = readFileIfExists(join(this.folder, `${entry.envelope.id}.eml`));
    return entry.raw;
  }

  private parse(entry: Entry): Promise<SinkMessage> {
    entry.parsed ??= parseMessage(entry.envelope, this.rawOf(entry));
    return entry.parsed;
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
