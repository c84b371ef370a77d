/**
 * The email-claim protocol, decided in one place for every writer that finds a contact by its
 * email: `upsertContact`, the import planner (`batch.ts`) and an email change (`patchContact`).
 *
 * A contact is two items, written in this order: the claim of its lower-case email (a
 * conditional put, which is what makes emails unique) and the contact item. A writer reads the
 * claim and the contact behind it, asks `decideClaim` what to do, and writes conditionally: a
 * claim put that finds one there, a contact created meanwhile, or a contact changed since its
 * version was read (a version conflict) all fail their condition, and the writer reads again and
 * decides again. Nothing here reads or writes; callers do.
 */
import type { ContactRecord, EmailClaim } from './repository';

export type ClaimDecision =
  /** Nobody holds the email: claim it for a new contact, then create that contact. */
  | { readonly action: 'claim' }
  /**
   * A claim without its contact (the creator stopped between its two writes, or is there now):
   * create the contact under the claimed id.
   */
  | { readonly action: 'adopt'; readonly contactId: string }
  /**
   * A live contact has the email: change it, conditional on the version of `contact`. Losing to
   * another writer (a version conflict) means reading both again.
   */
  | { readonly action: 'update'; readonly contact: ContactRecord }
  /**
   * A stale claim: its contact was deleted (`purge`: its purge is asked for again, since the
   * claim is removed by the purge) or now has another email. Remove the claim if it still points
   * at `contactId`, then read again.
   */
  | { readonly action: 'release'; readonly contactId: string; readonly purge: boolean }
  /** The claim's contact is moving to this email right now: read again, a little later. */
  | { readonly action: 'wait' };

export interface ClaimState {
  /** The lower-case email being written. */
  readonly emailLower: string;
  /** Its claim as read, if any. */
  readonly claim: EmailClaim | undefined;
  /** The contact the claim points at as read (tombstones included), if any. */
  readonly holder: ContactRecord | undefined;
  readonly now: Date;
}

/** What a writer of `emailLower` does next, given the claim and contact it read. */
export function decideClaim({ emailLower, claim, holder, now }: ClaimState): ClaimDecision {
  if (!claim) return { action: 'claim' };
  if (!holder) return { action: 'adopt', contactId: claim.contactId };
  if (holder.deletedAt) return { action: 'release', contactId: claim.contactId, purge: true };
  if (holder.emailLower !== emailLower) {
    const moving = claim.pendingUntil !== undefined && Date.parse(claim.pendingUntil) > now.getTime();
    return moving ? { action: 'wait' } : { action: 'release', contactId: claim.contactId, purge: false };
  }
  return { action: 'update', contact: holder };
}
