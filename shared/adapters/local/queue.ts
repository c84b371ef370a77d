/**
 * QueuePort for the local runtime: an in-process queue with the SQS semantics the workers rely
 * on, so that code which works here works on SQS + Lambda:
 *
 * - at-least-once delivery in batches of up to `batchSize`, at most `maxConcurrency` concurrent
 *   invocations per queue;
 * - partial batch failures (`batchItemFailures`, itemIdentifier = messageId) and Lambda's rules
 *   for invalid responses (an unknown or empty identifier fails the whole batch);
 * - a failed or timed-out message becomes visible again later, with its receive count kept, and
 *   goes to the dead-letter list after `maxReceiveCount` receives, with its last error;
 * - a receive is counted (and journalled) when the batch is handed to the worker, before it
 *   runs, as SQS counts it when it returns the message: a message whose worker never finishes
 *   (the process died while it ran) is not acknowledged, comes back with its count kept, and a
 *   receive that would exceed `maxReceiveCount` moves it to the dead-letter list instead of
 *   delivering it, with "the worker did not finish" as its last error. So a message that kills
 *   the process is set aside after `maxReceiveCount` restarts instead of killing every start;
 * - `delaySeconds` (0..900, rounded up, as `SqsQueue` does);
 * - records shaped like Lambda's SQS event (messageId, receiptHandle, md5OfBody, attributes with
 *   ApproximateReceiveCount, a `type` message attribute as `SqsQueue` sets).
 *
 * On SQS a failed message reappears after the whole visibility timeout (minutes); locally it
 * reappears after a short backoff (`retryDelayMs`), so a retry is seen in seconds. Delays and
 * backoffs are measured on `clock` (the runtime's clock moved by `POST /_local/clock`); after
 * moving it, `wake()` delivers what became visible.
 *
 * With a data folder, every change is appended to `queues.jsonl` before `send` resolves, so a
 * restart resumes pending, delayed and in-flight messages (in-flight ones are delivered again,
 * as SQS would after the visibility timeout) and keeps the dead letters.
 *
 * This module is the SQS state machine (visibility, receive counts, redrive to the dead letters)
 * and its delivery loop; the journal is queue-journal.ts, and the Lambda side (records, batch
 * responses) sqs-event-source.ts.
 */
import { randomUUID } from 'node:crypto';
import { defaults, manifest, type QueueDef } from '../../manifest';
import { type Clock, type QueueMessage, type QueuePort, systemClock } from '../../ports';
import { consoleLogger, errorText, type LocalLogger } from './log';
import {
  type DeadLetter,
  type JournalEntry as Entry,
  QueueJournal,
  type StoredMessage,
} from './queue-journal';
import {
  batchItemFailures,
  describeResponse,
  type QueueWorker,
  toRecord,
  withInvocationTimeout,
} from './sqs-event-source';

export type { DeadLetter } from './queue-journal';
export type { QueueWorker } from './sqs-event-source';

/** SQS's ceiling for `DelaySeconds`; longer waits belong to the scheduler. */
export const MAX_DELAY_SECONDS = 900;
/** SQS's maximum message size (1 MiB since 2025). */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

export interface LocalQueueOptions {
  /** @default manifest.queues */
  readonly queues?: readonly QueueDef[];
  /** Folder for `queues.jsonl`; in memory when undefined. */
  readonly dataDir?: string;
  /**
   * Wait before a failed message is visible again, by its receive count so far.
   * @default 1 s, doubling per receive, at most 30 s
   */
  readonly retryDelayMs?: (receiveCount: number) => number;
  /** Milliseconds per second of `delaySeconds` (tests shrink it). @default 1000 */
  readonly msPerDelaySecond?: number;
  /** Worker invocation timeout; a batch still running then counts as failed. @default the queue's timeoutSeconds */
  readonly invocationTimeoutMs?: number;
  /**
   * Time of sends, delays and backoffs. It must run on its own (the runtime passes its clock's
   * `shifted` view: system time plus the advances). @default systemClock
   */
  readonly clock?: Clock;
  readonly logger?: LocalLogger;
  /**
   * Delivers every message once more after a worker completes it, as SQS may (at-least-once: a
   * delete that does not take effect, a duplicate), so tests can show that every job is
   * idempotent. @default false
   */
  readonly redeliverEachMessage?: boolean;
}

export interface SendOptions {
  readonly delaySeconds?: number;
  /**
   * Add the `type` message attribute, as `SqsQueue` does. EventBridge Scheduler cannot set
   * attributes, so the local scheduler sends without it. @default true
   */
  readonly typeAttribute?: boolean;
}

export interface QueueStats {
  /** Visible now, waiting for a worker slot. */
  readonly pending: number;
  /** Waiting out a delay or a retry backoff. */
  readonly delayed: number;
  readonly inFlight: number;
  readonly deadLetters: number;
  readonly hasWorker: boolean;
}

export interface IdleOptions {
  /** Only wait for this queue. */
  readonly queue?: string;
  /** Reject when not idle by then. @default 10000 */
  readonly timeoutMs?: number;
}

interface Message extends StoredMessage {
  inFlight: boolean;
  /** Completed once already and delivered again (`redeliverEachMessage`). */
  redelivered?: boolean;
}

interface Settings {
  readonly name: string;
  readonly batchSize: number;
  readonly maxReceiveCount: number;
  readonly maxConcurrency: number;
  readonly timeoutMs: number;
}

interface QueueState {
  readonly settings: Settings;
  worker: QueueWorker | undefined;
  readonly messages: Map<string, Message>;
  dead: DeadLetter[];
  running: number;
  timer: NodeJS.Timeout | undefined;
  timerAt: number;
}

interface Waiter {
  readonly queue: string | undefined;
  readonly resolve: () => void;
}

export const defaultRetryDelayMs = (receiveCount: number) => Math.min(30_000, 1000 * 2 ** (receiveCount - 1));

export class LocalQueue implements QueuePort {
  private readonly queues = new Map<string, QueueState>();
  private readonly journal: QueueJournal | undefined;
  private readonly retryDelayMs: (receiveCount: number) => number;
  private readonly msPerDelaySecond: number;
  private readonly logger: LocalLogger;
  private readonly clock: Clock;
  private readonly invocations = new Set<Promise<void>>();
  private waiters: Waiter[] = [];
  private stopped = false;
  private readonly redeliverEachMessage: boolean;

  constructor(options: LocalQueueOptions = {}) {
    this.redeliverEachMessage = options.redeliverEachMessage ?? false;
    this.retryDelayMs = options.retryDelayMs ?? defaultRetryDelayMs;
    this.msPerDelaySecond = options.msPerDelaySecond ?? 1000;
    this.logger = options.logger ?? consoleLogger;
    this.clock = options.clock ?? systemClock;
    for (const def of options.queues ?? manifest.queues) {
      this.queues.set(def.name, {
        settings: {
          name: def.name,
          batchSize: def.batchSize ?? defaults.batchSize,
          maxReceiveCount: def.maxReceiveCount ?? defaults.maxReceiveCount,
          maxConcurrency: def.maxConcurrency ?? defaults.maxConcurrency,
          timeoutMs:
            options.invocationTimeoutMs ?? (def.timeoutSeconds ?? defaults.workerTimeoutSeconds) * 1000,
        },
        worker: undefined,
        messages: new Map(),
        dead: [],
        running: 0,
        timer: undefined,
        timerAt: Number.POSITIVE_INFINITY,
      });
    }
    if (options.dataDir) {
      this.journal = new QueueJournal(options.dataDir);
      this.restore();
    }
  }

  /** Every message is delivered once more after it completes (`redeliverEachMessage`). */
  get redeliversEachMessage(): boolean {
    return this.redeliverEachMessage;
  }

  async send(queue: string, message: QueueMessage, options: SendOptions = {}): Promise<void> {
    const state = this.state(queue);
    const body = JSON.stringify(message);
    if (Buffer.byteLength(body) > MAX_MESSAGE_BYTES) {
      throw new RangeError(`Message to queue ${queue} is larger than SQS's ${MAX_MESSAGE_BYTES} bytes`);
    }
    const delay = delaySeconds(options.delaySeconds ?? 0);
    const now = this.now();
    const m: Message = {
      queue,
      messageId: randomUUID(),
      body,
      typeAttribute: options.typeAttribute === false ? undefined : message.type,
      sentAt: now,
      visibleAt: now + delay * this.msPerDelaySecond,
      receiveCount: 0,
      firstReceivedAt: undefined,
      lastError: undefined,
      inFlight: false,
    };
    this.write({ op: 'put', m: stored(m) });
    state.messages.set(m.messageId, m);
    // Deferred, so that messages sent in the same tick are delivered together in one batch.
    setImmediate(() => this.pump(state));
  }

  /** Attaches the consumer of a queue and starts delivering to it. */
  setWorker(queue: string, worker: QueueWorker): void {
    const state = this.state(queue);
    state.worker = worker;
    setImmediate(() => this.pump(state));
  }

  /**
   * Delivers whatever is visible by the clock now, and re-arms the timers of what is not: call
   * it after moving the clock forward.
   */
  wake(): void {
    for (const q of this.queues.values()) this.pump(q);
  }

  /** Resolves when no message is pending, delayed or in flight (dead letters do not count). */
  drain(options: IdleOptions = {}): Promise<void> {
    if (options.queue !== undefined) this.state(options.queue);
    if (this.isIdle(options.queue)) return Promise.resolve();
    const timeoutMs = options.timeoutMs ?? 10_000;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        queue: options.queue,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`Queues not idle after ${timeoutMs} ms: ${this.describeBusy(options.queue)}`));
      }, timeoutMs);
      timer.unref();
      this.waiters.push(waiter);
    });
  }

  /** Same as `drain`. */
  idle(options: IdleOptions = {}): Promise<void> {
    return this.drain(options);
  }

  stats(): Record<string, QueueStats> {
    const now = this.now();
    const out: Record<string, QueueStats> = {};
    for (const [name, q] of this.queues) {
      let pending = 0;
      let delayed = 0;
      let inFlight = 0;
      for (const m of q.messages.values()) {
        if (m.inFlight) inFlight++;
        else if (m.visibleAt > now) delayed++;
        else pending++;
      }
      out[name] = {
        pending,
        delayed,
        inFlight,
        deadLetters: q.dead.length,
        hasWorker: q.worker !== undefined,
      };
    }
    return out;
  }

  /** Dead letters, oldest first, of one queue or all. */
  deadLetters(queue?: string): DeadLetter[] {
    if (queue !== undefined) return [...this.state(queue).dead];
    return [...this.queues.values()].flatMap((q) => q.dead);
  }

  /** Moves dead letters back to their queue with a fresh receive count (SQS's redrive). */
  redrive(queue?: string): number {
    let moved = 0;
    for (const q of this.queues.values()) {
      if (queue !== undefined && q.settings.name !== queue) continue;
      for (const d of q.dead) {
        const m: Message = {
          queue: d.queue,
          messageId: d.messageId,
          body: d.body,
          typeAttribute: typeOf(d.body),
          sentAt: Date.parse(d.sentAt),
          visibleAt: this.now(),
          receiveCount: 0,
          firstReceivedAt: undefined,
          lastError: undefined,
          inFlight: false,
        };
        this.write({ op: 'put', m: stored(m) });
        this.write({ op: 'undlq', id: d.messageId });
        q.messages.set(m.messageId, m);
        moved++;
      }
      q.dead = [];
      setImmediate(() => this.pump(q));
    }
    return moved;
  }

  /**
   * Stops delivering, waits up to `graceMs` for running batches, and compacts the journal.
   * Messages still in flight stay stored and are delivered again on the next start.
   */
  async stop(graceMs = 5000): Promise<void> {
    this.stopped = true;
    for (const q of this.queues.values()) {
      clearTimeout(q.timer);
      q.timer = undefined;
    }
    if (this.invocations.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.invocations]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(timer);
    }
    this.compact();
  }

  private state(queue: string): QueueState {
    const state = this.queues.get(queue);
    if (!state) throw new Error(`Unknown queue "${queue}" (not in the manifest)`);
    return state;
  }

  private now(): number {
    return this.clock.now().getTime();
  }

  private pump(q: QueueState): void {
    if (this.stopped || !q.worker) return;
    const now = this.now();
    let deadLettered = false;
    while (q.running < q.settings.maxConcurrency) {
      const batch: Message[] = [];
      for (const m of visibleInOrder(q, now)) {
        if (m.receiveCount >= q.settings.maxReceiveCount) {
          // SQS's redrive: a receive that would exceed maxReceiveCount moves the message to the
          // dead-letter queue instead of returning it. Only a message whose last receive never
          // finished gets here (a failed one is dead-lettered as soon as its worker answers).
          this.deadLetter(q, m, m.lastError ?? unfinished(m.receiveCount, q.settings.maxReceiveCount), now);
          deadLettered = true;
          continue;
        }
        batch.push(m);
        if (batch.length >= q.settings.batchSize) break;
      }
      if (batch.length === 0) break;
      for (const m of batch) {
        m.inFlight = true;
        m.receiveCount++;
        m.firstReceivedAt ??= now;
        this.write({ op: 'recv', id: m.messageId, receiveCount: m.receiveCount, at: now });
      }
      q.running++;
      const invocation = this.invoke(q, q.worker, batch).finally(() => {
        q.running--;
        this.invocations.delete(invocation);
        this.pump(q);
        this.notifyIdle();
      });
      this.invocations.add(invocation);
    }
    this.arm(q, now);
    if (deadLettered) this.notifyIdle();
  }

  /** Wakes the queue when its next delayed or backing-off message becomes visible. */
  private arm(q: QueueState, now: number): void {
    let next = Number.POSITIVE_INFINITY;
    for (const m of q.messages.values())
      if (!m.inFlight && m.visibleAt > now) next = Math.min(next, m.visibleAt);
    if (next === q.timerAt && q.timer) return;
    clearTimeout(q.timer);
    q.timer = undefined;
    q.timerAt = next;
    if (next === Number.POSITIVE_INFINITY) return;
    q.timer = setTimeout(
      () => {
        q.timer = undefined;
        q.timerAt = Number.POSITIVE_INFINITY;
        this.pump(q);
      },
      Math.min(next - now, 2 ** 31 - 1),
    );
    q.timer.unref();
  }

  private async invoke(q: QueueState, worker: QueueWorker, batch: Message[]): Promise<void> {
    const ids = new Set(batch.map((m) => m.messageId));
    let failed: Set<string>;
    let error: string;
    try {
      const result = await withInvocationTimeout(
        worker({ Records: batch.map((m) => toRecord(m)) }),
        q.settings.timeoutMs,
      );
      const reported = batchItemFailures(result, ids);
      if (reported === 'invalid') {
        failed = ids;
        error = `Invalid batch response (whole batch failed): ${describeResponse(result)}`;
      } else {
        failed = reported;
        error = 'Reported in batchItemFailures';
      }
    } catch (e) {
      failed = ids;
      error = errorText(e);
      this.logger.error(`[queue ${q.settings.name}] worker failed on a batch of ${batch.length}`, e);
    }
    const now = this.now();
    for (const m of batch) {
      m.inFlight = false;
      if (!q.messages.has(m.messageId)) continue;
      if (
        !failed.has(m.messageId) &&
        this.redeliverEachMessage &&
        !m.redelivered &&
        m.receiveCount < q.settings.maxReceiveCount
      ) {
        // Completed, and delivered once more all the same (not counted as a failure).
        m.redelivered = true;
        m.visibleAt = now;
        this.write({ op: 'retry', id: m.messageId, visibleAt: m.visibleAt, lastError: 'redelivered' });
      } else if (!failed.has(m.messageId)) {
        this.write({ op: 'del', id: m.messageId });
        q.messages.delete(m.messageId);
      } else if (m.receiveCount >= q.settings.maxReceiveCount) {
        this.deadLetter(q, m, error, now);
      } else {
        m.lastError = error;
        m.visibleAt = now + Math.max(0, this.retryDelayMs(m.receiveCount));
        this.write({ op: 'retry', id: m.messageId, visibleAt: m.visibleAt, lastError: error });
      }
    }
    this.maybeCompact();
  }

  private deadLetter(q: QueueState, m: Message, lastError: string, now: number): void {
    const letter: DeadLetter = {
      queue: q.settings.name,
      messageId: m.messageId,
      body: m.body,
      receiveCount: m.receiveCount,
      sentAt: new Date(m.sentAt).toISOString(),
      deadAt: new Date(now).toISOString(),
      lastError,
    };
    // Dead letter first: a crash in between leaves the message in both places (delivered
    // again, which is allowed), never in neither.
    this.write({ op: 'dlq', d: letter });
    this.write({ op: 'del', id: m.messageId });
    q.messages.delete(m.messageId);
    q.dead.push(letter);
    this.logger.warn(
      `[queue ${q.settings.name}] message ${m.messageId} moved to the dead-letter list after ${m.receiveCount} receives`,
    );
  }

  private isIdle(queue: string | undefined): boolean {
    for (const q of this.queues.values()) {
      if (queue !== undefined && q.settings.name !== queue) continue;
      if (q.messages.size > 0 || q.running > 0) return false;
    }
    return true;
  }

  private notifyIdle(): void {
    if (this.waiters.length === 0) return;
    const done = this.waiters.filter((w) => this.isIdle(w.queue));
    if (done.length === 0) return;
    this.waiters = this.waiters.filter((w) => !done.includes(w));
    for (const w of done) w.resolve();
  }

  private describeBusy(queue: string | undefined): string {
    return Object.entries(this.stats())
      .filter(
        ([name, s]) => (queue === undefined || name === queue) && s.pending + s.delayed + s.inFlight > 0,
      )
      .map(
        ([name, s]) =>
          `${name} (pending ${s.pending}, delayed ${s.delayed}, in flight ${s.inFlight}${s.hasWorker ? '' : ', no worker attached'})`,
      )
      .join('; ');
  }

  private write(entry: Entry): void {
    this.journal?.append(entry);
  }

  private restore(): void {
    const journal = this.journal;
    if (!journal) return;
    const { messages, dead, unanswered } = journal.replay();
    let dropped = 0;
    for (const stored of messages) {
      const q = this.queues.get(stored.queue);
      if (!q) {
        dropped++;
        continue;
      }
      const m: Message = { ...stored, inFlight: false };
      // Visible again at once, as after the visibility timeout (the receive stays counted).
      if (unanswered.has(m.messageId)) m.lastError = unfinished(m.receiveCount, q.settings.maxReceiveCount);
      q.messages.set(m.messageId, m);
    }
    for (const d of dead) {
      const q = this.queues.get(d.queue);
      if (q) q.dead.push(d);
      else dropped++;
    }
    if (dropped > 0)
      this.logger.warn(`[queue] dropped ${dropped} stored messages of queues no longer in the manifest`);
    const resumed = messages.length;
    if (resumed > 0) this.logger.info(`[queue] resumed ${resumed} stored message(s)`);
    this.compact();
  }

  private maybeCompact(): void {
    const journal = this.journal;
    if (!journal || journal.appendedSinceSnapshot < 1000) return;
    let live = 0;
    for (const q of this.queues.values()) live += q.messages.size + q.dead.length;
    if (journal.appendedSinceSnapshot > 4 * live) this.compact();
  }

  private compact(): void {
    if (!this.journal) return;
    const messages: StoredMessage[] = [];
    const dead: DeadLetter[] = [];
    for (const q of this.queues.values()) {
      for (const m of q.messages.values()) {
        // A message still in flight (stop's grace ran out) keeps the fact that it did not finish.
        const lastError = m.inFlight ? unfinished(m.receiveCount, q.settings.maxReceiveCount) : m.lastError;
        messages.push({ ...stored(m), lastError });
      }
      dead.push(...q.dead);
    }
    this.journal.snapshot(messages, dead);
  }
}

/** The last error of a message whose worker never answered (the process stopped meanwhile). */
function unfinished(receiveCount: number, maxReceiveCount: number): string {
  return `The worker did not finish: receive ${receiveCount} of ${maxReceiveCount} was never acknowledged (the process stopped while it ran)`;
}

function delaySeconds(value: number): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`delaySeconds must be a non-negative finite number, got ${value}`);
  }
  return Math.min(MAX_DELAY_SECONDS, Math.ceil(value));
}

function* visibleInOrder(q: QueueState, now: number): Generator<Message> {
  const visible = [...q.messages.values()].filter((m) => !m.inFlight && m.visibleAt <= now);
  visible.sort((a, b) => a.visibleAt - b.visibleAt || a.sentAt - b.sentAt);
  yield* visible;
}

function stored(m: Message): StoredMessage {
  const { inFlight: _inFlight, ...rest } = m;
  return rest;
}

function typeOf(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    // A body that is not JSON (JSON.parse throws SyntaxError for nothing else) has no type.
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
  const type = (parsed as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : undefined;
}
