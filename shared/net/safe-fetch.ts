/**
 * One HTTP request to a user-chosen URL (a WEBHOOK step) that cannot be turned against the
 * network Sesame runs in (SSRF): only http: and https:, the host resolved once and refused when
 * any of its addresses is not public (shared/net/addresses.ts), the connection made to the very
 * addresses checked (so a DNS answer that changes between check and connect is never used),
 * redirects followed by hand with each hop checked the same way, one deadline over it all.
 *
 * Built on node:http and node:https rather than the global fetch, which resolves names itself
 * and offers no way to pin the connection to a checked address.
 */
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isForbiddenAddress } from './addresses';
import { FRAMING_HEADERS } from './framing';

/** Resolves a host name to every address it has, as `dns.lookup(host, {all: true})` does. */
export type LookupFn = (hostname: string) => Promise<readonly LookupAddress[]>;

export interface SafeRequestInput {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface SafeRequestOptions {
  /** Deadline of the whole call: DNS, connect, every redirect hop and the response body. */
  readonly timeoutMs: number;
  /**
   * Host names and IP literals reached without the address check (local development), compared
   * with the URL's host case-insensitively; IPv6 literals with or without brackets.
   */
  readonly allowedHosts: readonly string[];
  /** @default 5 */
  readonly maxRedirects?: number;
  /** @default `dns.lookup` with `{all: true}` */
  readonly lookup?: LookupFn;
}

export interface SafeResponse {
  readonly status: number;
  /** Lower-case names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** Decoded as UTF-8, cut to `MAX_RESPONSE_BODY_BYTES`. */
  readonly body: string;
}

/** The most of a response body that is read; the rest is discarded unread. */
export const MAX_RESPONSE_BODY_BYTES = 64 * 1024;

/** The target may not be reached (scheme, or an address that is not public): retrying cannot help. */
export class ForbiddenTargetError extends Error {
  override readonly name = 'ForbiddenTargetError';
  readonly retryable = false;
  constructor(
    /** The URL's host name (IPv6 in brackets). */
    readonly host: string,
    readonly reason: string,
    /** The resolved address refused, when the host is a name. */
    readonly address?: string,
  ) {
    super(
      address === undefined
        ? `webhook target ${host} (${reason}) is not allowed`
        : `webhook target ${host} resolves to ${address} (${reason}), which is not allowed`,
    );
  }
}

/** More redirects than `maxRedirects` (a loop, most often): retrying cannot help. */
export class TooManyRedirectsError extends Error {
  override readonly name = 'TooManyRedirectsError';
  readonly retryable = false;
}

/** The request did not complete (DNS failure, refused or reset connection, TLS, timeout): may be retried. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  readonly retryable = true;
}

/** Dropped when a redirect leaves the origin, as browsers do. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** Dropped when a redirect turns the request into a GET without body. */
const BODY_HEADERS = new Set(['content-type', 'content-encoding', 'content-language', 'content-location']);

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Sends one request and reads its response, following redirects. Throws ForbiddenTargetError for
 * a target that may not be reached (at any hop), TooManyRedirectsError past `maxRedirects`, and
 * NetworkError when the request could not complete, including the deadline.
 */
export async function safeRequest(
  input: SafeRequestInput,
  options: SafeRequestOptions,
): Promise<SafeResponse> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  let target = hostOf(input.url);
  try {
    const maxRedirects = options.maxRedirects ?? 5;
    const allowed = new Set(options.allowedHosts.map(canonicalHost));
    const lookup = options.lookup ?? defaultLookup;
    let request = { ...input, headers: withoutFraming(input.headers) };
    for (let redirects = 0; ; redirects++) {
      const url = targetUrl(request.url);
      target = url.host;
      const addresses = await checkedAddresses(url, allowed, lookup, controller.signal);
      const response = await send(url, request, addresses, controller.signal);
      const location = response.headers.location;
      if (!REDIRECT_STATUSES.has(response.statusCode ?? 0) || location === undefined) {
        return await readResponse(response);
      }
      response.destroy();
      if (redirects >= maxRedirects) {
        throw new TooManyRedirectsError(
          `webhook target ${url.host} redirected more than ${maxRedirects} times`,
        );
      }
      request = redirected(request, url, location, response.statusCode!);
    }
  } catch (error) {
    if (controller.signal.aborted && !(error instanceof ForbiddenTargetError)) {
      throw new NetworkError(`webhook target ${target} timed out after ${options.timeoutMs} ms`, {
        cause: error,
      });
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

const defaultLookup: LookupFn = (hostname) => dnsLookup(hostname, { all: true });

/** The URL, refused unless absolute http: or https:. */
function targetUrl(text: string): URL {
  const url = parseUrl(text);
  if (!url) throw new ForbiddenTargetError(hostOf(text), 'not an absolute URL');
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ForbiddenTargetError(url.hostname || 'URL', `scheme ${url.protocol} is not http or https`);
  }
  return url;
}

/** `URL.parse`, which Node 20 (package.json engines) lacks. */
function parseUrl(text: string, base?: URL): URL | undefined {
  try {
    return new URL(text, base);
  } catch {
    return undefined;
  }
}

/** What is reported of a URL that may not parse: its host, never its path or credentials. */
function hostOf(text: string): string {
  return parseUrl(text)?.hostname || 'URL';
}

/** A host as compared with the allow list: lower case, IPv6 without brackets, IPv4 dotted. */
function canonicalHost(host: string): string {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  const parsed = parseUrl(`http://${isIP(bare) === 6 ? `[${bare}]` : bare}/`);
  return parsed ? parsed.hostname.replace(/^\[(.*)\]$/, '$1') : bare;
}

/**
 * The addresses to connect to: the URL's IP literal, or every address its name resolves to, all
 * of them public unless the host is allowed.
 */
async function checkedAddresses(
  url: URL,
  allowed: ReadonlySet<string>,
  lookup: LookupFn,
  signal: AbortSignal,
): Promise<readonly LookupAddress[]> {
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const isAllowed = allowed.has(canonicalHost(hostname));
  const family = isIP(hostname);
  let addresses: readonly LookupAddress[];
  if (family !== 0) {
    addresses = [{ address: hostname, family }];
  } else {
    try {
      addresses = await abortable(lookup(hostname), signal);
    } catch (error) {
      if (signal.aborted) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      throw new NetworkError(`webhook target ${url.host} could not be resolved${code ? ` (${code})` : ''}`, {
        cause: error,
      });
    }
    if (addresses.length === 0) throw new NetworkError(`webhook target ${url.host} has no address`);
  }
  if (!isAllowed) {
    for (const { address } of addresses) {
      const reason = isForbiddenAddress(address);
      if (reason !== undefined) {
        throw new ForbiddenTargetError(url.hostname, reason, family === 0 ? address : undefined);
      }
    }
  }
  return addresses;
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Connects to `addresses` only (never resolving again) and sends the request. */
function send(
  url: URL,
  request: SafeRequestInput,
  addresses: readonly LookupAddress[],
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  // Node asks for every address when it races IPv4 and IPv6 (autoSelectFamily), else for one.
  const pinned: LookupFunction = (_name, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [...addresses]);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
  const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
  const headers: Record<string, string> = { ...request.headers, host: url.host };
  if (body !== undefined) headers['content-length'] = String(body.length);
  const options: RequestOptions & { servername?: string } = {
    protocol: url.protocol,
    host: hostname,
    port: url.port || undefined,
    path: `${url.pathname}${url.search}`,
    method: request.method,
    headers,
    lookup: pinned,
    // A fresh connection each time: a pooled one may be to an address checked for another URL.
    agent: false,
    signal,
    ...(url.username || url.password
      ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` }
      : {}),
    // TLS names the host, not the address connected to, and checks the certificate against it.
    ...(url.protocol === 'https:' && isIP(hostname) === 0 ? { servername: hostname } : {}),
  };
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(options, resolve);
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (signal.aborted) reject(error);
      else reject(new NetworkError(`webhook target ${url.host}: ${networkReason(error)}`, { cause: error }));
    });
    req.end(body);
  });
}

function networkReason(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      return error.code ? `${error.message} (${error.code})` : error.message;
  }
}

async function readResponse(response: IncomingMessage): Promise<SafeResponse> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      const room = MAX_RESPONSE_BODY_BYTES - size;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.length, room);
      if (size >= MAX_RESPONSE_BODY_BYTES) break; // leaving the loop destroys the stream
    }
  } catch (error) {
    const reason = networkReason(error as NodeJS.ErrnoException);
    throw new NetworkError(`webhook target response broke off: ${reason}`, { cause: error });
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return { status: response.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('utf8') };
}

function withoutFraming(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !FRAMING_HEADERS.has(name.toLowerCase())),
  );
}

/**
 * The next hop's request. 303, and 301 or 302 answering a POST, become a GET without body (HEAD
 * stays HEAD), as browsers do; 307 and 308 repeat the method and body. Credentials do not follow
 * the request to another origin.
 */
function redirected(
  request: SafeRequestInput,
  from: URL,
  location: string,
  status: number,
): SafeRequestInput {
  const to = parseUrl(location, from);
  if (!to) throw new ForbiddenTargetError(from.hostname, 'redirect to an invalid URL');
  const toGet =
    status === 303
      ? request.method !== 'HEAD'
      : (status === 301 || status === 302) && request.method === 'POST';
  const crossOrigin = to.origin !== from.origin;
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(([name]) => {
      const lower = name.toLowerCase();
      return !(crossOrigin && CREDENTIAL_HEADERS.has(lower)) && !(toGet && BODY_HEADERS.has(lower));
    }),
  );
  to.hash = '';
  return toGet
    ? { url: to.href, method: 'GET', headers }
    : {
        url: to.href,
        method: request.method,
        headers,
        ...(request.body === undefined ? {} : { body: request.body }),
      };
}
