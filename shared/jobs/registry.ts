/**
 * Background jobs. Every kind of background work runs on the one `jobs` queue (see the README,
 * "Why one queue"): a job kind is a `type`, a zod schema for its message, and a `run` function.
 *
 * - A job's message (`type` + `schema`, `defineJobMessage`) is declared next to the operation that
 *   enqueues it (in a domain's `messages.ts` when the job's code is large), and the domain's
 *   `jobs.ts` binds it to its `run` (`defineJob`, or `defineLazyChunkedJob`); or the job is
 *   declared whole in `jobs.ts`, since a `JobDef` is also a `JobMessageDef`. A `run` imports its
 *   module on the first message, so the worker's cold start loads schemas, not job code.
 * - Messages are put on the queue only through `enqueue` / `scheduleJob`, which parse them with
 *   the job's own schema first: a message the worker would refuse is refused when it is sent.
 * - The worker's job list is `allJobs` (`./catalog.ts`), derived from every domain's `jobs.ts`.
 *
 * Messages that arrive in other shapes (an S3 event notification, an SNS envelope) are turned
 * into job messages by `normalizers` before validation.
 */
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import * as z from 'zod/mini';
import { defaults, manifest, type QueueName } from '../manifest';
import type { Deps, QueueMessage } from '../ports';
import '../zod-locale';
import { sourceMappedStack } from '../stack-trace';

/** The queue every job message goes to. */
export const JOBS_QUEUE = 'jobs' satisfies QueueName;

/** Receives of one message before the queue dead-letters it (the manifest's `maxReceiveCount`). */
export const JOBS_MAX_RECEIVES: number =
  manifest.queues.find((q) => q.name === JOBS_QUEUE)?.maxReceiveCount ?? defaults.maxReceiveCount;

export interface JobMeta {
  readonly messageId: string;
  /** SQS's ApproximateReceiveCount: 1 on the first delivery. */
  readonly receiveCount: number;
  /**
   * No further delivery will follow if this one fails: the receive count has reached the queue's
   * `maxReceiveCount`, so a failure sends the message to the dead-letter queue. A job that keeps
   * state (a job item) records its failure there before rethrowing, instead of staying
   * `processing` forever.
   */
  readonly lastAttempt: boolean;
}

/**
 * A job's message: its `type` and the zod schema every message of that type satisfies (`T` is
 * what the schema gives, `I` what it takes, which differ where a field has a default).
 */
export interface JobMessageDef<T extends QueueMessage = QueueMessage, I = T> {
  readonly type: T['type'];
  readonly schema: z.ZodMiniType<T, I>;
}

export interface JobDef<T extends QueueMessage = QueueMessage, I = T> extends JobMessageDef<T, I> {
  run(deps: Deps, message: T, meta: JobMeta): Promise<void>;
}

/** Helps type inference: `defineJobMessage({type, schema})`. */
export function defineJobMessage<T extends QueueMessage, I = T>(
  def: JobMessageDef<T, I>,
): JobMessageDef<T, I> {
  return def;
}

/** Helps type inference: `defineJob({type, schema, run})`, or `defineJob({...message, run})`. */
export function defineJob<T extends QueueMessage, I = T>(def: JobDef<T, I>): JobDef<T, I> {
  return def;
}

/** What a caller gives to enqueue a job: the schema's input without `type`, which the job supplies. */
export type JobInput<T extends QueueMessage, I = T> = Omit<I, 'type'> & { readonly type?: T['type'] };

/** A job message that does not satisfy its job's schema: a bug in the caller, never sent. */
export class InvalidJobMessageError extends Error {
  override readonly name = 'InvalidJobMessageError';
  readonly issues: readonly z.core.$ZodIssue[];
  constructor(
    readonly jobType: string,
    error: z.core.$ZodError,
  ) {
    super(`Refused to enqueue an invalid ${jobType} message: ${z.prettifyError(error)}`);
    this.issues = error.issues;
  }
}

/**
 * The message of `job` built from `input` and parsed with the job's schema (the one the worker
 * parses it with); throws `InvalidJobMessageError` when it does not satisfy it.
 */
export function jobMessage<T extends QueueMessage, I>(
  job: JobMessageDef<T, I>,
  input: NoInfer<JobInput<T, I>>,
): T {
  // `type` first, so that an input naming another type fails the schema instead of being renamed.
  const parsed = job.schema.safeParse({ type: job.type, ...input });
  if (!parsed.success) throw new InvalidJobMessageError(job.type, parsed.error);
  return parsed.data;
}

/**
 * Puts one message of `job` on the jobs queue, after checking it against the job's schema: an
 * invalid message is refused here (`InvalidJobMessageError`) rather than dead-lettered later.
 * Delivery is at-least-once, so the job must be idempotent.
 */
export async function enqueue<T extends QueueMessage, I>(
  deps: Pick<Deps, 'queue'>,
  job: JobMessageDef<T, I>,
  input: NoInfer<JobInput<T, I>>,
  options: { readonly delaySeconds?: number } = {},
): Promise<void> {
  await deps.queue.send(JOBS_QUEUE, jobMessage(job, input), options);
}

/**
 * Arranges a one-off schedule that puts a message of `job` on the jobs queue at `at` (for waits
 * beyond SQS's 15-minute delay). The message is checked now, like `enqueue`'s.
 */
export async function scheduleJob<T extends QueueMessage, I>(
  deps: Pick<Deps, 'scheduler'>,
  job: JobMessageDef<T, I>,
  input: NoInfer<JobInput<T, I>>,
  schedule: { readonly name: string; readonly at: Date },
): Promise<void> {
  await deps.scheduler.scheduleAt({ ...schedule, queue: JOBS_QUEUE, message: jobMessage(job, input) });
}

/** Turns a foreign message body into zero or more job messages; undefined when it does not apply. */
export type Normalizer = (body: unknown) => { type: string }[] | undefined;

const envelope = z.looseObject({ type: z.string().check(z.minLength(1)) });

/** The part of Lambda's invocation context the worker reads. */
export type InvocationContext = Pick<Context, 'getRemainingTimeInMillis'>;

export interface JobsWorkerOptions {
  /**
   * A record after the first is started only while at least this much of the invocation is
   * left; the rest of the batch is reported as failed instead of being cut off by the timeout.
   * At most a quarter of the invocation's time. @default 30000 (an import message works for
   * about 20 s before handing over)
   */
  readonly startReserveMs?: number;
  /**
   * A record still running this close to the invocation's timeout is given up (reported as
   * failed with the records after it), so that the response still reaches Lambda. At most a
   * tenth of the invocation's time. @default 2000
   */
  readonly returnMarginMs?: number;
  /**
   * The queue's `maxReceiveCount`: a record received this many times runs with
   * `meta.lastAttempt`. @default the jobs queue's, from the manifest
   */
  readonly maxReceiveCount?: number;
}

/**
 * The jobs queue's handler: each record is parsed, normalized, validated and run on its own, and
 * the batch response names the records that failed, so one bad message never fails the others
 * (the event source mapping has `ReportBatchItemFailures`). Records of a batch run one after
 * another; the jobs queue hands one record to each invocation (`batchSize: 1` in the manifest, which
 * says why), so a short job never waits behind a long one of the same batch.
 *
 * With an invocation context (Lambda always gives one) the worker also watches the clock: it
 * starts no record once less than `startReserveMs` is left, and gives up a record that is still
 * running `returnMarginMs` before the timeout. Those records are reported in `batchItemFailures`
 * rather than letting the whole batch time out, which would fail every record of it, finished or
 * not. A record reported this way counts a receive although it never ran (SQS counted it when
 * Lambda received the batch), and becomes visible again after the queue's visibility timeout;
 * a queue that keeps timing out can therefore dead-letter messages that never ran, which the
 * dead letter's receive count and the "not started" log line make visible.
 *
 * An error an EventEmitter raises with no listener, or a promise rejected with no handler, is not
 * an error of the `await`ed job: Node raises it outside any `try`, and Lambda's runtime fails the
 * whole invocation on it. No per-record guard can take that back (and Lambda's own
 * `uncaughtException` / `unhandledRejection` listeners run whatever we add), so job code must not
 * produce them: every stream gets an 'error' listener and every promise is awaited or handled.
 * A record abandoned by the deadline above keeps running in the background; its promise is
 * handled here so that its later failure is logged, not raised.
 */
export function jobsWorker(
  deps: Deps,
  defs: readonly JobDef[],
  normalizers: readonly Normalizer[] = [],
  options: JobsWorkerOptions = {},
) {
  const byType = new Map(defs.map((d) => [d.type, d]));
  if (byType.size !== defs.length) throw new Error('Two job definitions share a type');
  const startReserveMs = options.startReserveMs ?? 30_000;
  const returnMarginMs = options.returnMarginMs ?? 2_000;
  const maxReceiveCount = options.maxReceiveCount ?? JOBS_MAX_RECEIVES;

  const runRecord = async (record: SQSRecord, meta: JobMeta): Promise<void> => {
    const body: unknown = JSON.parse(record.body);
    const messages = normalizers.map((n) => n(body)).find((m) => m !== undefined) ?? [body];
    for (const raw of messages) {
      const head = envelope.safeParse(raw);
      if (!head.success) throw new Error('Message has no type');
      const def = byType.get(head.data.type);
      if (!def) throw new Error(`Unknown job type ${head.data.type}`);
      const parsed = def.schema.safeParse(raw);
      if (!parsed.success) throw new Error(`Invalid ${def.type} message: ${parsed.error.message}`);
      await def.run(deps, parsed.data, meta);
    }
  };

  return async (event: SQSEvent, context?: InvocationContext): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    const remaining =
      typeof context?.getRemainingTimeInMillis === 'function'
        ? () => context.getRemainingTimeInMillis()
        : undefined;
    const records = event.Records;
    // Both bounded by the invocation's own length, so a short function still runs its batch.
    const initial = remaining?.() ?? 0;
    const reserveMs = Math.min(startReserveMs, initial / 4);
    const marginMs = Math.min(returnMarginMs, initial / 10);
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? 1);
      const meta: JobMeta = {
        messageId: record.messageId,
        receiveCount,
        lastAttempt: receiveCount >= maxReceiveCount,
      };
      const left = remaining?.();
      if (i > 0 && left !== undefined && left < reserveMs) {
        const skipped = records.slice(i);
        log('warn', 'Jobs not started: the invocation is about to time out', {
          messageIds: skipped.map((r) => r.messageId),
          remainingMs: left,
        });
        for (const r of skipped) batchItemFailures.push({ itemIdentifier: r.messageId });
        break;
      }
      let outcome: Outcome;
      try {
        // `Promise.resolve().then` turns a synchronous throw into this record's rejection too.
        const work = Promise.resolve().then(() => runRecord(record, meta));
        outcome =
          left === undefined ? await settle(work) : await settleBy(work, Math.max(0, left - marginMs), meta);
      } catch (error) {
        outcome = { ok: false, error };
      }
      if (outcome === 'timeout') {
        const rest = records.slice(i);
        log('error', 'Job given up: the invocation is about to time out', {
          messageId: record.messageId,
          receiveCount: meta.receiveCount,
          notStarted: rest.slice(1).map((r) => r.messageId),
        });
        for (const r of rest) batchItemFailures.push({ itemIdentifier: r.messageId });
        break;
      }
      if (!outcome.ok) {
        log('error', 'Job failed', {
          messageId: record.messageId,
          receiveCount: meta.receiveCount,
          error: errorMessage(outcome.error),
          stack: sourceMappedStack(outcome.error),
        });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}

type Outcome = { ok: true } | { ok: false; error: unknown } | 'timeout';

async function settle(work: Promise<void>): Promise<Outcome> {
  try {
    await work;
    return { ok: true };
  } catch (error) {
    return { ok: false, error };
  }
}

/** The record's outcome, or 'timeout' when it has not settled within `ms`. */
function settleBy(work: Promise<void>, ms: number, meta: JobMeta): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      resolve('timeout');
    }, ms);
    work.then(
      () => {
        clearTimeout(timer);
        if (!late) resolve({ ok: true });
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (!late) resolve({ ok: false, error });
        else
          log('error', 'Job given up earlier has failed', {
            messageId: meta.messageId,
            error: errorMessage(error),
          });
      },
    );
  });
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function log(level: 'warn' | 'error', message: string, fields: Record<string, unknown>): void {
  const line = JSON.stringify({ level, message, ...fields });
  if (level === 'warn') console.warn(line);
  else console.error(line);
}
