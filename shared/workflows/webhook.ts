/**
 * The HTTP call of a WEBHOOK step (docs/workflows.md): the step's URL, header values and
 * body rendered with Liquid, then sent with `safeRequest` (no private targets, redirects checked,
 * 10 s deadline), signed, and retried with backoff on network errors, 5xx and 429.
 *
 * Every attempt carries `Sesame-Delivery: <deliveryId>` (the same on each, so the receiver can
 * deduplicate) and `Sesame-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`,
 * signed with the workflow's `webhookSecret`; `verifySignature` is how a receiver checks it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  ForbiddenTargetError,
  type LookupFn,
  NetworkError,
  safeRequest,
  TooManyRedirectsError,
} from '../net/safe-fetch';
import { compile, RenderError, render, TemplateSyntaxError } from '../rendering';
import type { WebhookConfig } from './model';
import { isReservedWebhookHeader } from './webhook-headers';

export { isReservedWebhookHeader, RESERVED_WEBHOOK_HEADERS } from './webhook-headers';

/** A rendered WEBHOOK step, ready to send. */
export interface WebhookCall {
  readonly url: string;
  readonly method: WebhookConfig['method'];
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export type WebhookResult =
  | { readonly ok: true; readonly status: number; readonly attempts: number }
  | { readonly ok: false; readonly error: string; readonly status?: number; readonly attempts: number };

export interface CallWebhookOptions {
  /** The workflow's `webhookSecret`. */
  readonly secret: string;
  /** Sent as `Sesame-Delivery`, the same on every attempt. */
  readonly deliveryId: string;
  readonly now: () => Date;
  /** WEBHOOK_ALLOWED_HOSTS: hosts reached without the private-address check. */
  readonly allowedHosts: readonly string[];
  /** Deadline of one attempt, redirects included. @default 10000 */
  readonly timeoutMs?: number;
  /** Attempts in all, the first included. @default 4 */
  readonly attempts?: number;
  /** Wait before the second attempt, doubled before each next one. @default 1000 */
  readonly backoffMs?: number;
  /** @default `dns.lookup` */
  readonly lookup?: LookupFn;
  /** @default a `setTimeout` promise */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** The step's configuration cannot make a valid request (bad Liquid, URL or header): retrying cannot help. */
export class WebhookConfigError extends Error {
  override readonly name = 'WebhookConfigError';
  readonly retryable = false;
}

export const WEBHOOK_USER_AGENT = 'Sesame-Webhook/1';

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What Node accepts in a header value: tab, visible ASCII and Latin-1 (CR, LF, NUL excluded). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Renders the step's URL, header values and body with `variables` (Liquid, plain text: nothing
 * escaped, so a value placed in a URL wants `| url_encode`). Throws WebhookConfigError for a
 * template that does not parse or render, a URL that is not absolute http(s), a header name that
 * is not a token, or a header value with CR, LF, NUL or another character HTTP does not allow.
 * Header names are not templates.
 */
export async function renderWebhook(
  config: WebhookConfig,
  variables: Record<string, unknown>,
): Promise<WebhookCall> {
  const url = (await renderField('url', config.url, variables)).trim();
  if (!isHttpUrl(url)) {
    throw new WebhookConfigError(
      `WEBHOOK url must be an absolute http or https URL once rendered, got ${quote(url)}`,
    );
  }
  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(config.headers)) {
    if (!HEADER_NAME.test(name))
      throw new WebhookConfigError(`WEBHOOK header name ${quote(name)} is not valid`);
    const value = await renderField(`header ${name}`, template, variables);
    if (/[\r\n\0]/.test(value)) {
      throw new WebhookConfigError(`WEBHOOK header ${name} contains a line break or NUL once rendered`);
    }
    if (!HEADER_VALUE.test(value)) {
      throw new WebhookConfigError(`WEBHOOK header ${name} contains a character not allowed in a header`);
    }
    headers[name] = value;
  }
  const body = config.body === undefined ? undefined : await renderField('body', config.body, variables);
  return { url, method: config.method, headers, ...(body === undefined ? {} : { body }) };
}

async function renderField(
  field: string,
  source: string,
  variables: Record<string, unknown>,
): Promise<string> {
  try {
    return await render(compile(source, 'text'), variables);
  } catch (error) {
    if (error instanceof TemplateSyntaxError || error instanceof RenderError) {
      throw new WebhookConfigError(`WEBHOOK ${field}: ${error.message}`, { cause: error });
    }
    throw error;
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A value quoted for an error message, cut short. */
function quote(text: string): string {
  return JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
}

/**
 * Sends `call`, retrying (after `backoffMs`, doubled each time) on network errors and timeouts,
 * 5xx and 429, up to `attempts` in all. 2xx is success; any other status (3xx left after
 * redirects, 4xx) fails at once, and so does a forbidden target or a redirect loop. Never throws
 * for what the target does; the result says what happened.
 */
export async function callWebhook(call: WebhookCall, options: CallWebhookOptions): Promise<WebhookResult> {
  const attempts = Math.max(1, options.attempts ?? 4);
  const backoffMs = options.backoffMs ?? 1000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const body = call.body ?? '';
  const baseHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.headers)) {
    if (!isReservedWebhookHeader(name)) baseHeaders[name] = value;
  }
  if (call.body !== undefined && !Object.keys(baseHeaders).some((n) => n.toLowerCase() === 'content-type')) {
    baseHeaders['Content-Type'] = 'application/json';
  }
  let last: { error: string; status?: number } = { error: 'not attempted' };
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await sleep(backoffMs * 2 ** (attempt - 2));
    const t = Math.floor(options.now().getTime() / 1000);
    const headers = {
      ...baseHeaders,
      'User-Agent': WEBHOOK_USER_AGENT,
      'Sesame-Delivery': options.deliveryId,
      'Sesame-Signature': signatureHeader(options.secret, t, body),
    };
    try {
      const response = await safeRequest(
        {
          url: call.url,
          method: call.method,
          headers,
          ...(call.body === undefined ? {} : { body: call.body }),
        },
        {
          timeoutMs: options.timeoutMs ?? 10_000,
          allowedHosts: options.allowedHosts,
          ...(options.lookup ? { lookup: options.lookup } : {}),
        },
      );
      if (response.status >= 200 && response.status < 300)
        return { ok: true, status: response.status, attempts: attempt };
      last = { error: `webhook target answered HTTP ${response.status}`, status: response.status };
      if (response.status < 500 && response.status !== 429) return { ok: false, ...last, attempts: attempt };
    } catch (error) {
      if (error instanceof NetworkError) {
        last = { error: error.message };
        continue;
      }
      if (
        error instanceof ForbiddenTargetError ||
        error instanceof TooManyRedirectsError ||
        error instanceof WebhookConfigError
      ) {
        return { ok: false, error: error.message, attempts: attempt };
      }
      throw error;
    }
  }
  return { ok: false, ...last, error: `${last.error} (after ${attempts} attempts)`, attempts };
}

/** The `Sesame-Signature` value of `body` sent at `t` (unix seconds). */
export function signatureHeader(secret: string, t: number, body: string): string {
  return `t=${t},v1=${hmacHex(secret, t, body)}`;
}

function hmacHex(secret: string, t: number | string, body: string): string {
  return createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest('hex');
}

/**
 * Whether `header` (a `Sesame-Signature` value) signs `body` (the raw request body, as received,
 * before any JSON parsing) with `secret`, and its time is within `toleranceSec` of `now`, which
 * refuses replays of old deliveries. Several `v1=` values are accepted, any one matching.
 */
export function verifySignature(
  secret: string,
  header: string | undefined,
  body: string,
  toleranceSec: number,
  now: Date = new Date(),
): boolean {
  if (!header) return false;
  let t: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2) as [string, string | undefined];
    if (key === 't' && value !== undefined) t = value;
    else if (key === 'v1' && value !== undefined) signatures.push(value);
  }
  if (t === undefined || !/^\d{1,12}$/.test(t) || signatures.length === 0) return false;
  if (Math.abs(Math.floor(now.getTime() / 1000) - Number(t)) > toleranceSec) return false;
  const expected = Buffer.from(hmacHex(secret, t, body), 'hex');
  return signatures.some((s) => {
    if (!/^[0-9a-f]{64}$/i.test(s)) return false;
    return timingSafeEqual(Buffer.from(s, 'hex'), expected);
  });
}
