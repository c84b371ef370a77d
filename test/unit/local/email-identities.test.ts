import { describe, expect, it } from 'vitest';
import { LocalEmailIdentities } from '../../../shared/adapters/local/email-identities';
import type { DnsPort, DnsRecordType } from '../../../shared/ports';
import { tempDir } from './helpers';

/** DNS answering from a map that tests edit: `name TYPE` -> answers. */
function fakeDns() {
  const answers = new Map<string, string[]>();
  const dns: DnsPort = {
    resolve: async (name: string, type: DnsRecordType) => answers.get(`${name} ${type}`) ?? [],
  };
  return { dns, answers };
}

describe('LocalEmailIdentities', () => {
  it('creates SES-shaped tokens, and verifies once the three CNAMEs resolve', async () => {
    const { dns, answers } = fakeDns();
    const ses = new LocalEmailIdentities({ dns });
    const { created, identity } = await ses.createDomainIdentity('Acme.io');
    expect(created).toBe(true);
    expect(identity).toMatchObject({
      domain: 'acme.io',
      verifiedForSending: false,
      dkimStatus: 'PENDING',
      mailFromMx: '10 feedback-smtp.us-east-1.amazonses.com',
    });
    expect(identity.dkimRecords).toHaveLength(3);
    for (const r of identity.dkimRecords) {
      const token = /^([a-z2-7]{32})\._domainkey\.acme\.io$/.exec(r.name)?.[1];
      expect(r.value).toBe(`${token}.dkim.amazonses.com`);
    }

    const [first, second, third] = identity.dkimRecords;
    answers.set(`${first!.name} CNAME`, [first!.value]);
    answers.set(`${second!.name} CNAME`, [`${second!.value}.`]);
    expect((await ses.getDomainIdentity('acme.io'))?.verifiedForSending).toBe(false);
    answers.set(`${third!.name} CNAME`, ['wrong.dkim.amazonses.com']);
    expect((await ses.getDomainIdentity('acme.io'))?.verifiedForSending).toBe(false);
    answers.set(`${third!.name} CNAME`, [third!.value.toUpperCase()]);
    expect(await ses.getDomainIdentity('acme.io')).toMatchObject({
      verifiedForSending: true,
      dkimStatus: 'SUCCESS',
    });
  });

  it('follows the MAIL FROM MX, and leaves an existing identity as it is', async () => {
    const { dns, answers } = fakeDns();
    const ses = new LocalEmailIdentities({ dns, region: 'eu-west-1' });
    const first = await ses.createDomainIdentity('acme.io');
    await ses.setMailFromDomain('acme.io', 'mail.acme.io');
    expect(await ses.getDomainIdentity('acme.io')).toMatchObject({
      mailFromDomain: 'mail.acme.io',
      mailFromStatus: 'PENDING',
    });
    answers.set('mail.acme.io MX', ['10 feedback-smtp.eu-west-1.amazonses.com']);
    expect((await ses.getDomainIdentity('acme.io'))?.mailFromStatus).toBe('SUCCESS');

    const again = await ses.createDomainIdentity('acme.io');
    expect(again.created).toBe(false);
    expect(again.identity.dkimRecords).toEqual(first.identity.dkimRecords);
    expect(again.identity.mailFromDomain).toBe('mail.acme.io');
  });

  it('reports FAILED 72 hours after creation, as SES gives up', async () => {
    let now = Date.parse('2025-01-01T00:00:00Z');
    const ses = new LocalEmailIdentities({ dns: fakeDns().dns, clock: { now: () => new Date(now) } });
    await ses.createDomainIdentity('late.io');
    await ses.setMailFromDomain('late.io', 'mail.late.io');
    now += 71 * 3600_000;
    expect((await ses.getDomainIdentity('late.io'))?.dkimStatus).toBe('PENDING');
    now += 2 * 3600_000;
    expect(await ses.getDomainIdentity('late.io')).toMatchObject({
      dkimStatus: 'FAILED',
      mailFromStatus: 'FAILED',
      verifiedForSending: false,
    });
  });

  it('counts an identity marked verified as verified without DNS', async () => {
    const ses = new LocalEmailIdentities({ dns: fakeDns().dns });
    ses.markVerified('example.com');
    expect(await ses.getDomainIdentity('example.com')).toMatchObject({
      verifiedForSending: true,
      dkimStatus: 'SUCCESS',
    });
    expect((await ses.createDomainIdentity('example.com')).created).toBe(false);
  });

  it('deletes identities, and keeps them in the data folder across instances', async () => {
    const dir = tempDir('sesame-ses-');
    const { dns } = fakeDns();
    const one = new LocalEmailIdentities({ dns, dataDir: dir });
    const created = await one.createDomainIdentity('kept.io');
    await one.createDomainIdentity('dropped.io');
    await one.deleteDomainIdentity('dropped.io');
    await one.deleteDomainIdentity('never.io');

    const two = new LocalEmailIdentities({ dns, dataDir: dir });
    expect((await two.getDomainIdentity('kept.io'))?.dkimRecords).toEqual(created.identity.dkimRecords);
    expect(await two.getDomainIdentity('dropped.io')).toBeUndefined();
    await expect(two.setMailFromDomain('dropped.io', 'mail.dropped.io')).rejects.toThrow(/no identity/);
  });
});
