import { Duration } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { defaults, type QueueDef } from '../../shared/manifest';

/** A queue definition with every default filled in. */
export type QueueSettings = Required<QueueDef>;

/** Applies `defaults` from the manifest and checks what SQS and Lambda would reject at deploy time. */
export function queueSettings(def: QueueDef): QueueSettings {
  const settings: QueueSettings = {
    name: def.name,
    handler: def.handler,
    batchSize: def.batchSize ?? defaults.batchSize,
    maxReceiveCount: def.maxReceiveCount ?? defaults.maxReceiveCount,
    visibilityTimeoutSeconds: def.visibilityTimeoutSeconds ?? defaults.visibilityTimeoutSeconds,
    timeoutSeconds: def.timeoutSeconds ?? defaults.workerTimeoutSeconds,
    maxConcurrency: def.maxConcurrency ?? defaults.maxConcurrency,
    uses: def.uses ?? [],
  };
  if (settings.visibilityTimeoutSeconds < settings.timeoutSeconds) {
    throw new Error(
      `Queue ${def.name}: visibility timeout (${settings.visibilityTimeoutSeconds}s) must be at least the worker timeout (${settings.timeoutSeconds}s)`,
    );
  }
  return settings;
}

/** `QUEUE_<NAME>`: the prefix of a queue's `_URL` and `_ARN` environment variables. */
export function queueEnvPrefix(queueName: string): string {
  return `QUEUE_${queueName.toUpperCase().replaceAll('-', '_')}`;
}

export interface WorkQueueProps {
  readonly definition: QueueDef;
  /**
   * How long a message that exhausted its receives stays in the dead-letter queue.
   * @default Duration.days(14) (the SQS maximum)
   */
  readonly deadLetterRetention?: Duration;
}

/** One manifest queue and its own dead-letter queue, both encrypted and TLS only. */
export class WorkQueue extends Construct {
  readonly settings: QueueSettings;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: WorkQueueProps) {
    super(scope, id);
    this.settings = queueSettings(props.definition);
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      retentionPeriod: props.deadLetterRetention ?? Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.queue = new Queue(this, 'Queue', {
      visibilityTimeout: Duration.seconds(this.settings.visibilityTimeoutSeconds),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: this.settings.maxReceiveCount },
    });
  }

  get name(): string {
    return this.settings.name;
  }

  /** Sets `QUEUE_<NAME>_URL` and grants `sqs:SendMessage` (which covers batches). */
  bindSender(fn: LambdaFunction): void {
    fn.addEnvironment(`${queueEnvPrefix(this.name)}_URL`, this.queue.queueUrl);
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }),
    );
  }

  /**
   * Sets `QUEUE_<NAME>_ARN`, which names the queue as the target of the one-off schedules `fn`
   * creates; EventBridge Scheduler sends with its own role, so `fn` gets no SQS right.
   */
  bindScheduleTarget(fn: LambdaFunction): void {
    fn.addEnvironment(`${queueEnvPrefix(this.name)}_ARN`, this.queue.queueArn);
  }
}
