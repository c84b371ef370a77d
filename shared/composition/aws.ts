/**
 * Composition root for AWS: builds `Deps` from the environment. A function builds only the ports
 * its manifest entry declares it `uses`, each on first use: `awsDeps` takes the declared uses and
 * the function's `AwsWiring` (the adapter factories of shared/composition/aws-wiring/ the entry
 * point imports, so the bundle of a function holds only the adapters and SDK clients it uses), and
 * answers ports that build their adapter on their first call. The SDK clients (and their
 * connection pools) are created once per cold start, at first use, and reused by every invocation.
 */
import * as z from 'zod/mini';
import { type AppConfig, type Env, parseEnv, type SecretLoader, toAppConfig } from '../config/env';
import { manifest, type PortUse, type QueueName } from '../manifest';
import {
  type BillingPort,
  type BlobPort,
  type Deps,
  type DnsPort,
  type DnsZonePort,
  type EmailIdentityPort,
  type ImagePort,
  type InboundMailPort,
  type MailerPort,
  type QueuePort,
  randomIds,
  type SchedulerPort,
  type SnsEndpointsPort,
  systemClock,
} from '../ports';
import { type Store, type StoreRequests, storeOver } from '../store/store';

export type EnvSource = Record<string, string | undefined>;

/** `QUEUE_<NAME>_URL` / `QUEUE_<NAME>_ARN`: the name upper-cased, `-` as `_`. CDK sets the same. */
export function queueEnvVar(queue: string, kind: 'URL' | 'ARN'): string {
  return `QUEUE_${queue.toUpperCase().replace(/-/g, '_')}_${kind}`;
}

const sqsArn = z
  .string()
  .check(z.regex(/^arn:aws[a-z-]*:sqs:[a-z0-9-]+:\d{12}:[\w-]+(\.fifo)?$/, 'expected an SQS queue ARN'));
const iamRoleArn = z
  .string()
  .check(z.regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/, 'expected an IAM role ARN'));
/** A standard SNS topic's ARN (SES cannot publish to FIFO topics). */
export const snsTopicArn = z
  .string()
  .check(z.regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[\w-]{1,256}$/, 'expected an SNS topic ARN'));

/**
 * What the AWS adapters read beyond `envSchema`. Everything is optional so that a function is
 * configured only with what it uses (least privilege); a port whose settings are missing fails
 * when used, naming the variable. Values that are present must be well formed.
 */
export const awsEnvSchema = z.object({
  /** Role EventBridge Scheduler assumes to send to the queues. */
  SCHEDULER_ROLE_ARN: z.optional(iamRoleArn),
  /** Schedule group of this deployment's one-time schedules. @default 'default' */
  SCHEDULER_GROUP_NAME: z._default(
    z.string().check(z.regex(/^[0-9A-Za-z._-]{1,64}$/, 'expected 1-64 characters of [0-9A-Za-z._-]')),
    'default',
  ),
  /** SES configuration set whose event destination feeds the activity pipeline. */
  SES_CONFIGURATION_SET: z.optional(z.string().check(z.minLength(1))),
  /** The SES event topic whose HTTPS deliveries `POST /webhooks/sns` accepts (`AppConfig.sesEventsTopicArn`). */
  SES_EVENTS_TOPIC_ARN: z.optional(snsTopicArn),
  /**
   * The bucket SES stores received mail in (`deps.inboundMail`); set only where the deployment
   * receives mail (`-c inboundDomain=...`) and the function declares `inbound-mail`.
   */
  INBOUND_BUCKET: z.optional(
    z.string().check(z.regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'expected an S3 bucket name')),
  ),
});

const queueShape: Record<string, z.ZodMiniType<string | undefined>> = Object.fromEntries(
  manifest.queues.flatMap((q) => [
    [queueEnvVar(q.name, 'URL'), z.optional(z.url({ protocol: /^https?$/ }))],
    [queueEnvVar(q.name, 'ARN'), z.optional(sqsArn)],
  ]),
);
/** `QUEUE_<NAME>_URL` and `QUEUE_<NAME>_ARN` of every queue in the manifest. */
const queueEnvSchema = z.object(queueShape);

export interface AwsSettings {
  readonly env: Env;
  readonly schedulerRoleArn: string | undefined;
  readonly schedulerGroupName: string;
  readonly sesConfigurationSet: string | undefined;
  readonly sesEventsTopicArn: string | undefined;
  readonly inboundBucket: string | undefined;
  readonly queueUrls: Partial<Record<QueueName, string>>;
  readonly queueArns: Partial<Record<QueueName, string>>;
}

/** Parses and validates everything `awsDeps` reads, throwing one error that lists every problem. */
export function parseAwsSettings(source: EnvSource = process.env): AwsSettings {
  const problems: string[] = [];
  const issues = (error: z.core.$ZodError) => error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
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
    sesEventsTopicArn: aws.data.SES_EVENTS_TOPIC_ARN,
    inboundBucket: aws.data.INBOUND_BUCKET,
    queueUrls,
    queueArns,
  };
}

/** Builds one port's adapter (and its SDK client) from the settings; called on the port's first use. */
export type PortFactory<T> = (settings: AwsSettings) => Promise<T>;

/**
 * The adapter factories a function is wired with: exactly the ports its declared uses need. Each
 * factory is a module of its own in ./aws-wiring/, and an entry point imports only the ones it is
 * wired with: functions are split into chunks (lib/bundling.ts), and every dynamic `import()` in a
 * bundle's module graph is a chunk, even one inside a factory the function never calls; the code
 * such a chunk shares with the function's own then lands in the chunks every cold start loads.
 *
 * Each factory but the table's loads its adapter and SDK client (./aws-ports/, which import the
 * SDK) with a dynamic `import()` on the port's first use, so a cold start loads none of them. The
 * table's is imported statically: every function with a store uses it on every request.
 */
export interface AwsWiring {
  readonly store?: PortFactory<Store>;
  readonly queue?: PortFactory<QueuePort>;
  readonly scheduler?: PortFactory<SchedulerPort>;
  readonly mailer?: PortFactory<MailerPort>;
  readonly dns?: PortFactory<DnsPort>;
  readonly emailIdentities?: PortFactory<EmailIdentityPort>;
  readonly dnsZones?: PortFactory<DnsZonePort>;
  readonly blobs?: PortFactory<BlobPort>;
  readonly images?: PortFactory<ImagePort>;
  readonly snsEndpoints?: PortFactory<SnsEndpointsPort>;
  readonly inboundMail?: PortFactory<InboundMailPort>;
  readonly billing?: PortFactory<BillingPort>;
  /** The loader of the link-signing key from the SSM parameter `name`. */
  readonly linkSigningSecret?: (name: string) => Promise<SecretLoader>;
}

export type AwsPort = keyof AwsWiring;

/** The ports (`AwsWiring` keys) each use needs built. */
export const portsOfUse: Readonly<Record<PortUse, readonly AwsPort[]>> = {
  'table:read': ['store'],
  'table:write': ['store'],
  'table:scan': ['store'],
  queue: ['queue'],
  scheduler: ['scheduler'],
  blobs: ['blobs'],
  images: ['images'],
  mailer: ['mailer'],
  dns: ['dns'],
  'manage-sender-domains': ['emailIdentities', 'dnsZones'],
  'check-sender-domains': ['emailIdentities'],
  'delete-sender-domains': ['emailIdentities'],
  'sign-links': ['linkSigningSecret'],
  'feature-flags': [],
  accounts: [],
  'receive-sns': ['snsEndpoints'],
  'inbound-mail': ['inboundMail'],
  stripe: ['billing'],
  'stripe-webhooks': ['billing'],
};

/** The ports a function declaring `uses` must be wired with, and may only be wired with. */
export function portsOf(uses: readonly PortUse[]): AwsPort[] {
  return [...new Set(uses.flatMap((use) => portsOfUse[use]))].sort();
}

/** One function's composition: what it declares (the manifest) and what it is wired with. */
export interface AwsFunction {
  readonly uses: readonly PortUse[];
  readonly wiring: AwsWiring;
  /** Named in errors, e.g. `http function public`. @default 'this function' */
  readonly owner?: string;
}

/**
 * Builds the AWS `Deps` of a function; fails fast, naming every missing or malformed variable, and
 * naming any port its declared uses need that it is not wired with (or one it is wired with but
 * does not declare). Nothing is constructed here: each port builds its adapter on first use.
 */
export function awsDeps(source: EnvSource, fn: AwsFunction): Deps {
  const settings = parseAwsSettings(source);
  const { env } = settings;
  const owner = fn.owner ?? 'this function';
  const needed = portsOf(fn.uses);
  const wired = (Object.keys(fn.wiring) as AwsPort[]).filter((k) => fn.wiring[k] !== undefined).sort();
  const missing = needed.filter((p) => !wired.includes(p));
  const extra = wired.filter((p) => !needed.includes(p));
  if (missing.length > 0 || extra.length > 0) {
    throw new Error(
      `The AWS wiring of ${owner} does not match its declared uses (shared/manifest.ts): ` +
        [
          missing.length > 0 ? `missing ${missing.join(', ')}` : '',
          extra.length > 0 ? `not declared ${extra.join(', ')}` : '',
        ]
          .filter(Boolean)
          .join('; '),
    );
  }
  const w = fn.wiring;
  const port = <T extends object>(
    name: AwsPort,
    methods: readonly (keyof T & string)[],
    factory?: PortFactory<T>,
  ) => (factory ? lazyPort(methods, () => factory(settings)) : refusedPort<T>(name, methods, owner));
  return {
    // The document client stays in the factory: the code reaches the table only through the store.
    store: w.store
      ? lazyStore(() => w.store!(settings))
      : storeOver(refusedPort('store', storeRequests, owner)),
    queue: port<QueuePort>('queue', ['send'], w.queue),
    scheduler:
      w.scheduler && !settings.schedulerRoleArn
        ? unconfiguredScheduler
        : port<SchedulerPort>('scheduler', ['scheduleAt', 'cancel'], w.scheduler),
    mailer: port<MailerPort>('mailer', ['sendRaw', 'maxSendRate'], w.mailer),
    dns: port<DnsPort>('dns', ['resolve'], w.dns),
    // Only the functions that declare the sender-domain uses may use these two (see PortUse in the manifest).
    emailIdentities: port<EmailIdentityPort>(
      'emailIdentities',
      ['createDomainIdentity', 'setMailFromDomain', 'getDomainIdentity', 'deleteDomainIdentity'],
      w.emailIdentities,
    ),
    dnsZones: port<DnsZonePort>('dnsZones', ['findZone', 'upsertRecords'], w.dnsZones),
    blobs:
      w.blobs && !env.UPLOAD_BUCKET
        ? unconfiguredBlobs
        : port<BlobPort>('blobs', ['put', 'get', 'delete'], w.blobs),
    images:
      w.images && !(env.IMAGE_BUCKET && env.IMAGE_BASE_URL)
        ? unconfiguredImages
        : port<ImagePort>('images', ['put'], w.images),
    snsEndpoints: port<SnsEndpointsPort>(
      'snsEndpoints',
      ['signingCertificate', 'confirmSubscription'],
      w.snsEndpoints,
    ),
    // A deployment without inbound mail has no bucket: the jobs worker declares the use anyway.
    inboundMail:
      w.inboundMail && !settings.inboundBucket
        ? unconfiguredInboundMail
        : port<InboundMailPort>('inboundMail', ['get'], w.inboundMail),
    // A deployment without Stripe binds no secret: the routes answer 400 BILLING_DISABLED before
    // calling the port (`config.billingEnabled`, `billingWebhooksEnabled`).
    billing: port<BillingPort>(
      'billing',
      ['createCheckoutSession', 'createPortalSession', 'listInvoices', 'verifyWebhook'],
      w.billing,
    ),
    clock: systemClock,
    ids: randomIds,
    config: { ...awsAppConfig(env, w.linkSigningSecret), sesEventsTopicArn: settings.sesEventsTopicArn },
  };
}

/**
 * The configuration of `toAppConfig`, except that the link-signing key is read from the SSM
 * parameter named by LINK_SIGNING_SECRET_PARAMETER at run time (decrypted, cached per warm
 * function), so its value is never in a function's environment. CDK sets the name only on the
 * functions granted `sign-links` (shared/manifest.ts); the others never read it. The SSM client
 * is built on the first read of the key.
 */
export function awsAppConfig(env: Env, ssmLoader?: (name: string) => Promise<SecretLoader>): AppConfig {
  const config = toAppConfig(env);
  const name = env.LINK_SIGNING_SECRET_PARAMETER;
  if (!name) return config;
  if (!ssmLoader) {
    return {
      ...config,
      linkSigningSecret: async () => {
        throw new Error('The link-signing key is not wired for this function: declare sign-links');
      },
    };
  }
  let loader: Promise<SecretLoader> | undefined;
  return {
    ...config,
    linkSigningSecret: async () => {
      loader ??= ssmLoader(name).catch((error: unknown) => {
        loader = undefined;
        throw error;
      });
      return (await loader)();
    },
  };
}

/** One build of `load`, started by the first call; a failed build is retried by the next call. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let built: Promise<T> | undefined;
  return () => {
    built ??= load().catch((error: unknown) => {
      built = undefined;
      throw error;
    });
    return built;
  };
}

/** A port whose (async) `methods` build the adapter with `load` on the first call and then delegate. */
export function lazyPort<T extends object>(
  methods: readonly (keyof T & string)[],
  load: () => Promise<T>,
): T {
  const get = once(load);
  return Object.fromEntries(
    methods.map((m) => [
      m,
      async (...args: unknown[]) => {
        const target = await get();
        return (target[m] as (...a: unknown[]) => unknown).apply(target, args);
      },
    ]),
  ) as T;
}

const storeRequests = [
  'get',
  'batchGet',
  'write',
  'batchDelete',
  'query',
  'queryAll',
  'count',
  'scan',
] as const;

/** The store over requests that build the real store (and its DynamoDB client) on the first one. */
function lazyStore(load: () => Promise<Store>): Store {
  const get = once(load);
  const requests: StoreRequests = {
    get: async (key, options) => (await get()).get(key, options),
    batchGet: async (keys, options) => (await get()).batchGet(keys, options),
    write: async (write) => (await get()).write(write),
    batchDelete: async (keys) => (await get()).batchDelete(keys),
    query: async (query, options) => (await get()).query(query, options),
    queryAll: async function* (query) {
      yield* (await get()).queryAll(query);
    },
    count: async (query) => (await get()).count(query),
    scan: async (scan, options) => (await get()).scan(scan, options),
  };
  return storeOver(requests);
}

/** A port the function does not declare: every method refuses, naming it. */
function refusedPort<T>(name: string, methods: readonly string[], owner: string): T {
  const refuse = () => {
    throw new Error(`${owner} called deps.${name} but declares no use of it (shared/manifest.ts)`);
  };
  return Object.fromEntries(methods.map((m) => [m, refuse])) as T;
}

function notConfigured(what: string, variable: string): never {
  throw new Error(`${what} is not configured for this function: set ${variable}`);
}

const unconfiguredBlobs: BlobPort = {
  put: async () => notConfigured('Blob storage', 'UPLOAD_BUCKET'),
  get: async () => notConfigured('Blob storage', 'UPLOAD_BUCKET'),
  delete: async () => notConfigured('Blob storage', 'UPLOAD_BUCKET'),
};

const unconfiguredImages: ImagePort = {
  put: async () => notConfigured('Image uploads', 'IMAGE_BUCKET and IMAGE_BASE_URL'),
};

const unconfiguredInboundMail: InboundMailPort = {
  get: async () =>
    notConfigured('Inbound mail', 'INBOUND_BUCKET (deploy with -c inboundDomain=<domain> to receive mail)'),
};

const unconfiguredScheduler: SchedulerPort = {
  scheduleAt: async () => notConfigured('The scheduler', 'SCHEDULER_ROLE_ARN'),
  cancel: async () => notConfigured('The scheduler', 'SCHEDULER_ROLE_ARN'),
};
