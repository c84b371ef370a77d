import {
  AccountSuspendedException,
  GetAccountCommand,
  InternalServiceErrorException,
  MailFromDomainNotVerifiedException,
  MessageRejected,
  SESv2Client,
  SESv2ServiceException,
  SendEmailCommand,
  TooManyRequestsException,
} from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  PermanentSendError,
  RetryableSendError,
  SesMailer,
  sesTags,
} from '../../../../shared/adapters/aws/ses';

const client = new SESv2Client({ region: 'eu-west-1' });
const ses = mockClient(client);
const mailer = new SesMailer(client, { configurationSetName: 'sesame-events' });
const raw = new TextEncoder().encode('From: a@example.com\r\nTo: b@example.org\r\n\r\nhi');
const email = { from: 'a@example.com', to: ['b@example.org', 'c@example.org'], raw };

type ServiceErrorClass = new (o: { message: string; $metadata: Record<string, never> }) => Error;

/** An SDK service error as the client would throw it. */
const err = <T>(Type: new (o: { message: string; $metadata: Record<string, never> }) => T, message = 'x') =>
  new Type({ message, $metadata: {} });

beforeEach(() => {
  ses.reset();
  ses.on(SendEmailCommand).resolves({ MessageId: '0102-abc' });
});

describe('SesMailer', () => {
  it('sends the raw message with envelope, configuration set and tags', async () => {
    const result = await mailer.sendRaw({
      ...email,
      tags: { emailId: 'e_1', projectId: 'p-1', to: 'b@x.org' },
    });

    expect(result).toEqual({ messageId: '0102-abc' });
    expect(ses.commandCalls(SendEmailCommand)[0]!.args[0].input).toStrictEqual({
      FromEmailAddress: 'a@example.com',
      Destination: { ToAddresses: ['b@example.org', 'c@example.org'] },
      Content: { Raw: { Data: raw } },
      ConfigurationSetName: 'sesame-events',
      EmailTags: [
        { Name: 'emailId', Value: 'e_1' },
        { Name: 'projectId', Value: 'p-1' },
        { Name: 'to', Value: 'b_x_org' },
      ],
    });
  });

  it('leaves out the configuration set and tags when there are none', async () => {
    await new SesMailer(client).sendRaw(email);
    const input = ses.commandCalls(SendEmailCommand)[0]!.args[0].input;
    expect(input.ConfigurationSetName).toBeUndefined();
    expect(input.EmailTags).toBeUndefined();
  });

  it('fails if SES returns no MessageId', async () => {
    ses.on(SendEmailCommand).resolves({});
    await expect(mailer.sendRaw(email)).rejects.toThrow('no MessageId');
  });

  it('maps throttling to a retryable error', async () => {
    const cause = err(TooManyRequestsException, 'Maximum sending rate exceeded.');
    ses.on(SendEmailCommand).rejects(cause);
    const error = await mailer.sendRaw(email).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetryableSendError);
    expect(error).toMatchObject({ code: 'SEND_RETRYABLE', reason: 'RATE_EXCEEDED', cause });
  });

  it('tells an exhausted daily quota apart', async () => {
    const cause = new SESv2ServiceException({
      name: 'ThrottlingException',
      $fault: 'client',
      message: 'Daily message quota exceeded.',
      $metadata: { httpStatusCode: 400 },
    });
    ses.on(SendEmailCommand).rejects(cause);
    await expect(mailer.sendRaw(email)).rejects.toMatchObject({
      name: 'RetryableSendError',
      reason: 'DAILY_QUOTA_EXCEEDED',
    });
  });

  it('maps SES faults to a retryable error', async () => {
    ses.on(SendEmailCommand).rejects(err(InternalServiceErrorException));
    await expect(mailer.sendRaw(email)).rejects.toMatchObject({ reason: 'SERVICE_ERROR' });
  });

  it.each<[ServiceErrorClass, string]>([
    [MessageRejected, 'MESSAGE_REJECTED'],
    [MailFromDomainNotVerifiedException, 'MAIL_FROM_DOMAIN_NOT_VERIFIED'],
    [AccountSuspendedException, 'ACCOUNT_SUSPENDED'],
  ])('maps %o to a permanent error with its reason', async (Type, reason) => {
    const cause = err<Error>(Type, 'Email address is not verified.');
    ses.on(SendEmailCommand).rejects(cause);
    const error = await mailer.sendRaw(email).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermanentSendError);
    expect(error).toMatchObject({ code: 'SEND_REJECTED', reason, cause });
    expect((error as Error).message).toContain('Email address is not verified.');
  });

  it('rethrows errors it does not know unchanged', async () => {
    const cause = new Error('socket hang up');
    ses.on(SendEmailCommand).rejects(cause);
    await expect(mailer.sendRaw(email)).rejects.toBe(cause);
  });
});

describe('SesMailer.maxSendRate', () => {
  const quotaMailer = (now: { t: number }, errors: unknown[] = []) =>
    new SesMailer(client, { now: () => now.t, quotaTtlMs: 60_000, onQuotaError: (e) => errors.push(e) });

  it("answers the account's SendQuota.MaxSendRate and reuses one read for the TTL", async () => {
    ses.on(GetAccountCommand).resolves({ SendQuota: { MaxSendRate: 40, Max24HourSend: 50_000 } });
    const now = { t: 0 };
    const m = quotaMailer(now);
    expect(await Promise.all([m.maxSendRate(), m.maxSendRate()])).toEqual([40, 40]);
    now.t = 59_999;
    expect(await m.maxSendRate()).toBe(40);
    expect(ses.commandCalls(GetAccountCommand)).toHaveLength(1);
    ses.on(GetAccountCommand).resolves({ SendQuota: { MaxSendRate: 1 } });
    now.t = 60_000;
    expect(await m.maxSendRate()).toBe(1);
    expect(ses.commandCalls(GetAccountCommand)).toHaveLength(2);
  });

  it('answers undefined when the read fails, tells why, and reads again on the next call', async () => {
    const denied = err<Error>(SESv2ServiceException as unknown as ServiceErrorClass, 'not authorized');
    ses
      .on(GetAccountCommand)
      .rejectsOnce(denied)
      .resolves({ SendQuota: { MaxSendRate: 14 } });
    const errors: unknown[] = [];
    const m = quotaMailer({ t: 0 }, errors);
    expect(await m.maxSendRate()).toBeUndefined();
    expect(errors).toEqual([denied]);
    expect(await m.maxSendRate()).toBe(14);
    expect(ses.commandCalls(GetAccountCommand)).toHaveLength(2);
  });

  it('answers undefined for a missing or non-positive rate', async () => {
    ses.on(GetAccountCommand).resolves({});
    expect(await quotaMailer({ t: 0 }).maxSendRate()).toBeUndefined();
    ses.on(GetAccountCommand).resolves({ SendQuota: { MaxSendRate: 0 } });
    expect(await quotaMailer({ t: 0 }).maxSendRate()).toBeUndefined();
  });
});

describe('sesTags', () => {
  it('keeps SES-safe characters, replaces others, caps length and drops empty tags', () => {
    expect(
      sesTags({ 'a.b': 'x y@z', ok: 'A-z_09', empty: '', '': 'v', long: 'v'.repeat(300) }),
    ).toStrictEqual([
      { Name: 'a_b', Value: 'x_y_z' },
      { Name: 'ok', Value: 'A-z_09' },
      { Name: 'long', Value: 'v'.repeat(256) },
    ]);
  });
});
