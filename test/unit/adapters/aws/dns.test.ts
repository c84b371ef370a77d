import { describe, expect, it } from 'vitest';
import { type DnsResolver, SystemDns } from '../../../../shared/adapters/aws/dns';

const dnsError = (code: string) => Object.assign(new Error(`query ${code}`), { code });

const fake: DnsResolver = {
  resolve4: async () => ['192.0.2.1'],
  resolve6: async () => ['2001:db8::1'],
  resolveCname: async () => ['abc.dkim.amazonses.com'],
  resolveNs: async () => ['ns1.example.com', 'ns2.example.com'],
  resolveMx: async () => [
    { priority: 10, exchange: 'inbound-smtp.eu-west-1.amazonaws.com' },
    { priority: 20, exchange: 'backup.example.com' },
  ],
  resolveTxt: async () => [['v=spf1 include:amazonses.com ', '~all'], ['google-site-verification=x']],
};

describe('SystemDns', () => {
  const dns = new SystemDns({ resolver: fake });

  it.each([
    ['A', ['192.0.2.1']],
    ['AAAA', ['2001:db8::1']],
    ['CNAME', ['abc.dkim.amazonses.com']],
    ['NS', ['ns1.example.com', 'ns2.example.com']],
    ['MX', ['10 inbound-smtp.eu-west-1.amazonaws.com', '20 backup.example.com']],
    ['TXT', ['v=spf1 include:amazonses.com ~all', 'google-site-verification=x']],
  ] as const)('answers %s records as strings', async (type, expected) => {
    await expect(dns.resolve('example.com', type)).resolves.toEqual(expected);
  });

  it.each(['ENODATA', 'ENOTFOUND'])('answers [] on %s', async (code) => {
    const failing = new SystemDns({
      resolver: { ...fake, resolveTxt: async () => Promise.reject(dnsError(code)) },
    });
    await expect(failing.resolve('none.example.com', 'TXT')).resolves.toEqual([]);
  });

  it.each(['ETIMEOUT', 'ESERVFAIL', 'ECONNREFUSED'])('rejects on %s', async (code) => {
    const failing = new SystemDns({
      resolver: { ...fake, resolveMx: async () => Promise.reject(dnsError(code)) },
    });
    await expect(failing.resolve('example.com', 'MX')).rejects.toMatchObject({ code });
  });

  it('builds a real resolver by default without querying anything', () => {
    expect(() => new SystemDns({ timeoutMs: 500 })).not.toThrow();
  });
});
