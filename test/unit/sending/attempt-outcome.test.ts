/** What a resume reads from an email record: never a second send of an email SES was handed. */
import { describe, expect, it } from 'vitest';
import { attemptOutcome, type EmailRecord, sentEventAt } from '../../../shared/sending/repository';

const record = (change: Partial<EmailRecord>): EmailRecord => ({
  id: 'e',
  projectId: 'p',
  contactId: 'c',
  to: 'a@example.org',
  from: 'b@example.com',
  fromName: null,
  replyTo: null,
  subject: 's',
  templateId: null,
  type: 'TRANSACTIONAL',
  status: 'SENT',
  messageId: 'm',
  reason: null,
  error: null,
  createdAt: '2026-11-23T00:00:00.000Z',
  sentAt: '2026-11-23T00:00:01.000Z',
  updatedAt: '2026-11-23T00:00:01.000Z',
  ...change,
});

describe('attemptOutcome', () => {
  it.each(['SENT', 'DELIVERED', 'DELIVERY_DELAYED', 'BOUNCED', 'COMPLAINED'] as const)(
    '%s is sent',
    (status) => {
      expect(attemptOutcome(record({ status }))).toBe('sent');
    },
  );

  it('a FAILED email SES had taken (a Reject) is sent; one it never took is failed', () => {
    expect(attemptOutcome(record({ status: 'FAILED' }))).toBe('sent');
    expect(attemptOutcome(record({ status: 'FAILED', messageId: null, sentAt: null }))).toBe('failed');
  });

  it('SENDING, SKIPPED, and an email its Send event settled', () => {
    expect(attemptOutcome(record({ status: 'SENDING', messageId: null, sentAt: null }))).toBe('sending');
    expect(attemptOutcome(record({ status: 'SKIPPED', messageId: null, sentAt: null }))).toBe('skipped');
    expect(attemptOutcome(record({ status: 'DELIVERED', settledBy: 'x' }))).toBe('settled');
  });
});

describe('attemptOutcome of a record whose outcome is its email.sent event', () => {
  const claimed = (change: Partial<EmailRecord>) =>
    record({ status: 'SENDING', messageId: null, sentAt: null, sentEventId: 'ev', ...change });

  it('is left to the event (sending) whatever SES moved the record to', () => {
    for (const status of ['SENDING', 'DELIVERED', 'DELIVERY_DELAYED', 'BOUNCED', 'COMPLAINED'] as const)
      expect(attemptOutcome(claimed({ status }))).toBe('sending');
    // A Reject moves it to FAILED with no reason: SES had it.
    expect(attemptOutcome(claimed({ status: 'FAILED' }))).toBe('sending');
  });

  it('is failed or skipped when its sender settled it so (with a reason), settled by its Send event', () => {
    expect(attemptOutcome(claimed({ status: 'FAILED', reason: 'MessageRejected' }))).toBe('failed');
    expect(attemptOutcome(claimed({ status: 'SKIPPED', reason: 'suppressed' }))).toBe('skipped');
    expect(attemptOutcome(claimed({ status: 'DELIVERED', settledBy: 'x' }))).toBe('settled');
  });

  it('stamps its email.sent at the claim', () => {
    expect(sentEventAt(claimed({}))).toBe('2026-11-23T00:00:00.000Z');
    expect(sentEventAt(record({}))).toBe('2026-11-23T00:00:01.000Z');
  });
});
