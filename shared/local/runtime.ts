/**
 * The local composition root (`npm start`, integration tests): the same handlers as on AWS,
 * wired to local adapters in one process.
 *
 * - DynamoDB: dynalite, in memory or under `<dataDir>/dynamodb`, table from `shared/table.ts`;
 * - queues, scheduler, mail, blobs: the local adapters, persisted under `dataDir` when given;
 * - DNS: the zone file when `dnsFile` is set, else the system resolver;
 * - SES identities and hosted zones: local stand-ins over that DNS and zone file;
 * - HTTP: the local gateway on `host:port`, routes from the manifest;
 * - time: one `LocalClock` (the system time, or the injected `clock`, plus the advances of
 *   `POST /_local/clock`) for every handler (`deps.clock`) and adapter; moving it forward fires
 *   the schedules and releases the queue delays that fell due.
 *
 * It then seeds one project with a secret and a public key and a verified sender domain.
 * Seeding is idempotent: on a persistent data folder the generated keys are kept in
 * `<dataDir>/seed.json` (a local development file: raw keys cannot be recovered from the hashes
 * in the table) and reused on the next start.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { SQSEvent } from 'aws-lambda';
import { SystemDns } from '../adapters/aws/dns';
import { LocalBlobs } from '../adapters/local/blobs';
import { LocalClock } from '../adapters/local/clock';
import { ZoneFileDns } from '../adapters/local/dns';
import { ZoneFileDnsZones } from '../adapters/local/dns-zones';
import { LocalEmailIdentities } from '../adapters/local/email-identities';
import { readFileIfExists, writeFileAtomic } from '../adapters/local/files';
import { consoleLogger, type LocalLogger } from '../adapters/local/log';
import { MailSink } from '../adapters/local/mail-sink';
import { LocalQueue } from '../adapters/local/queue';
import { LocalScheduler, type ScheduledEventLike } from '../adapters/local/scheduler';
import { type AppConfig, parseEnv, toAppConfig } from '../config/env';
import { seedVerifiedDomain } from '../domains/repository';
import { manifest as defaultManifest, defaults, type Manifest } from '../manifest';
import { type Clock, type Deps, type Ids, randomIds } from '../ports';
import {
  createProject,
  deleteApiKey,
  findApiKey,
  generateKey,
  getProject,
  keyKindOf,
  putApiKey,
} from '../projects/repository';
import { type AuthorizerHandler, localDirectUploads } from './direct-upload';
import { type LocalDynamo, startDynamo } from './dynamo';
import { createGateway } from './gateway';
import { type HandlerOverrides, type LoadedHandlers, loadHandlers } from './handlers';
import { lambdaContext } from './lambda';

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
}

/** For tests: retries after 10 ms, one second of queue delay lasts 10 ms, stop waits at most 1 s. */
export const fastTimings: LocalTimings = { retryDelayMs: () => 10, msPerDelaySecond: 10, stopGraceMs: 1000 };

export interface StartLocalOptions {
  /** 0 picks a free port. @default 0 */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** Folder for all local state; everything is in memory when undefined. */
  readonly dataDir?: string;
  /** JSON zone file answering every DNS query (see ZoneFileDns); the system resolver otherwise. */
  readonly dnsFile?: string;
  /** Environment for `parseEnv` and the SESAME_* seed variables (`process.env` is not read). */
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

export interface SeedFile {
  readonly projectId: string;
  readonly secretKey: string;
  readonly publicKey: string;
}

export async function startLocal(options: StartLocalOptions = {}): Promise<LocalRuntime> {
  const manifest = options.manifest ?? defaultManifest;
  const logger = options.logger ?? consoleLogger;
  const rawEnv = options.env ?? {};
  const dataDir = options.dataDir ? resolve(options.dataDir) : undefined;
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const env = parseEnv({
    TABLE_NAME: 'sesame',
    UPLOAD_BUCKET: 'sesame-local-uploads',
    ...rawEnv,
    LINK_SIGNING_SECRET: rawEnv.LINK_SIGNING_SECRET ?? localLinkSigningSecret(dataDir),
  });
  // Links in emails point at this runtime unless PUBLIC_BASE_URL says otherwise; its URL is
  // known once the gateway listens, so the config is completed then.
  const config: { -readonly [K in keyof AppConfig]: AppConfig[K] } = toAppConfig(env);
  const clock = new LocalClock({ base: options.clock, dataDir });
  const timings = options.timings ?? {};

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

    const queue = new LocalQueue({
      queues: manifest.queues,
      dataDir,
      retryDelayMs: timings.retryDelayMs,
      msPerDelaySecond: timings.msPerDelaySecond,
      invocationTimeoutMs: timings.queueInvocationTimeoutMs,
      // Delays and backoffs follow the advances but keep running if an injected clock stands still.
      clock: clock.shifted,
      logger,
    });
    stops.push(() => queue.stop(timings.stopGraceMs));
    const scheduler = new LocalScheduler({ target: queue, dataDir, clock, logger });
    stops.push(() => scheduler.stop());
    const stopFollowingClock = clock.onAdvance(async (from) => {
      queue.wake();
      await scheduler.advanced(from);
    });
    stops.push(async () => stopFollowingClock());
    const mailSink = new MailSink({ dataDir, clock, logger });
    const dnsFile = options.dnsFile ?? rawEnv.SESAME_DNS_FILE;
    const dns = dnsFile ? new ZoneFileDns(resolve(dnsFile)) : new SystemDns({ timeoutMs: 2000 });
    const emailIdentities = new LocalEmailIdentities({ dns, dataDir, clock });

    const deps: Deps = {
      store: (await import('../store/store')).createStore(dynamo.db, env.TABLE_NAME),
      db: dynamo.db,
      tableName: env.TABLE_NAME,
      queue,
      scheduler,
      mailer: mailSink,
      dns,
      emailIdentities,
      dnsZones: new ZoneFileDnsZones(dnsFile ? resolve(dnsFile) : undefined),
      blobs: new LocalBlobs({ dataDir }),
      clock,
      ids: options.ids ?? randomIds,
      config,
    };

    const handlers = await loadHandlers(manifest, deps, {
      overrides: options.handlers,
      allowMissing: options.allowMissingHandlers,
    });
    for (const m of handlers.missing)
      logger.warn(`[local] ${m.path} does not exist yet; ${m.kind} "${m.name}" is off`);

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
        queue,
        scheduler,
        clock,
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
    config.publicBaseUrl ??= main.url;

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
      startInstance: async () => {
        const fresh = await loadHandlers(manifest, deps, {
          overrides: options.handlers,
          allowMissing: options.allowMissingHandlers,
        });
        return openGateway(fresh.http, 0);
      },
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
 * Ensures the seed project, its two keys and its verified sender domain exist; safe to run on
 * every start. Keys given explicitly win over those in seed.json; a key they replace is retired.
 */
export async function seedProject(
  deps: Deps,
  input: { dataDir?: string; secretKey?: string; publicKey?: string; senderDomain: string },
): Promise<SeedFile & { senderDomain: string }> {
  if (input.secretKey !== undefined && keyKindOf(input.secretKey) !== 'secret') {
    throw new Error('SESAME_SECRET_KEY must start with sk_');
  }
  if (input.publicKey !== undefined && keyKindOf(input.publicKey) !== 'public') {
    throw new Error('SESAME_PUBLIC_KEY must start with pk_');
  }
  const file = input.dataDir ? join(input.dataDir, 'seed.json') : undefined;
  const text = file ? readFileIfExists(file)?.toString('utf8') : undefined;
  const saved = text ? (JSON.parse(text) as SeedFile) : undefined;
  const seed: SeedFile = {
    projectId: saved?.projectId ?? deps.ids.uuid(),
    secretKey: input.secretKey ?? saved?.secretKey ?? generateKey('secret'),
    publicKey: input.publicKey ?? saved?.publicKey ?? generateKey('public'),
  };
  if (await getProject(deps, seed.projectId)) {
    await putApiKey(deps, seed.projectId, seed.secretKey);
    await putApiKey(deps, seed.projectId, seed.publicKey);
  } else {
    await createProject(deps, { id: seed.projectId, name: 'Local project', ...seed });
  }
  for (const old of [saved?.secretKey, saved?.publicKey]) {
    if (old && old !== seed.secretKey && old !== seed.publicKey) {
      if ((await findApiKey(deps, old))?.projectId === seed.projectId) await deleteApiKey(deps, old);
    }
  }
  await seedVerifiedDomain(deps, seed.projectId, input.senderDomain);
  if (file) writeFileAtomic(file, `${JSON.stringify(seed, null, 2)}\n`, 0o600);
  return { ...seed, senderDomain: input.senderDomain.toLowerCase() };
}

/**
 * The local key for signed links: kept in `<dataDir>/link-signing-secret` so that links in mail
 * sent earlier keep working across restarts; a fresh one per run when everything is in memory.
 */
export function localLinkSigningSecret(dataDir: string | undefined): string {
  const fresh = () => randomBytes(32).toString('base64url');
  if (!dataDir) return fresh();
  const file = join(dataDir, 'link-signing-secret');
  const saved = readFileIfExists(file)?.toString('utf8').trim();
  if (saved && saved.length >= 32) return saved;
  const secret = fresh();
  writeFileAtomic(file, `${secret}\n`, 0o600);
  return secret;
}

const lockedDirs = new Set<string>();

/**
 * One runtime per data folder: the embedded database cannot be opened twice (a second opener
 * crashes the process), so a second runtime is refused with the reason. The lock file holds the
 * owner's pid; a lock left by a process that no longer runs is taken over, and marks the start as
 * unclean (the table's indexes are then rebuilt: see shared/local/dynamo.ts).
 */
function lockDataDir(dataDir: string): { release: () => Promise<void>; unclean: boolean } {
  const file = join(dataDir, 'runtime.lock');
  if (lockedDirs.has(dataDir))
    throw new Error(`The data folder ${dataDir} is in use by another local runtime`);
  let unclean = false;
  for (;;) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(file, 'utf8'));
      if (owner !== process.pid && isRunning(owner)) {
        throw new Error(`The data folder ${dataDir} is in use by process ${owner} (another npm start?)`);
      }
      // A lock whose owner no longer runs: that process died without stopping.
      unclean = true;
      rmSync(file, { force: true });
    }
  }
  lockedDirs.add(dataDir);
  return {
    unclean,
    release: async () => {
      lockedDirs.delete(dataDir);
      rmSync(file, { force: true });
    },
  };
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function missingGroup(path: string) {
  return async () => ({
    statusCode: 501,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: `Not implemented locally: ${path} does not exist yet` }),
  });
}
