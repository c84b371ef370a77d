import {
  AlreadyExistsException,
  CreateEmailIdentityCommand,
  DeleteEmailIdentityCommand,
  GetEmailIdentityCommand,
  NotFoundException,
  PutEmailIdentityMailFromAttributesCommand,
  SESv2Client,
  TooManyRequestsException,
} from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SesEmailIdentities } from '../../../../shared/adapters/aws/ses-identities';

const client = new SESv2Client({ region: 'eu-west-1' });
const ses = mockClient(client);
const identities = new SesEmailIdentities(client);

const err = <T>(Type: new (o: { message: string; $metadata: Record<string, never> }) => T, message = 'x') =>
  new Type({ message, $metadata: {} });

const tokens = ['aaaa1111', 'bbbb2222', 'cccc3333'];

beforeEach(() => ses.reset());
afterAll(() => ses.restore());

describe('SesEmailIdentities', () => {
  it('creates an Easy DKIM identity and answers its CNAMEs and the regional MAIL FROM MX', async () => {
    ses.on(CreateEmailIdentityCommand).resolves({
      IdentityType: 'DOMAIN',
      VerifiedForSendingStatus: false,
      DkimAttributes: { Status: 'PENDING', Tokens: tokens, SigningAttributesOrigin: 'AWS_SES' },
    });
    const out = await identities.createDomainIdentity('acme.io');

    expect(ses.commandCalls(CreateEmailIdentityCommand)[0]!.args[0].input).toStrictEqual({
      EmailIdentity: 'acme.io',
    });
    expect(out).toEqual({
      created: true,
      identity: {
        domain: 'acme.io',
        verifiedForSending: false,
        dkimStatus: 'PENDING',
        dkimRecords: tokens.map((t) => ({
          name: `${t}._domainkey.acme.io`,
          value: `${t}.dkim.amazonses.com`,
        })),
        mailFromDomain: undefined,
        mailFromStatus: undefined,
        mailFromMx: '10 feedback-smtp.eu-west-1.amazonses.com',
      },
    });
  });

  it('uses the signing zone SES names (regions with their own DKIM zone)', async () => {
    ses.on(GetEmailIdentityCommand).resolves({
      VerifiedForSendingStatus: true,
      DkimAttributes: {
        Status: 'SUCCESS',
        Tokens: ['t1'],
        SigningHostedZone: 'dkim.af-south-1.amazonses.com',
      },
      MailFromAttributes: {
        MailFromDomain: 'mail.acme.io',
        MailFromDomainStatus: 'SUCCESS',
        BehaviorOnMxFailure: 'USE_DEFAULT_VALUE',
      },
    });
    const identity = await identities.getDomainIdentity('acme.io');
    expect(identity).toMatchObject({
      verifiedForSending: true,
      dkimStatus: 'SUCCESS',
      dkimRecords: [{ name: 't1._domainkey.acme.io', value: 't1.dkim.af-south-1.amazonses.com' }],
      mailFromDomain: 'mail.acme.io',
      mailFromStatus: 'SUCCESS',
    });
  });

  it('answers no CNAMEs for an identity signing with its own key (tokens are selectors then)', async () => {
    ses.on(GetEmailIdentityCommand).resolves({
      DkimAttributes: { Status: 'SUCCESS', Tokens: ['selector1'], SigningAttributesOrigin: 'EXTERNAL' },
    });
    expect((await identities.getDomainIdentity('acme.io'))?.dkimRecords).toEqual([]);
  });

  it('returns an existing identity as it is, with created: false', async () => {
    ses.on(CreateEmailIdentityCommand).rejects(err(AlreadyExistsException));
    ses.on(GetEmailIdentityCommand).resolves({
      VerifiedForSendingStatus: true,
      DkimAttributes: { Status: 'SUCCESS', Tokens: tokens },
    });
    const out = await identities.createDomainIdentity('acme.io');
    expect(out.created).toBe(false);
    expect(out.identity).toMatchObject({ verifiedForSending: true, dkimStatus: 'SUCCESS' });
    expect(ses.commandCalls(GetEmailIdentityCommand)[0]!.args[0].input).toEqual({ EmailIdentity: 'acme.io' });
  });

  it('creates again when the existing identity vanished between the calls', async () => {
    ses
      .on(CreateEmailIdentityCommand)
      .rejectsOnce(err(AlreadyExistsException))
      .resolves({ DkimAttributes: { Status: 'PENDING', Tokens: tokens } });
    ses.on(GetEmailIdentityCommand).rejects(err(NotFoundException));
    const out = await identities.createDomainIdentity('acme.io');
    expect(out.created).toBe(true);
    expect(ses.commandCalls(CreateEmailIdentityCommand)).toHaveLength(2);
  });

  it('sets the MAIL FROM domain, falling back to SES own while its MX is missing', async () => {
    ses.on(PutEmailIdentityMailFromAttributesCommand).resolves({});
    await identities.setMailFromDomain('acme.io', 'mail.acme.io');
    expect(ses.commandCalls(PutEmailIdentityMailFromAttributesCommand)[0]!.args[0].input).toStrictEqual({
      EmailIdentity: 'acme.io',
      MailFromDomain: 'mail.acme.io',
      BehaviorOnMxFailure: 'USE_DEFAULT_VALUE',
    });
  });

  it('answers undefined for an unknown identity, and deletes unknown ones without error', async () => {
    ses.on(GetEmailIdentityCommand).rejects(err(NotFoundException));
    ses.on(DeleteEmailIdentityCommand).rejects(err(NotFoundException));
    expect(await identities.getDomainIdentity('nope.io')).toBeUndefined();
    await expect(identities.deleteDomainIdentity('nope.io')).resolves.toBeUndefined();
    expect(ses.commandCalls(DeleteEmailIdentityCommand)[0]!.args[0].input).toEqual({
      EmailIdentity: 'nope.io',
    });
  });

  it('rethrows other errors', async () => {
    ses.on(GetEmailIdentityCommand).rejects(err(TooManyRequestsException, 'slow down'));
    ses.on(DeleteEmailIdentityCommand).rejects(err(TooManyRequestsException, 'slow down'));
    ses.on(CreateEmailIdentityCommand).rejects(err(TooManyRequestsException, 'slow down'));
    await expect(identities.getDomainIdentity('acme.io')).rejects.toThrow('slow down');
    await expect(identities.deleteDomainIdentity('acme.io')).rejects.toThrow('slow down');
    await expect(identities.createDomainIdentity('acme.io')).rejects.toThrow('slow down');
  });
});
