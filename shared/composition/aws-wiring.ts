/**
 * The AWS adapter factories, one per port (`AwsWiring` in shared/composition/aws.ts). An entry
 * point imports the ones its declared uses need; each loads its adapter and SDK client with a
 * dynamic `import()` when the port is first used, so a function's bundle holds only the adapters it
 * is wired with (esbuild drops the unused factories) and its cold start evaluates none of them.
 */
import type { SecretLoader } from '../config/env';
import type {
  BlobPort,
  DnsPort,
  DnsZonePort,
  EmailIdentityPort,
  MailerPort,
  QueuePort,
  SchedulerPort,
} from '../ports';
import type { Store } from '../store/store';
import { type AwsSettings, LINK_SIGNING_SECRET_TTL_MS, type PortFactory } from './aws';

export const dynamoStore: PortFactory<Store> = async ({ env }) => {
  const [{ DynamoDBClient }, { createDocumentClient }, { createStore }] = await Promise.all([
    import('@aws-sdk/client-dynamodb'),
    import('../adapters/aws/dynamo'),
    import('../store/store'),
  ]);
  // Region and credentials come from the Lambda environment through the SDK's default chain.
  return createStore(createDocumentClient(new DynamoDBClient({})), env.TABLE_NAME);
};

export const sqsQueue: PortFactory<QueuePort> = async (settings) => {
  const [{ SQSClient }, { SqsQueue }] = await Promise.all([
    import('@aws-sdk/client-sqs'),
    import('../adapters/aws/sqs'),
  ]);
  return new SqsQueue(new SQSClient({}), { queueUrls: settings.queueUrls });
};

export const eventBridgeScheduler: PortFactory<SchedulerPort> = async (settings: AwsSettings) => {
  const [{ SchedulerClient }, { EventBridgeScheduler }] = await Promise.all([
    import('@aws-sdk/client-scheduler'),
    import('../adapters/aws/scheduler'),
  ]);
  return new EventBridgeScheduler(new SchedulerClient({}), {
    groupName: settings.schedulerGroupName,
    // awsDeps answers with an unconfigured scheduler when the role is missing.
    roleArn: settings.schedulerRoleArn ?? '',
    queueArns: settings.queueArns,
  });
};

/** One SES client per cold start, shared by the mailer and the identities. */
let sesClient: Promise<import('@aws-sdk/client-sesv2').SESv2Client> | undefined;
const ses = () => {
  sesClient ??= import('@aws-sdk/client-sesv2').then(({ SESv2Client }) => new SESv2Client({}));
  return sesClient;
};

export const sesMailer: PortFactory<MailerPort> = async (settings) => {
  const [client, { SesMailer }] = await Promise.all([ses(), import('../adapters/aws/ses')]);
  return new SesMailer(client, { configurationSetName: settings.sesConfigurationSet });
};

export const sesEmailIdentities: PortFactory<EmailIdentityPort> = async () => {
  const [client, { SesEmailIdentities }] = await Promise.all([
    ses(),
    import('../adapters/aws/ses-identities'),
  ]);
  return new SesEmailIdentities(client);
};

export const route53Zones: PortFactory<DnsZonePort> = async () => {
  const [{ Route53Client }, { Route53Zones }] = await Promise.all([
    import('@aws-sdk/client-route-53'),
    import('../adapters/aws/route53'),
  ]);
  return new Route53Zones(new Route53Client({}));
};

export const systemDns: PortFactory<DnsPort> = async () => {
  const { SystemDns } = await import('../adapters/aws/dns');
  return new SystemDns();
};

export const s3Blobs: PortFactory<BlobPort> = async ({ env }) => {
  const [{ S3Client }, { S3Blobs }] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('../adapters/aws/s3'),
  ]);
  // awsDeps answers with unconfigured blobs when the bucket is missing.
  return new S3Blobs(new S3Client({}), { bucket: env.UPLOAD_BUCKET ?? '' });
};

export const ssmLinkSigningSecret = async (name: string): Promise<SecretLoader> => {
  const [{ SSMClient }, { ssmParameterLoader }] = await Promise.all([
    import('@aws-sdk/client-ssm'),
    import('../adapters/aws/ssm-parameter'),
  ]);
  return ssmParameterLoader(new SSMClient({}), { name, ttlMs: LINK_SIGNING_SECRET_TTL_MS });
};
