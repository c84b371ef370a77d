/**
 * Stripe billing in the templates (lib/constructs/stripe-billing.ts): with `stripePriceId` set, the
 * functions that call Stripe's API get the key parameter's name and `ssm:GetParameter` on that one
 * parameter, the webhook function the webhook secret's and nothing of the key, `GET /config` the
 * key's name alone (no right), and no secret value is in any template. Without it, nothing of
 * Stripe is anywhere. cdk-nag stays clean either way.
 */
import { Aws } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { stageConfigSchema, stripeSettingsOf } from '../../lib/config';
import { awsDeps, portsOf } from '../../shared/composition/aws';
import { everyPort } from '../../shared/composition/aws-every';
import { functionUses, routeKey } from '../../shared/manifest';
import { logicalId, policyStatements, resourcesOfType, type SynthesizedSesame, synthSesame } from './support';

const PRICE = 'price_1SesameMonthly';
const RETURN_URL = 'https://dashboard.example.com/billing';
const billed = synthSesame({ config: { stripePriceId: PRICE, billingReturnUrl: RETURN_URL } });
const plain = synthSesame();

const KEY_PARAMETER = '/sesame/test/stripe-secret-key';
const WEBHOOK_PARAMETER = '/sesame/test/stripe-webhook-secret';
const parameterArn = (s: SynthesizedSesame, name: string) =>
  s.stateless.resolve(`arn:${Aws.PARTITION}:ssm:${Aws.REGION}:${Aws.ACCOUNT_ID}:parameter${name}`);

function variablesOf(s: SynthesizedSesame, id: string): Record<string, unknown> {
  const fn = s.stateless.functions.get(id)!;
  const resource = resourcesOfType(s.statelessTemplate, 'AWS::Lambda::Function')[
    logicalId(s.stateless, fn.function)
  ]!;
  return (resource.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
}

/** The `ssm:GetParameter` resources granted to the role of function `id`. */
function ssmReadsOf(s: SynthesizedSesame, id: string): unknown[] {
  const roleId = logicalId(s.stateless, s.stateless.functions.get(id)!.role);
  const policies = resourcesOfType(s.statelessTemplate, 'AWS::IAM::Policy');
  return policyStatements(s.statelessTemplate)
    .filter(({ policy }) => JSON.stringify(policies[policy]?.Properties?.Roles).includes(`"${roleId}"`))
    .filter((st) => st.actions.some((a) => a.startsWith('ssm:')))
    .flatMap((st) => {
      expect(st.actions).toEqual(['ssm:GetParameter']);
      return ([] as unknown[]).concat(st.statement.Resource);
    });
}

const stripeVariables = (variables: Record<string, unknown>) =>
  Object.keys(variables)
    .filter((name) => name.startsWith('STRIPE_') || name === 'BILLING_RETURN_URL')
    .sort();

describe('with Stripe (stripePriceId)', () => {
  const linkKey = billed.stateless.resolve(billed.stateful.linkSigning.parameterArn);

  it('gives the billing routes the key parameter, the price and the return page, and reads of that parameter only', () => {
    const variables = variablesOf(billed, 'HttpBillingStripe');
    expect(stripeVariables(variables)).toEqual([
      'BILLING_RETURN_URL',
      'STRIPE_PRICE_ID',
      'STRIPE_SECRET_KEY_PARAMETER',
    ]);
    expect(variables).toMatchObject({
      STRIPE_SECRET_KEY_PARAMETER: KEY_PARAMETER,
      STRIPE_PRICE_ID: PRICE,
      BILLING_RETURN_URL: RETURN_URL,
    });
    // The link-signing key for sessions, and the Stripe key.
    expect(ssmReadsOf(billed, 'HttpBillingStripe')).toEqual(
      expect.arrayContaining([parameterArn(billed, KEY_PARAMETER), linkKey]),
    );
    expect(ssmReadsOf(billed, 'HttpBillingStripe')).toHaveLength(2);
  });

  it('gives the webhook function the webhook secret only: never the key', () => {
    const variables = variablesOf(billed, 'HttpStripeWebhook');
    expect(stripeVariables(variables)).toEqual(['STRIPE_WEBHOOK_SECRET_PARAMETER']);
    expect(variables.STRIPE_WEBHOOK_SECRET_PARAMETER).toBe(WEBHOOK_PARAMETER);
    expect(ssmReadsOf(billed, 'HttpStripeWebhook')).toEqual([parameterArn(billed, WEBHOOK_PARAMETER)]);
  });

  it('tells GET /config that billing is on by the key parameter name, with no right to read it', () => {
    expect(stripeVariables(variablesOf(billed, 'HttpConfig'))).toEqual(['STRIPE_SECRET_KEY_PARAMETER']);
    expect(ssmReadsOf(billed, 'HttpConfig')).toEqual([]);
    const source = { TABLE_NAME: 't', STRIPE_SECRET_KEY_PARAMETER: KEY_PARAMETER };
    expect(awsDeps(source, { uses: ['feature-flags', 'accounts'], wiring: {} }).config.billingEnabled).toBe(
      true,
    );
  });

  it('gives no other function anything of Stripe', () => {
    for (const [id] of billed.stateless.functions) {
      if (['HttpBillingStripe', 'HttpStripeWebhook', 'HttpConfig'].includes(id)) continue;
      expect(stripeVariables(variablesOf(billed, id)), id).toEqual([]);
      for (const resource of ssmReadsOf(billed, id)) expect(resource, id).toEqual(linkKey);
    }
  });

  it('builds the deps of both Stripe functions from the environment they get', () => {
    for (const f of functionUses(billed.manifest).filter((f) =>
      ['billing-stripe', 'stripe-webhook'].includes(f.name),
    )) {
      const id = f.name === 'billing-stripe' ? 'HttpBillingStripe' : 'HttpStripeWebhook';
      const source = Object.fromEntries(
        Object.entries(variablesOf(billed, id)).map(([k, v]) => [
          k,
          typeof v === 'string'
            ? v
            : k.endsWith('_PARAMETER')
              ? '/sesame/test/link-signing-secret'
              : 'https://api.example.com',
        ]),
      );
      const deps = awsDeps(
        { ...source, TABLE_NAME: 't' },
        { uses: f.uses, wiring: Object.fromEntries(portsOf(f.uses).map((p) => [p, everyPort[p]])) },
      );
      expect(
        f.name === 'billing-stripe' ? deps.config.billingEnabled : deps.config.billingWebhooksEnabled,
        id,
      ).toBe(true);
    }
  });

  it('holds no secret value in either template, and routes the webhook to its own function', () => {
    for (const template of [billed.statefulTemplate, billed.statelessTemplate]) {
      const text = JSON.stringify(template.toJSON());
      expect(text).not.toMatch(/sk_(live|test)_|rk_(live|test)_|whsec_/);
    }
    const routes = Object.values(resourcesOfType(billed.statelessTemplate, 'AWS::ApiGatewayV2::Route')).map(
      (r) => r.Properties.RouteKey,
    );
    for (const key of [
      routeKey({ method: 'POST', path: '/webhooks/incoming/stripe' }),
      routeKey({ method: 'POST', path: '/users/@me/projects/{id}/checkout' }),
      routeKey({ method: 'POST', path: '/users/@me/projects/{id}/billing-portal' }),
      routeKey({ method: 'GET', path: '/users/@me/projects/{id}/billing-invoices' }),
    ])
      expect(routes).toContain(key);
  });

  it('passes cdk-nag AwsSolutions with no new finding', () => {
    const violations = new AwsSolutionsChecks().validateScope(billed.app).violations;
    expect(violations.map((v) => v.ruleName)).toEqual([]);
  });
});

describe('without Stripe', () => {
  it('gives no function anything of Stripe, and the Stripe routes still exist (they answer 400 BILLING_DISABLED)', () => {
    for (const [id] of plain.stateless.functions)
      expect(stripeVariables(variablesOf(plain, id)), id).toEqual([]);
    const text = JSON.stringify(plain.statelessTemplate.toJSON());
    expect(text).not.toContain('stripe-secret-key');
    expect(text).not.toContain('stripe-webhook-secret');
  });
});

describe('the Stripe settings of a stage', () => {
  const config = (extra: Record<string, unknown>) => stageConfigSchema.parse({ stage: 'prod', ...extra });

  it('names the parameters after the stage unless told, and are off without a price', () => {
    expect(stripeSettingsOf(config({}))).toBeUndefined();
    expect(stripeSettingsOf(config({ stripePriceId: 'price_1' }))).toEqual({
      priceId: 'price_1',
      secretKeyParameter: '/sesame/prod/stripe-secret-key',
      webhookSecretParameter: '/sesame/prod/stripe-webhook-secret',
    });
    expect(
      stripeSettingsOf(
        config({
          stripePriceId: 'price_1',
          stripeSecretKeyParameter: '/billing/key',
          stripeWebhookSecretParameter: '/billing/whsec',
        }),
      ),
    ).toMatchObject({ secretKeyParameter: '/billing/key', webhookSecretParameter: '/billing/whsec' });
  });

  it('refuses a Stripe setting without the price, a malformed price or parameter name, and a non-https return page', () => {
    expect(() => stripeSettingsOf(config({ billingReturnUrl: RETURN_URL }))).toThrow(/without stripePriceId/);
    expect(() => config({ stripePriceId: 'price 1' })).toThrow(/stripePriceId/);
    expect(() => config({ stripeSecretKeyParameter: 'no-slash' })).toThrow(/stripeSecretKeyParameter/);
    expect(() => config({ billingReturnUrl: 'http://dashboard.example.com' })).toThrow(/billingReturnUrl/);
  });
});
