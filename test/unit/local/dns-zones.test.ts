import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ZoneFileDns } from '../../../shared/adapters/local/dns';
import { ZoneFileDnsZones } from '../../../shared/adapters/local/dns-zones';
import { zoneFile } from './helpers';

describe('ZoneFileDnsZones', () => {
  it('has no zones without a zone file, or when the file is missing', async () => {
    expect(await new ZoneFileDnsZones(undefined).findZone('acme.io')).toBeUndefined();
    expect(await new ZoneFileDnsZones(zoneFile()).findZone('acme.io')).toBeUndefined();
    await expect(
      new ZoneFileDnsZones(undefined).upsertRecords({ id: 'x', name: 'acme.io' }, []),
    ).rejects.toThrow(/SESAME_DNS_FILE/);
  });

  it('takes names with NS records as zones, the closest one at or above the domain', async () => {
    const zones = new ZoneFileDnsZones(
      zoneFile({
        'Acme.io.': { NS: 'ns1.acme.io' },
        'shop.acme.io': { NS: ['ns1.shop.acme.io'] },
        'plain.io': { MX: '10 mx.plain.io' },
      }),
    );
    expect(await zones.findZone('acme.io')).toEqual({ id: 'local:acme.io', name: 'acme.io' });
    expect(await zones.findZone('mail.news.acme.io')).toEqual({ id: 'local:acme.io', name: 'acme.io' });
    expect(await zones.findZone('x.shop.acme.io')).toEqual({
      id: 'local:shop.acme.io',
      name: 'shop.acme.io',
    });
    expect(await zones.findZone('plain.io')).toBeUndefined();
  });

  it('upserts records into the file, keeping everything else, and DNS answers them at once', async () => {
    const path = zoneFile({
      'acme.io': { NS: ['ns1.acme.io'] },
      'MAIL.acme.io.': { a: '192.0.2.1', mx: '10 old.acme.io' },
    });
    const zones = new ZoneFileDnsZones(path);
    const dns = new ZoneFileDns(path);
    expect(await dns.resolve('mail.acme.io', 'MX')).toEqual(['10 old.acme.io']);
    const zone = (await zones.findZone('acme.io'))!;
    await zones.upsertRecords(zone, [
      { type: 'MX', name: 'mail.acme.io', value: '10 feedback-smtp.us-east-1.amazonses.com' },
      { type: 'TXT', name: 'mail.acme.io', value: 'v=spf1 include:amazonses.com ~all' },
      { type: 'CNAME', name: 't1._domainkey.acme.io', value: 't1.dkim.amazonses.com' },
    ]);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      'acme.io': { NS: ['ns1.acme.io'] },
      'MAIL.acme.io.': {
        a: '192.0.2.1',
        mx: ['10 feedback-smtp.us-east-1.amazonses.com'],
        TXT: ['v=spf1 include:amazonses.com ~all'],
      },
      't1._domainkey.acme.io': { CNAME: ['t1.dkim.amazonses.com'] },
    });
    expect(await dns.resolve('mail.acme.io', 'MX')).toEqual(['10 feedback-smtp.us-east-1.amazonses.com']);
    expect(await dns.resolve('mail.acme.io', 'A')).toEqual(['192.0.2.1']);
  });

  it('refuses records outside the zone, and a zone file it cannot read, writing nothing', async () => {
    const path = zoneFile({ 'acme.io': { NS: ['ns1.acme.io'] } });
    const zones = new ZoneFileDnsZones(path);
    const before = readFileSync(path, 'utf8');
    await expect(
      zones.upsertRecords({ id: 'local:acme.io', name: 'acme.io' }, [
        { type: 'TXT', name: '_dmarc.evilacme.io', value: 'v=DMARC1; p=none;' },
      ]),
    ).rejects.toThrow(/not in the zone acme\.io/);
    expect(readFileSync(path, 'utf8')).toBe(before);

    const broken = zoneFile('{"acme.io": ');
    await expect(
      new ZoneFileDnsZones(broken).upsertRecords({ id: 'local:acme.io', name: 'acme.io' }, []),
    ).rejects.toThrow(/not valid JSON/);
    expect(readFileSync(broken, 'utf8')).toBe('{"acme.io": ');
  });
});
