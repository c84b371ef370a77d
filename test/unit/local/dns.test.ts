import { utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ZoneFileDns } from '../../../shared/adapters/local/dns';
import { zoneFile } from './helpers';

describe('ZoneFileDns', () => {
  it('answers every record type from the file, and [] for unknown names and types', async () => {
    const dns = new ZoneFileDns(
      zoneFile({
        'acme.io': {
          A: ['192.0.2.1', '192.0.2.2'],
          AAAA: ['2001:db8::1'],
          MX: ['10 mx.acme.io'],
          NS: ['ns1.acme.io', 'ns2.acme.io'],
          TXT: ['v=spf1 include:amazonses.com ~all'],
        },
        'abc._domainkey.acme.io': { CNAME: 'abc.dkim.amazonses.com' },
      }),
    );
    expect(await dns.resolve('acme.io', 'A')).toEqual(['192.0.2.1', '192.0.2.2']);
    expect(await dns.resolve('acme.io', 'AAAA')).toEqual(['2001:db8::1']);
    expect(await dns.resolve('acme.io', 'MX')).toEqual(['10 mx.acme.io']);
    expect(await dns.resolve('acme.io', 'NS')).toEqual(['ns1.acme.io', 'ns2.acme.io']);
    expect(await dns.resolve('acme.io', 'TXT')).toEqual(['v=spf1 include:amazonses.com ~all']);
    expect(await dns.resolve('abc._domainkey.acme.io', 'CNAME')).toEqual(['abc.dkim.amazonses.com']);
    expect(await dns.resolve('acme.io', 'CNAME')).toEqual([]);
    expect(await dns.resolve('unknown.example', 'A')).toEqual([]);
  });

  it('ignores case and a trailing dot, in queries and in the file', async () => {
    const dns = new ZoneFileDns(zoneFile({ 'Mixed.Example.': { mx: ['5 mail.mixed.example'] } }));
    expect(await dns.resolve('mixed.example', 'MX')).toEqual(['5 mail.mixed.example']);
    expect(await dns.resolve('MIXED.EXAMPLE.', 'MX')).toEqual(['5 mail.mixed.example']);
  });

  it('reads the file again when it changes', async () => {
    const path = zoneFile({ 'a.io': { A: ['192.0.2.1'] } });
    const dns = new ZoneFileDns(path);
    expect(await dns.resolve('a.io', 'A')).toEqual(['192.0.2.1']);
    writeFileSync(path, JSON.stringify({ 'a.io': { A: ['192.0.2.99'] }, 'b.io': { TXT: ['hello'] } }));
    const later = new Date(Date.now() + 5000);
    utimesSync(path, later, later);
    expect(await dns.resolve('a.io', 'A')).toEqual(['192.0.2.99']);
    expect(await dns.resolve('b.io', 'TXT')).toEqual(['hello']);
  });

  it('treats a missing file as an empty zone and rejects a malformed one', async () => {
    const path = zoneFile('{');
    await expect(new ZoneFileDns(path).resolve('a.io', 'A')).rejects.toThrow(/not valid JSON/);
    await expect(new ZoneFileDns(zoneFile({ 'a.io': { SRV: ['x'] } })).resolve('a.io', 'A')).rejects.toThrow(
      /unsupported type SRV/,
    );
    await expect(new ZoneFileDns(zoneFile({ 'a.io': { A: [1] } })).resolve('a.io', 'A')).rejects.toThrow(
      /list of strings/,
    );
    expect(await new ZoneFileDns(join(tmpdir(), 'no-such-zone-file.json')).resolve('a.io', 'A')).toEqual([]);
  });
});
