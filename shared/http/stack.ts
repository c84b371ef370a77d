/**
 * The one middleware stack every route group uses, in a fixed order:
 * request context (request id, header normalization) -> JSON body -> authentication (the
 * authenticator the manifest names for the route, shared/http/auth) -> rate limit -> router ->
 * path parameters (the route's schema) -> route handler; the error handler runs last and is the
 * only place where errors become responses.
 *
 * A group's code gets only the ports its manifest entry declares (`scopeDeps`), authentication
 * included.
 */
import middy, { type MiddlewareObj } from '@middy/core';
import httpRouter from '@middy/http-router';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { AppError, badRequest, invalidApiKey } from '../errors';
import { manifest, pathParamNames, type RouteAuth, type RouteGroupDef, routeKey } from '../manifest';
import type { Deps } from '../ports';
import { sourceMappedStack } from '../stack-trace';
import { type Authenticators, type Principal, routeAuthenticators } from './auth';
import { authenticateSession, notSignedIn, type SessionPrincipal } from './auth/session';
import { isPreflight, preflightHeaders } from './cors';
import { csrfHeaderMissing, csrfRefusal } from './csrf';
import { declaredDeps } from './ports';
import { RateLimiter, type RateLimitState, rateLimitHeaders } from './rate-limit';
import { errorResponse, type HttpResult } from './response';
import { parse } from './validation';

export { CACHE_TTL_MS, NEGATIVE_CACHE_TTL_MS } from './auth';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpHandler = (event: HttpEvent, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** Path parameters as API Gateway delivers them (percent-decoded once). */
export type PathParams = Readonly<Record<string, string | undefined>>;

/** What a route handler receives: the parsed request. */
export interface ApiRequest<Params = PathParams> {
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly routeKey: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly query: Readonly<Record<string, string | undefined>>;
  /** The path parameters, as the route's `params` schema parsed them. */
  readonly params: Params;
  /** Parsed JSON body; undefined when there is none or it is not JSON. */
  readonly body: unknown;
  /** The raw body bytes (for multipart uploads). */
  readonly rawBody: Buffer | undefined;
  readonly event: HttpEvent;
}

/** The request of a route whose caller is known, scoped to the caller's project. */
export interface AuthedRequest<Params = PathParams> extends ApiRequest<Params> {
  readonly projectId: string;
  readonly principal: Principal;
}

/**
 * What the API reference says of a route beyond its manifest entry (shared/openapi). The schemas
 * are the ones the handler parses with: with SESAME_CHECK_SCHEMAS=1 (the test suites) the stack
 * fails a request whose handler parses its body or query with another schema, or whose JSON
 * answer does not match `responses`.
 */
export interface RouteDoc {
  /** The JSON body's schema (what the handler parses `req.body` with). */
  readonly body?: z.ZodMiniType;
  /** The body is not JSON: its media type and a description (multipart uploads, webhooks). */
  readonly rawBody?: { readonly contentType: string; readonly description: string };
  /** The query parameters' schema (what the handler parses `req.query` with). */
  readonly query?: z.ZodMiniType;
  /** The success answers' JSON bodies by status code; `null` for an answer without a JSON body. */
  readonly responses?: Readonly<Record<number, z.ZodMiniType | null>>;
  /** The route answers a missing required field with the flat 400 `{error}` body. */
  readonly flatBadRequest?: boolean;
}

export interface RouteImpl extends RouteDoc {
  readonly method: string;
  readonly path: string;
  /**
   * Schema of the path parameters, required when the path has any: they are parsed (a 422 names
   * what is wrong) before the handler runs. Declare routes with parameters through `route`.
   */
  readonly params?: z.ZodMiniType;
  readonly handler: (req: AuthedRequest) => Promise<HttpResult>;
}

/** A route the manifest leaves open (`auth: 'none'`): no caller, no project. */
export interface OpenRouteImpl extends RouteDoc {
  readonly method: string;
  readonly path: string;
  readonly auth: 'none';
  /** As in `RouteImpl`. */
  readonly params?: z.ZodMiniType;
  readonly handler: (req: ApiRequest) => Promise<HttpResult>;
}

/** The request of a user route (`auth: 'session'`): the signed-in user, no project. */
export interface SessionRequest<Params = PathParams> extends ApiRequest<Params> {
  readonly session: SessionPrincipal;
}

/** A user route (`auth: 'session'`). */
export interface SessionRouteImpl extends RouteDoc {
  readonly method: string;
  readonly path: string;
  readonly auth: 'session';
  readonly params?: z.ZodMiniType;
  readonly handler: (req: SessionRequest) => Promise<HttpResult>;
}

export type AnyRouteImpl = RouteImpl | OpenRouteImpl | SessionRouteImpl;

/** A user route (`auth: 'session'`) whose path parameters `params` parses. */
export function sessionRoute<S extends z.ZodMiniType<PathParams>>(
  def: RouteDoc & {
    readonly method: string;
    readonly path: string;
    readonly params: S;
    readonly handler: (req: SessionRequest<z.output<S>>) => Promise<HttpResult>;
  },
): SessionRouteImpl {
  return { ...def, auth: 'session' } as unknown as SessionRouteImpl;
}

/** A route whose path parameters `params` parses; `req.params` is the schema's output. */
export function route<S extends z.ZodMiniType<PathParams>>(
  def: RouteDoc & {
    readonly method: string;
    readonly path: string;
    readonly params: S;
    readonly handler: (req: AuthedRequest<z.output<S>>) => Promise<HttpResult>;
  },
): RouteImpl {
  // Sound: the stack parses `params` with this schema before it calls the handler.
  return def as unknown as RouteImpl;
}

/** An open route (`auth: 'none'`) whose path parameters `params` parses. */
export function openRoute<S extends z.ZodMiniType<PathParams>>(
  def: RouteDoc & {
    readonly method: string;
    readonly path: string;
    readonly params: S;
    readonly handler: (req: ApiRequest<z.output<S>>) => Promise<HttpResult>;
  },
): OpenRouteImpl {
  return { ...def, auth: 'none' } as unknown as OpenRouteImpl;
}

interface State {
  requestId: string;
  body: unknown;
  rawBody: Buffer | undefined;
  principal?: Principal;
  session?: SessionPrincipal;
  rateLimit?: RateLimitState;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export interface HttpGroupOptions {
  /** @default `routeAuthenticators(deps)`, over the group's scoped deps */
  readonly authenticators?: Authenticators;
}

/**
 * Builds a route group's Lambda handler. `routes` is given the group's deps, scoped to what its
 * manifest entry declares (an array is taken as it is, for tests that build routes themselves).
 */
export function httpGroup(
  deps: Deps,
  groupName: string,
  routes: readonly AnyRouteImpl[] | ((deps: Deps) => readonly AnyRouteImpl[]),
  options: HttpGroupOptions = {},
): HttpHandler {
  const group = manifest.routeGroups.find((g) => g.name === groupName);
  if (!group) throw new Error(`Route group ${groupName} is not in the manifest`);
  const scoped = declaredDeps(deps, 'http', groupName);
  const impls = typeof routes === 'function' ? routes(scoped) : routes;
  const authByRoute = checkRoutes(group, impls);
  const docByRoute = new Map<string, RouteDoc>(
    impls.map((r) => [routeKey({ method: r.method as 'GET', path: r.path }), r]),
  );
  const authenticators = options.authenticators ?? routeAuthenticators(scoped);
  const states = new WeakMap<HttpEvent, State>();
  // Loaded only when on (the test tiers), so that no cold start on AWS pays for it.
  const checks = process.env.SESAME_CHECK_SCHEMAS === '1' ? import('./schema-check') : undefined;
  const stateOf = (event: HttpEvent) => {
    const s = states.get(event);
    if (!s) throw new Error('Request state missing');
    return s;
  };

  const toRequest = (event: HttpEvent, params: unknown): ApiRequest => {
    const s = stateOf(event);
    return {
      requestId: s.requestId,
      method: event.requestContext.http.method,
      path: event.rawPath,
      routeKey: event.routeKey,
      headers: event.headers ?? {},
      query: event.queryStringParameters ?? {},
      params: params as PathParams,
      body: s.body,
      rawBody: s.rawBody,
      event,
    };
  };

  const router = httpRouter<HttpEvent, APIGatewayProxyStructuredResultV2>({
    routes: impls.map((r) => ({
      method: r.method as 'GET',
      path: r.path,
      handler: async (event: HttpEvent) => {
        // As API Gateway delivers them for HTTP APIs: already percent-decoded, once. Decoding
        // again would turn a field named `a%20b` into `a b`.
        const raw = { ...(event.pathParameters ?? {}) };
        const req = toRequest(event, r.params ? parse(r.params, raw) : raw);
        const call = (): Promise<HttpResult> => {
          if (isOpen(r)) return r.handler(req);
          if (isSession(r)) {
            const session = stateOf(event).session;
            if (!session) throw notSignedIn();
            return r.handler({ ...req, session });
          }
          // Only a request API Gateway routed elsewhere (`$default`) reaches a keyed route unchecked.
          const principal = stateOf(event).principal;
          if (!principal) throw invalidApiKey();
          return r.handler({ ...req, projectId: principal.projectId, principal });
        };
        if (!checks) return call();
        return (await checks).checkedCall(`${r.method} ${r.path}`, r, req.body, req.query, call);
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
          : (event.requestContext?.requestId ?? scoped.ids.uuid());
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
      } catch (error) {
        // JSON.parse throws SyntaxError for malformed text and nothing else on a string.
        if (!(error instanceof SyntaxError)) throw error;
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
      if (
        auth !== 'public' &&
        csrfHeaderMissing({
          method: event.requestContext.http.method,
          headers: event.headers,
          cookies: event.cookies ?? [],
          session: auth === 'session',
        })
      )
        throw csrfRefusal();
      if (auth === 'session') {
        s.session = await authenticateSession(scoped, { cookies: event.cookies ?? [] });
        return;
      }
      s.principal = await authenticators[auth].authenticate({
        headers: event.headers,
        cookies: event.cookies ?? [],
        sourceIp: event.requestContext?.http?.sourceIp ?? 'unknown',
        rawBody: s.rawBody,
      });
    },
  };

  // Counted once the caller is known: open routes are not limited, refused callers not counted.
  // One counter per handler instance, adding to the shared windows every few requests.
  const limiter = new RateLimiter(scoped);
  const rateLimit: MiddlewareObj<HttpEvent> = {
    before: async (request) => {
      const s = stateOf(request.event);
      if (s.principal) s.rateLimit = await limiter.consume(s.principal.projectId);
      else if (s.session) s.rateLimit = await limiter.consume({ userId: s.session.userId });
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
    onError: async (request) => {
      const s = states.get(request.event);
      const requestId = s?.requestId ?? scoped.ids.uuid();
      let error = toAppError(request.error, requestId);
      const undocumented = checks
        ? (await checks).undocumentedError(
            error,
            docByRoute.get(request.event.routeKey),
            request.event.routeKey,
          )
        : undefined;
      if (undocumented) error = toAppError(new Error(undocumented), requestId);
      const response = errorResponse(error, requestId, scoped.clock.now());
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
    .use(rateLimit)
    .handler(answerPreflight(router)) as unknown as HttpHandler;
}

const isOpen = (r: AnyRouteImpl): r is OpenRouteImpl => 'auth' in r && r.auth === 'none';
const isSession = (r: AnyRouteImpl): r is SessionRouteImpl => 'auth' in r && r.auth === 'session';

/**
 * Checks the implementations against the manifest group (every route implemented is named
 * there, is open exactly when the manifest says so, and parses each path parameter with a
 * schema) and answers each route's auth kind by route key.
 */
function checkRoutes(group: RouteGroupDef, impls: readonly AnyRouteImpl[]): Map<string, RouteAuth> {
  const authByRoute = new Map<string, RouteAuth>(group.routes.map((r) => [routeKey(r), r.auth ?? 'secret']));
  for (const r of impls) {
    const key = routeKey({ method: r.method as 'GET', path: r.path });
    const auth = authByRoute.get(key);
    if (!auth) throw new Error(`Route ${key} is implemented but not in the manifest group ${group.name}`);
    if ((auth === 'session') !== isSession(r))
      throw new Error(`Route ${key} is ${auth} in the manifest, but its implementation does not match`);
    if ((auth === 'none') !== isOpen(r)) {
      throw new Error(
        `Route ${key} is ${auth === 'none' ? 'open' : `authenticated (${auth})`} in the manifest, but its implementation ${isOpen(r) ? 'is open' : 'expects a caller'}`,
      );
    }
    const names = pathParamNames(r.path);
    if (names.length > 0 && !r.params) {
      throw new Error(`Route ${key} has path parameters (${names.join(', ')}) but no params schema`);
    }
    const shape = (r.params as { shape?: Record<string, unknown> } | undefined)?.shape;
    if (shape && names.some((name) => !(name in shape))) {
      throw new Error(`The params schema of route ${key} does not parse every one of ${names.join(', ')}`);
    }
  }
  return authByRoute;
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
      stack: sourceMappedStack(error),
    }),
  );
  return new AppError(500, 'INTERNAL_SERVER_ERROR', 'An unexpected error occurred', {
    suggestion: `Quote request id ${requestId} when reporting this`,
  });
}
