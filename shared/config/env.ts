/**
 * Runtime configuration: one zod schema over `process.env`, parsed once at the composition root,
 * failing fast with every problem listed.
 */
import { isIP } from 'node:net';
import * as z from 'zod/mini';
import '../zod-locale';

const bool = z.optional(
  z.pipe(
    z.enum(['true', 'false', '1', '0']),
    z.transform((v) => v === 'true' || v === '1'),
  ),
);

/** A host name or IP literal (IPv6 with or without brackets): no scheme, port or path. */
const HOST_NAME =
  /^(?=.{1,253}\.?$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/;
/** An SSM parameter name such as /sesame/prod/key. */
const ssmParameterName = z
  .string()
  .check(z.regex(/^\/[A-Za-z0-9_.\-/]{1,1010}$/, 'expected an SSM parameter name such as /sesame/prod/key'));

const isHost = (entry: string) => isIP(entry.replace(/^\[(.*)\]$/, '$1')) !== 0 || HOST_NAME.test(entry);

/**
 * A comma list of hosts: trimmed, lower-cased, empty entries dropped. Optional in `Env` (unset
 * stays undefined) so that environments written out in full elsewhere need not name it.
 */
const hostList = z.pipe(
  z.pipe(
    z.string(),
    z.transform((v) =>
      v
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter((h) => h !== ''),
    ),
  ),
  z.array(
    z.string().check(
      z.refine(isHost, {
        error: (issue) =>
          `${JSON.stringify(issue.input)} is not a host name or IP address (no scheme or port)`,
      }),
    ),
  ),
);

export const envSchema = z.object({
  TABLE_NAME: z.string().check(z.minLength(1)),
  /** Requests per minute per project, shared by all instances. */
  RATE_LIMIT_PER_MINUTE: z._default(z.coerce.number().check(z.int(), z.positive()), 1000),
  /** How long an Idempotency-Key is remembered. */
  IDEMPOTENCY_TTL_HOURS: z._default(z.coerce.number().check(z.positive()), 24),
  /**
   * Messages per second Sesame hands to SES at most, across every worker. Unset, it is the
   * account's SES maximum send rate as GetAccount reports it (read once per instance and cached),
   * or 14 (a new production account's) where there is none to read (locally). Campaign fan-outs
   * share it.
   */
  SES_MAX_SEND_RATE: z.optional(z.coerce.number().check(z.positive())),
  /**
   * Stripe secret key, as a value (the local runtime); billing is off without it or
   * STRIPE_SECRET_KEY_PARAMETER (docs/billing.md).
   */
  STRIPE_SECRET_KEY: z.optional(z.string().check(z.minLength(1))),
  /**
   * Name (not value) of the SSM parameter holding the Stripe secret key, read at run time by the
   * functions that call Stripe (AWS only; lib/constructs/stripe-billing.ts). Wins over STRIPE_SECRET_KEY.
   */
  STRIPE_SECRET_KEY_PARAMETER: z.optional(ssmParameterName),
  /** The signing secret (`whsec_...`) of the Stripe webhook endpoint, as a value (the local runtime). */
  STRIPE_WEBHOOK_SECRET: z.optional(z.string().check(z.minLength(1))),
  /** Name of the SSM parameter holding that secret (AWS only). Wins over STRIPE_WEBHOOK_SECRET. */
  STRIPE_WEBHOOK_SECRET_PARAMETER: z.optional(ssmParameterName),
  /** The Stripe price (`price_...`) a project's checkout subscribes it to. */
  STRIPE_PRICE_ID: z.optional(z.string().check(z.regex(/^[\w-]{1,255}$/, 'expected a Stripe price id'))),
  /**
   * Base URL of the Stripe API, for a local stand-in (tests); Stripe's own when unset. Scheme,
   * host and port only.
   */
  STRIPE_API_URL: z.optional(z.url({ protocol: /^https?$/ })),
  /**
   * The page Stripe sends a user back to after checkout (with `checkout=success` or
   * `checkout=cancel` added to its query) and from the billing portal: the dashboard's billing
   * page. PUBLIC_BASE_URL when unset.
   */
  BILLING_RETURN_URL: z.optional(z.url({ protocol: /^https?$/ })),
  /** Whether anyone may sign up (`POST /auth/signup`): off unless set (on in the local runtime). */
  SIGNUP_ENABLED: bool,
  /**
   * The address Sesame's own mails come from (email verification, password reset), on a domain
   * the deployment's SES account may send from. Unset, those mails are not sent (and logged).
   */
  SYSTEM_FROM: z.optional(z.email()),
  UPLOAD_BUCKET: z.optional(z.string().check(z.minLength(1))),
  /**
   * The bucket uploaded images are stored in (`POST /uploads/image`). With IMAGE_BASE_URL it turns
   * image uploads on (`storage.enabled` of `GET /config`); CDK sets both (lib/constructs/image-hosting.ts).
   */
  IMAGE_BUCKET: z.optional(z.string().check(z.minLength(1))),
  /** Public base URL the images bucket is served at (its CloudFront distribution), `https://<domain>`. */
  IMAGE_BASE_URL: z.optional(z.url({ protocol: /^https?$/ })),
  /**
   * Key of the HMAC that signs subscription links in emails (unsubscribeUrl and the like), as a
   * value. The local runtime generates one and keeps it in its data folder; on AWS functions get
   * LINK_SIGNING_SECRET_PARAMETER instead. Changing it invalidates every link already sent.
   */
  LINK_SIGNING_SECRET: z.optional(z.string().check(z.minLength(32, 'must be at least 32 characters'))),
  /**
   * Name (not value) of the SSM parameter holding that key, read at run time by the functions
   * that sign or check links (AWS only; `shared/composition/aws.ts`). Wins over LINK_SIGNING_SECRET.
   */
  LINK_SIGNING_SECRET_PARAMETER: z.optional(
    z
      .string()
      .check(
        z.regex(/^\/[A-Za-z0-9_.\-/]{1,1010}$/, 'expected an SSM parameter name such as /sesame/prod/key'),
      ),
  ),
  /** Public base URL of the API, for links in emails (locally the runtime's URL). */
  PUBLIC_BASE_URL: z.optional(z.url({ protocol: /^https?$/ })),
  /**
   * Hosts WEBHOOK steps may call although they are (or resolve to) private, loopback or
   * link-local addresses: a comma list of host names or IP literals, compared with the URL's host
   * exactly (no wildcards, ports ignored). Empty by default; meant for local development, such as
   * `localhost,127.0.0.1`.
   */
  WEBHOOK_ALLOWED_HOSTS: z.optional(hostList),
});

export type Env = z.infer<typeof envSchema>;

/** Where a secret comes from: resolves to its value, or undefined when none is configured. */
export type SecretLoader = () => Promise<string | undefined>;

/** A secret given as a value (environment, local data folder). */
export function literalSecret(value: string | undefined): SecretLoader {
  return async () => value;
}

export interface AppConfig {
  readonly rateLimitPerMinute: number;
  readonly idempotencyTtlSeconds: number;
  /** SES_MAX_SEND_RATE when set; otherwise the mailer's account quota, or 14 (`accountSendRate`). */
  readonly sesMaxSendRate: number | undefined;
  /**
   * Stripe is configured (STRIPE_SECRET_KEY or STRIPE_SECRET_KEY_PARAMETER): checkout, the billing
   * portal and invoices work, and `GET /config` says `billing.enabled`.
   */
  readonly billingEnabled: boolean;
  /** Stripe's webhook secret is configured (STRIPE_WEBHOOK_SECRET or its parameter): events are received. */
  readonly billingWebhooksEnabled: boolean;
  /** See BILLING_RETURN_URL; when unset, the billing routes use `publicBaseUrl`. */
  readonly billingReturnUrl: string | undefined;
  readonly signupEnabled: boolean;
  /** See SYSTEM_FROM. */
  readonly systemFrom: string | undefined;
  /** Image uploads are configured: on AWS IMAGE_BUCKET and IMAGE_BASE_URL are set; locally always. */
  readonly storageEnabled: boolean;
  /**
   * Reads the link-signing key (see LINK_SIGNING_SECRET); undefined when none is configured, and
   * links cannot be made or checked then. Asynchronous because on AWS it comes from SSM at run
   * time (the composition root replaces the literal one `toAppConfig` builds).
   */
  readonly linkSigningSecret: SecretLoader;
  /** See PUBLIC_BASE_URL, without a trailing slash. */
  readonly publicBaseUrl: string | undefined;
  /**
   * The ARN of the SNS topic of SES events whose HTTPS deliveries `POST /webhooks/sns` accepts
   * (messages of any other topic are refused); undefined: it accepts none. Set by the composition
   * roots, not from `envSchema`: on AWS from SES_EVENTS_TOPIC_ARN (`awsEnvSchema`), locally from
   * the same variable or the local runtime's own topic (shared/composition/local.ts).
   */
  readonly sesEventsTopicArn: string | undefined;
  /** See WEBHOOK_ALLOWED_HOSTS: lower case, no empty entries. */
  readonly webhookAllowedHosts: readonly string[];
}

export function toAppConfig(env: Env): AppConfig {
  return {
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    idempotencyTtlSeconds: Math.round(env.IDEMPOTENCY_TTL_HOURS * 3600),
    sesMaxSendRate: env.SES_MAX_SEND_RATE,
    billingEnabled: env.STRIPE_SECRET_KEY !== undefined || env.STRIPE_SECRET_KEY_PARAMETER !== undefined,
    billingWebhooksEnabled:
      env.STRIPE_WEBHOOK_SECRET !== undefined || env.STRIPE_WEBHOOK_SECRET_PARAMETER !== undefined,
    billingReturnUrl: env.BILLING_RETURN_URL,
    signupEnabled: env.SIGNUP_ENABLED ?? false,
    systemFrom: env.SYSTEM_FROM,
    storageEnabled: env.IMAGE_BUCKET !== undefined && env.IMAGE_BASE_URL !== undefined,
    linkSigningSecret: literalSecret(env.LINK_SIGNING_SECRET),
    publicBaseUrl: env.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    sesEventsTopicArn: undefined,
    webhookAllowedHosts: env.WEBHOOK_ALLOWED_HOSTS ?? [],
  };
}

/** Parses the environment or throws one error naming every invalid variable. */
export function parseEnv(source: Record<string, string | undefined> = process.env): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid environment: ${problems}`);
  }
  return result.data;
}
