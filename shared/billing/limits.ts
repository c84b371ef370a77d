/**
 * The caps and the month's consumption as a signed-in member sees and sets them
 * (`/users/@me/projects/{id}/billing-limits` and `.../billing-consumption`). Every use case starts
 * from the caller's membership, as the other project routes of a user do: 404 for anyone who is
 * not a member, 403 `FORBIDDEN` for a member whose role may not change the caps.
 */
import { MANAGERS, requireMember } from '../accounts/projects';
import type { AccountDeps } from '../accounts/service';
import { currentConsumption } from './caps';
import { type BillingLimits, getBillingLimits, putBillingLimits } from './repository';

/** `GET .../billing-limits`: the caps as they stand (all null until set). */
export async function readLimits(
  deps: AccountDeps,
  userId: string,
  projectId: string,
): Promise<BillingLimits> {
  await requireMember(deps, userId, projectId);
  return getBillingLimits(deps, projectId, { consistent: true });
}

/** `PUT .../billing-limits` (OWNER or ADMIN): replaces the caps; the next send is held to them. */
export async function replaceLimits(
  deps: AccountDeps,
  userId: string,
  projectId: string,
  limits: BillingLimits,
): Promise<BillingLimits> {
  await requireMember(deps, userId, projectId, MANAGERS);
  await putBillingLimits(deps, projectId, limits, { at: deps.clock.now().toISOString(), by: userId });
  return limits;
}

/** `GET .../billing-consumption`: the current calendar month's counters (UTC). */
export async function readConsumption(deps: AccountDeps, userId: string, projectId: string) {
  await requireMember(deps, userId, projectId);
  return currentConsumption(deps, projectId);
}
