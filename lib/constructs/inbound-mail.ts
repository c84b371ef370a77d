import { Aws, CfnOutput, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import {
  type IReceiptRuleAction,
  type ReceiptRule,
  type ReceiptRuleActionConfig,
  ReceiptRuleSet,
} from 'aws-cdk-lib/aws-ses';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { INBOUND_KEY_PREFIX } from '../../shared/inbound/messages';
import { acknowledgeWildcardResource } from '../nag';

export interface InboundMailProps {
  /** The domain whose mail SES receives (every address at it). */
  readonly domain: string;
  /** The queue the received-mail notifications go to (the manifest's `jobs` queue). */
  readonly queue: Queue;
  /**
   * Days after which stored messages expire.
   * @default 30
   */
  readonly expirationDays?: number;
}

/**
 * Opt-in inbound mail (`-c inboundDomain=<domain>`): an SES receipt rule set with one rule for the
 * domain, whose S3 action stores each message's raw MIME under `inbound/` in a private bucket and
 * then publishes SES's `Received` notification to a topic; the topic delivers it to the jobs
 * queue with raw message delivery, so the SQS body is the notification JSON itself
 * (`{ notificationType: 'Received', mail, receipt: { action: { type: 'S3', bucketName,
 * objectKey, ... } } }`), which names the stored object.
 *
 * SES receives only with an active rule set, and only one rule set per account and region is
 * active; CloudFormation cannot make a rule set active, so the deploy prints the rule set's name
 * (`InboundReceiptRuleSetName`) for `aws ses set-active-receipt-rule-set --rule-set-name <name>`.
 *
 * SES may write and publish only for this rule: the bucket's and the topic's statements for
 * ses.amazonaws.com require `AWS:SourceAccount` (this account) and `AWS:SourceArn` (this rule),
 * as the SES developer guide gives them. CDK's own S3 receipt action is not used: its bucket
 * statement conditions on the account alone.
 *
 * The jobs worker reads the stored messages (the `inbound-mail` use, `bindReader`) and turns each
 * into an `email.received` event (shared/inbound).
 */
export class InboundMail extends Construct {
  /** Key prefix of stored messages; a message's key is the prefix and SES's message id. */
  static readonly KEY_PREFIX = INBOUND_KEY_PREFIX;

  readonly bucket: Bucket;
  readonly topic: Topic;
  readonly ruleSet: ReceiptRuleSet;
  readonly rule: ReceiptRule;
  /** Fixed names: the policies must name the rule before it exists (SES checks them when it is created). */
  readonly ruleSetName: string;
  readonly ruleName = 'store-and-notify';

  constructor(scope: Construct, id: string, props: InboundMailProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.ruleSetName = `${stack.stackName}-inbound`;
    const ruleArn = inboundRuleArn(this.ruleSetName, this.ruleName);
    const fromThisRule = {
      StringEquals: { 'AWS:SourceAccount': Aws.ACCOUNT_ID, 'AWS:SourceArn': ruleArn },
    };

    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [{ id: 'expire-inbound-mail', expiration: Duration.days(props.expirationDays ?? 30) }],
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Server access logs would need a second bucket and are delivered best-effort. This bucket is private ' +
        '(public access blocked, TLS only), only SES may write to it and only for this receipt rule, and its ' +
        'objects expire; an object-level audit trail is better served by CloudTrail S3 data events, which an ' +
        'operator can enable without changing this stack.',
    });
    const bucketStatement = this.bucket.addToResourcePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject'],
        principals: [new ServicePrincipal('ses.amazonaws.com')],
        resources: [this.bucket.arnForObjects(`${InboundMail.KEY_PREFIX}*`)],
        conditions: fromThisRule,
      }),
    );

    // Unencrypted for the reason the SES events topic is (lib/constructs/email-events.ts); the
    // notification carries headers only, the message itself stays in the bucket.
    this.topic = new Topic(this, 'Topic', { displayName: 'Sesame inbound mail', enforceSSL: true });
    const topicStatement = this.topic.addToResourcePolicy(
      new PolicyStatement({
        actions: ['sns:Publish'],
        principals: [new ServicePrincipal('ses.amazonaws.com')],
        resources: [this.topic.topicArn],
        conditions: fromThisRule,
      }),
    );
    this.topic.addSubscription(new SqsSubscription(props.queue, { rawMessageDelivery: true }));

    this.ruleSet = new ReceiptRuleSet(this, 'RuleSet', { receiptRuleSetName: this.ruleSetName });
    this.rule = this.ruleSet.addRule('Rule', {
      receiptRuleName: this.ruleName,
      recipients: [props.domain],
      enabled: true,
      // Spam and virus verdicts in the notification's `receipt`.
      scanEnabled: true,
      actions: [new StoreAndNotify(this.bucket, InboundMail.KEY_PREFIX, this.topic)],
    });
    // SES writes a test object and checks the topic when the rule is created.
    for (const { policyDependable } of [bucketStatement, topicStatement]) {
      if (policyDependable) this.rule.node.addDependency(policyDependable);
    }

    new CfnOutput(stack, 'InboundReceiptRuleSetName', {
      value: this.ruleSetName,
      description:
        'SES receipt rule set for inbound mail; make it active once per account and region: ' +
        `aws ses set-active-receipt-rule-set --rule-set-name ${this.ruleSetName}`,
    });
  }

  /**
   * Sets INBOUND_BUCKET and grants `s3:GetObject` on the stored messages (the `inbound/` keys)
   * and `s3:ListBucket` on the bucket, and nothing else: no write, no delete (the `inbound-mail`
   * use). Without `s3:ListBucket`, S3 answers a read of a missing key (a message expired or
   * deleted) with AccessDenied instead of NoSuchKey, so a message that is gone could not be told
   * from a denied read, and would be retried until dead-lettered instead of dropped.
   */
  bindReader(fn: LambdaFunction): void {
    if (!fn.role) throw new Error(`${fn.node.path} has no role to grant bucket access to`);
    const consumer = Stack.of(fn);
    const producer = Stack.of(this);
    // Written as the consumer's template will read it, so the nag acknowledgement below names the
    // exact finding (as UploadBucket.bindReadWrite does).
    const bucketArn =
      consumer === producer ? this.bucket.bucketArn : producer.exportValue(this.bucket.bucketArn);
    if (consumer !== producer) consumer.addStackDependency(producer, 'imports the inbound mail bucket');
    const messages = `${bucketArn}/${InboundMail.KEY_PREFIX}*`;
    fn.addEnvironment('INBOUND_BUCKET', this.bucket.bucketName);
    fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [messages] }));
    fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucketArn] }));
    acknowledgeWildcardResource(
      fn.role,
      messages,
      'SES names each stored message after its own message id, known only when mail arrives, so the grant ' +
        'covers the inbound/ prefix of this one bucket, and only s3:GetObject: the function can neither write ' +
        'nor delete received mail.',
    );
  }
}

/** `arn:<partition>:ses:<region>:<account>:receipt-rule-set/<set>:receipt-rule/<rule>`, the `AWS:SourceArn` of SES's requests for a rule. */
export function inboundRuleArn(ruleSetName: string, ruleName: string): string {
  return `arn:${Aws.PARTITION}:ses:${Aws.REGION}:${Aws.ACCOUNT_ID}:receipt-rule-set/${ruleSetName}:receipt-rule/${ruleName}`;
}

/** The S3 receipt action, with the bucket and topic permissions granted by `InboundMail` itself. */
class StoreAndNotify implements IReceiptRuleAction {
  constructor(
    private readonly bucket: Bucket,
    private readonly keyPrefix: string,
    private readonly topic: Topic,
  ) {}

  bind(): ReceiptRuleActionConfig {
    return {
      s3Action: {
        bucketName: this.bucket.bucketName,
        objectKeyPrefix: this.keyPrefix,
        topicArn: this.topic.topicArn,
      },
    };
  }
}
