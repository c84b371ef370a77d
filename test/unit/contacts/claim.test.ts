import { describe, expect, it } from 'vitest';
import { decideClaim } from '../../../shared/contacts/claim';
import type { ContactRecord, EmailClaim } from '../../../shared/contacts/repository';

const now = new Date('2026-03-01T12:00:00.000Z');
const later = new Date(now.getTime() + 30_000).toISOString();
const earlier = new Date(now.getTime() - 1).toISOString();

const claim = (over: Partial<EmailClaim> = {}): EmailClaim => ({
  contactId: 'c1',
  email: 'ann@x.io',
  ...over,
});

const contact = (over: Partial<ContactRecord> = {}): ContactRecord => ({
  id: 'c1',
  email: 'Ann@x.io',
  emailLower: 'ann@x.io',
  subscribed: true,
  snoozedUntil: null,
  data: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  version: 3,
  ...over,
});

const decide = (c: EmailClaim | undefined, holder: ContactRecord | undefined) =>
  decideClaim({ emailLower: 'ann@x.io', claim: c, holder, now });

describe('the contact-claim decision', () => {
  it('no claim: claims the email for a new contact', () => {
    expect(decide(undefined, undefined)).toEqual({ action: 'claim' });
  });

  it('a claim without its contact: adopts the claimed id (the creator stopped between its writes)', () => {
    expect(decide(claim(), undefined)).toEqual({ action: 'adopt', contactId: 'c1' });
    // Also while an email change to this address is pending: the claim has no contact to move.
    expect(decide(claim({ pendingUntil: later }), undefined)).toEqual({ action: 'adopt', contactId: 'c1' });
  });

  it('a tombstone: releases the claim and asks for the purge again, pending or not', () => {
    const deleted = contact({ deletedAt: earlier });
    expect(decide(claim(), deleted)).toEqual({ action: 'release', contactId: 'c1', purge: true });
    expect(
      decide(claim({ pendingUntil: later }), contact({ deletedAt: earlier, emailLower: 'b@x.io' })),
    ).toEqual({
      action: 'release',
      contactId: 'c1',
      purge: true,
    });
  });

  it('a contact that moved to another email: releases the stale claim, without a purge', () => {
    const moved = contact({ email: 'b@x.io', emailLower: 'b@x.io' });
    expect(decide(claim(), moved)).toEqual({ action: 'release', contactId: 'c1', purge: false });
    // A move whose grace has run out no longer holds the claim.
    expect(decide(claim({ pendingUntil: earlier }), moved)).toEqual({
      action: 'release',
      contactId: 'c1',
      purge: false,
    });
  });

  it('a contact moving to this email right now: waits', () => {
    const mover = contact({ email: 'b@x.io', emailLower: 'b@x.io' });
    expect(decide(claim({ pendingUntil: later }), mover)).toEqual({ action: 'wait' });
  });

  it('the live holder of the email: updates it, conditional on the version read', () => {
    const holder = contact();
    const decision = decide(claim({ origin: 'import-1#7' }), holder);
    expect(decision).toEqual({ action: 'update', contact: holder });
  });

  it('a version conflict: deciding again on the contact read after it updates the newer version', () => {
    // The first writer lost its conditional write (version 3 changed meanwhile) and reads again.
    const first = decide(claim(), contact({ version: 3 }));
    const again = decide(claim(), contact({ version: 4, data: { plan: 'pro' } }));
    expect(first.action === 'update' && first.contact.version).toBe(3);
    expect(again).toEqual({ action: 'update', contact: contact({ version: 4, data: { plan: 'pro' } }) });
  });

  it('compares emails in lower case only (the caller passes the lower-cased email)', () => {
    expect(
      decideClaim({ emailLower: 'ann@x.io', claim: claim(), holder: contact({ email: 'ANN@X.IO' }), now }),
    ).toMatchObject({ action: 'update' });
  });
});
