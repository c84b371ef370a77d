import { describe, expect, it } from 'vitest';
import { answersMatch, evaluate, expectedRecords } from '../../../shared/domains/records';
import type { DnsRecord } from '../../../shared/domains/repository';
import { domainNameSchema, MAX_DOMAIN_LENGTH } from '../../../shared/domains/schemas';
import type { DomainIdentity } from '../../../shared/ports';

const identity = (over: Partial<DomainIdentity> = {}): DomainIdentity => ({
  domain: 'acme.io',
  verifiedForSending: false,
  dkimStatus: 'PENDING',
  dkimRecords: [1, 2, 3].map((i) => ({
    name: `t${i}._domainkey.acme.io`,
    value: `t${i}.dkim.amazonses.com`,
  })),
  mailFromDomain: 'mail.acme.io',
  mailFromStatus: 'PENDING',
  mailFromMx: '10 feedback-smtp.eu-west-1.amazonses.com',
  ...over,
});

describe('answersMatch', () => {
  const records = expectedRecords('acme.io', identity());
  const byPurpose = (purpose: string) => records.find((r) => r.purpose === purpose)!;
  const [dkim, mx, spf, dmarc] = ['DKIM', 'MAIL_FROM_MX', 'MAIL_FROM_SPF', 'DMARC'].map(byPurpose) as [
    DnsRecord,
    DnsRecord,
    DnsRecord,
    DnsRecord,
  ];

  it('matches a DKIM CNAME exactly, ignoring case and a trailing dot', () => {
    expect(answersMatch(dkim, ['T1.DKIM.amazonses.com.'])).toBe(true);
    expect(answersMatch(dkim, ['t2.dkim.amazonses.com'])).toBe(false);
  });

  it('matches the MAIL FROM MX by host, whatever the priority', () => {
    expect(answersMatch(mx, ['20 feedback-smtp.eu-west-1.amazonses.com.'])).toBe(true);
    expect(answersMatch(mx, ['10 feedback-smtp.us-east-1.amazonses.com'])).toBe(false);
  });

  it('takes any SPF record that includes amazonses.com, and any DMARC policy', () => {
    expect(
      answersMatch(spf, ['google-site-verification=x', 'v=spf1 ip4:192.0.2.1 include:amazonses.com -all']),
    ).toBe(true);
    expect(answersMatch(spf, ['v=spf1 include:_spf.google.com ~all'])).toBe(false);
    expect(answersMatch(spf, ['include:amazonses.com'])).toBe(false);
    expect(answersMatch(dmarc, ['v=DMARC1; p=reject; rua=mailto:d@acme.io'])).toBe(true);
    expect(answersMatch(dmarc, ['v=DMARC1'])).toBe(true);
    expect(answersMatch(dmarc, ['v=DMARC10; p=none'])).toBe(false);
  });
});

describe('evaluate', () => {
  const records = expectedRecords('acme.io', identity());
  const none = records.map(() => false);

  it('is VERIFIED exactly when SES may send from the domain', () => {
    expect(evaluate(records, identity(), none).status).toBe('PENDING');
    expect(
      evaluate(records, identity({ verifiedForSending: true, dkimStatus: 'SUCCESS' }), none).status,
    ).toBe('VERIFIED');
    expect(evaluate(records, identity({ dkimStatus: 'TEMPORARY_FAILURE' }), none).status).toBe('PENDING');
    expect(evaluate(records, identity({ dkimStatus: 'FAILED' }), none).status).toBe('FAILED');
    expect(evaluate(records, undefined, none).status).toBe('FAILED');
  });

  it('marks a record VERIFIED when DNS has it or SES confirmed it, FAILED when SES gave up on it', () => {
    const found = [true, false, false, false, false, true];
    const out = evaluate(records, identity({ dkimStatus: 'FAILED', mailFromStatus: 'SUCCESS' }), found);
    expect(out.records.map((r) => `${r.purpose}:${r.status}`)).toEqual([
      'DKIM:VERIFIED',
      'DKIM:FAILED',
      'DKIM:FAILED',
      'MAIL_FROM_MX:VERIFIED',
      'MAIL_FROM_SPF:PENDING',
      'DMARC:VERIFIED',
    ]);
  });
});

describe('domainNameSchema', () => {
  it('accepts the longest name whose DKIM record names fit DNS, and no longer', () => {
    const label = (n: number) => 'a'.repeat(n);
    const fits = `${label(63)}.${label(63)}.${label(63)}.${label(MAX_DOMAIN_LENGTH - 63 * 3 - 6)}.io`;
    expect(fits).toHaveLength(MAX_DOMAIN_LENGTH);
    expect(domainNameSchema.safeParse(fits).success).toBe(true);
    expect(`${'x'.repeat(32)}._domainkey.${fits}`.length).toBeLessThanOrEqual(253);
    expect(domainNameSchema.safeParse(`a${fits}`).success).toBe(false);
  });

  it('accepts punycode TLDs and refuses numeric ones', () => {
    expect(domainNameSchema.parse('shop.XN--P1AI')).toBe('shop.xn--p1ai');
    expect(domainNameSchema.safeParse('10.0.0.1').success).toBe(false);
  });
});
