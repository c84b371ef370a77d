/** Snooze: a contact's pause of marketing mail until `snoozedUntil` (docs/contacts.md, via the manage page or PATCH). */
import type { ContactRecord } from './repository';

/** The contact asked for no marketing mail until a time still to come (`snoozedUntil`). */
export function isSnoozed(contact: Pick<ContactRecord, 'snoozedUntil'>, now: Date): boolean {
  return contact.snoozedUntil !== null && Date.parse(contact.snoozedUntil) > now.getTime();
}
