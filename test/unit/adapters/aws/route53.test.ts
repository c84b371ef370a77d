import {
  ChangeResourceRecordSetsCommand,
  ListHostedZonesByNameCommand,
  type ListHostedZonesByNameCommandInput,
  Route53Client,
} from '@aws-sdk/client-route-53';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { Route53Zones, txtValue } from '../../../../shared/adapters/aws/route53';

const client = new Route53Client({ region: 'us-east-1' });
const route53 = mockClient(client);
const zones = new Route53Zones(client);

const zone = (name: string, id: string, privateZone = false) => ({
  Id: `/hostedzone/${id}`,
  Name: `${name}.`,
  CallerReference: id,
  Config: { PrivateZone: privateZone },
});

/** Answers ListHostedZonesByName as Route 53 would: zones sorted from the given name on. */
function account(all: ReturnType<typeof zone>[]) {
  const reversed = (name: string) => name.replace(/\.$/, '').split('.').reverse().join('.');
  route53.on(ListHostedZonesByNameCommand).callsFake((input: ListHostedZonesByNameCommandInput) => {
    const from = reversed(input.DNSName ?? '');
    const sorted = [...all].sort((a, b) => reversed(a.Name).localeCompare(reversed(b.Name)));
    const page = sorted.filter((z) => reversed(z.Name) >= from).slice(0, input.MaxItems ?? 100);
    return { HostedZones: page, IsTruncated: false, MaxItems: input.MaxItems ?? 100 };
  });
}

beforeEach(() => route53.reset());
afterAll(() => route53.restore());

describe('Route53Zones.findZone', () => {
  it('finds the zone named like the domain', async () => {
    account([zone('acme.io', 'Z1'), zone('other.io', 'Z2')]);
    expect(await zones.findZone('acme.io')).toEqual({ id: 'Z1', name: 'acme.io' });
    expect(route53.commandCalls(ListHostedZonesByNameCommand)[0]!.args[0].input).toEqual({
      DNSName: 'acme.io',
      MaxItems: 10,
    });
  });

  it('walks up to the closest parent zone, never asking for the TLD', async () => {
    account([zone('acme.io', 'Z1')]);
    expect(await zones.findZone('News.Mail.acme.io.')).toEqual({ id: 'Z1', name: 'acme.io' });
    expect(route53.commandCalls(ListHostedZonesByNameCommand).map((c) => c.args[0].input.DNSName)).toEqual([
      'news.mail.acme.io',
      'mail.acme.io',
      'acme.io',
    ]);
    route53.resetHistory();
    expect(await zones.findZone('unhosted.dev')).toBeUndefined();
    expect(route53.commandCalls(ListHostedZonesByNameCommand).map((c) => c.args[0].input.DNSName)).toEqual([
      'unhosted.dev',
    ]);
  });

  it('prefers a closer zone and ignores private zones', async () => {
    account([zone('acme.io', 'Z1'), zone('mail.acme.io', 'ZP', true), zone('shop.acme.io', 'Z3')]);
    expect(await zones.findZone('shop.acme.io')).toEqual({ id: 'Z3', name: 'shop.acme.io' });
    expect(await zones.findZone('mail.acme.io')).toEqual({ id: 'Z1', name: 'acme.io' });
  });

  it('refuses to guess between two public zones of the same name', async () => {
    account([zone('acme.io', 'Z1'), zone('acme.io', 'Z2')]);
    await expect(zones.findZone('acme.io')).rejects.toThrow(/2 public hosted zones named acme\.io/);
  });
});

describe('Route53Zones.upsertRecords', () => {
  it('upserts every record set in one change batch, quoting TXT values', async () => {
    route53.on(ChangeResourceRecordSetsCommand).resolves({
      ChangeInfo: { Id: 'C1', Status: 'PENDING', SubmittedAt: new Date() },
    });
    await zones.upsertRecords({ id: 'Z1', name: 'acme.io' }, [
      { type: 'CNAME', name: 't1._domainkey.acme.io', value: 't1.dkim.amazonses.com' },
      { type: 'MX', name: 'mail.acme.io', value: '10 feedback-smtp.eu-west-1.amazonses.com' },
      { type: 'TXT', name: '_dmarc.acme.io', value: 'v=DMARC1; p=none;' },
    ]);
    const input = route53.commandCalls(ChangeResourceRecordSetsCommand)[0]!.args[0].input;
    expect(input.HostedZoneId).toBe('Z1');
    expect(input.ChangeBatch?.Changes).toEqual([
      {
        Action: 'UPSERT',
        ResourceRecordSet: {
          Name: 't1._domainkey.acme.io',
          Type: 'CNAME',
          TTL: 300,
          ResourceRecords: [{ Value: 't1.dkim.amazonses.com' }],
        },
      },
      {
        Action: 'UPSERT',
        ResourceRecordSet: {
          Name: 'mail.acme.io',
          Type: 'MX',
          TTL: 300,
          ResourceRecords: [{ Value: '10 feedback-smtp.eu-west-1.amazonses.com' }],
        },
      },
      {
        Action: 'UPSERT',
        ResourceRecordSet: {
          Name: '_dmarc.acme.io',
          Type: 'TXT',
          TTL: 300,
          ResourceRecords: [{ Value: '"v=DMARC1; p=none;"' }],
        },
      },
    ]);
  });

  it('sends nothing for no records', async () => {
    await zones.upsertRecords({ id: 'Z1', name: 'acme.io' }, []);
    expect(route53.commandCalls(ChangeResourceRecordSetsCommand)).toHaveLength(0);
  });
});

describe('txtValue', () => {
  it('escapes quotes and backslashes and splits into 255-character strings', () => {
    expect(txtValue('a "b" \\c')).toBe('"a \\"b\\" \\\\c"');
    expect(txtValue('')).toBe('""');
    const long = 'x'.repeat(300);
    expect(txtValue(long)).toBe(`"${'x'.repeat(255)}" "${'x'.repeat(45)}"`);
  });
});
