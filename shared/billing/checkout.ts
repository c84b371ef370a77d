/**
 * A project's Stripe subscription as its members reach it (`/users/@me/projects/{id}/checkout`,
 * `.../billing-portal`, `.../billing-invoices`; docs/billing.md, "Stripe"). Without Stripe each
 * answers 400 BILLING_DISABLED before anything is read. Then, as the other project routes of a
 * user: 404 for anyone who is not a member, 403 FORBIDDEN for a MEMBER starting a checkout or
 * opening the portal (OWNER and ADMIN may); any member reads the invoices.
 */
import { MANAGERS, requireMember } from '../accounts/projects';
import { getUser } from '../accounts/repository';
import type { AccountDeps } from '../accounts/service';
import { AppError, conflict } from '../errors';
import type { BillingInvoice, Deps } from '../ports';
import { billingDisabled } from './stripe-webhook';
import { getStripeBilling, LIVE_STATUSES } from './subscription';

export type BillingRouteDeps = AccountDeps & Pick<Deps, 'billing'>;

/** Subscriptions still billed: a checkout would start a second one. */
const BILLED_STATUSES: ReadonlySet<string> = new Set([...LIVE_STATUSES, 'past_due', 'incomplete']);

/** The page Stripe returns to: BILLING_RETURN_URL, else the API's public URL. */
function returnUrl(deps: BillingRouteDeps, checkout?: 'success' | 'cancel'): string {
  const base = deps.config.billingReturnUrl ?? deps.config.publicBaseUrl;
  if (!base) throw new Error('No page to return to from Stripe: set BILLING_RETURN_URL or PUBLIC_BASE_URL');
  const url = new URL(base);
  if (checkout) url.searchParams.set('checkout', checkout);
  return url.toString();
}

/** Stripe's failures (unreachable, a refused request) as a 502 the dashboard can show. */
async function callStripe<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    console.error(
      JSON.stringify({ level: 'error', message: `Stripe ${what} failed`, error: (error as Error)?.message }),
    );
    throw new AppError(502, 'BILLING_PROVIDER_ERROR', `Stripe could not ${what}`, {
      suggestion: 'Try again in a moment',
    });
  }
}

function requireBilling(deps: BillingRouteDeps): void {
  if (!deps.config.billingEnabled) throw billingDisabled();
}

/**
 * `POST .../checkout` (OWNER or ADMIN): a Stripe Checkout page subscribing the project, for the
 * project's customer when it has one, else a new one prefilled with the caller's email. A project
 * whose subscription is still billed gets 409 ALREADY_SUBSCRIBED (the portal manages it).
 */
export async function startCheckout(
  deps: BillingRouteDeps,
  userId: string,
  projectId: string,
): Promise<{ url: string }> {
  requireBilling(deps);
  await requireMember(deps, userId, projectId, MANAGERS);
  const billing = await getStripeBilling(deps, projectId);
  if (billing.subscriptionStatus && BILLED_STATUSES.has(billing.subscriptionStatus))
    throw conflict('ALREADY_SUBSCRIBED', 'This project has a subscription; manage it in the billing portal', {
      subscriptionStatus: billing.subscriptionStatus,
    });
  const email = billing.customerId ? undefined : (await getUser(deps, userId))?.email;
  const session = await callStripe('start a checkout', () =>
    deps.billing.createCheckoutSession({
      projectId,
      ...(billing.customerId ? { customerId: billing.customerId } : {}),
      ...(email ? { email } : {}),
      successUrl: returnUrl(deps, 'success'),
      cancelUrl: returnUrl(deps, 'cancel'),
    }),
  );
  return { url: session.url };
}

/** `POST .../billing-portal` (OWNER or ADMIN): the customer's Stripe billing portal. */
export async function openBillingPortal(
  deps: BillingRouteDeps,
  userId: string,
  projectId: string,
): Promise<{ url: string }> {
  requireBilling(deps);
  await requireMember(deps, userId, projectId, MANAGERS);
  const { customerId } = await getStripeBilling(deps, projectId);
  if (!customerId)
    throw conflict('NO_BILLING_ACCOUNT', 'This project has no Stripe customer yet; start with a checkout');
  const session = await callStripe('open the billing portal', () =>
    deps.billing.createPortalSession({ customerId, returnUrl: returnUrl(deps) }),
  );
  return { url: session.url };
}

/** `GET .../billing-invoices` (any member): the customer's invoices, newest first; none without one. */
export async function listBillingInvoices(
  deps: BillingRouteDeps,
  userId: string,
  projectId: string,
  page: { limit: number; startingAfter?: string },
): Promise<{ invoices: BillingInvoice[]; hasMore: boolean }> {
  requireBilling(deps);
  await requireMember(deps, userId, projectId);
  const { customerId } = await getStripeBilling(deps, projectId);
  if (!customerId) return { invoices: [], hasMore: false };
  return callStripe('list the invoices', () =>
    deps.billing.listInvoices({ customerId, limit: page.limit, startingAfter: page.startingAfter }),
  );
}
