import { CfnOutput, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { IMAGE_KEY_PREFIX } from '../../shared/uploads/images';
import { acknowledgeWildcardResource } from '../nag';

/**
 * Public, long-lived hosting of uploaded images (`POST /uploads/image`): a private bucket (public
 * access blocked, S3-managed encryption, TLS only) that only its CloudFront distribution may read,
 * through Origin Access Control: the bucket policy lets the CloudFront service read objects on
 * behalf of this one distribution (`AWS:SourceArn`), and nobody else. An image's URL is
 * `https://<distribution domain>/<key>`.
 *
 * It lives in the stateful stack with the bucket: the distribution's domain is in every URL
 * handed out (and in emails already sent), so it must outlive a redeploy of the functions.
 * Neither costs anything at idle; CloudFront bills per request and byte served.
 */
export class ImageHosting extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    // No versioning and no lifecycle: a key is written once and never replaced or expired, and
    // objects are put whole (at most 4 MB), so there are no multipart parts to clean up.
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Sesame uploaded images',
      defaultBehavior: {
        // Creates the Origin Access Control and the bucket policy statement for this distribution.
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        // Images are compressed already: no Accept-Encoding in the cache key, nothing to compress.
        cachePolicy: CachePolicy.CACHING_OPTIMIZED_FOR_UNCOMPRESSED_OBJECTS,
        compress: false,
        // nosniff among them: a browser takes each image as the type it was stored with.
        responseHeadersPolicy: ResponseHeadersPolicy.SECURITY_HEADERS,
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      // North America and Europe edges only: the cheapest price class, served everywhere.
      priceClass: PriceClass.PRICE_CLASS_100,
    });
    new CfnOutput(this, 'BaseUrl', {
      value: this.baseUrl,
      description: 'Public base URL of uploaded images (the CloudFront distribution of the images bucket)',
    });

    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Server access logs would need a second bucket and are delivered best-effort, as for the upload bucket. ' +
        'This bucket is private (public access blocked, TLS only); Sesame functions may only put objects under ' +
        'images/ and only this distribution may read them. Who uploaded what is in the API access logs; an ' +
        'object-level trail, if an operator wants one, is CloudTrail S3 data events, enabled outside this stack.',
    });
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason:
          'Uploaded images are public by design: they are embedded in emails and pages read anywhere in the world, ' +
          'so restricting countries would break them for recipients there. Nothing but the images is served.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'The distribution serves static, public, immutable images with GET and HEAD only, from a private bucket; ' +
          'there is no application behind it for a WAF to protect, and a web ACL costs money every month at idle, ' +
          'which the architecture rules out. An operator may attach one to the distribution at any time.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'Standard access logs would need a log bucket with ACLs enabled and cost storage for every image view ' +
          '(emails opened). The images are public and read-only; uploads are logged by the API. CloudFront ' +
          'metrics in CloudWatch show traffic, and logging can be turned on outside this stack if needed.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          "The distribution uses CloudFront's default *.cloudfront.net certificate (no custom domain), with which " +
          'CloudFront does not let a minimum TLS version be chosen. The content is public images; viewers are ' +
          'redirected to HTTPS. A custom domain with its own certificate would allow TLSv1.2_2021.',
      },
    );
  }

  /** The images' public base URL, `https://<distribution domain>` (where each key is served). */
  get baseUrl(): string {
    return `https://${this.distribution.distributionDomainName}`;
  }

  /**
   * Sets IMAGE_BUCKET and IMAGE_BASE_URL and nothing else: for code that only needs to know the
   * deployment hosts images (the `feature-flags` use: `storage.enabled` of `GET /config`).
   */
  bindName(fn: LambdaFunction): void {
    fn.addEnvironment('IMAGE_BUCKET', this.bucket.bucketName);
    fn.addEnvironment('IMAGE_BASE_URL', this.baseUrl);
  }

  /**
   * Sets the two variables and grants `s3:PutObject` on the `images/` keys, and nothing else: the
   * upload function cannot read, list, delete or write anywhere else (the `images` use).
   */
  bindWriter(fn: LambdaFunction): void {
    if (!fn.role) throw new Error(`${fn.node.path} has no role to grant bucket access to`);
    const consumer = Stack.of(fn);
    const producer = Stack.of(this);
    // Written as the consumer's template will read it, so the nag acknowledgement below names the
    // exact finding (as UploadBucket.bindReadWrite does).
    const bucketArn =
      consumer === producer ? this.bucket.bucketArn : producer.exportValue(this.bucket.bucketArn);
    if (consumer !== producer) consumer.addStackDependency(producer, 'imports the images bucket');
    const objects = `${bucketArn}/${IMAGE_KEY_PREFIX}*`;
    this.bindName(fn);
    fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:PutObject'], resources: [objects] }));
    acknowledgeWildcardResource(
      fn.role,
      objects,
      'Image keys are made per upload (project and a new UUID), so the grant covers the images/ prefix of this ' +
        'one bucket, and only s3:PutObject: the function can neither read, list nor delete images.',
    );
  }
}
