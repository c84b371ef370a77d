/**
 * The local runtime (`npm start`, integration tests): the same handlers as on AWS, in one
 * process. This module is the orchestration; the pieces are elsewhere:
 *
 * - the data folder and its lock: shared/local/data-dir.ts;
 * - the embedded DynamoDB (dynalite, table from `shared/table.ts`): shared/local/dynamo.ts;
 * - the deps, from the local adapters and the environment: shared/composition/local.ts;
 * - the handlers named by the manifest, each given the ports it declares: shared/local/handlers.ts;
 * - the seed project, its keys and verified sender domain: shared/local/seed.ts;
 * - HTTP: the local gateway on `host:port`, routes from the manifest: shared/local/gateway.ts.
 *
 * `startLocal` locks the data folder, starts the database, composes the deps, loads the handlers,
 * attaches the queue workers and the recurring schedules, seeds, and opens the gateway; `stop()`
 * undoes it all in the reverse order.
 */
import type { AddressInfo } from 'node:net';
import type { SQSEvent } from 'aws-lambda';
import type { LocalClock } from '../adapters/local/clock';
import { consoleLogger, type LocalLogger } from '../adapters/local/log';
import type { MailSink } from '../adapters/local/mail-sink';
import type { LocalQueue } from '../adapters/local/queue';
import type { LocalScheduler, ScheduledEventLike } from '../adapters/local/scheduler';
import { type LocalTimings, localDeps, parseLocalSettings } from '../composition/local';
import { manifest as defaultManifest, defaults, type Manifest } from '../manifest';
import type { Clock, Deps, Ids } from '../ports';
import { lockDataDir, openDataDir } from './data-dir';
import { type AuthorizerHandler, localDirectUploads } from './direct-upload';
import { type LocalDynamo, startDynamo } from './dynamo';
import { createGateway } from './gateway';
import { type HandlerOverrides, type LoadedHandlers, loadHandlers } from './handlers';
import { lambdaContext } from './lambda';
import { seedProject } from './seed';

// The timings are options of `startLocal`.
export { fastTimings, type LocalTimings } from '../composition/local';

export interface StartLocalOptions {
  /** 0 picks a free port. @default 0 */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** Folder for all local state; everything is in memory when undefined. */
  readonly dataDir?: string;
  /** JSON zone file answering every DNS query (see ZoneFileDns); the system resolver otherwise. */
  readonly dnsFile?: string;
  /**
   * Environment for `parseEnv`, the SESAME_* seed variables and SESAME_REDELIVER_EACH_MESSAGE
   * (`timings.redeliverEachMessage` unless those say) (`process.env` is not read).
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Seed keys; default SESAME_SECRET_KEY / SESAME_PUBLIC_KEY, else kept in seed.json, else generated. */
  readonly secretKey?: string;
  readonly publicKey?: string;
  /** Seeded verified sender domain. @default SESAME_SENDER_DOMAIN, else 'example.com' */
  readonly senderDomain?: string;
  /**
   * The time before any advance (tests pass a settable clock); the runtime's `LocalClock` adds
   * the advances of `POST /_local/clock` to it. @default systemClock
   */
  readonly clock?: Clock;
  /** @default randomIds */
  readonly ids?: Ids;
  readonly timings?: LocalTimings;
  /** Run manifest schedules on their timers (tests turn this off and call `runRecurring`). @default true */
  readonly recurringSchedules?: boolean;
  /**
   * The mail sink publishes the SES events of each message it accepts (`ses-events.ts`); a bench
   * that measures sending alone turns them off. @default true
   */
  readonly sesEvents?: boolean;
  /** Handler factories replacing manifest modules, by kind and name. */
  readonly handlers?: HandlerOverrides;
  /** Start even if some handler modules do not exist yet (their routes answer 501). @default false */
  readonly allowMissingHandlers?: boolean;
  /** @default the manifest in shared/manifest.ts */
  readonly manifest?: Manifest;
  /** @default console */
  readonly logger?: LocalLogger;
  /** Test hooks into the local stand-ins of AWS services. */
  readonly hooks?: LocalHooks;
}

export interface LocalHooks {
  /**
   * Called with the object key before a direct upload's body is stored; throwing makes the
   * store fail as a refused S3 write does (the upload answers 500 and nothing is stored).
   */
  readonly beforeUploadStore?: (key: string) => void | Promise<void>;
}

export interface LocalRuntime {
  /** Base URL of the gateway, e.g. http://127.0.0.1:3000 */
  readonly url: string;
  readonly port: number;
  readonly projectId: string;
  readonly secretKey: string;
  readonly publicKey: string;
  readonly senderDomain: string;
  readonly deps: Deps;
  readonly queue: LocalQueue;
  readonly scheduler: LocalScheduler;
  readonly mailSink: MailSink;
  /**
   * The embedded database, for tests and benchmarks that look beneath the store (the requests
   * themselves, their capacity); handlers reach it only through `deps.store`.
   */
  readonly dynamo: LocalDynamo;
  readonly dataDir: string | undefined;
  /** The runtime's clock (`deps.clock`): `clock.advance(seconds)` does what `POST /_local/clock` does. */
  readonly clock: LocalClock;
  /**
   * Another instance of every route group (each handler created afresh, so nothing held in a
   * handler's memory is shared), behind its own gateway on a free port, over the same database
   * and adapters: what a second warm Lambda instance sees. Stopped with the runtime at the latest.
   */
  startInstance(): Promise<LocalInstance>;
  /** Stops the gateway, the scheduler and the queues (running batches get a moment), then the database. */
  stop(): Promise<void>;
}

/** A gateway of the runtime (see `startInstance`). */
export interface LocalInstance {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

export async function startLocal(options: StartLocalOptions = {}): Promise<LocalRuntime> {
  const manifest = options.manifest ?? defaultManifest;
  const logger = options.logger ?? consoleLogger;
  const rawEnv = options.env ?? {};
  const dataDir = openDataDir(options.dataDir);
  const settings = parseLocalSettings(rawEnv, { dataDir, dnsFile: options.dnsFile });
  const { env } = settings;
  const timings: LocalTimings = {
    ...options.timings,
    redeliverEachMessage:
      options.timings?.redeliverEachMessage ?? redeliverSetting(rawEnv.SESAME_REDELIVER_EACH_MESSAGE),
  };

  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) {
      try {
        await stop();
      } catch (error) {
        logger.error('[local] error while stopping', error);
      }
    }
  };

  try {
    const lock = dataDir ? lockDataDir(dataDir) : undefined;
    if (lock) stops.push(lock.release);
    if (lock?.unclean) logger.warn('[local] the last run did not stop cleanly: rebuilding the table indexes');
    // After a crash the embedded database may hold index entries of writes that never completed.
    const dynamo = await startDynamo({ tableName: env.TABLE_NAME, dataDir, rebuild: lock?.unclean });
    stops.push(() => dynamo.close());

    const { deps, queue, scheduler, mailSink, emailIdentities, images, inboundMail, clock, config } =
      localDeps({
        db: dynamo.db,
        settings,
        dataDir,
        queues: manifest.queues,
        clock: options.clock,
        ids: options.ids,
        timings,
        logger,
        sesEvents: options.sesEvents,
        onStop: (stop) => stops.push(stop),
      });

    const load = () =>
      loadHandlers(manifest, deps, {
        overrides: options.handlers,
        allowMissing: options.allowMissingHandlers,
      });
    const handlers = await load();
    for (const m of handlers.missing)
      logger.warn(`[local] ${m.path} does not exist yet; ${m.kind} "${m.name}" is off`);

    const seed = await seedProject(deps, {
      dataDir,
      secretKey: options.secretKey ?? rawEnv.SESAME_SECRET_KEY,
      publicKey: options.publicKey ?? rawEnv.SESAME_PUBLIC_KEY,
      senderDomain: options.senderDomain ?? rawEnv.SESAME_SENDER_DOMAIN ?? 'example.com',
    });
    // The seeded domain needs no DNS work: its identity counts as verified in the SES console.
    emailIdentities.markVerified(seed.senderDomain);

    const host = options.host ?? '127.0.0.1';
    const openGateway = async (http: LoadedHandlers['http'], port: number): Promise<LocalInstance> => {
      const server = createGateway({
        manifest,
        handlers: Object.fromEntries(
          manifest.routeGroups.map((g) => [g.name, http[g.name] ?? missingGroup(g.handler)]),
        ),
        mailSink,
        store: deps,
        queue,
        scheduler,
        clock,
        images,
        inboundMail,
        logger,
        directUploads: localDirectUploads(
          manifest,
          handlers.authorizers as Record<string, AuthorizerHandler>,
          {
            blobs: deps.blobs,
            queue,
            bucket: env.UPLOAD_BUCKET ?? 'sesame-local-uploads',
            logger,
            clock,
            beforeStore: options.hooks?.beforeUploadStore,
          },
        ),
      });
      await new Promise<void>((resolveListen, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolveListen();
        });
      });
      const close = () =>
        new Promise<void>((resolveClose) => {
          server.close(() => resolveClose());
          server.closeAllConnections();
        });
      stops.push(close);
      const address = server.address() as AddressInfo;
      const urlHost =
        host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
      return { url: `http://${urlHost}:${address.port}`, port: address.port, stop: close };
    };
    const main = await openGateway(handlers.http, options.port ?? 0);
    // Links in emails and uploaded images' URLs point at this runtime unless PUBLIC_BASE_URL says otherwise.
    config.publicBaseUrl ??= main.url;
    // Workers and schedules start only now: a message resumed from the data folder (a restart
    // after a crash) or a schedule that fires at once must find the runtime whole, its links' base
    // URL included, rather than fail its receives before the gateway listens.
    for (const def of manifest.queues) {
      const handler = handlers.queues[def.name];
      if (!handler) continue;
      const fn = {
        name: def.name,
        memoryMb: defaults.memoryMb,
        // The same limit the queue enforces, so getRemainingTimeInMillis() tells the truth.
        timeoutMs:
          timings.queueInvocationTimeoutMs ?? (def.timeoutSeconds ?? defaults.workerTimeoutSeconds) * 1000,
      };
      queue.setWorker(def.name, (event: SQSEvent) => handler(event, lambdaContext(fn)));
    }
    for (const def of manifest.schedules) {
      const handler = handlers.schedules[def.name];
      if (!handler) continue;
      const fn = {
        name: def.name,
        memoryMb: defaults.memoryMb,
        timeoutMs: defaults.workerTimeoutSeconds * 1000,
      };
      scheduler.addRecurring(def, (event: ScheduledEventLike) => handler(event, lambdaContext(fn)), {
        start: options.recurringSchedules !== false,
      });
    }

    let stopping: Promise<void> | undefined;
    return {
      url: main.url,
      port: main.port,
      ...seed,
      deps,
      queue,
      scheduler,
      mailSink,
      dynamo,
      dataDir,
      clock,
      startInstance: async () => openGateway((await load()).http, 0),
      stop: () => {
        stopping ??= stopAll();
        return stopping;
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * SESAME_REDELIVER_EACH_MESSAGE: `1` (or `true`) has the local queue deliver every message once
 * more after it is completed, as SQS may, to show that every job is idempotent; unset, `0` or
 * `false` leaves it off. Anything else fails the start, as an invalid variable does.
 */
function redeliverSetting(value: string | undefined): boolean {
  if (value === undefined || value === '' || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw new Error(`Invalid environment: SESAME_REDELIVER_EACH_MESSAGE: expected 1 or 0, got ${value}`);
}

function missingGroup(path: string) {
  return async () => ({
    statusCode: 501,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: `Not implemented locally: ${path} does not exist yet` }),
  });
}
