/**
 * The deploy manifest: pure data naming every route group with its routes, every queue worker
 * and every schedule. CDK (`lib/`) builds API Gateway routes, Lambdas, queues and schedules from
 * it; the local runtime builds its gateway, in-process queues and scheduler from the same data;
 * a test checks that every handler module under `functions/` is named here and vice versa.
 *
 * Paths use API Gateway's syntax (`{id}` for one segment). Handler paths are relative to the
 * repository root and export `handler`.
 *
 * Every function also declares what it `uses` of the outside world (`PortUse`): CDK grants and
 * configures exactly that, and the HTTP stack and the upload authorizer hand their code only
 * those ports (shared/http/ports.ts), so a missing declaration fails locally too.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route: the authenticator the HTTP stack applies to it (shared/http/auth), here a
 * secret key (`sk_`), a public key (`pk_`, only `/v1/track`), a signed-in user's session cookie
 * (`session`: the user routes, `/users/@me...`), or nobody in particular (`none`).
 * A new kind (a session cookie, a signed webhook) is one more name here, one more authenticator
 * in `routeAuthenticators` and its entry in `authUses`.
 */
export type RouteAuth = 'secret' | 'public' | 'session' | 'none';

/**
 * What a function uses of the outside world. Each use names ports of the handlers' `deps`
 * (shared/ports) and, on AWS, the rights and environment CDK gives for them (`bindUses` in
 * lib/stateless-stack.ts); a function gets nothing it does not declare.
 *
 * - `table:read`: `deps.store` reads (get, batchGet, query, queryAll, count, page): GetItem,
 *   BatchGetItem, Query (the table and its indexes);
 * - `table:write`: `deps.store` writes (write, writeIf, batchDelete): PutItem, UpdateItem,
 *   DeleteItem, BatchWriteItem (and ConditionCheckItem, which only transactions use);
 * - `table:scan`: `deps.store.scan`, a Scan of the whole table (never an index): only for rare
 *   background work that no index can list (deleting or resetting a project, shared/projects/wipe.ts),
 *   never on a request path;
 * - `queue`: `deps.queue`, sending to the manifest's queues;
 * - `scheduler`: `deps.scheduler`, one-off schedules that put a message on a queue later;
 * - `blobs`: `deps.blobs`, the objects of the upload bucket;
 * - `images`: `deps.images`, storing uploaded images where they are served publicly (on AWS
 *   `s3:PutObject` on the `images/` keys of the images bucket, with its name and the public URL
 *   of its CloudFront distribution; no right to read, list or delete);
 * - `mailer`: `deps.mailer`, sending mail through SES;
 * - `dns`: `deps.dns`, public DNS lookups (no AWS right);
 * - `manage-sender-domains`: `deps.emailIdentities` and `deps.dnsZones`: create, read and delete
 *   SES domain identities, set their MAIL FROM domain, find Route 53 hosted zones and upsert the
 *   domain's records in them;
 * - `check-sender-domains`: `deps.emailIdentities.getDomainIdentity`, reading SES identities;
 * - `delete-sender-domains`: `deps.emailIdentities.deleteDomainIdentity`, deleting SES identities
 *   (a deleted project's domains), nothing else;
 * - `sign-links`: the key of the signed subscription links in emails and the public base URL they
 *   point at (`deps.config.linkSigningSecret`, `publicBaseUrl`; on AWS the name of the key's SSM
 *   parameter and `ssm:GetParameter` on it), for code that makes links (sending) or checks them
 *   (the subscription pages);
 * - `feature-flags`: the flags of `deps.config` that follow from the deployment
 *   (`storageEnabled`: image uploads are configured, i.e. the images bucket's name and public URL
 *   are set), with no right on anything;
 * - `receive-sns`: SNS HTTPS deliveries of the SES event topic (`POST /webhooks/sns`):
 *   `deps.snsEndpoints`, fetching SNS signing certificates and confirming a subscription by GETting
 *   its SubscribeURL, both from SNS's own hosts only, and the topic accepted
 *   (`deps.config.sesEventsTopicArn`; on AWS the variable SES_EVENTS_TOPIC_ARN). No AWS right:
 *   both are plain HTTPS requests to SNS.
 * - `inbound-mail`: `deps.inboundMail`, reading the raw messages SES received and stored (on AWS
 *   `s3:GetObject` on the `inbound/` keys of the inbound bucket and `s3:ListBucket` on it, with its
 *   name as INBOUND_BUCKET; no right to write or delete). The bucket exists only in a deployment
 *   that receives mail (`-c inboundDomain=...`, lib/constructs/inbound-mail.ts); in one that does
 *   not, the use grants and sets nothing, and the port fails clearly if called.
 *
 * - `accounts`: the account settings of the deployment, with no right on anything: whether signup
 *   is open (`deps.config.signupEnabled`, SIGNUP_ENABLED) and the sender of Sesame's own mails
 *   (`deps.config.systemFrom`, SYSTEM_FROM: email verification, password reset, invitations).
 * - `stripe`: `deps.billing`'s calls to the Stripe API (checkout, billing portal, invoices): on AWS
 *   the name of the Stripe secret key's SSM parameter (STRIPE_SECRET_KEY_PARAMETER) and
 *   `ssm:GetParameter` on it, the price (STRIPE_PRICE_ID) and the return page (BILLING_RETURN_URL).
 *   A deployment without Stripe binds nothing, and the routes answer 400 BILLING_DISABLED.
 * - `stripe-webhooks`: `deps.billing.verifyWebhook`, checking Stripe's event signatures: the name of
 *   the webhook secret's SSM parameter (STRIPE_WEBHOOK_SECRET_PARAMETER) and `ssm:GetParameter` on
 *   it; never the API key. (`feature-flags` gets the key parameter's name alone, no right, so that
 *   `GET /config` can say whether billing is on.)
 *
 * Every function gets the table's name, which the environment schema requires (it grants nothing).
 */
export type PortUse =
  | 'table:read'
  | 'table:write'
  | 'table:scan'
  | 'queue'
  | 'scheduler'
  | 'blobs'
  | 'images'
  | 'mailer'
  | 'dns'
  | 'manage-sender-domains'
  | 'check-sender-domains'
  | 'delete-sender-domains'
  | 'sign-links'
  | 'feature-flags'
  | 'receive-sns'
  | 'inbound-mail'
  | 'accounts'
  | 'stripe'
  | 'stripe-webhooks';

/**
 * What authenticating a request of each route kind uses (shared/http/auth), together with the
 * per-project rate limit counted once the caller is known. A route group declares at least these
 * for its routes (test/unit/manifest.test.ts).
 */
export const authUses: Readonly<Record<RouteAuth, readonly PortUse[]>> = {
  // The key and its project are read; the rate-limit window is an UpdateItem. A session with
  // X-Project-Id instead: its JWT checked with a key derived from the link-signing secret, its
  // session and membership items read.
  secret: ['table:read', 'table:write', 'sign-links'],
  public: ['table:read', 'table:write'],
  // The session's JWT is checked with a key derived from the link-signing secret, then its
  // revocation item read; the user's rate-limit window is an UpdateItem.
  session: ['table:read', 'table:write', 'sign-links'],
  none: [],
};

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
  /** What the group's routes use, their authentication included (see `PortUse`). @default none */
  readonly uses?: readonly PortUse[];
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
  /** What the worker's jobs use (see `PortUse`); receiving from its own queue is implied. @default none */
  readonly uses?: readonly PortUse[];
}

export interface ScheduleDef {
  readonly name: string;
  readonly handler: string;
  /** An EventBridge Scheduler expression, `rate(...)` or `cron(...)`. */
  readonly expression: string;
  readonly description: string;
  /** What the scheduled job uses (see `PortUse`). @default none */
  readonly uses?: readonly PortUse[];
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
   * unknown path gets the 404 error envelope rather than the gateway's own body.
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
  /** What the authorizer uses (see `PortUse`). @default none */
  readonly authorizerUses?: readonly PortUse[];
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
      // Deleting a contact or a field, bulk jobs, and an upsert over a deleted contact's email
      // (its purge) put jobs on the queue.
      uses: ['table:read', 'table:write', 'queue', 'sign-links'],
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
      // /v1/send signs the links in the mail it sends and the subscription pages check them;
      // /v1/verify looks up the address's domain; an upsert over a deleted contact's email (a
      // recipient of a send) queues that contact's purge.
      uses: ['table:read', 'table:write', 'queue', 'mailer', 'dns', 'sign-links'],
      routes: [
        { method: 'POST', path: '/v1/send' },
        { method: 'POST', path: '/v1/verify' },
        // Signed subscription pages linked from emails (unsubscribeUrl, subscribeUrl, manageUrl).
        { method: 'GET', path: '/v1/subscription/{token}', auth: 'none' },
        { method: 'POST', path: '/v1/subscription/{token}', auth: 'none' },
      ],
    },
    {
      // The one endpoint for browsers (public key only), in a Lambda of its
      // own: a cold track loads none of what sending, verification and the subscription pages
      // need (rendering, MIME, the verification lists). It upserts the contact and records the
      // event; an upsert over a deleted contact's email queues that contact's purge.
      name: 'track',
      handler: 'functions/http/track/index.ts',
      uses: ['table:read', 'table:write', 'queue'],
      routes: [{ method: 'POST', path: '/v1/track', auth: 'public' }],
    },
    {
      name: 'templates',
      handler: 'functions/http/templates/index.ts',
      uses: ['table:read', 'table:write', 'sign-links'],
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
      // Deleting an event name is a job; /events/track upserts contacts as /v1/track does.
      uses: ['table:read', 'table:write', 'queue', 'sign-links'],
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
      // The forced check (verify) reads SES and DNS as the background check does.
      uses: ['table:read', 'table:write', 'manage-sender-domains', 'dns', 'sign-links'],
      routes: [
        { method: 'GET', path: '/domains/project/{projectId}' },
        { method: 'POST', path: '/domains' },
        { method: 'GET', path: '/domains/{id}/verify' },
        { method: 'DELETE', path: '/domains/{id}' },
      ],
    },
    {
      name: 'segments',
      handler: 'functions/http/segments/index.ts',
      // Building a dynamic segment's membership (on create and on a condition change) is a job;
      // static members may be created as contacts (`createMissing`), whose purges may be queued.
      uses: ['table:read', 'table:write', 'queue', 'sign-links'],
      routes: [
        { method: 'GET', path: '/segments' },
        { method: 'POST', path: '/segments' },
        { method: 'GET', path: '/segments/{id}' },
        { method: 'PATCH', path: '/segments/{id}' },
        { method: 'DELETE', path: '/segments/{id}' },
        { method: 'GET', path: '/segments/{id}/contacts' },
        { method: 'POST', path: '/segments/{id}/members' },
        { method: 'DELETE', path: '/segments/{id}/members' },
        { method: 'POST', path: '/segments/{id}/compute' },
        { method: 'POST', path: '/segments/{id}/refresh' },
      ],
    },
    {
      name: 'campaigns',
      handler: 'functions/http/campaigns/index.ts',
      // Sending now queues the fan-out; sending later is a one-off schedule (deleted on cancel);
      // a test send mails one address with signed subscription links; an audience count is a job.
      uses: ['table:read', 'table:write', 'queue', 'scheduler', 'mailer', 'sign-links'],
      routes: [
        { method: 'GET', path: '/campaigns' },
        { method: 'POST', path: '/campaigns' },
        { method: 'GET', path: '/campaigns/{id}' },
        { method: 'PUT', path: '/campaigns/{id}' },
        { method: 'DELETE', path: '/campaigns/{id}' },
        { method: 'POST', path: '/campaigns/{id}/duplicate' },
        { method: 'POST', path: '/campaigns/{id}/send' },
        { method: 'POST', path: '/campaigns/{id}/cancel' },
        { method: 'POST', path: '/campaigns/{id}/test' },
        { method: 'GET', path: '/campaigns/{id}/stats' },
        { method: 'POST', path: '/campaigns/{id}/audience' },
        { method: 'GET', path: '/campaigns/{id}/audience' },
        { method: 'POST', path: '/audiences' },
        { method: 'GET', path: '/audiences/{id}' },
      ],
    },
    {
      name: 'workflows',
      handler: 'functions/http/workflows/index.ts',
      // Definitions are table reads and writes; a manual start queues the execution's first step,
      // and cancelling deletes the pending DELAY and WAIT_FOR_EVENT schedules.
      uses: ['table:read', 'table:write', 'queue', 'scheduler', 'sign-links'],
      routes: [
        { method: 'GET', path: '/workflows' },
        { method: 'POST', path: '/workflows' },
        // Static `fields` wins over `{id}`, as API Gateway and the local gateway route.
        { method: 'GET', path: '/workflows/fields' },
        { method: 'GET', path: '/workflows/{id}' },
        { method: 'PATCH', path: '/workflows/{id}' },
        { method: 'DELETE', path: '/workflows/{id}' },
        { method: 'POST', path: '/workflows/{id}/steps' },
        { method: 'PATCH', path: '/workflows/{id}/steps/{stepId}' },
        { method: 'DELETE', path: '/workflows/{id}/steps/{stepId}' },
        { method: 'POST', path: '/workflows/{id}/transitions' },
        { method: 'DELETE', path: '/workflows/{id}/transitions/{transitionId}' },
        { method: 'POST', path: '/workflows/{id}/executions' },
        { method: 'GET', path: '/workflows/{id}/executions' },
        { method: 'GET', path: '/workflows/{id}/executions/{executionId}' },
        { method: 'DELETE', path: '/workflows/{id}/executions/{executionId}' },
        { method: 'POST', path: '/workflows/{id}/executions/cancel-all' },
      ],
    },
    {
      // Image uploads: the multipart body passes through the Lambda invocation (at most 4 MB of
      // file, shared/uploads/images.ts), and the image goes where it is served from.
      name: 'uploads',
      handler: 'functions/http/uploads/index.ts',
      uses: ['table:read', 'table:write', 'images', 'sign-links'],
      routes: [{ method: 'POST', path: '/uploads/image' }],
    },
    {
      // The activity feed and the analytics: reads of counters and event indexes only (and the
      // rate-limit window every authenticated request writes).
      name: 'activity',
      handler: 'functions/http/activity/index.ts',
      uses: ['table:read', 'table:write', 'sign-links'],
      routes: [
        { method: 'GET', path: '/activity' },
        { method: 'GET', path: '/activity/stats' },
        { method: 'GET', path: '/activity/recent-count' },
        { method: 'GET', path: '/activity/types' },
        { method: 'GET', path: '/activity/upcoming' },
        { method: 'GET', path: '/analytics/timeseries' },
        { method: 'GET', path: '/analytics/top-campaigns' },
        { method: 'GET', path: '/analytics/campaign-stats' },
        { method: 'GET', path: '/analytics/top-events' },
      ],
    },
    {
      name: 'config',
      handler: 'functions/http/config/index.ts',
      memoryMb: 256,
      // Open routes only, and the 404s and CORS preflights of `$default`: no store, no key.
      uses: ['feature-flags', 'accounts'],
      routes: [{ method: 'GET', path: '/config', auth: 'none' }],
    },
    {
      // The API reference: the OpenAPI document (bundled, docs/openapi.json) and the page that
      // renders it. Open routes, no port.
      name: 'reference',
      handler: 'functions/http/reference/index.ts',
      memoryMb: 256,
      uses: [],
      routes: [
        { method: 'GET', path: '/openapi.json', auth: 'none' },
        { method: 'GET', path: '/docs', auth: 'none' },
        { method: 'GET', path: '/docs/reference.js', auth: 'none' },
      ],
    },
    {
      // People: signup, login and logout, the mailed verification and reset tokens, the
      // signed-in user's own routes, and a project's members and invitations. Account mails go out through the mailer as Sesame's own
      // (SYSTEM_FROM); tokens and sessions are signed with keys derived from the link secret.
      name: 'accounts',
      handler: 'functions/http/accounts/index.ts',
      // Deleting and resetting a project queue its wipe (shared/projects/wipe.ts).
      uses: ['table:read', 'table:write', 'queue', 'mailer', 'sign-links', 'accounts'],
      routes: [
        { method: 'POST', path: '/auth/signup', auth: 'none' },
        { method: 'POST', path: '/auth/login', auth: 'none' },
        { method: 'GET', path: '/auth/logout', auth: 'none' },
        { method: 'GET', path: '/auth/oauth-config', auth: 'none' },
        { method: 'POST', path: '/auth/verify-email', auth: 'none' },
        { method: 'POST', path: '/auth/request-verification', auth: 'none' },
        { method: 'POST', path: '/auth/request-password-reset', auth: 'none' },
        { method: 'POST', path: '/auth/reset-password', auth: 'none' },
        { method: 'POST', path: '/auth/accept-invitation', auth: 'session' },
        { method: 'GET', path: '/users/@me', auth: 'session' },
        { method: 'GET', path: '/users/@me/projects', auth: 'session' },
        { method: 'POST', path: '/users/@me/projects', auth: 'session' },
        { method: 'PATCH', path: '/users/@me/projects/{id}', auth: 'session' },
        { method: 'DELETE', path: '/users/@me/projects/{id}', auth: 'session' },
        { method: 'POST', path: '/users/@me/projects/{id}/reset', auth: 'session' },
        { method: 'GET', path: '/users/@me/projects/{id}/reset', auth: 'session' },
        { method: 'POST', path: '/users/@me/projects/{id}/regenerate-keys', auth: 'session' },
        { method: 'GET', path: '/users/@me/projects/{id}/security', auth: 'session' },
        { method: 'GET', path: '/projects/{id}/security', auth: 'session' },
        { method: 'GET', path: '/projects/{id}/setup-state', auth: 'session' },
        { method: 'GET', path: '/projects/{id}/members', auth: 'session' },
        { method: 'POST', path: '/projects/{id}/members', auth: 'session' },
        { method: 'PATCH', path: '/projects/{id}/members/{userId}', auth: 'session' },
        { method: 'DELETE', path: '/projects/{id}/members/{userId}', auth: 'session' },
      ],
    },
    {
      // A project's monthly send caps and its consumption, for its members (shared/billing): a
      // session's reads (its JWT checked with a key derived from the link secret), the caps' item
      // written, the user's rate-limit window.
      name: 'billing',
      handler: 'functions/http/billing/index.ts',
      memoryMb: 256,
      uses: ['table:read', 'table:write', 'sign-links'],
      routes: [
        { method: 'GET', path: '/users/@me/projects/{id}/billing-limits', auth: 'session' },
        { method: 'PUT', path: '/users/@me/projects/{id}/billing-limits', auth: 'session' },
        { method: 'GET', path: '/users/@me/projects/{id}/billing-consumption', auth: 'session' },
      ],
    },
    {
      // SNS HTTPS deliveries of the SES event topic, the alternative to the topic's SQS
      // subscription: open (SNS sends no key), each message's SNS signature verified instead, and
      // each SES event put on the queue as the same `ses.event` job the SQS path makes. No table:
      // the job deduplicates. Checking a signature is a few milliseconds of CPU, hence the memory.
      name: 'webhooks',
      handler: 'functions/http/webhooks/index.ts',
      memoryMb: 256,
      uses: ['receive-sns', 'queue'],
      routes: [{ method: 'POST', path: '/webhooks/sns', auth: 'none' }],
    },
    {
      // A project's Stripe subscription, for its members (session cookie): a hosted checkout page,
      // the billing portal and the customer's invoices (shared/billing/checkout.ts). The Stripe
      // client is loaded on the first call; the project's billing item is read and written.
      name: 'billing-stripe',
      handler: 'functions/http/billing-stripe/index.ts',
      uses: ['table:read', 'table:write', 'sign-links', 'stripe'],
      routes: [
        { method: 'POST', path: '/users/@me/projects/{id}/checkout', auth: 'session' },
        { method: 'POST', path: '/users/@me/projects/{id}/billing-portal', auth: 'session' },
        { method: 'GET', path: '/users/@me/projects/{id}/billing-invoices', auth: 'session' },
      ],
    },
    {
      // Stripe's event deliveries: open (Stripe sends no key), each event's Stripe-Signature checked
      // with the webhook secret instead, claimed once by its id and applied to the project's
      // billing item and `disabled` flag (shared/billing/stripe-webhook.ts). No Stripe API call.
      name: 'stripe-webhook',
      handler: 'functions/http/stripe-webhook/index.ts',
      memoryMb: 256,
      uses: ['table:read', 'table:write', 'stripe-webhooks'],
      routes: [{ method: 'POST', path: '/webhooks/incoming/stripe', auth: 'none' }],
    },
  ],
  fallbackGroup: 'config',
  directUploads: [
    {
      name: 'contacts-import',
      method: 'POST',
      path: '/contacts/import',
      authorizer: 'functions/authorizers/contacts-import/index.ts',
      // The key and project (or a member's session: its JWT checked with the key derived from the
      // link secret, its session and membership items), the rate-limit window, the job it creates,
      // and the one-off schedule of the job's upload deadline (shared/imports/upload.ts).
      authorizerUses: ['table:read', 'table:write', 'scheduler', 'sign-links'],
      keyPrefix: 'imports/',
      queue: 'jobs',
      // 5 MB of CSV plus room for the multipart envelope (shared/imports/upload.ts checks the same).
      maxBodyBytes: 5 * 1024 * 1024 + 64 * 1024,
    },
  ],
  // `/v1/track` takes a public key from any web page.
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
      // Fairness on the one queue: a long job must not hold up short ones. One record per
      // invocation, so a small job never waits behind an import chunk of its own batch (a batch's
      // records run one after another), and five invocations at once, so it takes a free slot
      // beside up to four running long messages. Only when five long messages run at once does it
      // wait: for the first of them to end its budgeted share (about 20 s), after which it is
      // received before their continuations, which were sent after it (SQS's best-effort order).
      // Five is the number of batches Lambda starts polling with, so the cap is reached without
      // waiting for scale-out, and it leaves most of a new account's small concurrency quota to
      // the API. (test/integration/jobs-fairness.test.ts)
      // Cost: nothing more at idle (the same one queue and pollers; a concurrency cap is not
      // provisioned concurrency). Busy, each message gets its own invocation ($0.20 per million)
      // and its own receive and delete ($0.40 per million SQS requests each) instead of sharing
      // them with up to four others: at most about $0.80 more per million messages, while the
      // GB-seconds stay the same (the same work, one record at a time either way).
      batchSize: 1,
      maxConcurrency: 5,
      timeoutSeconds: 300,
      visibilityTimeoutSeconds: 1800,
      // Imports read the uploaded files; large jobs continue in follow-up messages, and deleting
      // contacts (bulk delete, purges met on the way) queues their purges. A campaign's fan-out
      // mails its audience with signed subscription links. Received mail is read where SES
      // stored it (shared/inbound). Workflow steps schedule their delays and wait timeouts (and
      // delete them), mail with signed links and call webhooks (plain HTTPS, no AWS right).
      // Wiping a deleted or reset project (shared/projects/wipe-job.ts) scans the table, the one
      // function that may, and deletes the SES identities Sesame made for a deleted project's
      // domains, as DELETE /domains/{id} does (that alone: no reading, no Route 53).
      uses: [
        'table:read',
        'table:write',
        'table:scan',
        'delete-sender-domains',
        'queue',
        'scheduler',
        'blobs',
        'mailer',
        'sign-links',
        'inbound-mail',
      ],
    },
  ],
  schedules: [
    {
      name: 'domain-check',
      handler: 'functions/schedules/domain-check/index.ts',
      expression: 'rate(5 minutes)',
      description: 'Re-checks SES and DNS for every pending sender domain',
      uses: ['table:read', 'table:write', 'check-sender-domains', 'dns'],
    },
    {
      name: 'segments-periodic',
      handler: 'functions/schedules/segments/index.ts',
      expression: 'rate(15 minutes)',
      description:
        'Re-evaluates segments whose membership drifts without contact writes, computes tracked segments',
      // It reads the periodic list and each segment, and queues their work.
      uses: ['table:read', 'queue'],
    },
  ],
} as const satisfies Manifest;

/** The manifest, typed as `Manifest` so optional fields can be read on every entry. */
export const manifest: Manifest = manifestData;

export type QueueName = (typeof manifestData.queues)[number]['name'];

/** API Gateway's route key for a route, as it appears in `event.routeKey`. */
export const routeKey = (route: Pick<RouteDef, 'method' | 'path'>) => `${route.method} ${route.path}`;

/** The names of a route path's `{param}` segments, in order (`{proxy+}` gives `proxy`). */
export const pathParamNames = (path: string): string[] =>
  [...path.matchAll(/\{([^}+]+)\+?\}/g)].map((m) => m[1]!);

/** The kinds of function the manifest makes, as CDK names them (`Http<Group>`, `Worker<Queue>`...). */
export type FunctionKind = 'http' | 'queue' | 'schedule' | 'authorizer';

/** One function of the deployment with what it declares it uses. */
export interface FunctionUses {
  readonly kind: FunctionKind;
  /** The route group, queue, schedule or direct upload's name. */
  readonly name: string;
  /** Its handler module. */
  readonly handler: string;
  readonly uses: readonly PortUse[];
}

/** Every function the manifest makes, with its declared uses. */
export function functionUses(m: Manifest): FunctionUses[] {
  return [
    ...m.routeGroups.map((g) => ({
      kind: 'http' as const,
      name: g.name,
      handler: g.handler,
      uses: g.uses ?? [],
    })),
    ...m.queues.map((q) => ({
      kind: 'queue' as const,
      name: q.name,
      handler: q.handler,
      uses: q.uses ?? [],
    })),
    ...m.schedules.map((s) => ({
      kind: 'schedule' as const,
      name: s.name,
      handler: s.handler,
      uses: s.uses ?? [],
    })),
    ...(m.directUploads ?? []).map((u) => ({
      kind: 'authorizer' as const,
      name: u.name,
      handler: u.authorizer,
      uses: u.authorizerUses ?? [],
    })),
  ];
}

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
