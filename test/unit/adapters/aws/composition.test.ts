import { join } from 'node:path';
import { ListHostedZonesByNameCommand, Route53Client } from '@aws-sdk/client-route-53';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { GetEmailIdentityCommand, SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { awsDeps, parseAwsSettings, portsOf, queueEnvVar } from '../../../../shared/composition/aws';
import { everyUse } from '../../../../shared/composition/aws-every';
import type { EntryWiring } from '../../../../shared/http/lambda';
import { functionUses, manifest } from '../../../../shared/manifest';

const sqs = mockClient(SQSClient);
const scheduler = mockClient(SchedulerClient);
const ses = mockClient(SESv2Client);
const s3 = mockClient(S3Client);
const route53 = mockClient(Route53Client);
const dynamo = mockClient(DynamoDBDocumentClient);

const env = {
  TABLE_NAME: 'sesame-table',
  QUEUE_JOBS_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/sesame-jobs',
  QUEUE_JOBS_ARN: 'arn:aws:sqs:eu-west-1:123456789012:sesame-jobs',
  SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/sesame-scheduler',
  SCHEDULER_GROUP_NAME: 'sesame-prod',
  SES_CONFIGURATION_SET: 'sesame-events',
  UPLOAD_BUCKET: 'sesame-uploads',
  IMAGE_BUCKET: 'sesame-images',
  IMAGE_BASE_URL: 'https://d111111abcdef8.cloudfront.net',
  INBOUND_BUCKET: 'sesame-inbound',
};

beforeEach(() => {
  for (const mock of [sqs, scheduler, ses, s3, route53, dynamo]) mock.reset();
});

afterAll(() => {
  for (const mock of [sqs, scheduler, ses, s3, route53, dynamo]) mock.restore();
});

describe('queueEnvVar', () => {
  it('upper-cases the queue name and turns - into _', () => {
    expect(queueEnvVar('jobs', 'URL')).toBe('QUEUE_JOBS_URL');
    expect(queueEnvVar('campaign-send', 'ARN')).toBe('QUEUE_CAMPAIGN_SEND_ARN');
  });
});

describe('awsDeps', () => {
  it('fails fast naming a missing TABLE_NAME', () => {
    const { TABLE_NAME: _, ...rest } = env;
    expect(() => awsDeps(rest, everyUse)).toThrow(/^Invalid environment: .*TABLE_NAME/);
  });

  it('lists every problem in one error', () => {
    expect(() => awsDeps({ SCHEDULER_ROLE_ARN: 'not-an-arn', QUEUE_JOBS_URL: 'nope' }, everyUse)).toThrow(
      /TABLE_NAME.*SCHEDULER_ROLE_ARN: expected an IAM role ARN.*QUEUE_JOBS_URL/,
    );
  });

  it('wires every port from the environment', async () => {
    const deps = awsDeps(env, everyUse);
    dynamo.on(GetCommand).resolves({});
    await deps.store.get({ pk: 'a', sk: 'b' });
    expect(dynamo.commandCalls(GetCommand)[0]!.args[0].input.TableName).toBe('sesame-table');
    expect(deps.config).toMatchObject({
      storageEnabled: true,
      billingEnabled: false,
      rateLimitPerMinute: 1000,
    });
    expect(deps.clock.now()).toBeInstanceOf(Date);
    expect(deps.ids.uuid()).toMatch(/^[0-9a-f-]{36}$/);

    await deps.queue.send('jobs', { type: 'x' });
    expect(sqs.commandCalls(SendMessageCommand)[0]!.args[0].input.QueueUrl).toBe(env.QUEUE_JOBS_URL);

    await deps.scheduler.scheduleAt({
      name: 'n',
      at: new Date(Date.now() + 3_600_000),
      queue: 'jobs',
      message: { type: 'x' },
    });
    expect(scheduler.commandCalls(CreateScheduleCommand)[0]!.args[0].input).toMatchObject({
      GroupName: 'sesame-prod',
      Target: { Arn: env.QUEUE_JOBS_ARN, RoleArn: env.SCHEDULER_ROLE_ARN },
    });

    ses.on(SendEmailCommand).resolves({ MessageId: 'm' });
    await deps.mailer.sendRaw({ from: 'a@example.com', to: ['b@example.com'], raw: new Uint8Array([1]) });
    expect(ses.commandCalls(SendEmailCommand)[0]!.args[0].input.ConfigurationSetName).toBe('sesame-events');

    await deps.blobs.put('k', new Uint8Array([1]), 'text/plain');
    expect(s3.commandCalls(PutObjectCommand)[0]!.args[0].input.Bucket).toBe('sesame-uploads');

    const image = await deps.images.put('images/p/i.png', new Uint8Array([1]), 'image/png');
    expect(s3.commandCalls(PutObjectCommand)[1]!.args[0].input).toMatchObject({
      Bucket: 'sesame-images',
      Key: 'images/p/i.png',
      ContentType: 'image/png',
    });
    expect(image.url).toBe('https://d111111abcdef8.cloudfront.net/images/p/i.png');

    s3.on(GetObjectCommand).resolves({});
    await expect(deps.inboundMail.get('inbound/m')).rejects.toThrow('S3 returned no body');
    expect(s3.commandCalls(GetObjectCommand)[0]!.args[0].input).toEqual({
      Bucket: 'sesame-inbound',
      Key: 'inbound/m',
    });

    // Lambda sets AWS_REGION; SES's MAIL FROM MX host is named after it.
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    ses.on(GetEmailIdentityCommand).resolves({ VerifiedForSendingStatus: true });
    expect(await deps.emailIdentities.getDomainIdentity('acme.io')).toMatchObject({
      verifiedForSending: true,
      mailFromMx: '10 feedback-smtp.eu-west-1.amazonses.com',
    });
    vi.unstubAllEnvs();
    route53.on(ListHostedZonesByNameCommand).resolves({ HostedZones: [] });
    expect(await deps.dnsZones.findZone('acme.io')).toBeUndefined();
    expect(route53.commandCalls(ListHostedZonesByNameCommand)).toHaveLength(1);
  });

  it('builds a document client that drops undefined values', async () => {
    const deps = awsDeps(env, everyUse);
    dynamo.on(GetCommand).resolves({});
    await deps.store.get({ pk: 'a', sk: 'b' });
    // The client the store sends through.
    const [call] = dynamo.commandCalls(GetCommand);
    expect((call!.thisValue as DynamoDBDocumentClient).config.translateConfig?.marshallOptions).toEqual({
      removeUndefinedValues: true,
      convertClassInstanceToMap: false,
    });
  });

  it('answers with clear errors from ports whose settings are absent, when used', async () => {
    const deps = awsDeps({ TABLE_NAME: 't' }, everyUse);
    expect(deps.config.storageEnabled).toBe(false);
    await expect(deps.images.put('images/p/i.png', new Uint8Array([1]), 'image/png')).rejects.toThrow(
      'Image uploads is not configured for this function: set IMAGE_BUCKET and IMAGE_BASE_URL',
    );
    await expect(deps.blobs.get('k')).rejects.toThrow(
      'Blob storage is not configured for this function: set UPLOAD_BUCKET',
    );
    await expect(deps.scheduler.cancel('n')).rejects.toThrow('set SCHEDULER_ROLE_ARN');
    await expect(deps.inboundMail.get('inbound/m')).rejects.toThrow(
      'Inbound mail is not configured for this function: set INBOUND_BUCKET',
    );
    await expect(deps.queue.send('jobs', { type: 'x' })).rejects.toThrow('no URL configured');
    expect(s3.calls()).toHaveLength(0);
  });
});

describe('storage.enabled', () => {
  it('is true exactly when both the images bucket and its public URL are set', () => {
    const storage = (extra: Record<string, string>) =>
      awsDeps({ TABLE_NAME: 't', ...extra }, { uses: [], wiring: {} }).config.storageEnabled;
    expect(storage({ IMAGE_BUCKET: 'b', IMAGE_BASE_URL: 'https://d.cloudfront.net' })).toBe(true);
    expect(storage({ IMAGE_BUCKET: 'b' })).toBe(false);
    expect(storage({ IMAGE_BASE_URL: 'https://d.cloudfront.net' })).toBe(false);
    // The upload bucket of CSV imports is not image storage.
    expect(storage({ UPLOAD_BUCKET: 'u' })).toBe(false);
  });
});

describe('parseAwsSettings', () => {
  it('defaults the schedule group', () => {
    expect(parseAwsSettings({ TABLE_NAME: 't' }).schedulerGroupName).toBe('default');
  });
});

describe('each function is wired with exactly the ports its declared uses need', () => {
  for (const f of functionUses(manifest)) {
    it(`${f.kind} ${f.name}`, async () => {
      const mod = (await import(join(import.meta.dirname, '..', '..', '..', '..', f.handler))) as {
        handler: { entry: EntryWiring };
      };
      const { entry } = mod.handler;
      expect([entry.kind, entry.name]).toEqual([f.kind, f.name]);
      const wired = Object.keys(entry.wiring).sort();
      expect(wired).toEqual(portsOf(f.uses));
      // Builds nothing until used, and refuses a wiring that lacks a declared use's port.
      expect(() => awsDeps(env, { uses: f.uses, wiring: entry.wiring })).not.toThrow();
      expect(sqs.calls()).toHaveLength(0);
      expect(() => awsDeps(env, { uses: [...f.uses, 'mailer', 'queue', 'table:read'], wiring: {} })).toThrow(
        /does not match its declared uses.*missing/,
      );
    });
  }
});
