/** The billing port over Stripe, its secrets read from SSM (see aws-wiring/stripe.ts, `stripeBilling`). */
import { SSMClient } from '@aws-sdk/client-ssm';
import { ssmParameterLoader } from '../../adapters/aws/ssm-parameter';
import { type SecretValue, StripeBilling } from '../../adapters/stripe/billing';
import type { BillingPort } from '../../ports';
import type { AwsSettings } from '../aws';

/**
 * How long a warm function reuses a Stripe secret read from SSM: a key rolled in Stripe's
 * dashboard and written to the parameter is used within this time (docs/billing.md).
 */
export const STRIPE_SECRET_TTL_MS = 5 * 60 * 1000;

/**
 * The Stripe adapter with the secrets this function is given: each from its SSM parameter
 * (STRIPE_SECRET_KEY_PARAMETER, STRIPE_WEBHOOK_SECRET_PARAMETER: names only, the values never in
 * the environment), else from the value variables. A function is given only what its uses bind
 * (`stripe`: the key; `stripe-webhooks`: the webhook secret), and a call needing a secret it was
 * not given fails, naming it.
 */
export function stripeBilling({ env }: AwsSettings): BillingPort {
  let ssm: SSMClient | undefined;
  const secret = (parameter: string | undefined, value: string | undefined): SecretValue | undefined => {
    if (parameter) {
      ssm ??= new SSMClient({});
      return ssmParameterLoader(ssm, { name: parameter, ttlMs: STRIPE_SECRET_TTL_MS });
    }
    return value === undefined ? undefined : async () => value;
  };
  return new StripeBilling({
    secretKey: secret(env.STRIPE_SECRET_KEY_PARAMETER, env.STRIPE_SECRET_KEY),
    webhookSecret: secret(env.STRIPE_WEBHOOK_SECRET_PARAMETER, env.STRIPE_WEBHOOK_SECRET),
    priceId: env.STRIPE_PRICE_ID,
    apiUrl: env.STRIPE_API_URL,
  });
}
