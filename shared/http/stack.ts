/**
 * The one middleware stack every route group uses, in a fixed order:
 * request context (request id, header normalization) -> JSON body -> authentication ->
 * rate limit -> router -> route handler; the error handler runs last and is the only place where
 * errors become responses.
 */
import middy, { type MiddlewareObj } from '@middy/core';
import httpRouter from '@middy/http-router';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { AppError, badRequest, invalidApiKey } from '../errors';
import { manifest, type RouteAuth, routeKey } from '../manifest';
import type { Deps } from '../ports';
import { findApiKey, getProject, type KeyKind, keyKindOf } from '../projects/repository';
import { isPreflight, preflightHeaders } from './cors';
import { AuthFailureLimiter, consumeRateLimit, type RateLimitState, rateLimitHeaders } from './rate-limit';
import { errorResponse, type HttpResult } from './response';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpHandler = (event: HttpEvent, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** What a route handler receives: the parsed request, scoped to the caller's project. */
export interface ApiRequest {
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly routeKey: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly params: Readonly<Record<string, string | undefined>>;
  /** Parsed JSON body; undefined when there is none or it is not JSON. */
  readonly body: unknown;
  /** The raw body bytes (for multipart uploads). */
  readonly rawBody: Buffer | undefined;
  readonly event: HttpEvent;
}

export interface AuthedRequest extends ApiRequest {
  readonly projectId: string;
  readonly keyKind: KeyKind;
}

export interface RouteImpl {
  readonly method: string;
  readonly path: string;
  readonly handler: (req: AuthedRequest) => Promise<HttpResult>;
}

export interface OpenRouteImpl {
  readonly method: string;
  readonly path: string;
  readonly auth: 'none';
  readonly handler: (req: ApiRequest) => Promise<HttpResult>;
}

interface State {
  requestId: string;
  body: unknown;
  rawBody: Buffer | undefined;
  projectId?: string;
  keyKind?: KeyKind;
  rateLimit?: RateLimitState;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Builds a route group's Lambda handler from its route implementations. */
export function httpGroup(
  deps: Deps,
  groupName: string,
  routes: readonly (RouteImpl | OpenRouteImpl)[],
): HttpHandler {
  const group = manifest.routeGroups.find((g) => g.name === groupName);
  if (!group) throw new Error(`Route group ${groupName} is not in the manifest`);
  const authByRoute = new Map<string, RouteAuth>(
    group.routes.map((r) => [routeKey(r), (r as { auth?: RouteAuth }).auth ?? 'secret']),
  );
  for (const r of routes) {
    const key = `${r.method} ${r.path}`;
    if (!authByRoute.has(key))
      throw new Error(`Route ${key} is implemented but not in the manifest group ${groupName}`);
  }
  const states = new WeakMap<HttpEvent, State>();
  const cachedKey = ttlCache(deps, (raw) => findApiKey(deps, raw));
  const cachedProject = ttlCache(deps, (id) => getProject(deps, id));
  const authFailures = new AuthFailureLimiter(() => deps.clock.now().getTime());
  const stateOf = (event: HttpEvent) => {
    const s = states.get(event);
    if (!s) throw new Error('Request state missing');
    return s;
  };

  const toRequest = (event: HttpEvent): ApiRequest => {
    const s = stateOf(event);
    return {
      requestId: s.requestId,
      method: event.requestContext.http.method,
      path: event.rawPath,
      routeKey: event.routeKey,
      headers: event.headers ?? {},
      query: event.queryStringParameters ?? {},
      // As API Gateway delivers them for HTTP APIs: already percent-decoded, once. Decoding again
      // would turn a field named `a%20b` into `a b`.
      params: { ...(event.pathParameters ?? {}) },
      body: s.body,
      rawBody: s.rawBody,
      event,
    };
  };

  const router = httpRouter<HttpEvent, APIGatewayProxyStructuredResultV2>({
    routes: routes.map((r) => ({
      method: r.method as 'GET',
      path: r.path,
      handler: async (event: HttpEvent) => {
        const req = toRequest(event);
        if ('auth' in r && r.auth === 'none') return r.handler(req);
        const s = stateOf(event);
        if (!s.projectId || !s.keyKind) throw invalidApiKey();
        return (r as RouteImpl).handler({ ...req, projectId: s.projectId, keyKind: s.keyKind });
      },
    })),
    notFoundResponse: ({ method, path }) => {
      throw new AppError(404, 'NOT_FOUND', `No route for ${method} ${path}`);
    },
  });

  const requestContext: MiddlewareObj<HttpEvent> = {
    before: (request) => {
      const event = request.event;
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
      event.headers = headers;
      const incoming = headers['x-request-id'];
      const requestId =
        incoming && REQUEST_ID.test(incoming)
          ? incoming
          : (event.requestContext?.requestId ?? deps.ids.uuid());
      states.set(event, { requestId, body: undefined, rawBody: undefined });
    },
  };

  const body: MiddlewareObj<HttpEvent> = {
    before: (request) => {
      const event = request.event;
      const s = stateOf(event);
      if (event.body === undefined || event.body === null || event.body === '') return;
      const raw = Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
      s.rawBody = raw;
      const type = (event.headers['content-type'] ?? 'application/json').toLowerCase();
      if (!type.startsWith('application/json') && !type.includes('+json')) return;
      const text = raw.toString('utf8');
      if (text.trim() === '') return;
      try {
        s.body = JSON.parse(text);
      } catch {
        throw badRequest('Malformed JSON body');
      }
    },
  };

  const authenticate: MiddlewareObj<HttpEvent> = {
    before: async (request) => {
      const event = request.event;
      const auth = authByRoute.get(event.routeKey) ?? 'none';
      if (auth === 'none') return;
      const s = stateOf(event);
      const client = event.requestContext?.http?.sourceIp ?? 'unknown';
      const header = event.headers.authorization ?? '';
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      const raw = match?.[1];
      const want: KeyKind = auth === 'public' ? 'public' : 'secret';
      // A client past its failed-authentication budget is refused before any table read; a key
      // this instance already knows as valid for the route still passes (it costs no read
      // either), so clients sharing an address with a misbehaving one keep working.
      if (raw === undefined || cachedKey.peek(raw)?.kind !== want) authFailures.check(client);
      const fail = (error: AppError): never => {
        authFailures.fail(client);
        throw error;
      };
      if (raw === undefined) return fail(invalidApiKey());
      if (keyKindOf(raw) !== want) {
        return fail(
          invalidApiKey(
            want === 'public'
              ? 'This endpoint takes a public key (pk_)'
              : 'This endpoint takes a secret key (sk_)',
          ),
        );
      }
      const record = await cachedKey(raw);
      if (!record || record.kind !== want) return fail(invalidApiKey());
      const project = await cachedProject(record.projectId);
      if (!project) return fail(invalidApiKey());
      if (project.disabled) throw new AppError(403, 'PROJECT_DISABLED', 'This project is disabled');
      s.projectId = record.projectId;
      s.keyKind = record.kind;
      s.rateLimit = await consumeRateLimit(deps, record.projectId);
    },
  };

  const errors: MiddlewareObj<HttpEvent, APIGatewayProxyStructuredResultV2> = {
    after: (request) => {
      const s = states.get(request.event);
      const response = request.response as HttpResult | undefined;
      if (!s || !response) return;
      response.headers = { ...response.headers, 'x-request-id': s.requestId };
      if (s.rateLimit) Object.assign(response.headers, rateLimitHeaders(s.rateLimit));
    },
    onError: (request) => {
      const s = states.get(request.event);
      const requestId = s?.requestId ?? deps.ids.uuid();
      const error = toAppError(request.error, requestId);
      const response = errorResponse(error, requestId, deps.clock.now());
      response.headers['x-request-id'] = requestId;
      if (s?.rateLimit && error.statusCode !== 429)
        Object.assign(response.headers, rateLimitHeaders(s.rateLimit));
      request.response = response;
    },
  };

  return middy<HttpEvent, APIGatewayProxyStructuredResultV2>()
    .use(errors)
    .use(requestContext)
    .use(body)
    .use(authenticate)
    .handler(answerPreflight(router)) as unknown as HttpHandler;
}

/**
 * API Gateway hands CORS preflights to the `$default` route when one exists (ours does, for the
 * 404 envelope), so the fallback group answers them: 204 with the manifest's CORS headers.
 */
function answerPreflight<R>(router: (event: HttpEvent, context: Context, abort: unknown) => R) {
  return (event: HttpEvent, context: Context, abort: unknown) => {
    const cors = manifest.cors;
    if (
      cors &&
      event.routeKey === '$default' &&
      isPreflight(event.requestContext.http.method, event.headers)
    ) {
      return { statusCode: 204, headers: preflightHeaders(cors, event.headers.origin ?? ''), body: '' };
    }
    return router(event, context, abort);
  };
}

function toAppError(error: unknown, requestId: string): AppError {
  if (error instanceof AppError) return error;
  // middy's own HTTP errors (e.g. from the router) carry statusCode and expose.
  const e = error as { statusCode?: number; expose?: boolean; message?: string } | undefined;
  if (e && typeof e.statusCode === 'number' && e.expose && e.statusCode < 500) {
    return new AppError(
      e.statusCode,
      e.statusCode === 404 ? 'NOT_FOUND' : 'BAD_REQUEST',
      e.message ?? 'Bad request',
    );
  }
  console.error(
    JSON.stringify({
      level: 'error',
      requestId,
      message: 'Unhandled error',
      error: String(e?.message),
      stack: (error as Error)?.stack,
    }),
  );
  return new AppError(500, 'INTERNAL_SERVER_ERROR', 'An unexpected error occurred', {
    suggestion: `Quote request id ${requestId} when reporting this`,
  });
}

/**
 * Key and project lookups are cached per handler instance for a short time: a key costs one
 * read per warm instance per minute instead of one per request. Rotating or disabling takes effect
 * within the TTL.
 */
export const CACHE_TTL_MS = 60_000;
/**
 * Unknown keys (and projects) are remembered as unknown for a shorter time, so a client repeating
 * a bad key costs no read after its first. The window this opens: a key that an instance looked up
 * before it existed keeps failing on that instance for up to 15 seconds after it is created.
 * Newly generated keys are random and have never been tried, so they work at once.
 */
export const NEGATIVE_CACHE_TTL_MS = 15_000;
/** Entries per cache at most (each kind); a full cache starts over, costing one read per key. */
const CACHE_MAX_ENTRIES = 1000;
const NEGATIVE_CACHE_MAX_ENTRIES = 10_000;

function ttlCache<V>(deps: Deps, load: (id: string) => Promise<V | undefined>) {
  const known = new Map<string, { at: number; value: V }>();
  // Apart from the known ones, so that a flood of random keys cannot evict them.
  const unknown = new Map<string, number>();
  const fresh = (at: number | undefined, ttl: number, now: number) => at !== undefined && now - at < ttl;
  const get = async (id: string): Promise<V | undefined> => {
    const now = deps.clock.now().getTime();
    const hit = known.get(id);
    if (hit && fresh(hit.at, CACHE_TTL_MS, now)) return hit.value;
    if (fresh(unknown.get(id), NEGATIVE_CACHE_TTL_MS, now)) return undefined;
    const value = await load(id);
    if (value !== undefined) {
      if (known.size >= CACHE_MAX_ENTRIES) known.clear();
      known.set(id, { at: now, value });
      unknown.delete(id);
    } else {
      known.delete(id);
      if (unknown.size >= NEGATIVE_CACHE_MAX_ENTRIES) unknown.clear();
      unknown.set(id, now);
    }
    return value;
  };
  /** The cached value when it is known and fresh; never loads. */
  const peek = (id: string): V | undefined => {
    const hit = known.get(id);
    return hit && fresh(hit.at, CACHE_TTL_MS, deps.clock.now().getTime()) ? hit.value : undefined;
  };
  return Object.assign(get, { peek });
}
