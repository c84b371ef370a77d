import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { BlockPublicAccess, Bucket, BucketEncryption, EventType, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { SqsDestination } from 'aws-cdk-lib/aws-s3-notifications';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { acknowledgeWildcardResource } from '../nag';

export interface UploadBucketProps {
  /**
   * Days after which objects under `imports/` (CSV files waiting to be imported) expire.
   * @default 7
   */
  readonly importExpirationDays?: number;
}

/** Private bucket for uploads: no public access, S3-managed encryption, TLS only. */
export class UploadBucket extends Construct {
  /** Key prefix of CSV uploads; they are only needed until the import job has read them. */
  static readonly IMPORTS_PREFIX = 'imports/';

  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: UploadBucketProps = {}) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [
        {
          id: 'expire-imports',
          prefix: UploadBucket.IMPORTS_PREFIX,
          expiration: Duration.days(props.importExpirationDays ?? 7),
        },
        // Parts of abandoned multipart uploads are billed as storage but never listed.
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Server access logs would need a second bucket and are delivered best-effort. This bucket is private (public ' +
        'access blocked, TLS only), holds short-lived uploads made through the Sesame API (which is access-logged), ' +
        'and only the Sesame Lambda roles can read or write it. An object-level audit trail, if an operator needs ' +
        'one, is better served by CloudTrail S3 data events, which can be enabled without changing this stack.',
    });
  }

  /**
   * Sets `UPLOAD_BUCKET` and grants get, put and delete on the bucket's objects (keys are chosen at
   * runtime, hence `/*`), plus `s3:ListBucket`, without which S3 answers a missing key with
   * AccessDenied instead of NoSuchKey and the blob adapter could not tell "absent" from "denied".
   */
  bindReadWrite(fn: LambdaFunction): void {
    if (!fn.role) throw new Error(`${fn.node.path} has no role to grant bucket access to`);
    const consumer = Stack.of(fn);
    const producer = Stack.of(this);
    // Written as the consumer's template will read it, so the nag acknowledgement below names the
    // exact finding; `exportValue` returns the same import CDK would create for the reference.
    const bucketArn =
      consumer === producer ? this.bucket.bucketArn : producer.exportValue(this.bucket.bucketArn);
    if (consumer !== producer) consumer.addStackDependency(producer, 'imports the upload bucket ARN');
    const objects = `${bucketArn}/*`;
    fn.addEnvironment('UPLOAD_BUCKET', this.bucket.bucketName);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
        resources: [objects],
      }),
    );
    fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucketArn] }));
    acknowledgeWildcardResource(
      fn.role,
      objects,
      'Object keys (uploads, import files) are chosen at runtime, so the grant covers the objects of this one ' +
        'bucket; the object actions are limited to get, put and delete.',
    );
  }

  /**
   * Announces every object created under `prefix` on `queue` (S3 event notifications; the queue
   * policy lets only this bucket send). Direct uploads start their work this way.
   */
  notifyOnCreated(prefix: string, queue: IQueue): void {
    this.bucket.addEventNotification(EventType.OBJECT_CREATED, new SqsDestination(queue), { prefix });
    // CDK sets bucket notifications through one custom resource Lambda per stack.
    const handler = Stack.of(this).node.tryFindChild(
      'BucketNotificationsHandler050a0587b7544547bf325f094a3db834',
    );
    if (handler) {
      Validations.of(handler).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          "CDK's bucket-notifications custom resource Lambda runs only at deploy time and uses the AWS managed " +
          'AWSLambdaBasicExecutionRole for its own logs; its role is created by the CDK library, not by this app.',
      });
    }
  }

  /**
   * Lets `role` (API Gateway's, for a direct upload) put objects under `prefix` only, and returns
   * the bucket name as `role`'s stack can use it.
   */
  bindUploadWriter(role: IRole, prefix: string): string {
    const consumer = Stack.of(role);
    const producer = Stack.of(this);
    const bucketArn =
      consumer === producer ? this.bucket.bucketArn : producer.exportValue(this.bucket.bucketArn);
    const bucketName =
      consumer === producer ? this.bucket.bucketName : producer.exportValue(this.bucket.bucketName);
    if (consumer !== producer) consumer.addStackDependency(producer, 'imports the upload bucket');
    const objects = `${bucketArn}/${prefix}*`;
    role.addToPrincipalPolicy(new PolicyStatement({ actions: ['s3:PutObject'], resources: [objects] }));
    acknowledgeWildcardResource(
      role,
      objects,
      'Direct uploads are stored under keys API Gateway builds per request (project and job ids), so the grant ' +
        'covers that one prefix of this one bucket, and only s3:PutObject.',
    );
    return bucketName;
  }
}
