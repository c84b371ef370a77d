/**
 * A domain check's DNS lookup: a query that fails (timeout, failing server) reads as no answer
 * and is logged, so the record counts as not published and the next check asks again; any other
 * error (a bug, a broken zone file) propagates.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isDnsFailure, lookUp } from '../../../shared/domains/records';
import type { DnsPort } from '../../../shared/ports';

const record = { type: 'TXT', name: '_dmarc.acme.io' } as const;
const failing = (error: unknown): DnsPort => ({ resolve: () => Promise.reject(error) });
const dnsError = (code: string) => Object.assign(new Error(`queryTxt ${code} _dmarc.acme.io`), { code });

describe('lookUp', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("answers DNS's records", async () => {
    const dns: DnsPort = { resolve: async () => ['v=DMARC1; p=none;'] };
    expect(await lookUp(dns, record)).toEqual(['v=DMARC1; p=none;']);
  });

  it('reads a failed query as no answer, and logs it', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    for (const code of ['ETIMEOUT', 'ESERVFAIL', 'ECONNREFUSED', 'EREFUSED']) {
      expect(await lookUp(failing(dnsError(code)), record)).toEqual([]);
    }
    expect(warn).toHaveBeenCalledTimes(4);
    expect(JSON.parse(String(warn.mock.calls[0]![0]))).toMatchObject({
      level: 'warn',
      name: '_dmarc.acme.io',
      type: 'TXT',
      code: 'ETIMEOUT',
    });
  });

  it('lets any other error through', async () => {
    await expect(lookUp(failing(new TypeError('a bug')), record)).rejects.toThrow('a bug');
    const zone = new Error('DNS zone file zone.json is not valid JSON: Unexpected token');
    await expect(lookUp(failing(zone), record)).rejects.toThrow('not valid JSON');
    // An errno, but not a DNS query's.
    await expect(
      lookUp(failing(Object.assign(new Error('x'), { code: 'ENOENT' })), record),
    ).rejects.toThrow();
  });
});

describe('isDnsFailure', () => {
  it("knows node:dns's failure codes and nothing else", () => {
    expect(isDnsFailure(dnsError('ENOTFOUND'))).toBe(true);
    expect(isDnsFailure(new Error('plain'))).toBe(false);
    expect(isDnsFailure(undefined)).toBe(false);
    expect(isDnsFailure({ code: 42 })).toBe(false);
  });
});
