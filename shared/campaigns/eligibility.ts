/**
 * Who of a campaign's audience is mailed, and who is left out and why: the rules of the fan-out
 * (`fanout.ts`), kept in one place so that the audience count (`count.ts`) decides with exactly
 * the same code. In the order they apply (a contact is left out for the first that holds):
 *
 * 1. `unsubscribed`: MARKETING and HEADLESS content goes to subscribed contacts only; an
 *    unsubscribed one is not a recipient at all (no email record, not in `totalRecipients`).
 *    TRANSACTIONAL content goes to all. (`audience.ts` applies it as it reads the audience.)
 * 2. `suppressed`: an address on the project's suppression list (a permanent bounce, a
 *    complaint) is skipped whatever the content type (email record SKIPPED, reason `suppressed`).
 * 3. `snoozed`: a contact snoozed past now gets no MARKETING or HEADLESS campaign (SKIPPED,
 *    reason `snoozed`); TRANSACTIONAL ones mail it.
 */
import type { ContactRecord } from '../contacts/repository';
import { isSnoozed } from '../contacts/snooze';
import { suppressedAmong } from '../email-events/repository';
import type { StoreDeps } from '../store/store';
import type { TemplateType } from '../templates/schemas';

/** Why a contact of the audience gets no email. */
export type LeftOutReason = 'unsubscribed' | 'suppressed' | 'snoozed';

/** Rule 1: the contact's subscription lets content of `type` reach it. */
export const subscriptionAllows = (type: TemplateType, contact: Pick<ContactRecord, 'subscribed'>) =>
  type === 'TRANSACTIONAL' || contact.subscribed;

/** Rules 2 and 3 over some recipients (those rule 1 let through). */
export interface LeftOut {
  /** Lower-case addresses on the project's suppression list. */
  readonly suppressed: ReadonlySet<string>;
  /** Contacts (ids) snoozed past `now`, for MARKETING and HEADLESS content only. */
  readonly snoozed: ReadonlySet<string>;
}

/**
 * Rules 2 and 3 among `recipients`, judged at `now`: one batch read of the suppression list for
 * them (half a read unit per address), nothing else.
 */
export async function leftOutAmong(
  deps: StoreDeps,
  projectId: string,
  type: TemplateType,
  recipients: readonly ContactRecord[],
  now: Date,
): Promise<LeftOut> {
  const suppressed = await suppressedAmong(
    deps,
    projectId,
    recipients.map((c) => c.email),
  );
  const snoozed = new Set(
    type === 'TRANSACTIONAL' ? [] : recipients.filter((c) => isSnoozed(c, now)).map((c) => c.id),
  );
  return { suppressed, snoozed };
}

/** The reason rules 2 and 3 leave `contact` out, or undefined when it is mailed. */
export function leftOutReason(
  contact: Pick<ContactRecord, 'id' | 'email'>,
  leftOut: LeftOut,
): 'suppressed' | 'snoozed' | undefined {
  if (leftOut.suppressed.has(contact.email.toLowerCase())) return 'suppressed';
  if (leftOut.snoozed.has(contact.id)) return 'snoozed';
  return undefined;
}
