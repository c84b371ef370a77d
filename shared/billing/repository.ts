/**
 * The items of the monthly send caps (docs/billing.md). Only this module knows their keys.
 *
 * - The limits: one small item in the project's partition (`BILLING#LIMITS`), a number or null per
 *   category; no item means no cap at all.
 * - The usage: one item per project and calendar month (UTC), `P#<pid>#USAGE` / `YYYY-MM`, with a
 *   counter per category. A reservation is one UpdateItem that ADDs to a counter on the condition
 *   that the counter stays within the cap, so concurrent senders can never pass it together; a
 *   release ADDs back what was reserved and not sent. A new month is a new item, so the counters
 *   start at zero without any job resetting them. The items are kept (a project's history).
 *   A category without a cap reserves nothing: the event tally adds what went out, from the
 *   `email.sent` events, a batch at a time (`addTalliedUsage`).
 */
import { type TallyMark, tallyOnce } from '../events/tally-once';
import type { Item, StoreDeps } from '../store/store';
import { keys } from '../table';

/** What a cap counts: the send path a message went out through. */
export const SEND_CATEGORIES = ['transactional', 'campaigns', 'workflows'] as const;
export type SendCategory = (typeof SEND_CATEGORIES)[number];

/** A cap per category: the most messages a calendar month, or null for none. */
export type BillingLimits = Readonly<Record<SendCategory, number | null>>;

/** Messages counted per category in one month. */
export type BillingUsage = Readonly<Record<SendCategory, number>>;

export const NO_LIMITS: BillingLimits = { transactional: null, campaigns: null, workflows: null };
const NO_USAGE: BillingUsage = { transactional: 0, campaigns: 0, workflows: 0 };

const capOf = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;

/** The project's caps (none when it never set any). Eventually consistent unless asked. */
export async function getBillingLimits(
  deps: StoreDeps,
  projectId: string,
  options: { readonly consistent?: boolean } = {},
): Promise<BillingLimits> {
  const item = await deps.store.get(keys.billingLimits(projectId), options);
  if (!item) return NO_LIMITS;
  return {
    transactional: capOf(item.transactional),
    campaigns: capOf(item.campaigns),
    workflows: capOf(item.workflows),
  };
}

/** Replaces the project's caps. */
export async function putBillingLimits(
  deps: StoreDeps,
  projectId: string,
  limits: BillingLimits,
  change: { readonly at: string; readonly by: string },
): Promise<void> {
  await deps.store.write({
    put: {
      ...keys.billingLimits(projectId),
      entity: 'billingLimits',
      ...limits,
      updatedAt: change.at,
      updatedBy: change.by,
    },
  });
}

const usageOf = (item: Item | undefined): BillingUsage =>
  item
    ? {
        transactional: Math.max(0, Number(item.transactional ?? 0)),
        campaigns: Math.max(0, Number(item.campaigns ?? 0)),
        workflows: Math.max(0, Number(item.workflows ?? 0)),
      }
    : NO_USAGE;

/** The counters of one month (`YYYY-MM`); zero when nothing was sent in it. */
export async function getBillingUsage(
  deps: StoreDeps,
  projectId: string,
  month: string,
  options: { readonly consistent?: boolean } = {},
): Promise<BillingUsage> {
  return usageOf(await deps.store.get(keys.billingUsage(projectId, month), options));
}

/**
 * Adds `count` to the month's counter of `category`, on the condition that it stays at or under
 * `cap`. False, with nothing written, when it would pass it.
 */
export async function addUsage(
  deps: StoreDeps,
  ref: { readonly projectId: string; readonly month: string; readonly category: SendCategory },
  count: number,
  cap: number,
): Promise<boolean> {
  if (count > cap) return false;
  return deps.store.writeIf({
    update: keys.billingUsage(ref.projectId, ref.month),
    expression: 'SET entity = :entity ADD #category :count',
    names: { '#category': ref.category },
    // No arithmetic in conditions: "stays within the cap" is "is at most cap - count now".
    if: 'attribute_not_exists(#category) OR #category <= :most',
    values: { ':entity': 'billingUsage', ':count': count, ':most': cap - count },
  });
}

/**
 * Adds what a batch of the event tally counted (shared/events/tally.ts) to a month's counters: the
 * messages sent while their category had no cap. With `tally` (the batch), once per batch, so
 * a batch applied again adds nothing; without, unconditionally (the events deleted before the
 * tally met them).
 */
export async function addTalliedUsage(
  deps: StoreDeps,
  projectId: string,
  month: string,
  counts: Readonly<Partial<Record<SendCategory, number>>>,
  tally?: TallyMark,
): Promise<void> {
  const entries = SEND_CATEGORIES.filter((c) => (counts[c] ?? 0) !== 0);
  if (entries.length === 0) return;
  const once = tally ? tallyOnce(tally) : undefined;
  const write = {
    update: keys.billingUsage(projectId, month),
    expression: `SET entity = :entity${once ? `, ${once.assign}` : ''} ADD ${entries.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
    names: Object.fromEntries(entries.map((c, i) => [`#c${i}`, c])),
    values: {
      ':entity': 'billingUsage',
      ...Object.fromEntries(entries.map((c, i) => [`:c${i}`, counts[c]])),
      ...once?.values,
    },
  };
  if (!once) await deps.store.write(write);
  else await deps.store.writeIf({ ...write, if: once.condition });
}

/** Gives back `count` of a month's counter (never below zero: a release that would is dropped). */
export async function subtractUsage(
  deps: StoreDeps,
  ref: { readonly projectId: string; readonly month: string; readonly category: SendCategory },
  count: number,
): Promise<void> {
  await deps.store.writeIf({
    update: keys.billingUsage(ref.projectId, ref.month),
    expression: 'ADD #category :minus',
    if: '#category >= :count',
    names: { '#category': ref.category },
    values: { ':minus': -count, ':count': count },
  });
}
