import { Duration, Validations } from 'aws-cdk-lib';
import {
  AuthorizationType,
  AwsIntegration,
  type CfnAuthorizer,
  EndpointType,
  IdentitySource,
  PassthroughBehavior,
  RequestAuthorizer,
  ResponseType,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { uploadResponses } from '../../shared/imports/upload';
import type { DirectUploadDef } from '../../shared/manifest';
import type { UploadBucket } from './upload-bucket';

export interface DirectUploadApiProps {
  readonly definition: DirectUploadDef;
  /** The bucket the body is stored in; its notification starts the work (stateful stack). */
  readonly bucket: UploadBucket;
  /** The Lambda authorizer (REQUEST type) named by the definition. */
  readonly authorizer: IFunction;
  /**
   * Steady and burst requests per second this API accepts.
   * @default { rateLimit: 50, burstLimit: 100 }
   */
  readonly throttle?: { readonly rateLimit: number; readonly burstLimit: number };
}

/**
 * A manifest direct upload on AWS: a REST API (HTTP APIs have no S3 integration) whose one method
 * stores the request body in the upload bucket under `<keyPrefix><projectId>/<jobId>` through an
 * S3 integration, after a Lambda authorizer has checked the headers and returned both ids. The
 * body never enters a Lambda invocation, so Lambda's 6 MB payload limit does not apply; API
 * Gateway's 10 MB does. Answers are the shared templates of `shared/imports/upload.ts`, which the
 * local gateway renders the same way. The HTTP API routes the same path here (`routeUrl`), so
 * clients keep one base URL.
 *
 * Logging: the stage has neither access nor execution logging. On a REST API both need the
 * account-wide API Gateway CloudWatch role (`AWS::ApiGateway::Account`, one per account and
 * region), without which CloudFormation fails the stage ("CloudWatch Logs role ARN must be set in
 * account settings to enable logging"), and that setting is the account's, not this stack's, to
 * own. Every upload already passes through the HTTP API stage, which access-logs it (status,
 * latency, integration error) without that role, and the authorizer logs to its own log group.
 *
 * Cost at idle: nothing (REST APIs bill per request; the authorizer runs per upload).
 */
export class DirectUploadApi extends Construct {
  readonly api: RestApi;
  /** Role API Gateway assumes to write to the bucket: `s3:PutObject` under the key prefix only. */
  readonly storeRole: Role;
  /** The route's URL on this API (`https://<id>.execute-api.../v1/<path>`). */
  readonly routeUrl: string;

  constructor(scope: Construct, id: string, props: DirectUploadApiProps) {
    super(scope, id);
    const def = props.definition;
    const throttle = props.throttle ?? { rateLimit: 50, burstLimit: 100 };
    this.api = new RestApi(this, 'Api', {
      description: `Sesame direct upload: ${def.method} ${def.path} (body stored in S3, no Lambda in between)`,
      endpointTypes: [EndpointType.REGIONAL],
      // Without this API Gateway would treat the body as text and could alter its bytes.
      binaryMediaTypes: ['multipart/form-data'],
      // The account-wide CloudWatch role is an account setting, not this stack's to own; without
      // it a REST stage can have no access or execution logs (see the class comment).
      cloudWatchRole: false,
      deployOptions: {
        stageName: 'v1',
        throttlingRateLimit: throttle.rateLimit,
        throttlingBurstLimit: throttle.burstLimit,
      },
    });

    this.storeRole = new Role(this, 'StoreRole', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      description: `API Gateway writes ${def.path} uploads to the upload bucket`,
    });
    const bucketName = props.bucket.bindUploadWriter(this.storeRole, def.keyPrefix);

    const authorizer = new RequestAuthorizer(this, 'Authorizer', {
      handler: props.authorizer,
      // CDK requires an identity source; the one given is removed below.
      identitySources: [IdentitySource.header('Authorization')],
      // No caching: every upload is a new job.
      resultsCacheTtl: Duration.seconds(0),
    });
    // No identity source: the caller proves itself with a secret key (Authorization) or a member's
    // session cookie, either one, and an identity source would make one of them required (a request
    // without it refused before the authorizer runs). API Gateway takes no identity source when
    // results are not cached (the Authorizer resource's identitySource is optional then).
    (authorizer.node.defaultChild as CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');

    const integration = new AwsIntegration({
      service: 's3',
      integrationHttpMethod: 'PUT',
      path: `${bucketName}/${def.keyPrefix}{projectId}/{jobId}`,
      options: {
        credentialsRole: this.storeRole,
        passthroughBehavior: PassthroughBehavior.WHEN_NO_TEMPLATES,
        requestParameters: {
          'integration.request.path.projectId': 'context.authorizer.projectId',
          'integration.request.path.jobId': 'context.authorizer.jobId',
          'integration.request.header.Content-Type': 'method.request.header.Content-Type',
        },
        integrationResponses: [
          {
            statusCode: String(uploadResponses.accepted.statusCode),
            responseTemplates: { 'application/json': uploadResponses.accepted.template },
          },
          {
            statusCode: String(uploadResponses.storeFailed.statusCode),
            selectionPattern: '[45]\\d{2}',
            responseTemplates: { 'application/json': uploadResponses.storeFailed.template },
          },
        ],
      },
    });
    this.api.root.resourceForPath(def.path).addMethod(def.method, integration, {
      authorizer,
      authorizationType: AuthorizationType.CUSTOM,
      requestParameters: {
        'method.request.header.Content-Type': true,
      },
      // The content type must be there (the authorizer checks the key or session). The body has no model (it is a file), so body validation checks nothing.
      requestValidatorOptions: { validateRequestParameters: true, validateRequestBody: true },
      methodResponses: [
        { statusCode: String(uploadResponses.accepted.statusCode) },
        { statusCode: String(uploadResponses.storeFailed.statusCode) },
      ],
    });

    const gatewayResponse = (
      name: string,
      type: ResponseType,
      response: { statusCode: number; template: string },
    ) =>
      this.api.addGatewayResponse(name, {
        type,
        statusCode: String(response.statusCode),
        templates: { 'application/json': response.template },
      });
    gatewayResponse('Unauthorized', ResponseType.UNAUTHORIZED, uploadResponses.unauthorized);
    gatewayResponse('Denied', ResponseType.ACCESS_DENIED, uploadResponses.denied);
    gatewayResponse('TooLarge', ResponseType.REQUEST_TOO_LARGE, uploadResponses.tooLarge);
    // Any other path or method on this API: the 404 error envelope, as on the HTTP API.
    gatewayResponse('NotFound', ResponseType.MISSING_AUTHENTICATION_TOKEN, {
      statusCode: 404,
      template:
        '{"success":false,"error":{"code":"NOT_FOUND","message":"No such route","statusCode":404,"requestId":"$context.requestId"}}',
    });

    this.routeUrl = `${this.api.url}${def.path.replace(/^\//, '')}`;

    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions-APIG3',
        reason:
          'AWS WAF costs a monthly fee per web ACL and rule even with no traffic, which breaks the $0-at-idle goal. This ' +
          'API has one method, behind a Lambda authorizer that checks the secret key and the per-project rate limit, ' +
          'with stage throttling as the account-level guard.',
      },
      {
        id: 'AwsSolutions-APIG1',
        reason:
          'REST API access logging needs the account-wide API Gateway CloudWatch role (AWS::ApiGateway::Account), ' +
          'without which the stage fails to deploy, and that singleton is an account setting this stack must not own ' +
          'or overwrite. Every request reaches this API through the HTTP API route of the same path, whose stage ' +
          'access-logs it (no account role needed for HTTP APIs); the authorizer logs its verdicts to its own log group.',
      },
      {
        id: 'AwsSolutions-APIG6',
        reason:
          'REST API execution logging needs the account-wide API Gateway CloudWatch role (AWS::ApiGateway::Account), an ' +
          'account setting this stack must not own or overwrite, and the stage fails to deploy without it. The HTTP ' +
          'API stage in front access-logs every upload request and the authorizer Lambda logs to its own log group.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason:
          'Clients authenticate with a Sesame secret API key (or a member session), which the Lambda authorizer ' +
          'checks against DynamoDB; Cognito user pools do not fit API-key clients.',
      },
    );
  }
}
