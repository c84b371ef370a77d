/**
 * The Lambda side of an SQS event source mapping, as the local queue plays it: the records a
 * worker invocation receives (`toRecord`, shaped like Lambda's SQS event) and how Lambda reads
 * the worker's answer (`batchItemFailures`, partial batch responses).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../../local/lambda';

/** A queue's consumer: the worker Lambda's handler, with the invocation context bound. */
export type QueueWorker = (event: SQSEvent) => Promise<unknown>;

/** What a record is made of: one delivery of a stored message. */
export interface Delivery {
  readonly queue: string;
  readonly messageId: string;
  readonly body: string;
  /** The `type` message attribute, when the sender set one. */
  readonly typeAttribute: string | undefined;
  /** Epoch milliseconds. */
  readonly sentAt: number;
  readonly receiveCount: number;
  readonly firstReceivedAt: number | undefined;
}

const SENDER_ID = 'AIDALOCALSESAMERUNTIME';

/** The record Lambda hands the worker for one delivery (a fresh receipt handle each time). */
export function toRecord(m: Delivery): SQSRecord {
  return {
    messageId: m.messageId,
    receiptHandle: randomBytes(48).toString('base64'),
    body: m.body,
    attributes: {
      ApproximateReceiveCount: String(m.receiveCount),
      SentTimestamp: String(m.sentAt),
      SenderId: SENDER_ID,
      ApproximateFirstReceiveTimestamp: String(m.firstReceivedAt ?? m.sentAt),
    },
    messageAttributes:
      m.typeAttribute === undefined ? {} : { type: { dataType: 'String', stringValue: m.typeAttribute } },
    md5OfBody: createHash('md5').update(m.body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:sesame-${m.queue}`,
    awsRegion: LOCAL_REGION,
  };
}

/**
 * Lambda's reading of a batch response: nothing, null or an empty list is full success; an
 * identifier that is empty, not a string or not in the batch makes the whole batch fail.
 */
export function batchItemFailures(result: unknown, ids: ReadonlySet<string>): Set<string> | 'invalid' {
  if (result === undefined || result === null) return new Set();
  if (typeof result !== 'object') return 'invalid';
  const failures = (result as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  if (!Array.isArray(failures)) return 'invalid';
  const failed = new Set<string>();
  for (const f of failures) {
    const id = (f as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !ids.has(id)) return 'invalid';
    failed.add(id);
  }
  return failed;
}

/** Rejects with Lambda's timeout message when the invocation outlives `ms`. */
export function withInvocationTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Task timed out after ${ms / 1000} seconds`)), ms);
    // A worker that never settles must not keep the process alive on its own.
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A batch response for a log line; a value JSON cannot encode is shown as text. */
export function describeResponse(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch (error) {
    // JSON.stringify throws TypeError (cycles, BigInt) and nothing else.
    if (!(error instanceof TypeError)) throw error;
    return String(value);
  }
}
