/**
 * Monthly send caps (docs/billing.md): per project, per calendar month (UTC) and per
 * category (`transactional`: `POST /v1/send`; `campaigns`: campaign fan-outs; `workflows`:
 * SEND_EMAIL steps). They hold whether or not billing (Stripe) is configured: a self-hoster's
 * guard against runaway cost.
 *
 * What counts is a message handed to the provider (SES), one per recipient. Every send path asks
 * the one check here, `reserveSends`, before it calls SES. When the category has a cap, that is an
 * atomic reservation on the month's usage item (repository.ts), so senders racing each other can
 * never pass a cap together. A reservation is made before the sends it covers; whatever of it did
 * not reach SES (a skipped recipient, a render failure, a provider refusal) is given back with
 * `releaseSends`, so the counters say what went out. A crash between a reservation and its release
 * leaves the reservation counted: the counters may be a little high after a crash, never low,
 * which is the side a cap must err on. Each send path says how its retries stay within that (see
 * docs/billing.md).
 *
 * When the category has no cap there is nothing to guard, so nothing is written on the send path:
 * the reservation says `tally`, the sender marks each email (`EmailRecord.tallyUsage`), and its
 * `email.sent` event carries the category to the event tally (shared/events/tally.ts), which adds
 * the month's messages to the same counters a batch at a time, two to four minutes after they went
 * out. So the consumption of an uncapped category lags by those minutes, and a cap set meanwhile
 * does not yet see them (docs/billing.md, "Without a cap").
 *
 * Cost: a reservation reads the limits item (one eventually consistent read, half a unit); with a
 * cap it writes the usage item (one unit), and a release is one more write, made only when
 * something of the reservation was not sent.
 */
import { AppError } from '../errors';
import type { Deps } from '../ports';
import type { StoreDeps } from '../store/store';
import {
  addUsage,
  type BillingLimits,
  type BillingUsage,
  getBillingLimits,
  getBillingUsage,
  type SendCategory,
  subtractUsage,
} from './repository';

export { SEND_CATEGORIES, type SendCategory } from './repository';

export type CapsDeps = StoreDeps & Pick<Deps, 'clock'>;

/** The code and the reason every send path gives for what a cap refused. */
export const BILLING_LIMIT_REACHED = 'BILLING_LIMIT_REACHED';

/** Reservation attempts when other senders keep moving the counter between a read and a write. */
const MAX_ROUNDS = 8;

/** A calendar month (UTC): its key (`YYYY-MM`), first instant and the first instant after it. */
export interface Period {
  readonly month: string;
  readonly start: Date;
  readonly end: Date;
}

export function periodOf(at: Date): Period {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { month: start.toISOString().slice(0, 7), start, end };
}

/**
 * What a reservation holds: `granted` messages of `category` counted in `month`; with `tally`
 * (the category has no cap) nothing was counted yet: the event tally counts what goes out.
 */
export interface Reservation {
  readonly projectId: string;
  readonly category: SendCategory;
  readonly month: string;
  readonly granted: number;
  readonly tally?: true;
}

/** A category's cap this month (null: none), for a send path that must know it before it writes. */
export async function capOf(
  deps: CapsDeps,
  projectId: string,
  category: SendCategory,
): Promise<number | null> {
  return (await getBillingLimits(deps, projectId))[category];
}

/**
 * The one check of every send path: reserves `wanted` messages of `category` in the current
 * month. `mode: 'all'` grants all of them or none (`/v1/send`, a workflow's one email); `'up-to'`
 * grants as many as the cap leaves room for, possibly none (a campaign's batch). Without a cap the
 * whole of `wanted` is granted and nothing written (`tally`: the event tally counts the messages).
 * `known`: the cap as the caller read it with `capOf` (not read again).
 */
export async function reserveSends(
  deps: CapsDeps,
  projectId: string,
  category: SendCategory,
  wanted: number,
  mode: 'all' | 'up-to',
  known?: { readonly cap: number | null },
): Promise<Reservation> {
  const { month } = periodOf(deps.clock.now());
  const ref = { projectId, month, category };
  const none = { ...ref, granted: 0 };
  if (wanted <= 0) return none;
  const cap = known ? known.cap : await capOf(deps, projectId, category);
  if (cap === null) return { ...ref, granted: wanted, tally: true };
  // The usage is not read first: the condition checks it, and the common case fits.
  if (await addUsage(deps, ref, wanted, cap)) return { ...ref, granted: wanted };
  if (mode === 'all') return none;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const used = (await getBillingUsage(deps, projectId, month, { consistent: true }))[category];
    const room = Math.min(wanted, cap - used);
    if (room <= 0) return none;
    if (await addUsage(deps, ref, room, cap)) return { ...ref, granted: room };
  }
  throw new Error(`The ${category} usage of project ${projectId} kept changing; try again`);
}

/** Gives back `count` messages of a reservation that did not reach the provider (none of a `tally` one). */
export async function releaseSends(deps: StoreDeps, reservation: Reservation, count: number): Promise<void> {
  if (reservation.tally) return;
  const n = Math.min(count, reservation.granted);
  if (n > 0) await subtractUsage(deps, reservation, n);
}

/** The 403 of a send that the category's cap refuses, with what stands in the way. */
export function billingLimitReached(
  category: SendCategory,
  figures: {
    readonly limit: number;
    readonly used: number;
    readonly requested: number;
    readonly period: Period;
  },
): AppError {
  const left = Math.max(0, figures.limit - figures.used);
  return new AppError(
    403,
    BILLING_LIMIT_REACHED,
    `The monthly ${category} cap of ${figures.limit} emails leaves room for ${left}; ${figures.requested} requested`,
    {
      details: {
        category,
        limit: figures.limit,
        used: figures.used,
        requested: figures.requested,
        periodEnd: figures.period.end.toISOString(),
      },
      suggestion:
        'Raise the cap (PUT /users/@me/projects/{id}/billing-limits) or wait for the next month (UTC)',
    },
  );
}

/**
 * Reserves `wanted` messages or refuses with the 403 `BILLING_LIMIT_REACHED` (`/v1/send`). The
 * refusal costs one more read, for the figures it reports.
 */
export async function reserveOrRefuse(
  deps: CapsDeps,
  projectId: string,
  category: SendCategory,
  wanted: number,
): Promise<Reservation> {
  const reservation = await reserveSends(deps, projectId, category, wanted, 'all');
  if (reservation.granted === wanted) return reservation;
  const period = periodOf(deps.clock.now());
  const [limits, usage] = await Promise.all([
    getBillingLimits(deps, projectId),
    getBillingUsage(deps, projectId, period.month, { consistent: true }),
  ]);
  throw billingLimitReached(category, {
    limit: limits[category] ?? 0,
    used: usage[category],
    requested: wanted,
    period,
  });
}

/**
 * The refusal (403 `BILLING_LIMIT_REACHED`) of what would need more than the room left under the
 * category's cap this month, or undefined when it fits: a campaign whose audience is larger, before
 * it starts. Reserves nothing (the fan-out reserves as it sends). Two reads; one without a cap.
 */
export async function capRefusal(
  deps: CapsDeps,
  projectId: string,
  category: SendCategory,
  count: number,
): Promise<AppError | undefined> {
  const limit = (await getBillingLimits(deps, projectId))[category];
  if (limit === null) return undefined;
  const period = periodOf(deps.clock.now());
  const used = (await getBillingUsage(deps, projectId, period.month, { consistent: true }))[category];
  return count > limit - used
    ? billingLimitReached(category, { limit, used, requested: count, period })
    : undefined;
}

/** Throws `capRefusal`'s 403 when `count` does not fit. */
export async function requireRoomFor(
  deps: CapsDeps,
  projectId: string,
  category: SendCategory,
  count: number,
): Promise<void> {
  const refusal = await capRefusal(deps, projectId, category, count);
  if (refusal) throw refusal;
}

/** The error recorded on an email a cap kept from being sent (its reason is `BILLING_LIMIT_REACHED`). */
export const capReachedMessage = (category: SendCategory) =>
  `The project's monthly ${category} cap is reached: the email was not sent`;

/** `GET .../billing-consumption`: the current month's counters (one read). */
export async function currentConsumption(deps: CapsDeps, projectId: string) {
  const period = periodOf(deps.clock.now());
  const usage: BillingUsage = await getBillingUsage(deps, projectId, period.month);
  return {
    periodStart: period.start.toISOString(),
    periodEnd: period.end.toISOString(),
    ...usage,
    total: usage.transactional + usage.campaigns + usage.workflows,
  };
}

export type { BillingLimits };
