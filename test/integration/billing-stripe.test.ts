/**
 * Stripe billing through HTTP against the local runtime (docs/billing.md, "Stripe"): without Stripe
 * every billing route answers 400 BILLING_DISABLED; with it (the real stripe package talking to a
 * local stand-in of Stripe's API, helpers/fake-stripe.ts), checkout, the billing portal and the
 * invoices for members by role, and `POST /webhooks/incoming/stripe` with events signed by the
 * stripe package's own test helper: refused unless signed, applied once, in the order Stripe
 * created them, disabling and re-enabling the project's keys, never undoing an operator.
 */
import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { putMembership } from '../../shared/accounts/repository';
import { getStripeBilling } from '../../shared/billing/subscription';
import { CACHE_TTL_MS } from '../../shared/http/stack';
import { getProject } from '../../shared/projects/repository';
import { keys } from '../../shared/table';
import { uniqueEmail } from './helpers/contacts';
import { useFakeStripe } from './helpers/fake-stripe';
import { type Json, type LocalTestRuntime, useLocalRuntime } from './helpers/local';

const PASSWORD = 'correct horse battery';
const SECRET_KEY = 'sk_test_sesame_fake';
const WEBHOOK_SECRET = 'whsec_test_sesame';
const PRICE = 'price_test_monthly';
const RETURN_URL = 'https://dashboard.example.com/billing';
const WEBHOOK = '/webhooks/incoming/stripe';

async function signup(rt: LocalTestRuntime) {
  const email = uniqueEmail('billing');
  const res = await rt.api('POST', '/auth/signup', { key: null, body: { email, password: PASSWORD } });
  expect(res.status).toBe(201);
  const cookie = /sesame_session=[^;]*/.exec(res.headers['set-cookie'] ?? '')![0];
  return {
    email,
    userId: res.body.user.id as string,
    projectId: res.body.project.id as string,
    secretKey: res.body.keys.secretKey as string,
    as: { key: null, headers: { cookie } },
  };
}

const routesOf = (pid: string) =>
  [
    ['POST', `/users/@me/projects/${pid}/checkout`],
    ['POST', `/users/@me/projects/${pid}/billing-portal`],
    ['GET', `/users/@me/projects/${pid}/billing-invoices`],
  ] as const;

describe('without Stripe', () => {
  const rt = useLocalRuntime();

  it('says billing is off in GET /config', async () => {
    const res = await rt.api('GET', '/config', { key: null });
    expect(res.body.billing).toEqual({ enabled: false });
  });

  it('answers 400 BILLING_DISABLED on checkout, portal, invoices and the webhook, for anyone', async () => {
    const owner = await signup(rt);
    const stranger = await signup(rt);
    for (const who of [owner, stranger])
      for (const [method, path] of routesOf(owner.projectId)) {
        const res = await rt.api(method, path, who.as);
        expect(res.status, `${method} ${path}`).toBe(400);
        expect(res.body.error.code).toBe('BILLING_DISABLED');
      }
    const hook = await rt.api('POST', WEBHOOK, {
      key: null,
      raw: '{"id":"evt_1","object":"event"}',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
    });
    expect(hook.status).toBe(400);
    expect(hook.body.error.code).toBe('BILLING_DISABLED');
    expect(await rt.deps.store.get(keys.billingStripe(owner.projectId))).toBeUndefined();
  });
});

describe('with Stripe', () => {
  const stripe = useFakeStripe({ secretKey: SECRET_KEY });
  const rt = useLocalRuntime({
    env: stripe.env({
      STRIPE_SECRET_KEY: SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_PRICE_ID: PRICE,
      BILLING_RETURN_URL: RETURN_URL,
    }),
  });

  const nowSeconds = () => Math.floor(rt.runtime.clock.now().getTime() / 1000);
  /** Event creation times that increase, as Stripe's do for one subscription's changes. */
  let created = 0;
  const nextCreated = () => {
    created = Math.max(created + 1, nowSeconds());
    return created;
  };

  const stripeEvent = (type: string, object: Record<string, unknown>, at = nextCreated()) => ({
    id: `evt_${randomUUID().replace(/-/g, '')}`,
    object: 'event',
    api_version: '2026-10-28.endive',
    created: at,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object },
  });

  const checkoutCompleted = (projectId: string, customer: string, subscription: string) =>
    stripeEvent('checkout.session.completed', {
      id: `cs_test_${randomUUID()}`,
      object: 'checkout.session',
      mode: 'subscription',
      client_reference_id: projectId,
      metadata: { projectId },
      customer,
      subscription,
    });

  const subscriptionEvent = (
    type: string,
    s: { id: string; customer: string; status: string; projectId?: string },
    at?: number,
  ) =>
    stripeEvent(
      type,
      {
        id: s.id,
        object: 'subscription',
        customer: s.customer,
        status: s.status,
        metadata: s.projectId ? { projectId: s.projectId } : {},
      },
      at,
    );

  /** Posts the event as Stripe does: its JSON, signed by the stripe package's test helper. */
  async function deliver(
    event: unknown,
    options: {
      secret?: string;
      timestamp?: number;
      signature?: string | null;
      body?: (signed: string) => string;
    } = {},
  ) {
    const payload = JSON.stringify(event);
    const header =
      options.signature === undefined
        ? Stripe.webhooks.generateTestHeaderString({
            payload,
            secret: options.secret ?? WEBHOOK_SECRET,
            timestamp: options.timestamp ?? nowSeconds(),
          })
        : options.signature;
    return rt.api('POST', WEBHOOK, {
      key: null,
      raw: options.body ? options.body(payload) : payload,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': header ?? undefined,
      },
    });
  }

  async function expectApplied(event: unknown, result = 'applied') {
    const res = await deliver(event);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ received: true, result });
    return res;
  }

  /** A project with a customer and an active subscription, through the events Stripe sends. */
  async function subscribed() {
    const owner = await signup(rt);
    const customer = `cus_${randomUUID().slice(0, 8)}`;
    const subscription = `sub_${randomUUID().slice(0, 8)}`;
    await expectApplied(checkoutCompleted(owner.projectId, customer, subscription));
    await expectApplied(
      subscriptionEvent('customer.subscription.created', {
        id: subscription,
        customer,
        status: 'active',
        projectId: owner.projectId,
      }),
    );
    return { ...owner, customer, subscription };
  }

  /** The project's keys as a fresh request sees them: past the per-instance project cache. */
  async function keyStatus(secretKey: string) {
    await rt.runtime.clock.advance(CACHE_TTL_MS / 1000 + 1);
    return rt.api('GET', '/contacts', { key: secretKey });
  }

  it('says billing is on in GET /config', async () => {
    const res = await rt.api('GET', '/config', { key: null });
    expect(res.body.billing).toEqual({ enabled: true });
  });

  describe('checkout, portal and invoices', () => {
    it('opens a checkout for the project: the price, its id as reference and metadata, the return pages', async () => {
      const owner = await signup(rt);
      stripe.reset();
      const res = await rt.api('POST', `/users/@me/projects/${owner.projectId}/checkout`, owner.as);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({
        url: expect.stringMatching(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/),
      });
      expect(stripe.requests).toHaveLength(1);
      const [call] = stripe.requests;
      expect(call!.method).toBe('POST');
      expect(call!.path).toBe('/v1/checkout/sessions');
      expect(call!.headers.authorization).toBe(`Bearer ${SECRET_KEY}`);
      expect(call!.params).toMatchObject({
        mode: 'subscription',
        'line_items[0][price]': PRICE,
        'line_items[0][quantity]': '1',
        client_reference_id: owner.projectId,
        'metadata[projectId]': owner.projectId,
        'subscription_data[metadata][projectId]': owner.projectId,
        success_url: `${RETURN_URL}?checkout=success`,
        cancel_url: `${RETURN_URL}?checkout=cancel`,
        customer_email: owner.email,
      });
      expect(call!.params.customer).toBeUndefined();
    });

    it('answers 404 to non-members, 403 to a MEMBER opening checkout or the portal; any member reads invoices', async () => {
      const owner = await signup(rt);
      const other = await signup(rt);
      stripe.reset();
      for (const [method, path] of routesOf(owner.projectId)) {
        const res = await rt.api(method, path, other.as);
        expect(res.status, `${method} ${path}`).toBe(404);
      }
      await putMembership(
        rt.deps,
        {
          projectId: owner.projectId,
          userId: other.userId,
          role: 'MEMBER',
          createdAt: new Date().toISOString(),
        },
        other.email,
      );
      for (const path of routesOf(owner.projectId)
        .filter(([m]) => m === 'POST')
        .map(([, p]) => p)) {
        const res = await rt.api('POST', path, other.as);
        expect(res.status, path).toBe(403);
        expect(res.body.error.code).toBe('FORBIDDEN');
      }
      const invoices = await rt.api(
        'GET',
        `/users/@me/projects/${owner.projectId}/billing-invoices`,
        other.as,
      );
      expect(invoices.status).toBe(200);
      expect(invoices.body).toEqual({ invoices: [], hasMore: false });
      // Nothing reached Stripe: no customer yet, and the refusals come first.
      expect(stripe.requests).toEqual([]);
      // An ADMIN may open a checkout.
      await putMembership(
        rt.deps,
        {
          projectId: owner.projectId,
          userId: other.userId,
          role: 'ADMIN',
          createdAt: new Date().toISOString(),
        },
        other.email,
      );
      expect((await rt.api('POST', `/users/@me/projects/${owner.projectId}/checkout`, other.as)).status).toBe(
        200,
      );
    });

    it('opens the portal of the customer a checkout made, and refuses it (409) before there is one', async () => {
      const owner = await signup(rt);
      const before = await rt.api('POST', `/users/@me/projects/${owner.projectId}/billing-portal`, owner.as);
      expect(before.status).toBe(409);
      expect(before.body.error.code).toBe('NO_BILLING_ACCOUNT');
      await expectApplied(checkoutCompleted(owner.projectId, 'cus_portal', 'sub_portal'));
      stripe.reset();
      const res = await rt.api('POST', `/users/@me/projects/${owner.projectId}/billing-portal`, owner.as);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        url: expect.stringMatching(/^https:\/\/billing\.stripe\.test\/p\/session\//),
      });
      expect(stripe.requests.map((r) => [r.method, r.path, r.params])).toEqual([
        ['POST', '/v1/billing_portal/sessions', { customer: 'cus_portal', return_url: RETURN_URL }],
      ]);
    });

    it('refuses a second checkout while the subscription is billed, and reuses the customer after it ended', async () => {
      const s = await subscribed();
      const again = await rt.api('POST', `/users/@me/projects/${s.projectId}/checkout`, s.as);
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({
        code: 'ALREADY_SUBSCRIBED',
        details: { subscriptionStatus: 'active' },
      });
      await expectApplied(
        subscriptionEvent('customer.subscription.deleted', {
          id: s.subscription,
          customer: s.customer,
          status: 'canceled',
          projectId: s.projectId,
        }),
      );
      stripe.reset();
      const renewed = await rt.api('POST', `/users/@me/projects/${s.projectId}/checkout`, s.as);
      expect(renewed.status).toBe(200);
      expect(stripe.requests[0]!.params.customer).toBe(s.customer);
      expect(stripe.requests[0]!.params.customer_email).toBeUndefined();
    });

    it("lists the customer's invoices newest first, a page at a time; bad paging is 422", async () => {
      const owner = await signup(rt);
      const customer = `cus_inv_${randomUUID().slice(0, 8)}`;
      await expectApplied(checkoutCompleted(owner.projectId, customer, 'sub_inv'));
      stripe.addInvoice(customer, {
        id: 'in_old',
        number: 'SES-0001',
        status: 'paid',
        currency: 'eur',
        total: 1900,
        amount_due: 1900,
        amount_paid: 1900,
        created: 1_700_000_000,
        period_start: 1_697_000_000,
        period_end: 1_700_000_000,
        hosted_invoice_url: 'https://invoice.stripe.test/i/in_old',
        invoice_pdf: 'https://invoice.stripe.test/i/in_old/pdf',
      });
      stripe.addInvoice(customer, { id: 'in_new', status: 'open', created: 1_702_000_000, total: 1900 });
      stripe.addInvoice('cus_someone_else', { id: 'in_theirs', created: 1_703_000_000 });
      const path = `/users/@me/projects/${owner.projectId}/billing-invoices`;
      const all = await rt.api('GET', path, owner.as);
      expect(all.status).toBe(200);
      expect(all.body.hasMore).toBe(false);
      expect(all.body.invoices.map((i: Json) => i.id)).toEqual(['in_new', 'in_old']);
      expect(all.body.invoices[1]).toEqual({
        id: 'in_old',
        number: 'SES-0001',
        status: 'paid',
        currency: 'eur',
        total: 1900,
        amountDue: 1900,
        amountPaid: 1900,
        createdAt: new Date(1_700_000_000_000).toISOString(),
        periodStart: new Date(1_697_000_000_000).toISOString(),
        periodEnd: new Date(1_700_000_000_000).toISOString(),
        hostedInvoiceUrl: 'https://invoice.stripe.test/i/in_old',
        invoicePdf: 'https://invoice.stripe.test/i/in_old/pdf',
      });
      const first = await rt.api('GET', path, { ...owner.as, query: { limit: 1 } });
      expect(first.body).toMatchObject({ invoices: [{ id: 'in_new' }], hasMore: true });
      const second = await rt.api('GET', path, { ...owner.as, query: { limit: 1, startingAfter: 'in_new' } });
      expect(second.body).toMatchObject({ invoices: [{ id: 'in_old' }], hasMore: false });
      for (const query of [{ limit: 0 }, { limit: 101 }, { limit: 'x' }, { startingAfter: 'in old' }]) {
        const res = await rt.api('GET', path, { ...owner.as, query });
        expect(res.status, JSON.stringify(query)).toBe(422);
      }
    });

    it('answers 502 BILLING_PROVIDER_ERROR when Stripe refuses, and changes nothing', async () => {
      const owner = await signup(rt);
      stripe.failNext(400, 'No such price');
      const res = await rt.api('POST', `/users/@me/projects/${owner.projectId}/checkout`, owner.as);
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe('BILLING_PROVIDER_ERROR');
      expect(await rt.deps.store.get(keys.billingStripe(owner.projectId))).toBeUndefined();
    });
  });

  describe('POST /webhooks/incoming/stripe', () => {
    it('applies a signed checkout.session.completed: the project gets its customer and subscription', async () => {
      const owner = await signup(rt);
      const res = await deliver(checkoutCompleted(owner.projectId, 'cus_applied', 'sub_applied'));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        received: true,
        result: 'applied',
        type: 'checkout.session.completed',
      });
      expect(await getStripeBilling(rt.deps, owner.projectId)).toMatchObject({
        customerId: 'cus_applied',
        subscriptionId: 'sub_applied',
      });
      expect(await rt.deps.store.get(keys.stripeCustomer('cus_applied'))).toMatchObject({
        projectId: owner.projectId,
      });
    });

    it('refuses (400) a tampered body, a missing or foreign signature and an expired one, changing nothing', async () => {
      const owner = await signup(rt);
      const event = checkoutCompleted(owner.projectId, 'cus_refused', 'sub_refused');
      const refusals = [
        deliver(event, { body: (signed) => signed.replace('cus_refused', 'cus_attacker') }),
        deliver(event, { signature: null }),
        deliver(event, { signature: 'not a signature' }),
        deliver(event, { secret: 'whsec_someone_else' }),
        deliver(event, { timestamp: nowSeconds() - 301 }),
      ];
      for (const res of await Promise.all(refusals)) {
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('INVALID_STRIPE_SIGNATURE');
      }
      expect(await rt.deps.store.get(keys.billingStripe(owner.projectId))).toBeUndefined();
      expect(await rt.deps.store.get(keys.stripeEvent(event.id))).toBeUndefined();
      expect(await rt.deps.store.get(keys.stripeCustomer('cus_refused'))).toBeUndefined();
      // The same event, signed as Stripe signs it, is then applied.
      await expectApplied(event);
    });

    it('refuses (400) a timestamp more than the tolerance ahead of or behind the clock, accepts one within it', async () => {
      const owner = await signup(rt);
      const event = checkoutCompleted(owner.projectId, 'cus_skew', 'sub_skew');
      for (const skew of [400, -400, 301, -301]) {
        const res = await deliver(event, { timestamp: nowSeconds() + skew });
        expect(res.status, `${skew} s: ${res.text}`).toBe(400);
        expect(res.body.error.code).toBe('INVALID_STRIPE_SIGNATURE');
      }
      expect(await rt.deps.store.get(keys.stripeEvent(event.id))).toBeUndefined();
      expect(await rt.deps.store.get(keys.stripeCustomer('cus_skew'))).toBeUndefined();
      // Within the 300 s tolerance, ahead or behind: accepted (the second as a duplicate).
      const ahead = await deliver(event, { timestamp: nowSeconds() + 290 });
      expect(ahead.status, ahead.text).toBe(200);
      expect(ahead.body).toMatchObject({ received: true, result: 'applied' });
      const behind = await deliver(event, { timestamp: nowSeconds() - 290 });
      expect(behind.status, behind.text).toBe(200);
      expect(behind.body).toMatchObject({ received: true, result: 'duplicate' });
    });

    it('applies an event delivered twice once: the second is a duplicate, also when both arrive together', async () => {
      const s = await subscribed();
      const canceled = subscriptionEvent('customer.subscription.deleted', {
        id: s.subscription,
        customer: s.customer,
        status: 'canceled',
        projectId: s.projectId,
      });
      await expectApplied(canceled);
      await expectApplied(canceled, 'duplicate');
      expect(await rt.deps.store.get(keys.stripeEvent(canceled.id))).toMatchObject({ state: 'done' });

      const reactivated = subscriptionEvent('customer.subscription.updated', {
        id: s.subscription,
        customer: s.customer,
        status: 'active',
        projectId: s.projectId,
      });
      const together = await Promise.all([deliver(reactivated), deliver(reactivated)]);
      const outcomes = together.map((r) => (r.status === 200 ? r.body.result : r.body.error.code)).sort();
      expect(outcomes.filter((o) => o === 'applied')).toHaveLength(1);
      for (const o of outcomes) expect(['applied', 'duplicate', 'EVENT_IN_PROGRESS']).toContain(o);
    });

    it('disables the project when its subscription is canceled (keys 403 PROJECT_DISABLED) and enables it when active again', async () => {
      const s = await subscribed();
      expect((await keyStatus(s.secretKey)).status).toBe(200);
      await expectApplied(
        subscriptionEvent('customer.subscription.deleted', {
          id: s.subscription,
          customer: s.customer,
          status: 'canceled',
          projectId: s.projectId,
        }),
      );
      const refused = await keyStatus(s.secretKey);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('PROJECT_DISABLED');
      const listed = await rt.api('GET', '/users/@me/projects', s.as);
      expect(listed.body.find((p: Json) => p.id === s.projectId)).toMatchObject({ disabled: true });
      expect(await rt.deps.store.get(keys.project(s.projectId))).toMatchObject({
        disabled: true,
        disabledBy: 'billing',
      });

      // A new subscription (a checkout after the cancellation) turns it on again.
      await expectApplied(
        subscriptionEvent('customer.subscription.created', {
          id: 'sub_second',
          customer: s.customer,
          status: 'active',
          projectId: s.projectId,
        }),
      );
      expect((await keyStatus(s.secretKey)).status).toBe(200);
      const project = await rt.deps.store.get(keys.project(s.projectId));
      expect(project?.disabled).toBe(false);
      expect(project?.disabledBy).toBeUndefined();
      expect(await getStripeBilling(rt.deps, s.projectId)).toMatchObject({
        subscriptionId: 'sub_second',
        subscriptionStatus: 'active',
      });
    });

    it('disables on unpaid, not on past_due; a late event older than the last one applied changes nothing', async () => {
      const s = await subscribed();
      const sub = { id: s.subscription, customer: s.customer, projectId: s.projectId };
      await expectApplied(subscriptionEvent('customer.subscription.updated', { ...sub, status: 'past_due' }));
      expect((await getProject(rt.deps, s.projectId))?.disabled).toBe(false);
      const olderActive = subscriptionEvent('customer.subscription.updated', { ...sub, status: 'active' });
      await expectApplied(subscriptionEvent('customer.subscription.updated', { ...sub, status: 'unpaid' }));
      expect((await getProject(rt.deps, s.projectId))?.disabled).toBe(true);
      // Created before the unpaid one, delivered after it: Stripe does not keep order.
      await expectApplied(olderActive, 'unchanged');
      expect((await getProject(rt.deps, s.projectId))?.disabled).toBe(true);
      expect((await getStripeBilling(rt.deps, s.projectId)).subscriptionStatus).toBe('unpaid');
      // An old subscription ending does not touch the project's newer one.
      await expectApplied(
        subscriptionEvent('customer.subscription.updated', { ...sub, id: 'sub_new', status: 'active' }),
      );
      expect((await getProject(rt.deps, s.projectId))?.disabled).toBe(false);
      await expectApplied(
        subscriptionEvent('customer.subscription.deleted', { ...sub, status: 'canceled' }),
        'unchanged',
      );
      expect((await getProject(rt.deps, s.projectId))?.disabled).toBe(false);
    });

    it('disables on the last failed payment of an invoice, not on one Stripe will retry', async () => {
      const s = await subscribed();
      const invoice = (next: number | null) =>
        stripeEvent('invoice.payment_failed', {
          id: `in_${randomUUID().slice(0, 8)}`,
          object: 'invoice',
          customer: s.customer,
          next_payment_attempt: next,
          parent: {
            type: 'subscription_details',
            subscription_details: { subscription: s.subscription, metadata: {} },
          },
        });
      await expectApplied(invoice(nowSeconds() + 3 * 86400), 'unchanged');
      expect((await getProject(rt.deps, s.projectId))?.disabled).toBe(false);
      await expectApplied(invoice(null));
      expect((await getProject(rt.deps, s.projectId))?.disabled).toBe(true);
      expect((await getStripeBilling(rt.deps, s.projectId)).paymentFailedAt).toEqual(expect.any(String));
      // Paid after all: the subscription is active again.
      await expectApplied(
        subscriptionEvent('customer.subscription.updated', {
          id: s.subscription,
          customer: s.customer,
          status: 'active',
          projectId: s.projectId,
        }),
      );
      expect((await getProject(rt.deps, s.projectId))?.disabled).toBe(false);
      expect((await getStripeBilling(rt.deps, s.projectId)).paymentFailedAt).toBeUndefined();
    });

    it("never re-enables a project an operator disabled, and keeps the operator's reason", async () => {
      const s = await subscribed();
      await rt.deps.store.write({
        update: keys.project(s.projectId),
        expression: 'SET disabled = :t, disabledBy = :operator',
        values: { ':t': true, ':operator': 'operator' },
      });
      const sub = { id: s.subscription, customer: s.customer, projectId: s.projectId };
      await expectApplied(subscriptionEvent('customer.subscription.updated', { ...sub, status: 'unpaid' }));
      expect(await rt.deps.store.get(keys.project(s.projectId))).toMatchObject({
        disabled: true,
        disabledBy: 'operator',
      });
      await expectApplied(subscriptionEvent('customer.subscription.updated', { ...sub, status: 'active' }));
      expect(await rt.deps.store.get(keys.project(s.projectId))).toMatchObject({
        disabled: true,
        disabledBy: 'operator',
      });
      expect((await keyStatus(s.secretKey)).status).toBe(403);
    });

    it('does not let an event move a customer to another project, or touch a project it does not name', async () => {
      const a = await subscribed();
      const b = await signup(rt);
      // A's customer, with B's id in the metadata: not applied to B, nor to A.
      await expectApplied(
        subscriptionEvent('customer.subscription.updated', {
          id: a.subscription,
          customer: a.customer,
          status: 'canceled',
          projectId: b.projectId,
        }),
        'unchanged',
      );
      expect((await getProject(rt.deps, a.projectId))?.disabled).toBe(false);
      expect((await getProject(rt.deps, b.projectId))?.disabled).toBe(false);
      expect(await rt.deps.store.get(keys.billingStripe(b.projectId))).toBeUndefined();
      // A project id that does not exist.
      await expectApplied(checkoutCompleted('no-such-project', 'cus_nobody', 'sub_nobody'), 'unchanged');
      expect(await rt.deps.store.get(keys.stripeCustomer('cus_nobody'))).toBeUndefined();
    });

    it('acknowledges (200) and ignores an event type it does not act on', async () => {
      const s = await subscribed();
      const before = await rt.deps.store.get(keys.billingStripe(s.projectId));
      const event = stripeEvent('customer.updated', { id: s.customer, object: 'customer' });
      await expectApplied(event, 'ignored');
      await expectApplied(
        stripeEvent('checkout.session.completed', {
          id: 'cs_pay',
          object: 'checkout.session',
          mode: 'payment',
          customer: s.customer,
        }),
        'ignored',
      );
      expect(await rt.deps.store.get(keys.stripeEvent(event.id))).toBeUndefined();
      expect(await rt.deps.store.get(keys.billingStripe(s.projectId))).toEqual(before);
    });
  });
});
