/**
 * Stripe's events, reduced to the `BillingEvent`s Sesame acts on (shared/ports). Pure: the event
 * is already verified and parsed (./billing.ts). Types only from the stripe package, so this
 * module loads none of it.
 */
import type Stripe from 'stripe';
import type { BillingEvent } from '../../ports';

type Expandable = string | { readonly id: string } | null | undefined;

/** The id of a field Stripe gives as an id or, expanded, as the object. */
const idOf = (value: Expandable): string | undefined =>
  typeof value === 'string' ? value : (value?.id ?? undefined);

const projectIdOf = (metadata: Stripe.Metadata | null | undefined, reference?: string | null) => {
  const id = reference ?? metadata?.projectId;
  return typeof id === 'string' && id !== '' ? id : undefined;
};

/** Every subscription event: its object is the subscription as it now is. */
const SUBSCRIPTION_EVENTS: ReadonlySet<string> = new Set([
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.paused',
  'customer.subscription.resumed',
]);

export function toBillingEvent(event: Stripe.Event): BillingEvent {
  const base = { id: event.id, type: event.type, created: event.created };
  const ignored: BillingEvent = { ...base, kind: 'ignored' };
  if (event.type === 'checkout.session.completed') {
    const session = event.data.object as Stripe.Checkout.Session;
    const customerId = idOf(session.customer);
    if (session.mode !== 'subscription' || !customerId) return ignored;
    return {
      ...base,
      kind: 'checkout-completed',
      projectId: projectIdOf(session.metadata, session.client_reference_id),
      customerId,
      subscriptionId: idOf(session.subscription),
    };
  }
  if (SUBSCRIPTION_EVENTS.has(event.type)) {
    const subscription = event.data.object as Stripe.Subscription;
    const customerId = idOf(subscription.customer);
    if (!customerId) return ignored;
    return {
      ...base,
      kind: 'subscription',
      projectId: projectIdOf(subscription.metadata),
      customerId,
      subscriptionId: subscription.id,
      status: String(subscription.status),
    };
  }
  if (event.type === 'invoice.payment_failed') {
    const invoice = event.data.object as Stripe.Invoice;
    const customerId = idOf(invoice.customer);
    if (!customerId) return ignored;
    return {
      ...base,
      kind: 'payment-failed',
      customerId,
      subscriptionId: idOf(invoice.parent?.subscription_details?.subscription),
      // Stripe sets no next attempt once its retries (Smart Retries or the schedule) are spent.
      finalAttempt: invoice.next_payment_attempt === null || invoice.next_payment_attempt === undefined,
    };
  }
  return ignored;
}
