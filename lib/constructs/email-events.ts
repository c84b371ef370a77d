import { ArnFormat, CfnOutput, Stack } from 'aws-cdk-lib';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { ConfigurationSet, EmailSendingEvent, EventDestination } from 'aws-cdk-lib/aws-ses';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/**
 * The SES events the configuration set publishes: every event the activity pipeline applies
 * (shared/email-events). Not `subscription` (SES-managed list preferences, which Sesame does not use).
 */
export const SES_PUBLISHED_EVENTS: readonly EmailSendingEvent[] = [
  EmailSendingEvent.SEND,
  EmailSendingEvent.DELIVERY,
  EmailSendingEvent.DELIVERY_DELAY,
  EmailSendingEvent.BOUNCE,
  EmailSendingEvent.COMPLAINT,
  EmailSendingEvent.REJECT,
  EmailSendingEvent.OPEN,
  EmailSendingEvent.CLICK,
  EmailSendingEvent.RENDERING_FAILURE,
];

export interface EmailEventsProps {
  /** The queue the events go to (the manifest's `jobs` queue). */
  readonly queue: Queue;
}

/**
 * The SES event pipeline's AWS side: a configuration set that every send names, whose event
 * destination publishes SES's events to a topic, which delivers them to the jobs queue with raw
 * message delivery, so each SQS body is the SES event JSON itself (`sesEventNormalizer` in
 * shared/email-events/messages.ts turns it into a `ses.event` job).
 *
 * CDK's SNS event destination adds the topic's policy statement (and makes the destination wait
 * for it, since SES checks it can publish): `sns:Publish` for ses.amazonaws.com, only from this
 * account (`AWS:SourceAccount`) and this configuration set (`AWS:SourceArn`), as the SES guide gives
 * it. The SQS subscription adds the queue's: `sqs:SendMessage` for sns.amazonaws.com, only from
 * this topic (`aws:SourceArn`). test/infra/email-events.test.ts pins both.
 */
export class EmailEvents extends Construct {
  readonly configurationSet: ConfigurationSet;
  readonly topic: Topic;

  constructor(scope: Construct, id: string, props: EmailEventsProps) {
    super(scope, id);
    // No server-side encryption: SES publishes to an encrypted topic only when the key's policy
    // lets ses.amazonaws.com use the key, which the AWS managed key alias/aws/sns does not and
    // cannot be made to allow, and a customer managed KMS key costs $1 a month at idle. The topic
    // stores nothing: it hands each message over TLS (publishing without TLS is denied) to the jobs
    // queue, which keeps it encrypted with SSE-SQS (no KMS key, so SNS needs no key grant either).
    this.topic = new Topic(this, 'Topic', { displayName: 'Sesame SES events', enforceSSL: true });
    // The name is CloudFormation's (unique per account and region, so stages never collide).
    this.configurationSet = new ConfigurationSet(this, 'ConfigurationSet');
    this.configurationSet.addEventDestination('Topic', {
      destination: EventDestination.snsTopic(this.topic),
      events: [...SES_PUBLISHED_EVENTS],
    });
    this.topic.addSubscription(new SqsSubscription(props.queue, { rawMessageDelivery: true }));
    new CfnOutput(Stack.of(this), 'SesConfigurationSetName', {
      value: this.configurationSet.configurationSetName,
      description: 'SES configuration set every Sesame send names (its events feed the jobs queue)',
    });
    new CfnOutput(Stack.of(this), 'SesEventsTopicArn', {
      value: this.topic.topicArn,
      description:
        'SNS topic of the SES events; POST /webhooks/sns accepts HTTPS deliveries of this topic only',
    });
  }

  /**
   * The configuration set's ARN in `scope`'s stack. SES v2 `SendEmail` with a configuration set
   * is authorized on the set as well as on the sending identity.
   */
  configurationSetArn(scope: Construct): string {
    return Stack.of(scope).formatArn({
      service: 'ses',
      resource: 'configuration-set',
      resourceName: this.configurationSet.configurationSetName,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
  }

  /**
   * Sets `SES_EVENTS_TOPIC_ARN`: the topic whose HTTPS subscription confirmations and
   * notifications `POST /webhooks/sns` accepts. Grants nothing (confirming a subscription is an
   * unauthenticated GET of the SubscribeURL SNS sends).
   */
  bindTopicArn(fn: LambdaFunction): void {
    fn.addEnvironment('SES_EVENTS_TOPIC_ARN', this.topic.topicArn);
  }
}
