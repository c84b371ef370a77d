/**
 * The Stripe adapter (shared/adapters/stripe): Stripe's events, as Stripe sends them, reduced to
 * the `BillingEvent`s Sesame acts on; the `Stripe-Signature` check over the exact raw bytes (the
 * stripe package's own test helper signs); and, on AWS, the secrets read from their SSM
 * parameters at run time by the functions whose uses bind them, never from the environment.
 */
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import Stripe from 'stripe';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { StripeBilling, toInvoice } from '../../../shared/adapters/stripe/billing';
import { toBillingEvent } from '../../../shared/adapters/stripe/events';
import { awsDeps } from '../../../shared/composition/aws';
import { stripeBilling } from '../../../shared/composition/aws-wiring/stripe';
import { parseLocalSettings } from '../../../shared/composition/local';
import { parseEnv, toAppConfig } from '../../../shared/config/env';
import { scopeDeps, UndeclaredPortError } from '../../../shared/http/ports';
import type { Deps } from '../../../shared/ports';

const SECRET = 'whsec_unit_test';
const NOW = new Date('2026-03-01T12:00:00Z');
const t = Math.floor(NOW.getTime() / 1000);

/** An event as Stripe delivers it (the envelope of a snapshot event, API version of the package). */
const event = (type: string, object: Record<string, unknown>) => ({
  id: 'evt_1QxYz',
  object: 'event',
  api_version: '2026-10-28.endive',
  created: t - 5,
  livemode: false,
  pending_webhooks: 1,
  request: { id: 'req_abc', idempotency_key: null },
  type,
  data: { object },
});

const asEvent = (e: unknown) => e as Stripe.Event;

describe('toBillingEvent', () => {
  it('reads a subscription checkout: the project from the reference, the customer and subscription', () => {
    const e = event('checkout.session.completed', {
      id: 'cs_test_a1',
      object: 'checkout.session',
      mode: 'subscription',
      client_reference_id: 'p-1',
      metadata: { projectId: 'p-1' },
      customer: 'cus_Q1',
      subscription: 'sub_Q1',
      status: 'complete',
      payment_status: 'paid',
    });
    expect(toBillingEvent(asEvent(e))).toEqual({
      id: 'evt_1QxYz',
      type: 'checkout.session.completed',
      created: t - 5,
      kind: 'checkout-completed',
      projectId: 'p-1',
      customerId: 'cus_Q1',
      subscriptionId: 'sub_Q1',
    });
    // The metadata when there is no reference; expanded objects by their id.
    const expanded = event('checkout.session.completed', {
      mode: 'subscription',
      client_reference_id: null,
      metadata: { projectId: 'p-2' },
      customer: { id: 'cus_Q2', object: 'customer' },
      subscription: { id: 'sub_Q2', object: 'subscription' },
    });
    expect(toBillingEvent(asEvent(expanded))).toMatchObject({
      projectId: 'p-2',
      customerId: 'cus_Q2',
      subscriptionId: 'sub_Q2',
    });
  });

  it('ignores a one-off payment checkout and one without a customer', () => {
    for (const object of [
      { mode: 'payment', customer: 'cus_1', client_reference_id: 'p' },
      { mode: 'subscription', customer: null, client_reference_id: 'p' },
    ])
      expect(toBillingEvent(asEvent(event('checkout.session.completed', object))).kind).toBe('ignored');
  });

  it('reads every subscription event: its status, customer and the project in its metadata', () => {
    for (const type of [
      'customer.subscription.created',
      'customer.subscription.updated',
      'customer.subscription.deleted',
      'customer.subscription.paused',
      'customer.subscription.resumed',
    ]) {
      const e = event(type, {
        id: 'sub_Q1',
        object: 'subscription',
        customer: 'cus_Q1',
        status: 'past_due',
        metadata: { projectId: 'p-1' },
      });
      expect(toBillingEvent(asEvent(e))).toMatchObject({
        kind: 'subscription',
        type,
        projectId: 'p-1',
        customerId: 'cus_Q1',
        subscriptionId: 'sub_Q1',
        status: 'past_due',
      });
    }
    const noMetadata = event('customer.subscription.updated', {
      id: 'sub_2',
      customer: 'cus_2',
      status: 'active',
      metadata: {},
    });
    expect(toBillingEvent(asEvent(noMetadata))).toMatchObject({ kind: 'subscription', projectId: undefined });
  });

  it('reads a failed invoice payment: final when Stripe schedules no next attempt', () => {
    const failed = (next: number | null) =>
      event('invoice.payment_failed', {
        id: 'in_1',
        object: 'invoice',
        customer: 'cus_Q1',
        attempt_count: 4,
        next_payment_attempt: next,
        parent: {
          type: 'subscription_details',
          quote_details: null,
          subscription_details: { metadata: { projectId: 'p-1' }, subscription: 'sub_Q1' },
        },
      });
    expect(toBillingEvent(asEvent(failed(null)))).toMatchObject({
      kind: 'payment-failed',
      customerId: 'cus_Q1',
      subscriptionId: 'sub_Q1',
      finalAttempt: true,
    });
    expect(toBillingEvent(asEvent(failed(t + 86400)))).toMatchObject({ finalAttempt: false });
  });

  it('ignores every other type', () => {
    for (const type of ['invoice.paid', 'customer.updated', 'charge.succeeded', 'checkout.session.expired'])
      expect(toBillingEvent(asEvent(event(type, { id: 'x', customer: 'cus_1' }))).kind).toBe('ignored');
  });
});

describe('toInvoice', () => {
  it('keeps the fields the dashboard shows, times as ISO strings', () => {
    expect(
      toInvoice({
        id: 'in_1',
        number: 'ABC-0001',
        status: 'open',
        currency: 'usd',
        total: 4900,
        amount_due: 4900,
        amount_paid: 0,
        created: t,
        period_start: t - 86400,
        period_end: t,
        hosted_invoice_url: 'https://invoice.stripe.com/i/acct_1/test',
        invoice_pdf: null,
      } as unknown as Stripe.Invoice),
    ).toEqual({
      id: 'in_1',
      number: 'ABC-0001',
      status: 'open',
      currency: 'usd',
      total: 4900,
      amountDue: 4900,
      amountPaid: 0,
      createdAt: NOW.toISOString(),
      periodStart: new Date(NOW.getTime() - 86_400_000).toISOString(),
      periodEnd: NOW.toISOString(),
      hostedInvoiceUrl: 'https://invoice.stripe.com/i/acct_1/test',
      invoicePdf: null,
    });
  });
});

describe('StripeBilling.verifyWebhook', () => {
  const billing = new StripeBilling({ webhookSecret: async () => SECRET });
  // Non-ASCII text: the signature covers the bytes, not a re-encoding of parsed JSON.
  const payload = JSON.stringify(
    event('customer.subscription.updated', {
      id: 'sub_1',
      customer: 'cus_1',
      status: 'active',
      metadata: { projectId: 'p-ü' },
    }),
    null,
    2,
  );
  const sign = (body: string, timestamp = t, secret = SECRET) =>
    Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp });
  const verify = (body: string, signature: string | undefined, receivedAt = NOW) =>
    billing.verifyWebhook({ rawBody: Buffer.from(body, 'utf8'), signature, receivedAt });

  it('answers the event of a body signed with the secret', async () => {
    const out = await verify(payload, sign(payload));
    expect(out).toEqual({
      ok: true,
      event: expect.objectContaining({ kind: 'subscription', projectId: 'p-ü' }),
    });
  });

  it('refuses a changed body, another secret, no header, and a timestamp over 300 s before receipt', async () => {
    const refusals = [
      await verify(payload.replace('active', 'unpaid'), sign(payload)),
      await verify(payload, sign(payload, t, 'whsec_other')),
      await verify(payload, undefined),
      await verify(payload, sign(payload, t - 301)),
      await verify(payload, 't=1,v1=deadbeef'),
    ];
    for (const out of refusals) expect(out).toEqual({ ok: false, reason: expect.any(String) });
    // Within the tolerance, measured against the given receipt time (the runtime's clock).
    expect((await verify(payload, sign(payload, t - 299))).ok).toBe(true);
    expect((await verify(payload, sign(payload, t), new Date(NOW.getTime() + 301_000))).ok).toBe(false);
  });

  it('refuses a signed body that is not a Stripe event', async () => {
    for (const body of [
      'not json',
      '{"hello":"world"}',
      '{"id":"evt_1","type":"customer.subscription.updated","created":1}',
    ])
      expect((await verify(body, sign(body))).ok).toBe(false);
  });

  it('fails clearly when the function has no webhook secret or no key', async () => {
    const bare = new StripeBilling({});
    await expect(
      bare.verifyWebhook({ rawBody: Buffer.from(payload), signature: sign(payload), receivedAt: NOW }),
    ).rejects.toThrow(/webhook secret is not configured/);
    await expect(bare.listInvoices({ customerId: 'cus_1', limit: 1 })).rejects.toThrow(
      /secret key is not configured/,
    );
    await expect(
      new StripeBilling({ secretKey: async () => 'sk_test_1' }).createCheckoutSession({
        projectId: 'p',
        successUrl: 'https://x.test/ok',
        cancelUrl: 'https://x.test/no',
      }),
    ).rejects.toThrow(/STRIPE_PRICE_ID/);
  });
});

describe('on AWS', () => {
  const ssm = mockClient(SSMClient);
  beforeEach(() => ssm.reset());
  afterAll(() => ssm.restore());

  it('reads the webhook secret from its SSM parameter (decrypted) at the first delivery, once', async () => {
    ssm.on(GetParameterCommand).resolves({ Parameter: { Value: SECRET } });
    const env = { TABLE_NAME: 't', STRIPE_WEBHOOK_SECRET_PARAMETER: '/sesame/prod/stripe-webhook-secret' };
    const deps = awsDeps(env, { uses: ['stripe-webhooks'], wiring: { billing: stripeBilling } });
    expect(ssm.calls()).toHaveLength(0);
    expect(deps.config.billingWebhooksEnabled).toBe(true);
    // This function has no key: billing routes are not its business.
    expect(deps.config.billingEnabled).toBe(false);
    const payload = JSON.stringify(event('invoice.paid', { id: 'in_1' }));
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: t });
    for (let i = 0; i < 2; i++)
      expect(
        (await deps.billing.verifyWebhook({ rawBody: Buffer.from(payload), signature, receivedAt: NOW })).ok,
      ).toBe(true);
    expect(ssm.commandCalls(GetParameterCommand).map((c) => c.args[0].input)).toEqual([
      { Name: '/sesame/prod/stripe-webhook-secret', WithDecryption: true },
    ]);
    // The key is not this function's: a call needing it fails, naming it, and reads nothing.
    await expect(deps.billing.listInvoices({ customerId: 'cus_1', limit: 1 })).rejects.toThrow(/secret key/);
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(1);
  });

  it('says billing is on when the key parameter is named, as GET /config reads it', () => {
    const config = toAppConfig(
      parseEnv({ TABLE_NAME: 't', STRIPE_SECRET_KEY_PARAMETER: '/sesame/prod/stripe-secret-key' }),
    );
    expect(config.billingEnabled).toBe(true);
    expect(config.billingWebhooksEnabled).toBe(false);
    expect(() => parseEnv({ TABLE_NAME: 't', STRIPE_SECRET_KEY_PARAMETER: 'no-slash' })).toThrow(
      /STRIPE_SECRET_KEY_PARAMETER/,
    );
  });
});

describe('declared uses', () => {
  const calls: string[] = [];
  const billing = new Proxy(
    {},
    {
      get: (_, method) => async () => {
        calls.push(String(method));
        return { ok: false, reason: 'x' };
      },
    },
  );
  const deps = { billing } as unknown as Deps;

  it('lets a function declaring stripe-webhooks only check signatures, and one declaring stripe only call the API', async () => {
    const webhooks = scopeDeps(deps, ['stripe-webhooks'], 'http function stripe-webhook');
    await webhooks.billing.verifyWebhook({
      rawBody: new Uint8Array(),
      signature: undefined,
      receivedAt: NOW,
    });
    expect(() => webhooks.billing.listInvoices({ customerId: 'c', limit: 1 })).toThrow(UndeclaredPortError);
    const api = scopeDeps(deps, ['stripe'], 'http function billing-stripe');
    await api.billing.listInvoices({ customerId: 'c', limit: 1 });
    expect(() =>
      api.billing.verifyWebhook({ rawBody: new Uint8Array(), signature: undefined, receivedAt: NOW }),
    ).toThrow(/does not declare 'stripe-webhooks'/);
    expect(calls).toEqual(['verifyWebhook', 'listInvoices']);
  });
});

describe('the local runtime', () => {
  it('is off by default, and refuses a Stripe key without a price', () => {
    expect(parseLocalSettings({}).config.billingEnabled).toBe(false);
    expect(() => parseLocalSettings({ STRIPE_SECRET_KEY: 'sk_test_1' })).toThrow(/STRIPE_PRICE_ID/);
    const on = parseLocalSettings({
      STRIPE_SECRET_KEY: 'sk_test_1',
      STRIPE_PRICE_ID: 'price_1',
      STRIPE_WEBHOOK_SECRET: SECRET,
    }).config;
    expect([on.billingEnabled, on.billingWebhooksEnabled]).toEqual([true, true]);
  });
});
