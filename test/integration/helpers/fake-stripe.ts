/**
 * A local stand-in for the few Stripe API endpoints Sesame calls, on 127.0.0.1, for the runtime's
 * Stripe adapter (the real stripe package, pointed here by STRIPE_API_URL):
 *
 * - `POST /v1/checkout/sessions` answers a session with a URL;
 * - `POST /v1/billing_portal/sessions` answers a portal session with a URL;
 * - `GET /v1/invoices?customer=...` lists the invoices a test added for that customer, newest
 *   first, with Stripe's `limit` / `starting_after` paging.
 *
 * Every request must carry the configured secret key (else Stripe's 401 error); each is recorded
 * with its form or query parameters as flat bracketed names (`line_items[0][price]`). A test can
 * make the next request fail with Stripe's error shape (`failNext`).
 *
 *     const stripe = useFakeStripe({ secretKey: 'sk_test_x' });
 *     const rt = useLocalRuntime({ env: stripe.env({ ... }) });
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export interface StripeRequest {
  readonly method: string;
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** An invoice as Stripe's API answers it (the fields Sesame reads, and a few more). */
export type FakeInvoice = Record<string, unknown> & { id: string; created: number };

export interface FakeStripe {
  /** `http://127.0.0.1:<port>`; set once the server listens (in `beforeAll`). */
  readonly url: string;
  readonly requests: StripeRequest[];
  /**
   * An environment for `useLocalRuntime`: `extra` plus STRIPE_API_URL, filled in when the server
   * listens (before the runtime starts, as this helper's hook is registered first).
   */
  env(extra: Record<string, string>): Record<string, string>;
  addInvoice(customerId: string, invoice: Partial<FakeInvoice> & { id: string }): void;
  /** The next request answers `status` with Stripe's error body. */
  failNext(status: number, message: string): void;
  reset(): void;
}

export function useFakeStripe(options: { secretKey: string }): FakeStripe {
  let server: Server | undefined;
  let url = '';
  const envs: Record<string, string>[] = [];
  const requests: StripeRequest[] = [];
  const invoices = new Map<string, FakeInvoice[]>();
  let failure: { status: number; message: string } | undefined;
  let counter = 0;

  const handle = async (req: IncomingMessage): Promise<{ status: number; body: unknown }> => {
    const target = new URL(req.url ?? '/', 'http://stripe.local');
    const text = await new Promise<string>((resolve) => {
      let data = '';
      req.on('data', (chunk) => {
        data += chunk;
      });
      req.on('end', () => resolve(data));
    });
    const params = Object.fromEntries(
      new URLSearchParams(req.method === 'GET' ? target.search : text).entries(),
    );
    requests.push({ method: req.method ?? '', path: target.pathname, params, headers: req.headers });
    const error = (status: number, message: string, type = 'invalid_request_error') => ({
      status,
      body: { error: { type, message } },
    });
    if (req.headers.authorization !== `Bearer ${options.secretKey}`)
      return error(401, 'Invalid API Key provided');
    if (failure) {
      const f = failure;
      failure = undefined;
      return error(f.status, f.message);
    }
    const route = `${req.method} ${target.pathname}`;
    const n = ++counter;
    if (route === 'POST /v1/checkout/sessions') {
      const id = `cs_test_${n}`;
      return {
        status: 200,
        body: {
          id,
          object: 'checkout.session',
          mode: params.mode,
          client_reference_id: params.client_reference_id ?? null,
          customer: params.customer ?? null,
          customer_email: params.customer_email ?? null,
          success_url: params.success_url,
          cancel_url: params.cancel_url,
          url: `https://checkout.stripe.test/c/pay/${id}`,
        },
      };
    }
    if (route === 'POST /v1/billing_portal/sessions') {
      const id = `bps_test_${n}`;
      return {
        status: 200,
        body: {
          id,
          object: 'billing_portal.session',
          customer: params.customer,
          return_url: params.return_url,
          url: `https://billing.stripe.test/p/session/${id}`,
        },
      };
    }
    if (route === 'GET /v1/invoices') {
      const all = [...(invoices.get(params.customer ?? '') ?? [])].sort((a, b) => b.created - a.created);
      const after = params.starting_after ? all.findIndex((i) => i.id === params.starting_after) + 1 : 0;
      const limit = Number(params.limit ?? 10);
      const data = all.slice(after, after + limit);
      return {
        status: 200,
        body: { object: 'list', url: '/v1/invoices', data, has_more: after + limit < all.length },
      };
    }
    return error(404, `Unrecognized request URL (${req.method}: ${target.pathname})`);
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      handle(req).then(
        ({ status, body }) => {
          res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${counter}` });
          res.end(JSON.stringify(body));
        },
        (error: unknown) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { type: 'api_error', message: String(error) } }));
        },
      );
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const env of envs) env.STRIPE_API_URL = url;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });

  return {
    get url() {
      return url;
    },
    requests,
    env(extra) {
      const env = { ...extra };
      envs.push(env);
      return env;
    },
    addInvoice(customerId, invoice) {
      const list = invoices.get(customerId) ?? [];
      list.push({
        object: 'invoice',
        customer: customerId,
        number: null,
        status: 'paid',
        currency: 'usd',
        total: 0,
        amount_due: 0,
        amount_paid: 0,
        created: Math.floor(Date.now() / 1000),
        period_start: Math.floor(Date.now() / 1000),
        period_end: Math.floor(Date.now() / 1000),
        hosted_invoice_url: null,
        invoice_pdf: null,
        ...invoice,
      });
      invoices.set(customerId, list);
    },
    failNext(status, message) {
      failure = { status, message };
    },
    reset() {
      requests.length = 0;
      failure = undefined;
    },
  };
}

/**
 * The stand-in, and the environment of a runtime with billing on against it (secret key, webhook
 * secret and price named after `tag`): for tests whose billing routes must reach their own checks
 * rather than answer 400 BILLING_DISABLED. Call at the top level, before `useLocalRuntime`.
 */
export function useBillingEnv(tag: string): { stripe: FakeStripe; env: Record<string, string> } {
  const secretKey = `sk_test_${tag}`;
  const stripe = useFakeStripe({ secretKey });
  const env = stripe.env({
    STRIPE_SECRET_KEY: secretKey,
    STRIPE_WEBHOOK_SECRET: `whsec_${tag}`,
    STRIPE_PRICE_ID: `price_${tag}`,
    BILLING_RETURN_URL: 'https://dashboard.example.com/billing',
  });
  return { stripe, env };
}
