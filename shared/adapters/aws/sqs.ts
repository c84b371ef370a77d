/** QueuePort over Amazon SQS. */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { QueueName } from '../../manifest';
import type { QueueMessage, QueuePort } from '../../ports';

/** SQS's own ceiling for `DelaySeconds` (15 minutes). Longer waits belong to the scheduler. */
export const MAX_SQS_DELAY_SECONDS = 900;

export interface SqsQueueConfig {
  /**
   * Queue URL by queue name. A queue left out fails on first use rather than at construction,
   * so a function that never sends to a queue need not be configured with it.
   */
  readonly queueUrls: Readonly<Partial<Record<QueueName, string>>>;
}

/**
 * Sends each message as a JSON body with a `type` message attribute (so consumers and
 * subscription filters can see the job kind without parsing the body).
 */
export class SqsQueue implements QueuePort {
  constructor(
    private readonly client: SQSClient,
    private readonly config: SqsQueueConfig,
  ) {}

  async send(
    queue: QueueName,
    message: QueueMessage,
    options: { delaySeconds?: number } = {},
  ): Promise<void> {
    const url = this.config.queueUrls[queue];
    if (!url) throw new Error(`SqsQueue: no URL configured for queue "${queue}"`);
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: JSON.stringify(message),
        DelaySeconds: options.delaySeconds === undefined ? undefined : sqsDelaySeconds(options.delaySeconds),
        MessageAttributes: { type: { DataType: 'String', StringValue: message.type } },
      }),
    );
  }
}

/**
 * Whole seconds within SQS's 0..900 range. Fractions round up so a message is never visible
 * early; longer delays are capped at 900 (callers that need more use the SchedulerPort).
 */
export function sqsDelaySeconds(delaySeconds: number): number {
  if (!Number.isFinite(delaySeconds) || delaySeconds < 0) {
    throw new RangeError(`delaySeconds must be a non-negative finite number, got ${delaySeconds}`);
  }
  return Math.min(MAX_SQS_DELAY_SECONDS, Math.ceil(delaySeconds));
}
