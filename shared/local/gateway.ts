/**
 * The local API Gateway: a node:http server that turns each request into an HTTP API payload
 * 2.0 event, calls the route group's handler in-process, and writes the structured result back,
 * as API Gateway and Lambda would (including their limits: 10 MB request bodies, 6 MB Lambda
 * payloads, the group's timeout). Paths under `/_local/` are the local runtime's own pages
 * (mail sink, queues, schedules, uploaded images, received mail); they exist only here.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { advanceProblem, type LocalClock } from '../adapters/local/clock';
import type { LocalImages } from '../adapters/local/images';
import type { LocalInboundMail } from '../adapters/local/inbound-mail';
import { consoleLogger, type LocalLogger } from '../adapters/local/log';
import type { MailSink, SinkMessage } from '../adapters/local/mail-sink';
import type { LocalQueue } from '../adapters/local/queue';
import type { LocalScheduler } from '../adapters/local/scheduler';
import { engagementEvent, publishSesEvents } from '../adapters/local/ses-events';
import { isPreflight, preflightHeaders, responseCorsHeaders } from '../http/cors';
import { INBOUND_KEY_PREFIX, type InboundVerdicts, inboundReceivedJobMessage } from '../inbound/messages';
import { enqueue } from '../jobs/registry';
import { type CorsDef, defaults, type Manifest } from '../manifest';
import type { StoreDeps } from '../store/store';
import { IMAGE_CACHE_CONTROL, isImageKey } from '../uploads/images';
import { type HttpReply, type RawRequest, toHttpApiEvent, toReply } from './apigw-event';
import type { LocalDirectUpload } from './direct-upload';
import { serveInbox } from './inbox/server';
import { lambdaContext, withTimeout } from './lambda';
import { compileRoutes, decode } from './routes';

// The event module's API, where the gateway's callers have always found it.
export {
  clfTime,
  type HttpReply,
  isTextContentType,
  type RawRequest,
  toHttpApiEvent,
  toReply,
} from './apigw-event';

export type HttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

/** API Gateway's payload limit for HTTP APIs. */
export const MAX_REQUEST_BODY_BYTES = 10 * 1024 * 1024;
/** Lambda's synchronous invocation payload limit (request event and response alike). */
export const MAX_LAMBDA_PAYLOAD_BYTES = 6 * 1024 * 1024;

export interface GatewayOptions {
  /** Routes, fallback group and CORS configuration (applied as API Gateway applies an HTTP API's). */
  readonly manifest: Pick<Manifest, 'routeGroups' | 'fallbackGroup' | 'cors'>;
  /** Handler of each route group, by group name. */
  readonly handlers: Readonly<Record<string, HttpHandler>>;
  /** What the `/_local/` pages show; a page whose source is missing answers 404. */
  readonly mailSink?: MailSink;
  /** Where the `/_local/mail` inbox reads a message's email record and `email.*` events. */
  readonly store?: StoreDeps;
  readonly queue?: LocalQueue;
  readonly scheduler?: LocalScheduler;
  /** The runtime's clock: events carry its time, and `/_local/clock` reads and advances it. */
  readonly clock?: LocalClock;
  /** Uploaded images, served at `/_local/<key>` (`/_local/images/...`) as CloudFront serves them on AWS. */
  readonly images?: Pick<LocalImages, 'get'>;
  /** Where `POST /_local/inbound` stores received mail, as SES's receipt rule stores it on AWS. */
  readonly inboundMail?: Pick<LocalInboundMail, 'put'>;
  /** @default MAX_REQUEST_BODY_BYTES */
  readonly maxBodyBytes?: number;
  /** Routes whose body goes to the upload bucket, not to a route handler (see direct-upload.ts). */
  readonly directUploads?: readonly LocalDirectUpload[];
  readonly logger?: LocalLogger;
}

/** A server answering every request; call `listen` on it. */
export function createGateway(options: GatewayOptions): Server {
  const match = compileRoutes(options.manifest);
  const logger = options.logger ?? consoleLogger;
  const maxBodyBytes = options.maxBodyBytes ?? MAX_REQUEST_BODY_BYTES;
  const groups = new Map(options.manifest.routeGroups.map((g) => [g.name, g]));
  for (const g of options.manifest.routeGroups) {
    if (!options.handlers[g.name]) throw new Error(`No handler for route group "${g.name}"`);
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const requestId = randomUUID();
    const now = options.clock?.now() ?? new Date();
    res.setHeader('apigw-requestid', requestId);
    const url = req.url ?? '/';
    if (url === '/_local' || url.startsWith('/_local/') || url.startsWith('/_local?')) {
      return localPages(options, req, res);
    }

    const body = await readBody(req, maxBodyBytes);
    const upload = options.directUploads?.find(
      (u) => u.method === req.method && u.path === url.split('?')[0],
    );
    if (upload) {
      const request = {
        method: upload.method,
        url,
        headers: req.headersDistinct,
        body: body === 'too-large' ? undefined : body,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        protocol: `HTTP/${req.httpVersion}`,
      };
      const reply = await upload.handle(request, requestId);
      for (const [name, value] of Object.entries(withCors(options.manifest.cors, request, reply.headers)))
        res.setHeader(name, value);
      res.setHeader('content-length', reply.body.length);
      res.statusCode = reply.statusCode;
      res.end(reply.body);
      return;
    }
    if (body === 'too-large') return tooLarge(res, 'API Gateway accepts request bodies up to 10 MB');

    const matched = match(req.method ?? 'GET', url.split('?')[0]!);
    const group = groups.get(matched.group)!;
    const raw: RawRequest = {
      method: req.method ?? 'GET',
      url,
      headers: req.headersDistinct,
      body,
      sourceIp: (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
      protocol: `HTTP/${req.httpVersion}`,
    };
    const event = toHttpApiEvent(raw, matched, { requestId, now });
    if (Buffer.byteLength(JSON.stringify(event)) > MAX_LAMBDA_PAYLOAD_BYTES) {
      return tooLarge(res, "the event exceeds Lambda's 6 MB invocation payload");
    }

    const timeoutMs = (group.timeoutSeconds ?? defaults.httpTimeoutSeconds) * 1000;
    const context = lambdaContext({
      name: group.name,
      memoryMb: group.memoryMb ?? defaults.memoryMb,
      timeoutMs,
    });
    let reply: HttpReply;
    try {
      const result = await withTimeout(options.handlers[group.name]!(event, context), timeoutMs);
      reply = toReply(result);
      if (reply.body.length > MAX_LAMBDA_PAYLOAD_BYTES) {
        throw new Error(`The response body (${reply.body.length} bytes) exceeds Lambda's 6 MB payload limit`);
      }
    } catch (error) {
      // What API Gateway answers when the integration fails; the cause is only in the logs.
      logger.error(`[gateway] ${event.routeKey} (${raw.method} ${url}) failed in group ${group.name}`, error);
      reply = {
        statusCode: 500,
        headers: { 'content-type': 'application/json' },
        cookies: [],
        body: Buffer.from('{"message":"Internal Server Error"}'),
      };
    }
    for (const [name, value] of Object.entries(withCors(options.manifest.cors, raw, reply.headers)))
      res.setHeader(name, value);
    if (reply.cookies.length > 0) res.setHeader('set-cookie', [...reply.cookies]);
    res.setHeader('content-length', reply.body.length);
    res.statusCode = reply.statusCode;
    res.end(req.method === 'HEAD' ? undefined : reply.body);
  };

  return createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.error('[gateway] request failed', error);
      if (!res.headersSent) {
        res.statusCode = 500;
        res.setHeader('content-type', 'application/json');
        res.end('{"message":"Internal Server Error"}');
      } else {
        res.destroy();
      }
    });
  });
}

/**
 * API Gateway's CORS handling for an HTTP API with a CORS configuration: a request carrying
 * `Origin` gets the configured headers (preflight or response ones), and whatever CORS headers
 * the integration returned are ignored. Without `Origin`, nothing is added.
 */
export function withCors(
  cors: CorsDef | undefined,
  request: Pick<RawRequest, 'method' | 'headers'>,
  headers: Readonly<Record<string, string>>,
): Record<string, string> {
  const origin = request.headers.origin?.[0];
  if (!cors || origin === undefined) return { ...headers };
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (!name.startsWith('access-control-')) out[name] = value;
  const flat = {
    origin,
    'access-control-request-method': request.headers['access-control-request-method']?.[0],
  };
  const added = isPreflight(request.method, flat)
    ? preflightHeaders(cors, origin)
    : responseCorsHeaders(cors, origin);
  return { ...out, ...added };
}

/**
 * Reads the body, up to `limit` bytes. A larger body is read to its end and discarded, so the
 * client (still sending) gets the 413 rather than a broken pipe; past 10 times the limit the
 * connection is cut.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  const hardLimit = limit * 10;
  return new Promise((resolve, reject) => {
    if (Number(req.headers['content-length'] ?? 0) > hardLimit) {
      req.resume();
      resolve('too-large');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else if (size > hardLimit) req.destroy();
      else chunks.length = 0;
    });
    req.on('end', () => resolve(size > limit ? 'too-large' : Buffer.concat(chunks)));
    req.on('close', () => {
      if (!req.complete) resolve('too-large');
    });
    req.on('error', reject);
  });
}

function tooLarge(res: ServerResponse, why: string): void {
  const body = JSON.stringify({ message: 'Request Entity Too Large' });
  res.statusCode = 413;
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.setHeader('x-sesame-local-reason', why);
  res.end(body);
}

// ---------------------------------------------------------------------------------------------
// /_local pages

async function localPages(options: GatewayOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '');
  const method = req.method ?? 'GET';
  const { mailSink, queue, scheduler, clock, images, inboundMail, store } = options;
  if (clock && method === 'POST' && path === '/_local/clock') return advanceClock(clock, req, res);
  if (inboundMail && queue && clock && method === 'POST' && path === '/_local/inbound') {
    return receiveMail({ inboundMail, queue, clock }, req, res);
  }
  const engaged = /^\/_local\/emails\/([^/]+)\/(open|click)$/.exec(path);
  if (mailSink && queue && clock && method === 'POST' && engaged) {
    return engage({ mailSink, queue, clock }, decode(engaged[1]!), engaged[2] as 'open' | 'click', req, res);
  }
  req.resume();

  if (images && (method === 'GET' || method === 'HEAD') && path.startsWith('/_local/images/')) {
    return serveImage(images, decode(path.slice('/_local/'.length)), method, res);
  }

  if (mailSink && method === 'GET' && path === '/_local/emails') {
    return json(res, 200, (await mailSink.list()).map(emailJson));
  }
  if (mailSink && method === 'DELETE' && path === '/_local/emails') {
    mailSink.clear();
    return json(res, 200, { deleted: true });
  }
  const deleted = /^\/_local\/emails\/([^/]+)$/.exec(path);
  if (mailSink && method === 'DELETE' && deleted) {
    return mailSink.delete(decode(deleted[1]!))
      ? json(res, 200, { deleted: true })
      : json(res, 404, { message: 'Not Found' });
  }
  const one = /^\/_local\/emails\/([^/]+)(\/raw)?$/.exec(path);
  if (mailSink && method === 'GET' && one) {
    const id = decode(one[1]!);
    if (one[2]) {
      const raw = mailSink.raw(id);
      if (!raw) return json(res, 404, { message: 'Not Found' });
      res.statusCode = 200;
      res.setHeader('content-type', 'message/rfc822');
      res.setHeader('x-content-type-options', 'nosniff');
      res.setHeader('content-length', raw.byteLength);
      res.end(raw);
      return;
    }
    const message = await mailSink.get(id);
    return message
      ? json(res, 200, { ...emailJson(message), events: mailSink.eventsOf(id) })
      : json(res, 404, { message: 'Not Found' });
  }
  if (mailSink && (await serveInbox({ mailSink, store }, req, path, res))) return;
  if (queue && method === 'GET' && path === '/_local/queues') {
    return json(res, 200, { queues: queue.stats(), deadLetters: queue.deadLetters() });
  }
  if (scheduler && method === 'GET' && path === '/_local/schedules') {
    return json(res, 200, { oneOff: scheduler.list(), recurring: scheduler.recurringSchedules() });
  }
  if (clock && method === 'GET' && path === '/_local/clock') {
    return json(res, 200, { now: clock.now().toISOString() });
  }
  return json(res, 404, { message: 'Not Found' });
}

/**
 * An uploaded image, with no key needed, as CloudFront serves it on AWS: the bytes with the type
 * they were stored as, never sniffed by the browser, cacheable for good (a key is never reused).
 * Only keys the upload makes are looked up.
 */
async function serveImage(
  images: Pick<LocalImages, 'get'>,
  key: string,
  method: string,
  res: ServerResponse,
): Promise<void> {
  const image = isImageKey(key) ? await images.get(key) : undefined;
  if (!image) return json(res, 404, { message: 'Not Found' });
  res.statusCode = 200;
  res.setHeader('content-type', image.contentType);
  res.setHeader('content-length', image.body.byteLength);
  res.setHeader('cache-control', IMAGE_CACHE_CONTROL);
  res.setHeader('x-content-type-options', 'nosniff');
  res.end(method === 'HEAD' ? undefined : image.body);
}

/**
 * `POST /_local/clock {advance: seconds}`: moves the runtime's clock forward, fires what fell due
 * (answering once the due one-off schedules are on their queues) and answers `{now}`. Anything
 * but a positive number of seconds is a 422 (a body that is not JSON, a 400): never back.
 */
async function advanceClock(clock: LocalClock, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBody(req, 64 * 1024);
  if (body === 'too-large') return json(res, 413, { message: 'Request Entity Too Large' });
  let input: unknown;
  try {
    input = JSON.parse(body.toString('utf8'));
  } catch (error) {
    // Malformed JSON is the client's; anything else is not.
    if (!(error instanceof SyntaxError)) throw error;
    return json(res, 400, { message: 'Send a JSON body: {"advance": <seconds>}' });
  }
  const advance = (input as { advance?: unknown } | null)?.advance;
  const problem = advanceProblem(advance);
  if (problem) return json(res, 422, { message: `${problem}; send {"advance": <seconds>}` });
  const now = await clock.advance(advance as number);
  return json(res, 200, { now: now.toISOString() });
}

/**
 * `POST /_local/emails/{id}/open` and `POST /_local/emails/{id}/click {link}`: a recipient opens
 * the message or clicks one of its links; the event SES would publish goes the way of the others
 * (the `ses.event` job). 202 with the event; 404 for an unknown message; a click without a link,
 * or with one the message does not contain, is 422.
 */
async function engage(
  o: { mailSink: MailSink; queue: LocalQueue; clock: LocalClock },
  id: string,
  what: 'open' | 'click',
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readBody(req, 64 * 1024);
  if (body === 'too-large') return json(res, 413, { message: 'Request Entity Too Large' });
  const message = await o.mailSink.get(id);
  if (!message) return json(res, 404, { message: 'Not Found' });
  let link: string | undefined;
  if (what === 'click') {
    let input: unknown;
    try {
      input = JSON.parse(body.toString('utf8') || 'null');
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      return json(res, 400, { message: 'Send a JSON body: {"link": "<a link of the message>"}' });
    }
    const given = (input as { link?: unknown } | null)?.link;
    if (typeof given !== 'string' || given === '')
      return json(res, 422, { message: 'link is required: {"link": "<a link of the message>"}' });
    if (!(message.html ?? '').includes(given) && !(message.text ?? '').includes(given))
      return json(res, 422, { message: 'The message has no such link' });
    link = given;
  }
  const event = engagementEvent(message, link === undefined ? { open: true } : { link }, o.clock.now());
  await publishSesEvents(o.mailSink, o.queue, id, [event]);
  return json(res, 202, { event });
}

/** The types `POST /_local/inbound` takes a raw message as. */
const RAW_MESSAGE_TYPES = new Set(['message/rfc822', 'text/plain']);
/** SES's verdict statuses, which `POST /_local/inbound` lets a caller pick. */
const VERDICT_STATUSES = new Set(['PASS', 'FAIL', 'GRAY', 'PROCESSING_FAILED']);
const VERDICTS = ['spam', 'virus', 'spf', 'dkim', 'dmarc'] as const;
/** What passes for an envelope recipient: a local part and a domain, at most 320 characters. */
const ADDRESS = /^(?=.{3,320}$)[^@\s]+@[^@\s]+$/;

/**
 * `POST /_local/inbound`: mail arriving, as SES's receipt rule takes it on AWS. The body is the
 * raw message (`Content-Type: message/rfc822` or `text/plain`, up to 10 MB, as API Gateway would
 * take it); it is stored under `inbound/<id>` where the jobs worker's inbound-mail port reads, and
 * the `inbound.received` job SES's notification becomes on AWS is enqueued. The recipients are
 * `?to=` (repeated or comma-separated), else the message's To and Cc addresses; each verdict is
 * PASS unless `?spam=`, `?virus=`, `?spf=`, `?dkim=` or `?dmarc=` names another of SES's
 * statuses. 202 with the stored key and the job's fields; 415 for another type, 422 for an empty
 * body, no recipient or an unknown verdict.
 */
async function receiveMail(
  o: { inboundMail: Pick<LocalInboundMail, 'put'>; queue: LocalQueue; clock: LocalClock },
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (!RAW_MESSAGE_TYPES.has(type)) {
    req.resume();
    return json(res, 415, {
      message: 'Send the raw message with Content-Type: message/rfc822 (or text/plain)',
    });
  }
  const body = await readBody(req, MAX_REQUEST_BODY_BYTES);
  if (body === 'too-large') return tooLarge(res, 'API Gateway accepts request bodies up to 10 MB');
  if (body.length === 0) return json(res, 422, { message: 'The body is empty: send the raw message' });
  const query = new URL(req.url ?? '/', 'http://local').searchParams;
  const verdicts: Record<string, string> = {};
  for (const name of VERDICTS) {
    const status = (query.get(name) ?? 'PASS').toUpperCase();
    if (!VERDICT_STATUSES.has(status))
      return json(res, 422, { message: `${name} must be one of ${[...VERDICT_STATUSES].join(', ')}` });
    verdicts[name] = status;
  }
  const recipients = query.getAll('to').flatMap((to) => to.split(','));
  if (recipients.length === 0) recipients.push(...(await headerRecipients(body)));
  const to = [...new Set(recipients.map((r) => r.trim()).filter((r) => ADDRESS.test(r)))];
  if (to.length === 0) {
    return json(res, 422, { message: 'No recipient: pass ?to=<address> or send a message with a To header' });
  }
  // Shaped like SES's inbound message ids (lower-case letters and digits).
  const messageId = randomBytes(20).toString('hex');
  const key = `${INBOUND_KEY_PREFIX}${messageId}`;
  await o.inboundMail.put(key, body);
  const job = {
    key,
    messageId,
    receivedAt: o.clock.now().toISOString(),
    recipients: to,
    verdicts: verdicts as InboundVerdicts,
  };
  const deps = { queue: o.queue };
  await enqueue(deps, inboundReceivedJobMessage, job);
  return json(res, 202, job);
}

/** The To and Cc addresses of a raw message (groups' members included); none when it has none. */
async function headerRecipients(raw: Uint8Array): Promise<string[]> {
  const { default: PostalMime } = await import('postal-mime');
  let email: Awaited<ReturnType<typeof PostalMime.parse>>;
  try {
    email = await PostalMime.parse(raw);
  } catch {
    // Unreadable: no recipient from it, which the caller answers.
    return [];
  }
  return [...(email.to ?? []), ...(email.cc ?? [])].flatMap((a) =>
    a.group ? a.group.map((m) => m.address) : [a.address],
  );
}

function emailJson(m: SinkMessage) {
  return {
    id: m.id,
    to: m.to,
    from: m.from,
    subject: m.subject,
    html: m.html,
    text: m.text,
    headers: m.headers,
    tags: m.tags,
    attachments: m.attachments,
    createdAt: m.createdAt,
    ...(m.parseError ? { parseError: m.parseError } : {}),
  };
}

function json(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}
