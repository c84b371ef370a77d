/**
 * The local inbox at `/_local/mail`: a page (inbox.html, inbox.css, inbox.js, served from this
 * folder, nothing from elsewhere) and the small JSON API its script reads. Every piece of a message
 * reaches the page as JSON, which the script puts in the page as text; the HTML body is served on
 * its own to a sandboxed frame that runs no script.
 *
 *     GET    /_local/mail                               the page
 *     GET    /_local/mail/messages?q=&limit=            {messages: [summary], matched, total}, newest first
 *     GET    /_local/mail/messages/{id}                 the message (headers, text, parts)
 *     GET    /_local/mail/messages/{id}/html            the HTML body, cid: images resolved
 *     GET    /_local/mail/messages/{id}/parts/{n}       part n, as a download
 *     GET    /_local/mail/messages/{id}/events          SES events, the email record, email.* events
 *
 * Deleting goes through `DELETE /_local/emails/{id}` and `DELETE /_local/emails`, the raw source
 * through `GET /_local/emails/{id}/raw` (gateway.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bodyText, type MailSink, type SinkIndexEntry } from '../../adapters/local/mail-sink';
import type { StoreDeps } from '../../store/store';
import { messageActivity } from './activity';
import {
  attachmentDisposition,
  detailOf,
  framedHtml,
  matches,
  parseRaw,
  partContent,
  partsOf,
  safeContentType,
  searchesText,
  summarize,
} from './message';

export interface InboxOptions {
  readonly mailSink: MailSink;
  /** Where the email records and events are read (the Events tab); without it, SES events only. */
  readonly store?: StoreDeps;
}

const asset = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url));
const ASSETS: Readonly<Record<string, { readonly type: string; readonly body: () => Buffer }>> = {
  'inbox.css': { type: 'text/css; charset=utf-8', body: () => asset('inbox.css') },
  'inbox.js': { type: 'text/javascript; charset=utf-8', body: () => asset('inbox.js') },
};

/** The page's policy: its own script, style and API only; frames only from this origin. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The HTML body's policy: sandboxed (no script, an opaque origin, even when opened on its own),
 * links may open a new tab; images and styles from anywhere, as a mail client shows them.
 */
export const BODY_CSP = [
  "default-src 'none'",
  'img-src * data:',
  "style-src * 'unsafe-inline'",
  'font-src * data:',
  "frame-ancestors 'self'",
  'sandbox allow-popups allow-popups-to-escape-sandbox',
].join('; ');

/** How many summaries the list answers with by default, and at most. */
const DEFAULT_LIST_LIMIT = 200;
const MAX_LIST_LIMIT = 1000;

/** A part download: never rendered by this origin. */
const PART_CSP = "default-src 'none'; sandbox";

/** Answers a request under `/_local/mail`; false when `path` is none of the inbox's. */
export async function serveInbox(
  o: InboxOptions,
  req: IncomingMessage,
  path: string,
  res: ServerResponse,
): Promise<boolean> {
  const method = req.method ?? 'GET';
  const query = new URL(req.url ?? '/', 'http://local').searchParams;
  if (path !== '/_local/mail' && !path.startsWith('/_local/mail/')) return false;
  if (method !== 'GET' && method !== 'HEAD') return false;
  const rest = path.slice('/_local/mail'.length);

  if (rest === '') {
    send(res, method, 200, 'text/html; charset=utf-8', asset('inbox.html'), PAGE_CSP);
    return true;
  }
  const file = ASSETS[rest.slice(1)];
  if (file) {
    send(res, method, 200, file.type, file.body(), PAGE_CSP);
    return true;
  }
  if (rest === '/messages') {
    const q = query.get('q') ?? '';
    const limit = Number(query.get('limit') ?? DEFAULT_LIST_LIMIT);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
      json(res, method, 400, { message: `limit must be a whole number from 1 to ${MAX_LIST_LIMIT}` });
      return true;
    }
    // From the index entries in memory; a word not found there is looked for in the whole text,
    // read from the message (on disk with a data folder) only for entries the rest did not decide.
    const all = await o.mailSink.indexEntries();
    const found: SinkIndexEntry[] = [];
    for (const m of all) {
      if (matches(m, q, m.preview)) found.push(m);
      else if (searchesText(q)) {
        const message = await o.mailSink.get(m.id);
        if (message && matches(m, q, bodyText(message))) found.push(m);
      }
    }
    const body = JSON.stringify({
      messages: found.slice(0, limit).map(summarize),
      matched: found.length,
      total: all.length,
    });
    // The page polls this: an unchanged list is a 304 with no body.
    const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
    if (req.headers['if-none-match'] === etag) {
      res.statusCode = 304;
      res.setHeader('etag', etag);
      res.setHeader('cache-control', 'no-cache');
      res.end();
      return true;
    }
    send(res, method, 200, 'application/json', Buffer.from(body), "default-src 'none'", {
      etag,
      'cache-control': 'no-cache',
    });
    return true;
  }
  const route = /^\/messages\/([^/]+)(?:\/(html|events|parts\/(\d{1,4})))?$/.exec(rest);
  if (!route) return false;
  let id: string;
  try {
    id = decodeURIComponent(route[1]!);
  } catch {
    json(res, method, 400, { message: 'The message id is not valid percent-encoding' });
    return true;
  }
  const message = await o.mailSink.get(id);
  const raw = o.mailSink.raw(id);
  if (!message || !raw) {
    json(res, method, 404, { message: 'No such message (deleted?)' });
    return true;
  }
  const what = route[2];
  if (what === 'events') {
    json(res, method, 200, await messageActivity(message, o.mailSink.eventsOf(id), o.store));
    return true;
  }
  let email: Awaited<ReturnType<typeof parseRaw>> | undefined;
  try {
    email = await parseRaw(raw);
  } catch {
    // Reported in the detail's parseError; the raw source is still there to read.
    email = undefined;
  }
  if (what === undefined) {
    json(res, method, 200, detailOf(message, raw, email));
    return true;
  }
  if (what === 'html') {
    if (!email || email.html === undefined) {
      json(res, method, 404, { message: 'The message has no HTML body' });
      return true;
    }
    const base = `/_local/mail/messages/${encodeURIComponent(id)}/parts/`;
    const html = framedHtml(email, (index) => `${base}${index}`);
    send(res, method, 200, 'text/html; charset=utf-8', Buffer.from(html), BODY_CSP, {
      'referrer-policy': 'no-referrer',
    });
    return true;
  }
  const index = Number(route[3]);
  const content = email ? partContent(email, index) : undefined;
  if (!email || !content) {
    json(res, method, 404, { message: 'The message has no such part' });
    return true;
  }
  const part = partsOf(email)[index]!;
  send(res, method, 200, safeContentType(part.contentType), Buffer.from(content), PART_CSP, {
    'content-disposition': attachmentDisposition(part.filename),
  });
  return true;
}

function send(
  res: ServerResponse,
  method: string,
  status: number,
  type: string,
  body: Buffer,
  csp: string,
  extra: Readonly<Record<string, string>> = {},
): void {
  res.statusCode = status;
  res.setHeader('content-type', type);
  res.setHeader('content-length', body.byteLength);
  res.setHeader('content-security-policy', csp);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('cache-control', 'no-store');
  for (const [name, value] of Object.entries(extra)) res.setHeader(name, value);
  res.end(method === 'HEAD' ? undefined : body);
}

function json(res: ServerResponse, method: string, status: number, value: unknown): void {
  send(res, method, status, 'application/json', Buffer.from(JSON.stringify(value)), "default-src 'none'");
}
