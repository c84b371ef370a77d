/**
 * The queue's adapter factory: SQS, loaded on first use.
 * One factory per module (see `AwsWiring`, ../aws.ts): an entry point imports the factories it is wired
 * with, and no other factory's `import()` is in its bundle's graph.
 */
import type { QueuePort } from '../../ports';
import type { PortFactory } from '../aws';

export const sqsQueue: PortFactory<QueuePort> = async (settings) =>
  (await import('../aws-ports/sqs')).sqsQueue(settings);
