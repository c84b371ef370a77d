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
}

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
}

export interface ScheduleDef {
  readonly name: string;
  readonly handler: string;
  /** An EventBridge Scheduler expression, `rate(...)` or `cron(...)`. */
  readonly expression: string;
  readonly description: string;
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
      ],
    },
    {
      name: 'public',
      handler: 'functions/http/public/index.ts',
      routes: [],
    },
    {
      name: 'config',
      handler: 'functions/http/config/index.ts',
      memoryMb: 256,
      routes: [{ method: 'GET', path: '/config', auth: 'none' }],
    },
  ],
  fallbackGroup: 'config',
  queues: [
    {
      name: 'jobs',
      handler: 'functions/queues/jobs/index.ts',
      batchSize: 5,
      timeoutSeconds: 300,
      visibilityTimeoutSeconds: 1800,
    },
  ],
  schedules: [],
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
