/**
 * `POST /webhooks/incoming/stripe`: Stripe's event deliveries (docs/billing.md, "Stripe"). In order,
 * nothing read or written before the delivery has passed every earlier step:
 *
 * 1. the deployment has a webhook secret (`config.billingWebhooksEnabled`): else 400 BILLING_DISABLED;
 * 2. the `Stripe-Signature` header signs the raw body with that secret, its timestamp within Stripe's
 *    five-minute tolerance of the runtime's clock either way (the adapter also refuses a timestamp
 *    ahead of the clock, which `constructEvent` accepts): else 400 INVALID_STRIPE_SIGNATURE;
 * 3. an event Sesame does not act on is answered 200 and nothing more (Stripe would deliver a
 *    refused one again and again);
 * 4. the event's id is claimed (a conditional put): a delivery of an event already applied is
 *    answered 200 as a duplicate, one arriving while another delivery applies it gets 409 (Stripe
 *    delivers it again later);
 * 5. it is applied (shared/billing/subscription.ts), each write conditional on the event being no
 *    older than the newest one applied, so applying again or late changes nothing; a failure
 *    releases the claim and answers 500, and Stripe's next delivery applies it.
 */
import { AppError, conflict } from '../errors';
import type { BillingEvent, Deps } from '../ports';
import { getProject } from '../projects/repository';
import {
  claimCustomer,
  claimEvent,
  completeEventClaim,
  DISABLING_STATUSES,
  disableForBilling,
  enableAfterBilling,
  LIVE_STATUSES,
  projectOfCustomer,
  recordCheckout,
  recordFinalPaymentFailure,
  recordSubscription,
  releaseEventClaim,
} from './subscription';

export type StripeWebhookDeps = Pick<Deps, 'store' | 'billing' | 'clock' | 'config'>;

/**
 * What a delivery did: `applied` (the project's billing changed, and maybe its `disabled` flag),
 * `unchanged` (a newer event was applied already, the event names no project of this deployment,
 * or it is a payment failure Stripe will retry),
 * `duplicate` (an earlier delivery applied it), `ignored` (a type Sesame does not act on).
 */
export interface StripeDeliveryOutcome {
  readonly eventId: string;
  readonly type: string;
  readonly result: 'applied' | 'unchanged' | 'duplicate' | 'ignored';
}

export const billingDisabled = () =>
  new AppError(400, 'BILLING_DISABLED', 'Billing is not enabled on this deployment', {
    suggestion: 'Configure Stripe (docs/billing.md) to use checkout, the billing portal and invoices',
  });

export async function receiveStripeDelivery(
  deps: StripeWebhookDeps,
  input: { rawBody: Uint8Array | undefined; signature: string | undefined },
): Promise<StripeDeliveryOutcome> {
  if (!deps.config.billingWebhooksEnabled) throw billingDisabled();
  const now = deps.clock.now();
  const verified = await deps.billing.verifyWebhook({
    rawBody: input.rawBody ?? new Uint8Array(),
    signature: input.signature,
    receivedAt: now,
  });
  if (!verified.ok)
    throw new AppError(400, 'INVALID_STRIPE_SIGNATURE', `Not an event signed by Stripe: ${verified.reason}`);
  const { event } = verified;
  const outcome = (result: StripeDeliveryOutcome['result']): StripeDeliveryOutcome => ({
    eventId: event.id,
    type: event.type,
    result,
  });
  if (event.kind === 'ignored') return outcome('ignored');

  const claim = await claimEvent(deps, event.id, now);
  if (claim === 'done') return outcome('duplicate');
  if (claim === 'busy')
    throw conflict(
      'EVENT_IN_PROGRESS',
      'Another delivery of this event is being applied; deliver it again later',
    );
  let applied: boolean;
  try {
    applied = await applyEvent(deps, event, now);
  } catch (error) {
    await releaseEventClaim(deps, event.id).catch(() => {});
    throw error;
  }
  await completeEventClaim(deps, event.id, now);
  log(applied ? 'info' : 'warn', applied ? 'Stripe event applied' : 'Stripe event changed nothing', event);
  return outcome(applied ? 'applied' : 'unchanged');
}

/** Applies one event; false when it changed nothing (older than what was applied, or no project). */
async function applyEvent(deps: StripeWebhookDeps, event: BillingEvent, now: Date): Promise<boolean> {
  switch (event.kind) {
    case 'checkout-completed': {
      const projectId = await projectFor(deps, event.projectId, event.customerId);
      if (!projectId) return false;
      return recordCheckout(deps, projectId, {
        customerId: event.customerId,
        subscriptionId: event.subscriptionId,
        eventAt: event.created,
        now,
      });
    }
    case 'subscription': {
      const projectId = await projectFor(deps, event.projectId, event.customerId);
      if (!projectId) return false;
      const recorded = await recordSubscription(deps, projectId, {
        customerId: event.customerId,
        subscriptionId: event.subscriptionId,
        status: event.status,
        eventAt: event.created,
        now,
      });
      if (!recorded) return false;
      if (DISABLING_STATUSES.has(event.status)) await disableForBilling(deps, projectId, now);
      else if (LIVE_STATUSES.has(event.status)) await enableAfterBilling(deps, projectId);
      return true;
    }
    case 'payment-failed': {
      // Stripe retries a failed payment on its schedule; only the last failure disables.
      if (!event.finalAttempt) return false;
      const projectId = await projectOfCustomer(deps, event.customerId);
      if (!projectId || !(await getProject(deps, projectId))) return false;
      const recorded = await recordFinalPaymentFailure(deps, projectId, {
        customerId: event.customerId,
        subscriptionId: event.subscriptionId,
        eventAt: event.created,
        now,
      });
      if (recorded) await disableForBilling(deps, projectId, now);
      return recorded;
    }
    case 'ignored':
      return false;
  }
}

/**
 * The project an event is about: the one it names (checkout reference or subscription metadata,
 * both set by Sesame's checkout) if it exists, else the one that claimed the customer. The
 * customer is claimed for the project on first sight; an event naming a project other than the
 * customer's is not applied.
 */
async function projectFor(
  deps: StripeWebhookDeps,
  named: string | undefined,
  customerId: string,
): Promise<string | undefined> {
  const projectId = named ?? (await projectOfCustomer(deps, customerId));
  if (!projectId || !(await getProject(deps, projectId))) return undefined;
  if (!(await claimCustomer(deps, customerId, projectId))) return undefined;
  return projectId;
}

function log(level: 'info' | 'warn', message: string, event: BillingEvent): void {
  const line = JSON.stringify({ level, message, eventId: event.id, type: event.type, kind: event.kind });
  if (level === 'warn') console.warn(line);
  else console.info(line);
}
