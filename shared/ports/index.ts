/**
 * Ports: everything domain code needs from the outside world. Each port that talks to AWS has
 * two adapters, one over the AWS SDK (`shared/adapters/aws`) and one local
 * (`shared/adapters/local`); the composition roots pick one. The DynamoDB store is the same code
 * in both modes, pointed at a different endpoint.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AppConfig } from '../config/env';
import type { QueueName } from '../manifest';

/** A message on a work queue. `type` names the job kind within that queue. */
export interface QueueMessage {
  readonly type: string;
  readonly [key: string]: unknown;
}

export interface QueuePort {
  /** Enqueue one message; delivery is at-least-once, so consumers must be idempotent. */
  send(queue: QueueName, message: QueueMessage, options?: { delaySeconds?: number }): Promise<void>;
}

export interface ScheduleInput {
  /** Unique name within the project's deployment; re-using a name replaces the schedule. */
  readonly name: string;
  readonly at: Date;
  readonly queue: QueueName;
  readonly message: QueueMessage;
}

export interface SchedulerPort {
  /** A one-off schedule that puts `message` on `queue` at `at`. */
  scheduleAt(input: ScheduleInput): Promise<void>;
  /** Deletes a one-off schedule; deleting an unknown one is not an error. */
  cancel(name: string): Promise<void>;
}

export interface RawEmail {
  readonly from: string;
  readonly to: readonly string[];
  /** The full RFC 5322 message. */
  readonly raw: Uint8Array;
  /** Tags carried to SES events (for example emailId, projectId). */
  readonly tags?: Readonly<Record<string, string>>;
}

export interface MailerPort {
  sendRaw(email: RawEmail): Promise<{ messageId: string }>;
}

export type DnsRecordType = 'A' | 'AAAA' | 'MX' | 'NS' | 'TXT' | 'CNAME';

export interface DnsPort {
  /**
   * Records of one type for a name, as strings: MX as "<priority> <exchange>", TXT with its
   * chunks joined. A name or type with no records answers []; other failures reject.
   */
  resolve(name: string, type: DnsRecordType): Promise<string[]>;
}

export interface BlobPort {
  put(key: string, body: Uint8Array, contentType: string): Promise<void>;
  get(key: string): Promise<Uint8Array | undefined>;
  delete(key: string): Promise<void>;
}

export interface Clock {
  now(): Date;
}

export interface Ids {
  /** A new random UUID. */
  uuid(): string;
}

/** Everything a handler needs, passed in at the composition root. */
export interface Deps {
  readonly db: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly queue: QueuePort;
  readonly scheduler: SchedulerPort;
  readonly mailer: MailerPort;
  readonly dns: DnsPort;
  readonly blobs: BlobPort;
  readonly clock: Clock;
  readonly ids: Ids;
  readonly config: AppConfig;
}

export const systemClock: Clock = { now: () => new Date() };
export const randomIds: Ids = { uuid: () => crypto.randomUUID() };
