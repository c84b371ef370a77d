/**
 * Chunked jobs: background work too large for one message (an import, a bulk job, deleting the
 * events of a name, stripping a field from every contact, purging a contact), done a bounded chunk
 * at a time. A job says how to load its state and how to process one chunk from its position;
 * `runChunked` owns the rest, the same for every such job:
 *
 * - the budget of one message: chunks run until `budgetMs` has passed or `maxItems` are done,
 *   then a continuation message (`enqueue`, with the job's own message definition) takes over,
 *   so one message never outlives its invocation and a short job never waits long behind it;
 * - the checkpoint: a job that keeps progress on a job item writes it after each chunk with a
 *   condition on the position the chunk started from, and a runner whose condition fails stops
 *   (another runner of the same job, a redelivered message, is ahead). So the work of a
 *   redelivered message is redone idempotently, but counted once;
 * - the failure record: an error the job names fatal (an unusable file) ends the job at once with
 *   its reason; any other error is rethrown for the queue to retry, and on the message's last
 *   attempt (`meta.lastAttempt`) the job's failure is recorded first, so it never stays
 *   `processing` once its message is dead-lettered.
 *
 * A job's position lives either on its job item (import, bulk: the checkpoint says where to go
 * on, and the continuation message only names the job) or in the message itself (a cursor, for
 * jobs without an item: see `cursorInMessage`). A new long job (a campaign's fan-out to its
 * audience) is a `chunkedJob` too, registered with `defineChunkedJob`; it writes no loop of its own.
 */
import type { Deps, QueueMessage } from '../ports';
import { defineJob, enqueue, type JobDef, type JobInput, type JobMessageDef, type JobMeta } from './registry';

/** Why a job failed, as its job item records it (and the API shows as the job's `error`). */
export interface JobFailure {
  readonly code: string;
  readonly message: string;
}

/** How much one message does before a continuation takes over. */
export interface ChunkBudget {
  /** Time after which no further chunk starts in this message. @default 20000 */
  readonly budgetMs?: number;
  /** Items (as the job's chunks count them) after which no further chunk starts. @default no limit */
  readonly maxItems?: number;
}

/** A job's options: its budget, and the size of its chunks (tests pass small ones). */
export interface ChunkOptions extends ChunkBudget {
  /** Items per chunk (the job's unit of work between checkpoints). @default the job's own */
  readonly chunkSize?: number;
}

/** Work per message unless a job or its caller says otherwise: well inside a Lambda invocation. */
export const DEFAULT_BUDGET_MS = 20_000;

/** What one chunk did. A job may return more (what its checkpoint writes). */
export interface Chunk<S> {
  /** The state the next chunk starts from. */
  readonly next: S;
  /** Items the chunk handled (rows, ids, events, contacts), counted against `maxItems`. */
  readonly items: number;
  /** The job has nothing left to do. */
  readonly done: boolean;
}

/** A chunk's answer when the job moved on under it (another runner saved first): stop, count nothing. */
export const MOVED_ON = 'moved-on';

/** What a chunked job supplies; `runChunked` does the rest (see the module comment). */
export interface ChunkSteps<M extends QueueMessage, I, J, S = J, R extends Chunk<S> = Chunk<S>, D = Deps> {
  /** Budget of one message; `runChunked`'s own `budget` argument overrides it. */
  readonly budget?: ChunkBudget;
  /**
   * The job as this message finds it; undefined when there is nothing to do (an unknown job, one
   * that has ended). Failures here are retried but never recorded: no job is known yet.
   */
  load(deps: D, message: M): Promise<J | undefined>;
  /**
   * Readies a loaded job for its chunks (starts a queued job, reads its input); undefined when
   * another runner started it first. Without `start`, the loaded job is the first state.
   */
  start?(deps: D, job: J, message: M): Promise<S | undefined>;
  /**
   * Processes one bounded chunk from the state's position; writes done in it must be idempotent,
   * since a message that dies before its checkpoint runs the chunk again.
   */
  process(deps: D, state: S, message: M): Promise<R | typeof MOVED_ON>;
  /**
   * Writes the chunk's progress and its next position, on the condition that the job is still at
   * `state`'s position; false when it is not (another runner is ahead). Jobs whose position is in
   * their message have none.
   */
  checkpoint?(deps: D, state: S, chunk: R): Promise<boolean>;
  /** After the last chunk's checkpoint: what ends the job (drop its input, settle counters). */
  finish?(deps: D, state: S, message: M): Promise<unknown>;
  /** The message that goes on from `state`. */
  continuation(message: M, state: S): JobInput<M, I>;
  /** How the job records a failure; a job without a job item has nowhere to record one. */
  readonly failure?: {
    /** Marks the job failed with `failure`, unless it has ended already. */
    record(deps: D, job: J, failure: JobFailure, cause: 'fatal' | 'last-attempt'): Promise<void>;
    /** The reason an error ends the job at once instead of being retried; undefined for others. */
    fatal?(error: unknown): JobFailure | undefined;
    /** What the job records when its message's last attempt fails. */
    readonly lastAttempt: JobFailure;
  };
}

/** A chunked job: its steps and the message that starts and continues it. */
export interface ChunkedJob<M extends QueueMessage, I, J, S = J, R extends Chunk<S> = Chunk<S>, D = Deps>
  extends ChunkSteps<M, I, J, S, R, D> {
  readonly message: JobMessageDef<M, I>;
}

/**
 * A chunked job of `message` (which its continuations are enqueued with): `message` first, as in
 * `enqueue`, so that the job catalog's check (test/unit/jobs/catalog.test.ts) finds it.
 */
export function chunkedJob<M extends QueueMessage, I, J, S = J, R extends Chunk<S> = Chunk<S>, D = Deps>(
  message: JobMessageDef<M, I>,
  steps: ChunkSteps<M, I, J, S, R, D>,
): ChunkedJob<M, I, J, S, R, D> {
  return { ...steps, message };
}

/** How one message of a chunked job ended. */
export type ChunkedOutcome =
  /** The job finished in this message. */
  | 'done'
  /** A continuation message goes on. */
  | 'continued'
  /** Nothing (more) for this message to do: no job, an ended one, or another runner ahead. */
  | 'stopped'
  /** A fatal error ended the job, with its reason recorded. */
  | 'failed';

/**
 * Runs one message of a chunked job: loads it, processes chunks from its position, checkpointing
 * each, until it is done or the message's budget is used up, then enqueues the continuation.
 * Failures are recorded as the job's `failure` says (see the module comment) and rethrown unless
 * fatal.
 */
export async function runChunked<
  M extends QueueMessage,
  I,
  J,
  S,
  R extends Chunk<S>,
  D extends Pick<Deps, 'queue'>,
>(
  deps: D,
  job: ChunkedJob<M, I, J, S, R, D>,
  message: M,
  meta: Pick<JobMeta, 'lastAttempt'> = { lastAttempt: false },
  budget: ChunkBudget = {},
): Promise<ChunkedOutcome> {
  const started = performance.now();
  const budgetMs = budget.budgetMs ?? job.budget?.budgetMs ?? DEFAULT_BUDGET_MS;
  const maxItems = budget.maxItems ?? job.budget?.maxItems ?? Number.POSITIVE_INFINITY;
  const loaded = await job.load(deps, message);
  if (loaded === undefined) return 'stopped';
  try {
    let state = job.start ? await job.start(deps, loaded, message) : (loaded as unknown as S);
    if (state === undefined) return 'stopped';
    let items = 0;
    for (;;) {
      const chunk = await job.process(deps, state, message);
      if (chunk === MOVED_ON) return 'stopped';
      if (job.checkpoint && !(await job.checkpoint(deps, state, chunk))) return 'stopped';
      state = chunk.next;
      items += chunk.items;
      if (chunk.done) {
        await job.finish?.(deps, state, message);
        return 'done';
      }
      if (performance.now() - started > budgetMs || items >= maxItems) {
        await enqueue(deps, job.message, job.continuation(message, state));
        return 'continued';
      }
    }
  } catch (error) {
    const failure = job.failure;
    const fatal = failure?.fatal?.(error);
    if (failure && fatal) {
      await failure.record(deps, loaded, fatal, 'fatal');
      return 'failed';
    }
    // The queue will not deliver this again: say so on the job instead of leaving it processing.
    if (failure && meta.lastAttempt) await failure.record(deps, loaded, failure.lastAttempt, 'last-attempt');
    throw error;
  }
}

/** The job definition the jobs worker runs for a chunked job (its budget is the job's own). */
export function defineChunkedJob<M extends QueueMessage, I, J, S, R extends Chunk<S>>(
  job: ChunkedJob<M, I, J, S, R, Deps>,
): JobDef<M, I> {
  return defineJob({
    ...job.message,
    run: async (deps, message, meta) => {
      await runChunked(deps, job, message, meta);
    },
  });
}

/**
 * `defineChunkedJob` of a chunked job loaded on its first message (`load`, typically an `import()`
 * of its module), so that the jobs worker's cold start carries only the message's schema.
 */
export function defineLazyChunkedJob<M extends QueueMessage, I>(
  message: JobMessageDef<M, I>,
  // biome-ignore lint/suspicious/noExplicitAny: the job's own state types stay inside its module.
  load: () => Promise<ChunkedJob<M, I, any, any, any, Deps>>,
): JobDef<M, I> {
  return defineJob({
    ...message,
    run: async (deps, m, meta) => {
      await runChunked(deps, await load(), m, meta);
    },
  });
}

/** The position of a job that has no job item: a cursor its continuation message carries. */
export interface MessageCursor {
  /** Where the previous message stopped; undefined at the start. */
  readonly cursor?: string;
}

/** `load` and `continuation` of a job whose position is the `cursor` of its message. */
export function cursorInMessage<M extends QueueMessage & MessageCursor, I>(): Pick<
  ChunkSteps<M, I, MessageCursor, MessageCursor, Chunk<MessageCursor>, unknown>,
  'load' | 'continuation'
> {
  return {
    load: async (_deps, message) => ({ cursor: message.cursor }),
    // The message as it came, at the new position (its schema parses it again when it is sent).
    continuation: (message, state) => ({ ...message, cursor: state.cursor }) as unknown as JobInput<M, I>,
  };
}
