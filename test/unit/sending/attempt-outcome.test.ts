/** What a resume reads from an email record: never a second send of an email SES was handed. */
import { describe, expect, it } from 'vitest';
import { attemptOutcome, type EmailRecord } from '../../../shared/sending/repository';

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
