import { describe, expect, it } from 'vitest';
import type { DnsPort, DnsRecordType } from '../../../shared/ports';
import { domainAndParents } from '../../../shared/verification/lists';
import {
  classifyAddress,
  combine,
  type DomainFacts,
  lookupDomain,
  suggestCorrection,
  syntaxProblems,
  verifyEmail,
} from '../../../shared/verification/verify';

/** A DnsPort answering from a map; `hang` types never answer, `fail` types reject. */
function fakeDns(
  zone: Record<string, Partial<Record<DnsRecordType, string[]>>>,
  opts: { hang?: DnsRecordType[]; fail?: DnsRecordType[] } = {},
): DnsPort & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    resolve: (name, type) => {
      calls.push(`${type} ${name}`);
      if (opts.hang?.includes(type)) return new Promise(() => {});
      if (opts.fail?.includes(type))
        return Promise.reject(Object.assign(new Error('SERVFAIL'), { code: 'ESERVFAIL' }));
      return Promise.resolve(zone[name]?.[type] ?? []);
    },
  };
}

const GOOD: DomainFacts = {
  domainExists: true,
  hasWebsite: true,
  hasMxRecords: true,
  nullMx: false,
  failed: [],
};

describe('syntax', () => {
  it('accepts dot-atom addresses within the RFC 5321 limits', () => {
    expect(syntaxProblems('a.b+c_d-e@sub.example-domain.co.uk').problems).toEqual([]);
    expect(syntaxProblems(`${'a'.repeat(64)}@example.com`).problems).toEqual([]);
    expect(syntaxProblems('x@xn--bcher-kva.example').problems).toEqual([]);
  });

  it.each([
    ['no-at-sign', 'the address has no @'],
    ['@example.com', 'the local part (before @) is empty'],
    [`${'a'.repeat(65)}@example.com`, 'the local part (before @) is longer than 64 characters'],
    ['a..b@example.com', 'the local part (before @) has characters or dots where none may be'],
    ['.a@example.com', 'the local part (before @) has characters or dots where none may be'],
    ['a@localhost', 'the domain has no top-level domain'],
    ['a@example..com', 'a domain label is empty or longer than 63 characters'],
    [`a@${'l'.repeat(64)}.com`, 'a domain label is empty or longer than 63 characters'],
    ['a@-example.com', 'a domain label has characters other than letters, digits and inner hyphens'],
    ['a@exa_mple.com', 'a domain label has characters other than letters, digits and inner hyphens'],
    ['a@example.123', 'the top-level domain is numeric'],
  ])('%j: %s', (email, problem) => {
    expect(syntaxProblems(email).problems).toContain(problem);
  });
});

describe('address flags', () => {
  it('plus-addressing comes from the local part only', () => {
    expect(classifyAddress('jane+news@acme.io').isPlusAddressed).toBe(true);
    expect(classifyAddress('jane@acme.io').isPlusAddressed).toBe(false);
  });

  it('disposable and alias domains match their subdomains; personal providers match exactly', () => {
    expect(classifyAddress('x@mailinator.com')).toMatchObject({ isDisposable: true, isPersonalEmail: false });
    expect(classifyAddress('x@inbox.mailinator.com').isDisposable).toBe(true);
    expect(classifyAddress('x@me.anonaddy.com')).toMatchObject({ isAlias: true, isDisposable: false });
    expect(classifyAddress('x@privaterelay.appleid.com').isAlias).toBe(true);
    expect(classifyAddress('x@Gmail.COM')).toMatchObject({ domain: 'gmail.com', isPersonalEmail: true });
    expect(classifyAddress('x@mail.gmail.com').isPersonalEmail).toBe(false);
    expect(classifyAddress('x@acme.io')).toMatchObject({
      isDisposable: false,
      isAlias: false,
      isPersonalEmail: false,
    });
  });

  it('lists a domain and its parents above the TLD', () => {
    expect(domainAndParents('a.b.c.com')).toEqual(['a.b.c.com', 'b.c.com', 'c.com']);
  });
});

describe('typo suggestions', () => {
  it.each([
    ['gnail.com', 'a@gmail.com'],
    ['gmial.com', 'a@gmail.com'],
    ['hotmial.com', 'a@hotmail.com'],
    ['outlok.com', 'a@outlook.com'],
    ['iclod.com', 'a@icloud.com'],
  ])('suggests a correction for %s', (domain, expected) => {
    expect(suggestCorrection('a', domain)).toBe(expected);
  });

  it.each([
    'gmail.com',
    'mac.com',
    'gmx.net',
    'hanmail.net',
    'ymail.com',
    'libero.it',
    'duck.com',
    'acme.io',
    'acme.co',
  ])('leaves %s alone (a real provider or an unknown domain with a real TLD)', (domain) => {
    expect(suggestCorrection('a', domain)).toBeUndefined();
  });

  it('corrects the TLD of an unknown domain only when that TLD does not exist', () => {
    expect(suggestCorrection('a', 'acme.cmo')).toMatch(/^a@acme\.co/);
  });

  it('keeps the local part as written', () => {
    expect(classifyAddress('Jane.Doe+x@gnail.com').suggestedEmail).toBe('Jane.Doe+x@gmail.com');
  });
});

describe('DNS lookups', () => {
  it('looks up NS, MX, A and AAAA of the domain in parallel', async () => {
    const dns = fakeDns({ 'acme.io': { NS: ['ns1'], MX: ['10 mx.acme.io'], AAAA: ['2001:db8::1'] } });
    expect(await lookupDomain(dns, 'acme.io')).toEqual({
      domainExists: true,
      hasWebsite: true,
      hasMxRecords: true,
      nullMx: false,
      failed: [],
    });
    expect(dns.calls.sort()).toEqual(['A acme.io', 'AAAA acme.io', 'MX acme.io', 'NS acme.io']);
  });

  it('reads a null MX (0 .) as no mail, and a subdomain with only MX as existing', async () => {
    const dns = fakeDns({ 'n.io': { NS: ['ns'], MX: ['0 .'] }, 'mail.acme.io': { MX: ['10 mx.acme.io.'] } });
    expect(await lookupDomain(dns, 'n.io')).toMatchObject({
      domainExists: true,
      hasMxRecords: false,
      nullMx: true,
    });
    expect(await lookupDomain(dns, 'mail.acme.io')).toMatchObject({ domainExists: true, hasMxRecords: true });
  });

  it('gives up on a lookup after the timeout and on a failing one, reporting both', async () => {
    const dns = fakeDns({ 'slow.io': { NS: ['ns'], A: ['192.0.2.1'] } }, { hang: ['MX'], fail: ['AAAA'] });
    const started = Date.now();
    const facts = await lookupDomain(dns, 'slow.io', { timeoutMs: 50 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(facts).toMatchObject({ domainExists: true, hasWebsite: true, hasMxRecords: false });
    expect([...facts.failed].sort()).toEqual(['AAAA', 'MX']);
  });
});

describe('verdict and reasons', () => {
  it('is valid with syntax, an existing domain and MX records; flags add reasons only', () => {
    const result = combine('a+b@mailinator.com', classifyAddress('a+b@mailinator.com'), GOOD);
    expect(result).toMatchObject({ valid: true, isDisposable: true, isPlusAddressed: true });
    expect(result.reasons).toEqual([
      'Disposable or temporary email domain',
      'Plus-addressed (sub-address) local part',
    ]);
    expect(result).not.toHaveProperty('suggestedEmail');
  });

  it('is invalid without MX records or without a domain', () => {
    const address = classifyAddress('a@acme.io');
    expect(combine('a@acme.io', address, { ...GOOD, hasMxRecords: false }).valid).toBe(false);
    expect(combine('a@acme.io', address, { ...GOOD, domainExists: false, hasMxRecords: false }).valid).toBe(
      false,
    );
  });

  it('says when the DNS could not be checked rather than claiming the domain does not exist', () => {
    const none: DomainFacts = {
      domainExists: false,
      hasWebsite: false,
      hasMxRecords: false,
      nullMx: false,
      failed: ['NS', 'MX'],
    };
    const result = combine('a@acme.io', classifyAddress('a@acme.io'), none);
    expect(result.reasons).toEqual([
      'The domain acme.io could not be checked: DNS lookup failed or timed out (NS, MX)',
    ]);
    const mxFailed = combine('a@acme.io', classifyAddress('a@acme.io'), {
      ...GOOD,
      hasMxRecords: false,
      failed: ['MX'],
    });
    expect(mxFailed.reasons).toEqual(['The MX lookup for acme.io failed or timed out']);
  });

  it('skips DNS for a malformed address', async () => {
    const dns = fakeDns({});
    const result = await verifyEmail({ dns }, `${'a'.repeat(70)}@acme.io`);
    expect(dns.calls).toEqual([]);
    expect(result).toMatchObject({ valid: false, domainExists: false });
  });

  it('sets isTypo and suggestedEmail together', async () => {
    const dns = fakeDns({ 'gnail.com': { NS: ['ns'], MX: ['10 mx.gnail.com'] } });
    const result = await verifyEmail({ dns }, 'jo@gnail.com');
    expect(result).toMatchObject({ valid: true, isTypo: true, suggestedEmail: 'jo@gmail.com' });
    expect(result.reasons).toContain('Possible typo: did you mean jo@gmail.com?');
  });
});
