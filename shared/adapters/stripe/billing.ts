/**
 * `BillingPort` over the stripe package: checkout and billing portal sessions, a customer's
 * invoices, and `Stripe-Signature` checks of webhook deliveries (`webhooks.constructEvent`). The
 * same adapter runs on AWS (secrets read from SSM) and locally (secrets given as values, the API
 * at STRIPE_API_URL when a stand-in serves it). Reached only through a dynamic `import()`, so a
 * function that does not bill never loads the package.
 */
import Stripe from 'stripe';
import type { BillingEvent, BillingInvoice, BillingPort } from '../../ports';
import { toBillingEvent } from './events';

/** Resolves a secret's current value (SSM on AWS: it may change while a function is warm). */
export type SecretValue = () => Promise<string>;

export interface StripeBillingOptions {
  /** The API key (`sk_...`, or a restricted `rk_...`); calls other than `verifyWebhook` need it. */
  readonly secretKey?: SecretValue;
  /** The webhook endpoint's signing secret (`whsec_...`); `verifyWebhook` needs it. */
  readonly webhookSecret?: SecretValue;
  /** The price a checkout subscribes to. */
  readonly priceId?: string;
  /** Base URL of the API (a local stand-in); Stripe's own when undefined. */
  readonly apiUrl?: string;
  /** Seconds a signed delivery stays acceptable (Stripe's recommended 300). */
  readonly toleranceSeconds?: number;
  /** Per request, in ms: well inside API Gateway's 29 s. @default 10000 */
  readonly timeoutMs?: number;
}

/** Stripe's own tolerance for a signature's timestamp, in seconds. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * The `t=` of a `Stripe-Signature` header (epoch seconds), read as the stripe package reads it
 * (the last `t` wins); only called once `constructEvent` accepted the header, so one is there.
 */
function signedAt(header: string): number {
  let t = Number.NaN;
  for (const item of header.split(',')) {
    const [key, value] = item.split('=');
    if (key === 't') t = Number.parseInt(value ?? '', 10);
  }
  return t;
}

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();

export function toInvoice(invoice: Stripe.Invoice): BillingInvoice {
  return {
    id: invoice.id ?? '',
    number: invoice.number ?? null,
    status: invoice.status ?? null,
    currency: invoice.currency,
    total: invoice.total,
    amountDue: invoice.amount_due,
    amountPaid: invoice.amount_paid,
    createdAt: iso(invoice.created),
    periodStart: iso(invoice.period_start),
    periodEnd: iso(invoice.period_end),
    hostedInvoiceUrl: invoice.hosted_invoice_url ?? null,
    invoicePdf: invoice.invoice_pdf ?? null,
  };
}

export class StripeBilling implements BillingPort {
  private client: { key: string; stripe: Stripe } | undefined;

  constructor(private readonly options: StripeBillingOptions) {}

  /** One client per key value: a key replaced in SSM gets a new client on its next read. */
  private async stripe(): Promise<Stripe> {
    if (!this.options.secretKey) throw new Error('The Stripe secret key is not configured for this function');
    const key = await this.options.secretKey();
    if (this.client?.key !== key) {
      const api = this.options.apiUrl ? new URL(this.options.apiUrl) : undefined;
      this.client = {
        key,
        stripe: new Stripe(key, {
          timeout: this.options.timeoutMs ?? 10_000,
          // Stripe's client sends an idempotency key with its POSTs, so a retry creates nothing twice.
          maxNetworkRetries: 1,
          telemetry: false,
          appInfo: { name: 'Sesame' },
          ...(api
            ? {
                protocol: api.protocol === 'http:' ? 'http' : 'https',
                host: api.hostname,
                port: api.port || (api.protocol === 'http:' ? 80 : 443),
              }
            : {}),
        }),
      };
    }
    return this.client.stripe;
  }

  async createCheckoutSession(input: Parameters<BillingPort['createCheckoutSession']>[0]) {
    const { priceId } = this.options;
    if (!priceId) throw new Error('The Stripe price is not configured: set STRIPE_PRICE_ID');
    const stripe = await this.stripe();
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: priceId, quantity: 1 }],
      client_reference_id: input.projectId,
      metadata: { projectId: input.projectId },
      subscription_data: { metadata: { projectId: input.projectId } },
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
      ...(input.customerId
        ? { customer: input.customerId }
        : input.email
          ? { customer_email: input.email }
          : {}),
    });
    if (!session.url) throw new Error(`Stripe answered checkout session ${session.id} without a URL`);
    return { id: session.id, url: session.url };
  }

  async createPortalSession(input: { readonly customerId: string; readonly returnUrl: string }) {
    const stripe = await this.stripe();
    const session = await stripe.billingPortal.sessions.create({
      customer: input.customerId,
      return_url: input.returnUrl,
    });
    return { url: session.url };
  }

  async listInvoices(input: {
    readonly customerId: string;
    readonly limit: number;
    readonly startingAfter?: string;
  }) {
    const stripe = await this.stripe();
    const page = await stripe.invoices.list({
      customer: input.customerId,
      limit: input.limit,
      ...(input.startingAfter ? { starting_after: input.startingAfter } : {}),
    });
    return { invoices: page.data.map(toInvoice), hasMore: page.has_more };
  }

  async verifyWebhook(input: {
    readonly rawBody: Uint8Array;
    readonly signature: string | undefined;
    readonly receivedAt: Date;
  }): Promise<{ ok: true; event: BillingEvent } | { ok: false; reason: string }> {
    if (!this.options.webhookSecret) throw new Error('The Stripe webhook secret is not configured');
    if (!input.signature) return { ok: false, reason: 'The Stripe-Signature header is missing' };
    const secret = await this.options.webhookSecret();
    let event: Stripe.Event;
    try {
      event = Stripe.webhooks.constructEvent(
        Buffer.from(input.rawBody),
        input.signature,
        secret,
        this.options.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS,
        undefined,
        input.receivedAt.getTime(),
      );
    } catch (error) {
      // Stripe's message goes on with advice and links: its first sentence says what failed.
      const message = String((error as Error)?.message ?? error);
      return { ok: false, reason: message.split(/(?<=\.)\s/)[0]!.trim() };
    }
    // constructEvent refuses only a timestamp older than the tolerance; one dated further ahead
    // of the clock is no more Stripe's current delivery (a replay prepared in advance), so the
    // tolerance applies both ways.
    const tolerance = this.options.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
    const ahead = signedAt(input.signature) - Math.floor(input.receivedAt.getTime() / 1000);
    if (tolerance > 0 && !(ahead <= tolerance))
      return { ok: false, reason: 'Timestamp outside the tolerance zone (ahead of the clock)' };
    const notAnEvent = { ok: false, reason: 'The body is not a Stripe event' } as const;
    if (typeof event?.id !== 'string' || typeof event.type !== 'string' || typeof event.created !== 'number')
      return notAnEvent;
    try {
      return { ok: true, event: toBillingEvent(event) };
    } catch {
      // Signed but not shaped as its type says (no `data.object`): nothing to apply, ever.
      return notAnEvent;
    }
  }
}
