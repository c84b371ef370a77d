/**
 * Composition root for the local runtime (`npm start`, the integration tests): builds `Deps` from
 * the local adapters, as `shared/composition/aws.ts` builds them from the AWS ones. The local
 * runtime (shared/local/runtime.ts) starts the embedded database, calls `localDeps` and hands the
 * result to the same handlers that run on AWS.
 *
 * - table: the store over the embedded DynamoDB's client (the same store code as on AWS);
 * - queues, scheduler, mail, blobs, images, inbound mail: the local adapters, persisted under
 *   `dataDir` when given (the runtime's gateway serves the images, at the base URL it completes
 *   the config with, and stores what `POST /_local/inbound` receives where the jobs read it);
 * - DNS: the zone file when one is set, else the system resolver;
 * - SES identities and hosted zones: local stand-ins over that DNS and zone file;
 * - SNS's HTTPS endpoints (`POST /webhooks/sns`): a stand-in serving the certificates tests
 *   register and recording subscription confirmations, never the network (LocalSnsEndpoints);
 * - billing: the Stripe adapter itself, with the secrets given as values (STRIPE_SECRET_KEY,
 *   STRIPE_WEBHOOK_SECRET) and the API at STRIPE_API_URL when set (tests serve a stand-in); loaded
 *   on first use. Without a key billing is off, as in a deployment without Stripe;
 * - time: one `LocalClock` (the system time, or the injected base clock, plus the advances of
 *   `POST /_local/clock`) for every handler (`deps.clock`) and adapter; moving it forward wakes
 *   the queue's delays and fires the schedules that fell due;
 * - config: the environment with local defaults (`parseLocalSettings`).
 */
import { resolve } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SystemDns } from '../adapters/aws/dns';
import { LocalBlobs } from '../adapters/local/blobs';
import { LocalClock } from '../adapters/local/clock';
import { ZoneFileDns } from '../adapters/local/dns';
import { ZoneFileDnsZones } from '../adapters/local/dns-zones';
import { LocalEmailIdentities } from '../adapters/local/email-identities';
import { LocalImages } from '../adapters/local/images';
import { LocalInboundMail } from '../adapters/local/inbound-mail';
import { consoleLogger, type LocalLogger } from '../adapters/local/log';
import { MailSink } from '../adapters/local/mail-sink';
import { LocalQueue } from '../adapters/local/queue';
import { LocalScheduler } from '../adapters/local/scheduler';
import { publishSinkEvents } from '../adapters/local/ses-events';
import { LocalSnsEndpoints } from '../adapters/local/sns-endpoints';
import { type AppConfig, type Env, parseEnv, toAppConfig } from '../config/env';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../local/lambda';
import { localLinkSigningSecret } from '../local/seed';
import { manifest, type QueueDef } from '../manifest';
import { type BillingPort, type Clock, type Deps, type Ids, randomIds } from '../ports';
import { createStore } from '../store/dynamo';
import { type EnvSource, lazyPort, snsTopicArn } from './aws';

/** Timings that make background work quick to observe; the defaults suit a person at a laptop. */
export interface LocalTimings {
  /** Wait before a failed queue message is retried, by receive count. @default 1 s doubling, max 30 s */
  readonly retryDelayMs?: (receiveCount: number) => number;
  /** Milliseconds per second of a queue message's `delaySeconds`. @default 1000 */
  readonly msPerDelaySecond?: number;
  /** Queue worker timeout. @default the queue's timeoutSeconds */
  readonly queueInvocationTimeoutMs?: number;
  /** How long `stop()` lets running queue batches finish; unfinished ones are delivered again next start. @default 5000 */
  readonly stopGraceMs?: number;
  /** Every queue message is delivered once more after it is completed (tests of idempotency). @default false */
  readonly redeliverEachMessage?: boolean;
}

/** For tests: retries after 10 ms, one second of queue delay lasts 10 ms, stop waits at most 1 s. */
export const fastTimings: LocalTimings = { retryDelayMs: () => 10, msPerDelaySecond: 10, stopGraceMs: 1000 };

/** `AppConfig` that the runtime may complete after start (`publicBaseUrl`, once its gateway listens). */
export type LocalAppConfig = { -readonly [K in keyof AppConfig]: AppConfig[K] };

export interface LocalSettings {
  readonly env: Env;
  readonly config: LocalAppConfig;
  /** The absolute path of the DNS zone file; undefined: the system resolver. */
  readonly dnsFile: string | undefined;
}

/**
 * The SNS topic of SES events the local runtime accepts deliveries of (`POST /webhooks/sns`) when
 * SES_EVENTS_TOPIC_ARN does not name another: in the local account and region.
 */
export const LOCAL_SES_EVENTS_TOPIC_ARN = `arn:aws:sns:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:sesame-local-ses-events`;

/**
 * The environment with the local defaults: the table `sesame`, an upload bucket (uploads are
 * stored locally), signup open with account mails from `sesame@sesame.localhost`, and a link-signing key kept in the data folder unless LINK_SIGNING_SECRET is
 * set. Image uploads are always on (the runtime stores and serves them itself). The SES event
 * topic (`POST /webhooks/sns`) is SES_EVENTS_TOPIC_ARN, else `LOCAL_SES_EVENTS_TOPIC_ARN`. The
 * zone file is `dnsFile`, else SESAME_DNS_FILE. Fails fast as `parseEnv` does.
 */
export function parseLocalSettings(
  source: EnvSource,
  options: { dataDir?: string; dnsFile?: string } = {},
): LocalSettings {
  const env = parseEnv({
    TABLE_NAME: 'sesame',
    UPLOAD_BUCKET: 'sesame-local-uploads',
    // Locally anyone may sign up, and account mails land in the mail sink.
    SIGNUP_ENABLED: 'true',
    SYSTEM_FROM: 'sesame@sesame.localhost',
    ...source,
    LINK_SIGNING_SECRET: source.LINK_SIGNING_SECRET ?? localLinkSigningSecret(options.dataDir),
  });
  const topic = snsTopicArn.safeParse(source.SES_EVENTS_TOPIC_ARN ?? LOCAL_SES_EVENTS_TOPIC_ARN);
  if (!topic.success)
    throw new Error(`Invalid environment: SES_EVENTS_TOPIC_ARN: ${topic.error.issues[0]?.message}`);
  if (env.STRIPE_SECRET_KEY !== undefined && env.STRIPE_PRICE_ID === undefined)
    throw new Error('Invalid environment: STRIPE_PRICE_ID: required with STRIPE_SECRET_KEY');
  const dnsFile = options.dnsFile ?? source.SESAME_DNS_FILE;
  return {
    env,
    config: { ...toAppConfig(env), storageEnabled: true, sesEventsTopicArn: topic.data },
    dnsFile: dnsFile ? resolve(dnsFile) : undefined,
  };
}

export interface LocalDepsOptions {
  /** The embedded database's document client; the deps reach it only through their store. */
  readonly db: DynamoDBDocumentClient;
  readonly settings: LocalSettings;
  /** Folder the adapters persist under; everything is in memory when undefined. */
  readonly dataDir?: string;
  /** The queues to run, with their settings. @default the manifest's */
  readonly queues?: readonly QueueDef[];
  /** The time before any advance. @default systemClock */
  readonly clock?: Clock;
  /** @default randomIds */
  readonly ids?: Ids;
  readonly timings?: LocalTimings;
  /** @default console */
  readonly logger?: LocalLogger;
  /** The mail sink publishes SES events (see `StartLocalOptions.sesEvents`). @default true */
  readonly sesEvents?: boolean;
  /**
   * Told how to stop each adapter that runs on its own (timers, running batches), in the order
   * they are made; the caller stops them in the reverse order, also when `localDeps` throws.
   */
  readonly onStop: (stop: () => Promise<void>) => void;
}

/** The local `Deps`, and the adapters behind them as what they are, for the runtime to drive. */
export interface LocalComposition {
  readonly deps: Deps;
  readonly queue: LocalQueue;
  readonly scheduler: LocalScheduler;
  readonly mailSink: MailSink;
  readonly emailIdentities: LocalEmailIdentities;
  /** `deps.images`, which the gateway serves under `/_local/images/`. */
  readonly images: LocalImages;
  /** `deps.inboundMail`, where the gateway stores what `POST /_local/inbound` receives. */
  readonly inboundMail: LocalInboundMail;
  readonly clock: LocalClock;
  /** `deps.config`, completable. */
  readonly config: LocalAppConfig;
}

/** Builds the local `Deps` over the embedded database. */
export function localDeps(options: LocalDepsOptions): LocalComposition {
  const { db, settings, dataDir, onStop } = options;
  const logger = options.logger ?? consoleLogger;
  const timings = options.timings ?? {};
  const clock = new LocalClock({ base: options.clock, dataDir });

  const queue = new LocalQueue({
    queues: options.queues ?? manifest.queues,
    dataDir,
    retryDelayMs: timings.retryDelayMs,
    msPerDelaySecond: timings.msPerDelaySecond,
    invocationTimeoutMs: timings.queueInvocationTimeoutMs,
    redeliverEachMessage: timings.redeliverEachMessage,
    // Delays and backoffs follow the advances but keep running if an injected clock stands still.
    clock: clock.shifted,
    logger,
  });
  onStop(() => queue.stop(timings.stopGraceMs));
  const scheduler = new LocalScheduler({ target: queue, dataDir, clock, logger });
  onStop(() => scheduler.stop());
  const stopFollowingClock = clock.onAdvance(async (from) => {
    queue.wake();
    await scheduler.advanced(from);
  });
  onStop(async () => stopFollowingClock());

  const mailSink = new MailSink({ dataDir, clock, logger });
  // What SES would publish for each accepted message reaches the jobs queue as on AWS.
  if (options.sesEvents !== false) {
    const stopPublishing = publishSinkEvents(mailSink, queue, logger);
    onStop(async () => {
      stopPublishing();
    });
  }
  const dns = settings.dnsFile ? new ZoneFileDns(settings.dnsFile) : new SystemDns({ timeoutMs: 2000 });
  const emailIdentities = new LocalEmailIdentities({ dns, dataDir, clock });
  const { env, config } = settings;
  const images = new LocalImages({ dataDir, baseUrl: () => config.publicBaseUrl });
  const inboundMail = new LocalInboundMail({ dataDir });

  const deps: Deps = {
    store: createStore(db, env.TABLE_NAME),
    queue,
    scheduler,
    mailer: mailSink,
    dns,
    emailIdentities,
    dnsZones: new ZoneFileDnsZones(settings.dnsFile),
    blobs: new LocalBlobs({ dataDir }),
    snsEndpoints: new LocalSnsEndpoints(),
    images,
    inboundMail,
    billing: lazyPort<BillingPort>(
      ['createCheckoutSession', 'createPortalSession', 'listInvoices', 'verifyWebhook'],
      async () =>
        new (await import('../adapters/stripe/billing')).StripeBilling({
          secretKey: env.STRIPE_SECRET_KEY === undefined ? undefined : async () => env.STRIPE_SECRET_KEY!,
          webhookSecret:
            env.STRIPE_WEBHOOK_SECRET === undefined ? undefined : async () => env.STRIPE_WEBHOOK_SECRET!,
          priceId: env.STRIPE_PRICE_ID,
          apiUrl: env.STRIPE_API_URL,
        }),
    ),
    clock,
    ids: options.ids ?? randomIds,
    config,
  };
  return { deps, queue, scheduler, mailSink, emailIdentities, images, inboundMail, clock, config };
}
