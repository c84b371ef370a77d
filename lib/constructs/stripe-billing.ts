import { Aws } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';

/**
 * Stripe billing of a deployment (docs/billing.md, "Stripe"): the names of the two SSM parameters
 * holding its secrets, which the operator creates (SecureString under the AWS managed key
 * `aws/ssm`, whose key policy already lets the account's principals decrypt through SSM), the
 * price a checkout subscribes to, and the page Stripe returns to. No resource is created: the
 * secrets are the operator's, and a template never holds them.
 */
export interface StripeSettings {
  /** SSM parameter holding the secret API key (`sk_live_...` or a restricted `rk_live_...`). */
  readonly secretKeyParameter: string;
  /** SSM parameter holding the webhook endpoint's signing secret (`whsec_...`). */
  readonly webhookSecretParameter: string;
  /** The price (`price_...`) a project's checkout subscribes it to. */
  readonly priceId: string;
  /** BILLING_RETURN_URL. @default the functions' PUBLIC_BASE_URL */
  readonly returnUrl?: string;
}

const parameterArn = (name: string) =>
  `arn:${Aws.PARTITION}:ssm:${Aws.REGION}:${Aws.ACCOUNT_ID}:parameter${name}`;

/**
 * `stripe` (shared/manifest.ts): the key parameter's name, `ssm:GetParameter` on that one
 * parameter, the price and the return page.
 */
export function bindStripeApi(fn: LambdaFunction, stripe: StripeSettings): void {
  fn.addEnvironment('STRIPE_SECRET_KEY_PARAMETER', stripe.secretKeyParameter);
  fn.addEnvironment('STRIPE_PRICE_ID', stripe.priceId);
  if (stripe.returnUrl) fn.addEnvironment('BILLING_RETURN_URL', stripe.returnUrl);
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['ssm:GetParameter'],
      resources: [parameterArn(stripe.secretKeyParameter)],
    }),
  );
}

/** `stripe-webhooks`: the webhook secret parameter's name and `ssm:GetParameter` on it; never the key. */
export function bindStripeWebhooks(fn: LambdaFunction, stripe: StripeSettings): void {
  fn.addEnvironment('STRIPE_WEBHOOK_SECRET_PARAMETER', stripe.webhookSecretParameter);
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['ssm:GetParameter'],
      resources: [parameterArn(stripe.webhookSecretParameter)],
    }),
  );
}

/**
 * `feature-flags`: the key parameter's name alone, no right to read it, so that `GET /config`
 * says `billing.enabled` (`AppConfig.billingEnabled`).
 */
export function bindBillingFlag(fn: LambdaFunction, stripe: StripeSettings): void {
  fn.addEnvironment('STRIPE_SECRET_KEY_PARAMETER', stripe.secretKeyParameter);
}
