/**
 * Composition root for AWS: builds `Deps` from the environment with the SDK adapters. A handler
 * module calls `awsDeps()` once at module scope, so the SDK clients (and their connection pools)
 * are created once per cold start and reused by every invocation.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Route53Client } from '@aws-sdk/client-route-53';
import { S3Client } from '@aws-sdk/client-s3';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SSMClient } from '@aws-sdk/client-ssm';
import * as z from 'zod';
import { SystemDns } from '../adapters/aws/dns';
import { createDocumentClient } from '../adapters/aws/dynamo';
import { Route53Zones } from '../adapters/aws/route53';
import { S3Blobs } from '../adapters/aws/s3';
import { EventBridgeScheduler } from '../adapters/aws/scheduler';
import { SesMailer } from '../adapters/aws/ses';
import { SesEmailIdentities } from '../adapters/aws/ses-identities';
import { SqsQueue } from '../adapters/aws/sqs';
import { ssmParameterLoader } from '../adapters/aws/ssm-parameter';
import { type AppConfig, type Env, parseEnv, toAppConfig } from '../config/env';
import { manifest, type QueueName } from '../manifest';
import { type BlobPort, type Deps, randomIds, type SchedulerPort, systemClock } from '../ports';
import { createStore } from '../store/store';

export type EnvSource = Record<string, string | undefined>;

/** `QUEUE_<NAME>_URL` / `QUEUE_<NAME>_ARN`: the name upper-cased, `-` as `_`. CDK sets the same. */
export function queueEnvVar(queue: string, kind: 'URL' | 'ARN'): string {
  return `QUEUE_${queue.toUpperCase().replace(/-/g, '_')}_${kind}`;
}

const sqsArn = z
  .string()
  .regex(/^arn:aws[a-z-]*:sqs:[a-z0-9-]+:\d{12}:[\w-]+(\.fifo)?$/, 'expected an SQS queue ARN');
const iamRoleArn = z
  .string()
  .regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/, 'expected an IAM role ARN');

/**
 * What the AWS adapters read beyond `envSchema`. Everything is optional so that a function is
 * configured only with what it uses (least privilege); a port whose settings are missing fails
 * when used, naming the variable. Values that are present must be well formed.
 */
export const awsEnvSchema = z.object({
  /** Role EventBridge Scheduler assumes to send to the queues. */
  SCHEDULER_ROLE_ARN: iamRoleArn.optional(),
  /** Schedule group of this deployment's one-time schedules. @default 'default' */
  SCHEDULER_GROUP_NAME: z
    .string()
    .regex(/^[0-9A-Za-z._-]{1,64}$/, 'expected 1-64 characters of [0-9A-Za-z._-]')
    .default('default'),
  /** SES configuration set whose event destination feeds the activity pipeline. */
  SES_CONFIGURATION_SET: z.string().min(1).optional(),
});

const queueShape: Record<string, z.ZodType<string | undefined>> = Object.fromEntries(
  manifest.queues.flatMap((q) => [
    [queueEnvVar(q.name, 'URL'), z.url({ protocol: /^https?$/ }).optional()],
    [queueEnvVar(q.name, 'ARN'), sqsArn.optional()],
  ]),
);
/** `QUEUE_<NAME>_URL` and `QUEUE_<NAME>_ARN` of every queue in the manifest. */
const queueEnvSchema = z.object(queueShape);

export interface AwsSettings {
  readonly env: Env;
  readonly schedulerRoleArn: string | undefined;
  readonly schedulerGroupName: string;
  readonly sesConfigurationSet: string | undefined;
  readonly queueUrls: Partial<Record<QueueName, string>>;
  readonly queueArns: Partial<Record<QueueName, string>>;
}

/** Parses and validates everything `awsDeps` reads, throwing one error that lists every problem. */
export function parseAwsSettings(source: EnvSource = process.env): AwsSettings {
  const problems: string[] = [];
  const issues = (error: z.ZodError) => error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  const aws = awsEnvSchema.safeParse(source);
  if (!aws.success) problems.push(...issues(aws.error));
  const queues = queueEnvSchema.safeParse(source);
  if (!queues.success) problems.push(...issues(queues.error));
  let env: Env | undefined;
  try {
    env = parseEnv(source);
  } catch (error) {
    if (problems.length === 0) throw error;
    problems.unshift((error as Error).message.replace(/^Invalid environment: /, ''));
  }
  if (!env || !aws.success || !queues.success) throw new Error(`Invalid environment: ${problems.join('; ')}`);

  const queueUrls: Partial<Record<QueueName, string>> = {};
  const queueArns: Partial<Record<QueueName, string>> = {};
  for (const { name: queueName } of manifest.queues) {
    const name = queueName as QueueName;
    queueUrls[name] = queues.data[queueEnvVar(name, 'URL')];
    queueArns[name] = queues.data[queueEnvVar(name, 'ARN')];
  }
  return {
    env,
    schedulerRoleArn: aws.data.SCHEDULER_ROLE_ARN,
    schedulerGroupName: aws.data.SCHEDULER_GROUP_NAME,
    sesConfigurationSet: aws.data.SES_CONFIGURATION_SET,
    queueUrls,
    queueArns,
  };
}

/** Builds the AWS `Deps`; fails fast, naming every missing or malformed variable. */
export function awsDeps(source: EnvSource = process.env): Deps {
  const settings = parseAwsSettings(source);
  const { env } = settings;
  // Region and credentials come from the Lambda environment through the SDK's default chain.
  const ses = new SESv2Client({});
  return {
    // The document client stays here: the code reaches the table only through the store.
    store: createStore(createDocumentClient(new DynamoDBClient({})), env.TABLE_NAME),
    queue: new SqsQueue(new SQSClient({}), { queueUrls: settings.queueUrls }),
    scheduler: settings.schedulerRoleArn
      ? new EventBridgeScheduler(new SchedulerClient({}), {
          groupName: settings.schedulerGroupName,
          roleArn: settings.schedulerRoleArn,
          queueArns: settings.queueArns,
        })
      : unconfiguredScheduler,
    mailer: new SesMailer(ses, { configurationSetName: settings.sesConfigurationSet }),
    dns: new SystemDns(),
    // Only the functions that declare the sender-domain uses may use these two (see PortUse in the manifest).
    emailIdentities: new SesEmailIdentities(ses),
    dnsZones: new Route53Zones(new Route53Client({})),
    blobs: env.UPLOAD_BUCKET
      ? new S3Blobs(new S3Client({}), { bucket: env.UPLOAD_BUCKET })
      : unconfiguredBlobs,
    clock: systemClock,
    ids: randomIds,
    config: awsAppConfig(env),
  };
}

/** How long a warm function reuses the link-signing key read from SSM (docs/deploy.md, rotation). */
export const LINK_SIGNING_SECRET_TTL_MS = 5 * 60 * 1000;

/**
 * The configuration of `toAppConfig`, except that the link-signing key is read from the SSM
 * parameter named by LINK_SIGNING_SECRET_PARAMETER at run time (decrypted, cached per warm
 * function), so its value is never in a function's environment. CDK sets the name only on the
 * functions granted `sign-links` (shared/manifest.ts); the others never read it.
 */
export function awsAppConfig(env: Env): AppConfig {
  const config = toAppConfig(env);
  const name = env.LINK_SIGNING_SECRET_PARAMETER;
  if (!name) return config;
  return {
    ...config,
    linkSigningSecret: ssmParameterLoader(new SSMClient({}), { name, ttlMs: LINK_SIGNING_SECRET_TTL_MS }),
  };
}

function notConfigured(what: string, variable: string): never {
  throw new Error(`${what} is not configured for this function: set ${variable}`);
}

const unconfiguredBlobs: BlobPort = {
  put: async () => notConfigured('Blob storage', 'UPLOAD_BUCKET'),
  get: async () => notConfigured('Blob storage', 'UPLOAD_BUCKET'),
  delete: async () => notConfigured('Blob storage', 'UPLOAD_BUCKET'),
};

const unconfiguredScheduler: SchedulerPort = {
  scheduleAt: async () => notConfigured('The scheduler', 'SCHEDULER_ROLE_ARN'),
  cancel: async () => notConfigured('The scheduler', 'SCHEDULER_ROLE_ARN'),
};
