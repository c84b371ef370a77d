/** The queue port over SQS, with its client (see aws-wiring/sqs.ts, `sqsQueue`). */
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsQueue } from '../../adapters/aws/sqs';
import type { QueuePort } from '../../ports';
import type { AwsSettings } from '../aws';

export function sqsQueue(settings: AwsSettings): QueuePort {
  return new SqsQueue(new SQSClient({}), { queueUrls: settings.queueUrls });
}
