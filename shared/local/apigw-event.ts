/**
 * API Gateway's side of a request, as the local runtime and the unit tests need it: the HTTP API
 * payload 2.0 event built from a plain request (`toHttpApiEvent`, and `httpApiEvent` for tests),
 * how API Gateway reads a handler's result (`toReply`), and the REST API REQUEST authorizer event
 * of a direct upload (`toAuthorizerEvent`). The local gateway (gateway.ts) and the local direct
 * upload (direct-upload.ts) both build on it.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type DirectUploadDef, manifest } from '../manifest';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './lambda';
import { compileRoutes, decode, type RouteMatch, type RouteMatcher } from './routes';

/** The request as the gateway read it, before it becomes an event. */
export interface RawRequest {
  readonly method: string;
  /** The request target: path and query string, as sent. */
  readonly url: string;
  /** Header values by lower-cased name, each repeated header's values in order. */
  readonly headers: Readonly<Record<string, readonly string[] | undefined>>;
  readonly body: Buffer;
  readonly sourceIp: string;
  readonly protocol: string;
}

/** Content types whose bodies API Gateway passes as text; every other body arrives base64-encoded. */
export function isTextContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return (
    type.startsWith('text/') ||
    type === 'application/json' ||
    type.endsWith('+json') ||
    type === 'application/xml' ||
    type.endsWith('+xml') ||
    type === 'application/javascript'
  );
}

/** Builds the payload 2.0 event API Gateway would send for `request` matched to `match`. */
export function toHttpApiEvent(
  request: RawRequest,
  match: RouteMatch,
  context: { requestId: string; now: Date },
): APIGatewayProxyEventV2 {
  const queryAt = request.url.indexOf('?');
  const rawPath = queryAt < 0 ? request.url : request.url.slice(0, queryAt);
  const rawQueryString = queryAt < 0 ? '' : request.url.slice(queryAt + 1);

  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [name, values] of Object.entries(request.headers)) {
    if (!values || values.length === 0) continue;
    if (name === 'cookie') {
      // Payload 2.0 moves cookies out of the headers into `cookies`.
      for (const v of values)
        cookies.push(
          ...v
            .split(';')
            .map((c) => c.trim())
            .filter((c) => c !== ''),
        );
      continue;
    }
    headers[name] = values.join(',');
  }

  const query: Record<string, string> = {};
  for (const pair of rawQueryString.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decode((eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, ' '));
    const value = eq < 0 ? '' : decode(pair.slice(eq + 1).replace(/\+/g, ' '));
    query[key] = key in query ? `${query[key]},${value}` : value;
  }

  const host = headers.host ?? 'localhost';
  // API Gateway adds these to every request.
  headers['x-forwarded-for'] = headers['x-forwarded-for']
    ? `${headers['x-forwarded-for']}, ${request.sourceIp}`
    : request.sourceIp;
  headers['x-forwarded-proto'] = 'http';
  headers['x-forwarded-port'] = /:(\d+)$/.exec(host)?.[1] ?? '80';
  const hasBody = request.body.length > 0;
  const isBase64Encoded = hasBody && !isTextContentType(headers['content-type']);
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: match.routeKey,
    rawPath,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    // Percent-decoded once, as HTTP APIs deliver them ("API Gateway decodes URL-encoded request
    // parameters before passing them to your backend integration"): `/fields/a%2520b` gives
    // `a%20b`. Handlers must not decode again.
    ...(match.pathParameters ? { pathParameters: { ...match.pathParameters } } : {}),
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: 'local',
      domainName: host,
      domainPrefix: host.split('.')[0]!.split(':')[0]!,
      http: {
        method: request.method,
        path: rawPath,
        protocol: request.protocol,
        sourceIp: request.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: context.requestId,
      routeKey: match.routeKey,
      stage: '$default',
      time: clfTime(context.now),
      timeEpoch: context.now.getTime(),
    },
    ...(hasBody ? { body: request.body.toString(isBase64Encoded ? 'base64' : 'utf8') } : {}),
    isBase64Encoded,
  };
  return event;
}

/** What the gateway writes back for a handler's result, following API Gateway's rules for 2.0. */
export interface HttpReply {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly cookies: readonly string[];
  readonly body: Buffer;
}

/**
 * A structured result is used as is; any other value (an object without `statusCode`, a
 * string) is a 200 with the value as a JSON body, which is how API Gateway reads 2.0 results.
 */
export function toReply(result: unknown): HttpReply {
  if (typeof result === 'object' && result !== null && 'statusCode' in result) {
    const r = result as APIGatewayProxyStructuredResultV2;
    const statusCode = Number(r.statusCode);
    if (!Number.isInteger(statusCode) || statusCode < 100 || statusCode > 599) {
      throw new Error(`Invalid statusCode ${String(r.statusCode)} in the handler's result`);
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(r.headers ?? {})) headers[name.toLowerCase()] = String(value);
    const body =
      r.body === undefined || r.body === null
        ? Buffer.alloc(0)
        : Buffer.from(r.body, r.isBase64Encoded ? 'base64' : 'utf8');
    return { statusCode, headers, cookies: r.cookies ?? [], body };
  }
  const json = typeof result === 'string' ? result : JSON.stringify(result ?? null);
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    cookies: [],
    body: Buffer.from(json),
  };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** API Gateway's `requestContext.time`: `21/Nov/2025:19:41:00 +0000`. */
export function clfTime(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:${p(date.getUTCHours())}:${p(
    date.getUTCMinutes(),
  )}:${p(date.getUTCSeconds())} +0000`;
}

/** Options of `httpApiEvent`; everything has a default. */
export interface HttpApiEventInit {
  /** Header values by name (any case). */
  readonly headers?: Readonly<Record<string, string>>;
  /** A string is sent as UTF-8. */
  readonly body?: string | Buffer;
  /** @default '127.0.0.1' */
  readonly sourceIp?: string;
  /** API Gateway's request id. @default a random UUID */
  readonly requestId?: string;
  /** @default the current time */
  readonly now?: Date;
  /** The route API Gateway matched. @default matched against the manifest's routes */
  readonly match?: RouteMatch;
}

let manifestRoutes: RouteMatcher | undefined;

/**
 * The event API Gateway would send for `method url` (path and query string): the tests' event
 * factory, built exactly as the local gateway builds events.
 */
export function httpApiEvent(
  method: string,
  url: string,
  init: HttpApiEventInit = {},
): APIGatewayProxyEventV2 {
  const headers: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(init.headers ?? {})) headers[name.toLowerCase()] = [value];
  const request: RawRequest = {
    method,
    url,
    headers,
    body: typeof init.body === 'string' ? Buffer.from(init.body, 'utf8') : (init.body ?? Buffer.alloc(0)),
    sourceIp: init.sourceIp ?? '127.0.0.1',
    protocol: 'HTTP/1.1',
  };
  manifestRoutes ??= compileRoutes(manifest);
  const match = init.match ?? manifestRoutes(method, url.split('?')[0]!);
  return toHttpApiEvent(request, match, {
    requestId: init.requestId ?? randomUUID(),
    now: init.now ?? new Date(),
  });
}

/** The REST API REQUEST authorizer event API Gateway sends for a direct upload, headers flattened. */
export function toAuthorizerEvent(
  def: Pick<DirectUploadDef, 'method' | 'path'>,
  request: Pick<RawRequest, 'headers' | 'sourceIp'>,
  requestId: string,
) {
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(request.headers))
    if (values?.length) headers[name] = values.join(',');
  return {
    type: 'REQUEST' as const,
    methodArn: `arn:aws:execute-api:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:local/v1/${def.method}${def.path}`,
    resource: def.path,
    path: def.path,
    httpMethod: def.method,
    headers,
    requestContext: { requestId, identity: { sourceIp: request.sourceIp } },
  };
}
