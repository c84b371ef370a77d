/**
 * A project's Stripe subscription as stored (keys in shared/table.ts), and what billing does to
 * the project's `disabled` flag (docs/billing.md, "Stripe").
 *
 * - The billing item (`BILLING#STRIPE` in the project's partition): `customerId`,
 *   `subscriptionId`, `subscriptionStatus` (Stripe's), `paymentFailedAt` (the last failed payment
 *   Stripe will not retry), and `eventAt`, the creation time (epoch seconds) of the newest event
 *   applied. Stripe does not deliver events in order: a write carries its event's time and only
 *   happens when no newer event was applied, so a late delivery of an older event changes nothing.
 * - The customer claim (`STRIPECUSTOMER#<id>`): the project a customer pays for, since invoice
 *   events name only the customer. A customer claimed by one project is never moved to another.
 * - The project item's `disabled` and `disabledBy`: billing disables a project with
 *   `disabledBy: 'billing'` and re-enables only a project it disabled itself; a project an operator
 *   disabled (`disabledBy: 'operator'`, or disabled with no reason recorded) is left as it is.
 */
import type { StoreDeps } from '../store/store';
import { keys } from '../table';

/** Who disabled a project (the project item's `disabledBy`). */
export type DisabledBy = 'billing' | 'operator';

export interface StripeBilling {
  readonly customerId: string | undefined;
  readonly subscriptionId: string | undefined;
  readonly subscriptionStatus: string | undefined;
  /** ISO time of the last failed payment that Stripe will not retry, until a subscription is live again. */
  readonly paymentFailedAt: string | undefined;
}

/** Subscription statuses that disable the project: Stripe stopped collecting, or it ended. */
export const DISABLING_STATUSES: ReadonlySet<string> = new Set([
  'unpaid',
  'canceled',
  'incomplete_expired',
  'paused',
]);
/** Statuses that re-enable a project billing disabled. `past_due` and `incomplete` change nothing. */
export const LIVE_STATUSES: ReadonlySet<string> = new Set(['active', 'trialing']);

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

export async function getStripeBilling(deps: StoreDeps, projectId: string): Promise<StripeBilling> {
  const item = await deps.store.get(keys.billingStripe(projectId), { consistent: true });
  return {
    customerId: str(item?.customerId),
    subscriptionId: str(item?.subscriptionId),
    subscriptionStatus: str(item?.subscriptionStatus),
    paymentFailedAt: str(item?.paymentFailedAt),
  };
}

/** The project the customer pays for, or undefined when no project has claimed it. */
export async function projectOfCustomer(deps: StoreDeps, customerId: string): Promise<string | undefined> {
  const item = await deps.store.get(keys.stripeCustomer(customerId), { consistent: true });
  return str(item?.projectId);
}

/** Claims the customer for the project: false when another project holds it. */
export async function claimCustomer(
  deps: StoreDeps,
  customerId: string,
  projectId: string,
): Promise<boolean> {
  return deps.store.writeIf({
    put: { ...keys.stripeCustomer(customerId), projectId },
    if: 'attribute_not_exists(pk) OR projectId = :p',
    values: { ':p': projectId },
  });
}

/** Only an event at least as new as the newest applied one writes (ties apply: same second). */
const NOT_OLDER = '(attribute_not_exists(eventAt) OR eventAt <= :t)';

/**
 * A finished checkout: the project's customer and subscription. False when a newer event was
 * applied already.
 */
export async function recordCheckout(
  deps: StoreDeps,
  projectId: string,
  change: { customerId: string; subscriptionId: string | undefined; eventAt: number; now: Date },
): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.billingStripe(projectId),
    expression: `SET customerId = :c, eventAt = :t, updatedAt = :now${change.subscriptionId ? ', subscriptionId = :s' : ''}`,
    values: {
      ':c': change.customerId,
      ':t': change.eventAt,
      ':now': change.now.toISOString(),
      ...(change.subscriptionId ? { ':s': change.subscriptionId } : {}),
    },
    if: NOT_OLDER,
  });
}

/**
 * A subscription's new status. A live status of any subscription makes it the project's (a new
 * subscription after an ended one); any other status applies only to the project's own
 * subscription, so an old subscription ending does not touch a newer one. False when not applied.
 */
export async function recordSubscription(
  deps: StoreDeps,
  projectId: string,
  change: { customerId: string; subscriptionId: string; status: string; eventAt: number; now: Date },
): Promise<boolean> {
  const live = LIVE_STATUSES.has(change.status);
  return deps.store.writeIf({
    update: keys.billingStripe(projectId),
    expression:
      'SET customerId = :c, subscriptionId = :s, subscriptionStatus = :st, eventAt = :t, updatedAt = :now' +
      (live ? ' REMOVE paymentFailedAt' : ''),
    values: {
      ':c': change.customerId,
      ':s': change.subscriptionId,
      ':st': change.status,
      ':t': change.eventAt,
      ':now': change.now.toISOString(),
    },
    if: live ? NOT_OLDER : `(attribute_not_exists(subscriptionId) OR subscriptionId = :s) AND ${NOT_OLDER}`,
  });
}

/** A payment Stripe will not retry failed, for the project's subscription. False when not applied. */
export async function recordFinalPaymentFailure(
  deps: StoreDeps,
  projectId: string,
  change: { customerId: string; subscriptionId: string | undefined; eventAt: number; now: Date },
): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.billingStripe(projectId),
    expression: 'SET customerId = :c, paymentFailedAt = :at, eventAt = :t, updatedAt = :now',
    values: {
      ':c': change.customerId,
      ':at': new Date(change.eventAt * 1000).toISOString(),
      ':t': change.eventAt,
      ':now': change.now.toISOString(),
      ...(change.subscriptionId ? { ':s': change.subscriptionId } : {}),
    },
    if: change.subscriptionId
      ? `(attribute_not_exists(subscriptionId) OR subscriptionId = :s) AND ${NOT_OLDER}`
      : NOT_OLDER,
  });
}

/**
 * Disables the project for billing, unless an operator disabled it (their reason is kept). True
 * when the project is now disabled by billing.
 */
export async function disableForBilling(deps: StoreDeps, projectId: string, now: Date): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.project(projectId),
    expression: 'SET disabled = :true, disabledBy = :billing, disabledAt = :now',
    values: { ':true': true, ':billing': 'billing', ':operator': 'operator', ':now': now.toISOString() },
    if: 'attribute_exists(pk) AND NOT (disabled = :true AND (attribute_not_exists(disabledBy) OR disabledBy = :operator))',
  });
}

/** Enables the project again if billing disabled it; a project disabled otherwise stays so. */
export async function enableAfterBilling(deps: StoreDeps, projectId: string): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.project(projectId),
    expression: 'SET disabled = :false REMOVE disabledBy, disabledAt',
    values: { ':false': false, ':billing': 'billing' },
    if: 'disabledBy = :billing',
  });
}

// Event claims ------------------------------------------------------------------------------

/** How long an event's claim is kept: Stripe retries a delivery for up to three days. */
export const EVENT_CLAIM_TTL_SECONDS = 30 * 24 * 3600;
/**
 * A claim still `applying` after this long was left by a delivery that stopped midway (the
 * function's timeout is 29 s): the next delivery takes it over.
 */
export const STALE_CLAIM_SECONDS = 120;

const epoch = (at: Date) => Math.floor(at.getTime() / 1000);

/**
 * Claims the event for this delivery: `claimed` (apply it, then `completeEventClaim`), `done`
 * (an earlier delivery applied it) or `busy` (another delivery is applying it now).
 */
export async function claimEvent(
  deps: StoreDeps,
  eventId: string,
  now: Date,
): Promise<'claimed' | 'done' | 'busy'> {
  const t = epoch(now);
  const claimed = await deps.store.writeIf({
    put: {
      ...keys.stripeEvent(eventId),
      state: 'applying',
      claimedAt: t,
      expiresAt: t + EVENT_CLAIM_TTL_SECONDS,
    },
    if: 'attribute_not_exists(pk) OR (#state = :applying AND claimedAt < :stale)',
    names: { '#state': 'state' },
    values: { ':applying': 'applying', ':stale': t - STALE_CLAIM_SECONDS },
  });
  if (claimed) return 'claimed';
  const item = await deps.store.get(keys.stripeEvent(eventId), { consistent: true });
  return item?.state === 'done' ? 'done' : 'busy';
}

/** The event was applied: later deliveries of it are answered as duplicates. */
export async function completeEventClaim(deps: StoreDeps, eventId: string, now: Date): Promise<void> {
  await deps.store.write({
    update: keys.stripeEvent(eventId),
    expression: 'SET #state = :done, doneAt = :t',
    names: { '#state': 'state' },
    values: { ':done': 'done', ':t': epoch(now) },
  });
}

/** Applying failed: the claim goes, so that Stripe's next delivery applies the event. */
export async function releaseEventClaim(deps: StoreDeps, eventId: string): Promise<void> {
  await deps.store.writeIf({
    delete: keys.stripeEvent(eventId),
    if: '#state = :applying',
    names: { '#state': 'state' },
    values: { ':applying': 'applying' },
  });
}
