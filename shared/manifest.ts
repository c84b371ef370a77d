/**
 * The deploy manifest: pure data naming every route group with its routes, every queue worker
 * and every schedule. CDK (`lib/`) builds API Gateway routes, Lambdas, queues and schedules from
 * it; the local runtime builds its gateway, in-process queues and scheduler from the same data;
 * a test checks that every handler module under `functions/` is named here and vice versa.
 *
 * Paths use API Gateway's syntax (`{id}` for one segment). Handler paths are relative to the
 * repository root and export `handler`.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Which key a route takes: secret (`sk_`), public (`pk_`, only `/v1/track`) or none. */
export type RouteAuth = 'secret' | 'public' | 'none';

export interface RouteDef {
  readonly method: HttpMethod;
  readonly path: string;
  /** @default 'secret' */
  readonly auth?: RouteAuth;
}

export interface RouteGroupDef {
  readonly name: string;
  readonly handler: string;
  readonly routes: readonly RouteDef[];
  /** Lambda memory in MB. @default 512 */
  readonly memoryMb?: number;
  /** Lambda timeout in seconds (API Gateway caps the request at 29 s). @default 29 */
  readonly timeoutSeconds?: number;
  /** Rights beyond those every function has (see `ExtraGrant`). @default none */
  readonly grants?: readonly ExtraGrant[];
}

/**
 * Rights only some functions get, on top of the ports every function uses:
 * - `manage-sender-domains`: create, read and delete SES domain identities, set their MAIL FROM
 *   domain, find Route 53 hosted zones and upsert the domain's records in them;
 * - `check-sender-domains`: read SES domain identities;
 * - `sign-links`: read the key of the signed subscription links in emails (on AWS the name of
 *   its SSM parameter and `ssm:GetParameter` on it), for code that makes links (sending) or
 *   checks them (the subscription pages). Without it a function can do neither.
 */
export type ExtraGrant = 'manage-sender-domains' | 'check-sender-domains' | 'sign-links';

export interface QueueDef {
  readonly name: string;
  readonly handler: string;
  /** Records handed to one invocation. @default 10 */
  readonly batchSize?: number;
  /** Receives before a message goes to the dead-letter queue. @default 5 */
  readonly maxReceiveCount?: number;
  /** Seconds a received message stays invisible; must exceed the worker timeout. @default 360 */
  readonly visibilityTimeoutSeconds?: number;
  /** Worker Lambda timeout in seconds. @default 60 */
  readonly timeoutSeconds?: number;
  /** Cap on concurrent worker invocations, protecting the table and SES. @default 2 */
  readonly maxConcurrency?: number;
  /** Rights beyond those every function has (see `ExtraGrant`). @default none */
  readonly grants?: readonly ExtraGrant[];
}

export interface ScheduleDef {
  readonly name: string;
  readonly handler: string;
  /** An EventBridge Scheduler expression, `rate(...)` or `cron(...)`. */
  readonly expression: string;
  readonly description: string;
  /** Rights beyond those every function has (see `ExtraGrant`). @default none */
  readonly grants?: readonly ExtraGrant[];
}

/**
 * Cross-origin access (CORS) of the whole API. API Gateway HTTP APIs configure CORS per API, not
 * per route, so this applies to every endpoint; that is harmless, since every endpoint but
 * `/v1/track` needs a secret key that never belongs in a browser.
 */
export interface CorsDef {
  readonly allowOrigins: readonly string[];
  readonly allowMethods: readonly HttpMethod[];
  /** Lower-case request header names a browser may send. */
  readonly allowHeaders: readonly string[];
  /** Lower-case response header names a browser script may read. */
  readonly exposeHeaders: readonly string[];
  /** How long a browser may cache a preflight answer. */
  readonly maxAgeSeconds: number;
}

export interface Manifest {
  readonly routeGroups: readonly RouteGroupDef[];
  /**
   * The group that answers requests matching no route (API Gateway's `$default` route), so an
   * unknown path gets the spec's 404 envelope rather than the gateway's own body.
   */
  readonly fallbackGroup: string;
  readonly queues: readonly QueueDef[];
  readonly schedules: readonly ScheduleDef[];
  /** @default no CORS: browsers may not call the API from other origins */
  readonly cors?: CorsDef;
  /** Routes whose body API Gateway stores in the upload bucket itself (see `DirectUploadDef`). @default none */
  readonly directUploads?: readonly DirectUploadDef[];
}

/**
 * A route whose request body never passes through a Lambda invocation: API Gateway (a REST API
 * with an S3 integration, reached through the HTTP API's route of the same path) stores it in the
 * upload bucket as `<keyPrefix><projectId>/<jobId>`, after `authorizer` has checked the key from
 * the headers alone; the bucket announces the stored object on `queue`. Lambda's 6 MB payload
 * limit, which base64 encoding turns into about 4.4 MB of file, does not apply. The local gateway
 * emulates the same steps. See docs/imports.md.
 */
export interface DirectUploadDef {
  readonly name: string;
  readonly method: 'POST';
  readonly path: string;
  /** Lambda authorizer module (REST API, REQUEST type); exports `createHandler` and `handler`. */
  readonly authorizer: string;
  readonly keyPrefix: string;
  readonly queue: string;
  /** Largest request body, in bytes, API Gateway may store (it refuses more than 10 MB itself). */
  readonly maxBodyBytes: number;
}

const manifestData = {
  routeGroups: [
    {
      name: 'contacts',
      handler: 'functions/http/contacts/index.ts',
      routes: [
        { method: 'GET', path: '/contacts' },
        { method: 'POST', path: '/contacts' },
        { method: 'POST', path: '/contacts/lookup' },
        { method: 'GET', path: '/contacts/fields' },
        { method: 'GET', path: '/contacts/fields/{field}/values' },
        { method: 'GET', path: '/contacts/fields/{field}/usage' },
        { method: 'DELETE', path: '/contacts/fields/{field}' },
        { method: 'GET', path: '/contacts/{id}' },
        { method: 'PATCH', path: '/contacts/{id}' },
        { method: 'DELETE', path: '/contacts/{id}' },
        // POST /contacts/import is a direct upload (below): its body never reaches this Lambda.
        { method: 'GET', path: '/contacts/import/{jobId}' },
        { method: 'POST', path: '/contacts/bulk-subscribe' },
        { method: 'POST', path: '/contacts/bulk-unsubscribe' },
        { method: 'POST', path: '/contacts/bulk-delete' },
        { method: 'GET', path: '/contacts/bulk/{jobId}' },
      ],
    },
    {
      name: 'public',
      handler: 'functions/http/public/index.ts',
      // /v1/send signs the links in the mail it sends; the subscription pages check them.
      grants: ['sign-links'],
      routes: [
        { method: 'POST', path: '/v1/send' },
        // The one endpoint for browsers: public key only (spec, Authentication).
        { method: 'POST', path: '/v1/track', auth: 'public' },
        { method: 'POST', path: '/v1/verify' },
        // Signed subscription pages linked from emails (unsubscribeUrl, subscribeUrl, manageUrl).
        { method: 'GET', path: '/v1/subscription/{token}', auth: 'none' },
        { method: 'POST', path: '/v1/subscription/{token}', auth: 'none' },
      ],
    },
    {
      name: 'templates',
      handler: 'functions/http/templates/index.ts',
      routes: [
        { method: 'GET', path: '/templates' },
        { method: 'POST', path: '/templates' },
        { method: 'GET', path: '/templates/{id}' },
        { method: 'PATCH', path: '/templates/{id}' },
        { method: 'DELETE', path: '/templates/{id}' },
        { method: 'POST', path: '/templates/{id}/duplicate' },
        { method: 'GET', path: '/templates/{id}/usage' },
      ],
    },
    {
      name: 'events',
      handler: 'functions/http/events/index.ts',
      routes: [
        { method: 'POST', path: '/events/track' },
        { method: 'GET', path: '/events' },
        { method: 'GET', path: '/events/stats' },
        { method: 'GET', path: '/events/names' },
        // Static `contact` wins over `{eventName}`, so the usage of an event named "contact" is unreachable.
        { method: 'GET', path: '/events/contact/{contactId}' },
        { method: 'GET', path: '/events/{eventName}/usage' },
        { method: 'DELETE', path: '/events/{eventName}' },
      ],
    },
    {
      name: 'domains',
      handler: 'functions/http/domains/index.ts',
      grants: ['manage-sender-domains'],
      routes: [
        { method: 'GET', path: '/domains/project/{projectId}' },
        { method: 'POST', path: '/domains' },
        { method: 'GET', path: '/domains/{id}/verify' },
        { method: 'DELETE', path: '/domains/{id}' },
      ],
    },
    {
      name: 'config',
      handler: 'functions/http/config/index.ts',
      memoryMb: 256,
      routes: [{ method: 'GET', path: '/config', auth: 'none' }],
    },
  ],
  fallbackGroup: 'config',
  directUploads: [
    {
      name: 'contacts-import',
      method: 'POST',
      path: '/contacts/import',
      authorizer: 'functions/authorizers/contacts-import/index.ts',
      keyPrefix: 'imports/',
      queue: 'jobs',
      // 5 MB of CSV plus room for the multipart envelope (shared/imports/upload.ts checks the same).
      maxBodyBytes: 5 * 1024 * 1024 + 64 * 1024,
    },
  ],
  // `/v1/track` takes a public key from any web page (spec, Authentication).
  cors: {
    allowOrigins: ['*'],
    allowMethods: ['POST'],
    allowHeaders: ['authorization', 'content-type', 'idempotency-key'],
    exposeHeaders: [
      'x-request-id',
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
      'retry-after',
    ],
    maxAgeSeconds: 86400,
  },
  queues: [
    {
      name: 'jobs',
      handler: 'functions/queues/jobs/index.ts',
      batchSize: 5,
      timeoutSeconds: 300,
      visibilityTimeoutSeconds: 1800,
    },
  ],
  schedules: [
    {
      name: 'domain-check',
      handler: 'functions/schedules/domain-check/index.ts',
      expression: 'rate(5 minutes)',
      description: 'Re-checks SES and DNS for every pending sender domain',
      grants: ['check-sender-domains'],
    },
  ],
} as const satisfies Manifest;

/** The manifest, typed as `Manifest` so optional fields can be read on every entry. */
export const manifest: Manifest = manifestData;

export type QueueName = (typeof manifestData.queues)[number]['name'];

/** API Gateway's route key for a route, as it appears in `event.routeKey`. */
export const routeKey = (route: Pick<RouteDef, 'method' | 'path'>) => `${route.method} ${route.path}`;

/** Defaults applied where a definition leaves a field out; CDK and the local runtime share them. */
export const defaults = {
  memoryMb: 512,
  httpTimeoutSeconds: 29,
  batchSize: 10,
  maxReceiveCount: 5,
  visibilityTimeoutSeconds: 360,
  workerTimeoutSeconds: 60,
  maxConcurrency: 2,
} as const;
