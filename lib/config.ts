/**
 * Deploy-time configuration: one zod schema over the CDK context, parsed once in `bin/sesame.ts`.
 * Context values given with `cdk deploy -c key=value` arrive as strings, so booleans and numbers
 * are coerced here rather than at each use.
 */
import type { Node } from 'constructs';
import * as z from 'zod';
import type { StripeSettings } from './constructs/stripe-billing';

/** An SSM parameter name such as /sesame/prod/stripe-secret-key. */
const ssmParameterName = z
  .string()
  .regex(/^\/[A-Za-z0-9_.\-/]{1,1000}$/, 'an SSM parameter name such as /sesame/prod/stripe-secret-key');

const contextBoolean = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

export const stageConfigSchema = z.object({
  /** Names the stacks (`Sesame-<stage>-...`); lower case so it is valid in every resource name. */
  stage: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,19}$/, 'lower-case letters, digits and "-", starting with a letter, at most 20')
    .default('dev'),
  /** Blocks `DeleteTable` outside CloudFormation too; the table is retained on stack deletion either way. */
  deletionProtection: contextBoolean.default(true),
  /** Steady-state requests per second the API accepts across all clients (a cost and abuse guard). */
  apiRateLimit: z.coerce.number().int().positive().default(50),
  /** Burst of requests per second the API accepts above the steady rate. */
  apiBurstLimit: z.coerce.number().int().positive().default(100),
  /**
   * Open signup (`POST /auth/signup`) to anyone who can reach the API. Off by default: an open
   * signup lends the account's SES reputation to strangers; the first owner is created by the
   * command the README names.
   */
  signupEnabled: contextBoolean.default(false),
  /** Sender of Sesame's own mails (email verification, password reset), on a verified domain. */
  systemFrom: z.email().optional(),
  /** Public base URL for links in emails, when a custom domain fronts the API; default the API URL. */
  publicBaseUrl: z.url({ protocol: /^https$/ }).optional(),
  /**
   * Receive mail for this domain (opt-in): an SES receipt rule set storing each message in a bucket
   * and notifying the jobs queue (lib/constructs/inbound-mail.ts). Unset, nothing inbound is created.
   */
  inboundDomain: z
    .string()
    .transform((domain) => domain.trim().toLowerCase().replace(/\.$/, ''))
    .pipe(
      z
        .string()
        .regex(
          /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
          'a domain name such as inbound.example.com',
        ),
    )
    .optional(),
  /**
   * Turns Stripe billing on (docs/billing.md): the price (`price_...`) a project's checkout
   * subscribes it to. Unset, billing is off and its routes answer 400 BILLING_DISABLED.
   */
  stripePriceId: z
    .string()
    .regex(/^[\w-]{1,255}$/, 'a Stripe price id such as price_1Abc')
    .optional(),
  /** SSM parameter holding the Stripe secret key. @default /sesame/<stage>/stripe-secret-key */
  stripeSecretKeyParameter: ssmParameterName.optional(),
  /** SSM parameter holding the webhook signing secret. @default /sesame/<stage>/stripe-webhook-secret */
  stripeWebhookSecretParameter: ssmParameterName.optional(),
  /** The dashboard page Stripe returns to after checkout and from the portal; default the API URL. */
  billingReturnUrl: z.url({ protocol: /^https$/ }).optional(),
});

export type StageConfig = z.infer<typeof stageConfigSchema>;

/**
 * The Stripe settings of a stage: undefined without `stripePriceId`; throws when another Stripe
 * setting is given without it (it would silently do nothing).
 */
export function stripeSettingsOf(config: StageConfig): StripeSettings | undefined {
  if (!config.stripePriceId) {
    const stray = (
      ['stripeSecretKeyParameter', 'stripeWebhookSecretParameter', 'billingReturnUrl'] as const
    ).filter((key) => config[key] !== undefined);
    if (stray.length > 0)
      throw new Error(
        `Invalid stage configuration (CDK context): ${stray.join(', ')} set without stripePriceId, which turns Stripe billing on`,
      );
    return undefined;
  }
  return {
    priceId: config.stripePriceId,
    secretKeyParameter: config.stripeSecretKeyParameter ?? `/sesame/${config.stage}/stripe-secret-key`,
    webhookSecretParameter:
      config.stripeWebhookSecretParameter ?? `/sesame/${config.stage}/stripe-webhook-secret`,
    ...(config.billingReturnUrl ? { returnUrl: config.billingReturnUrl } : {}),
  };
}

/** Reads the stage configuration from CDK context, failing with every invalid key listed. */
export function stageConfigFromContext(node: Node): StageConfig {
  const raw = Object.fromEntries(
    Object.keys(stageConfigSchema.shape).map((key) => [key, node.tryGetContext(key) as unknown]),
  );
  const result = stageConfigSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid stage configuration (CDK context): ${problems}`);
  }
  return result.data;
}
