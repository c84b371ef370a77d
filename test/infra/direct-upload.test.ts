/**
 * The wiring of POST /contacts/import on AWS (docs/imports.md, "Large files"): the HTTP API
 * forwards the route to a REST API whose S3 integration stores the body under
 * imports/<projectId>/<jobId> (ids from the Lambda authorizer), and the bucket announces the
 * object on the jobs queue. No Lambda invocation carries the body.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { uploadResponses } from '../../shared/imports/upload';
import { logicalId, policyStatements, resourcesOfType, synthSesame } from './support';

const sesame = synthSesame();
const { stateless, stateful, statelessTemplate: template, statefulTemplate, manifest } = sesame;
const def = manifest.directUploads!.find((u) => u.name === 'contacts-import')!;
const upload = stateless.directUploads.get(def.name)!;
const restApiId = logicalId(stateless, upload.api);
const storeRoleId = logicalId(stateless, upload.storeRole);
const authorizerFnId = logicalId(stateless, stateless.functions.get('AuthorizerContactsImport')!.function);

describe('POST /contacts/import on AWS', () => {
  it('is in the manifest as a direct upload to imports/ announced on the jobs queue', () => {
    expect(def).toMatchObject({
      method: 'POST',
      path: '/contacts/import',
      keyPrefix: 'imports/',
      queue: 'jobs',
    });
    expect(
      manifest.routeGroups.flatMap((g) => g.routes).some((r) => r.path === def.path && r.method === 'POST'),
    ).toBe(false);
  });

  it('the HTTP API proxies the route, body untouched, to the REST API stage under the same base URL', () => {
    const routes = Object.values(resourcesOfType(template, 'AWS::ApiGatewayV2::Route'));
    const route = routes.find((r) => r.Properties.RouteKey === 'POST /contacts/import');
    const target = route!.Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] };
    const integrationId = target['Fn::Join'][1][1].Ref;
    const integration = resourcesOfType(template, 'AWS::ApiGatewayV2::Integration')[integrationId]!;
    expect(integration.Properties).toMatchObject({
      IntegrationType: 'HTTP_PROXY',
      IntegrationMethod: 'POST',
    });
    const uri = JSON.stringify(integration.Properties.IntegrationUri);
    expect(uri).toContain(`{"Ref":"${restApiId}"}`);
    expect(uri).toContain('/contacts/import');
  });

  it('the REST API takes the body as binary and stores it with an S3 PutObject, no Lambda integration', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      BinaryMediaTypes: ['multipart/form-data'],
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
    const methods = Object.values(resourcesOfType(template, 'AWS::ApiGateway::Method'));
    expect(methods).toHaveLength(1);
    const method = methods[0]!.Properties as Record<string, Record<string, unknown>> & { HttpMethod: string };
    expect(method.HttpMethod).toBe('POST');
    expect(method.AuthorizationType).toBe('CUSTOM');
    expect(method.Integration).toMatchObject({
      Type: 'AWS',
      IntegrationHttpMethod: 'PUT',
      PassthroughBehavior: 'WHEN_NO_TEMPLATES',
      Credentials: { 'Fn::GetAtt': [storeRoleId, 'Arn'] },
      RequestParameters: {
        'integration.request.path.projectId': 'context.authorizer.projectId',
        'integration.request.path.jobId': 'context.authorizer.jobId',
        'integration.request.header.Content-Type': 'method.request.header.Content-Type',
      },
    });
    const uri = JSON.stringify(method.Integration!.Uri);
    expect(uri).toContain(':s3:path/');
    expect(uri).toContain('/imports/{projectId}/{jobId}');
    expect(JSON.stringify(template.toJSON())).not.toMatch(/"IntegrationType":"AWS_PROXY"[^}]*ContactsImport/);
  });

  it('answers {jobId, status: queued} from the authorizer context, and the shared templates otherwise', () => {
    const method = Object.values(resourcesOfType(template, 'AWS::ApiGateway::Method'))[0]!.Properties as {
      Integration: { IntegrationResponses: Record<string, unknown>[] };
    };
    expect(method.Integration.IntegrationResponses).toEqual([
      { StatusCode: '202', ResponseTemplates: { 'application/json': uploadResponses.accepted.template } },
      {
        StatusCode: '500',
        SelectionPattern: '[45]\\d{2}',
        ResponseTemplates: { 'application/json': uploadResponses.storeFailed.template },
      },
    ]);
    expect(uploadResponses.accepted.template).toBe('{"jobId":"$context.authorizer.jobId","status":"queued"}');
    for (const [type, response] of [
      ['UNAUTHORIZED', uploadResponses.unauthorized],
      ['ACCESS_DENIED', uploadResponses.denied],
      ['REQUEST_TOO_LARGE', uploadResponses.tooLarge],
    ] as const) {
      template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        StatusCode: String(response.statusCode),
        ResponseTemplates: { 'application/json': response.template },
      });
    }
  });

  it('authenticates with the secret key or a session through an uncached REQUEST authorizer with no identity source', () => {
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      AuthorizerResultTtlInSeconds: 0,
    });
    const authorizer = Object.values(resourcesOfType(template, 'AWS::ApiGateway::Authorizer'))[0]!;
    // An identity source would make its header required (refused before the authorizer runs):
    // either the key or the session cookie must do. Optional only because nothing is cached.
    expect(authorizer.Properties.IdentitySource).toBeUndefined();
    const method = Object.values(resourcesOfType(template, 'AWS::ApiGateway::Method')).find(
      (m) => m.Properties.AuthorizationType === 'CUSTOM',
    )!;
    expect(method.Properties.RequestParameters).toEqual({ 'method.request.header.Content-Type': true });
    expect(JSON.stringify(authorizer.Properties.AuthorizerUri)).toContain(authorizerFnId);
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'apigateway.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [authorizerFnId, 'Arn'] },
    });
    template.hasResourceProperties('AWS::ApiGateway::RequestValidator', {
      ValidateRequestParameters: true,
    });
  });

  it("API Gateway's role may only put objects under imports/ of the upload bucket", () => {
    const statements = policyStatements(template).filter((s) =>
      JSON.stringify(resourcesOfType(template, 'AWS::IAM::Policy')[s.policy]!.Properties.Roles).includes(
        storeRoleId,
      ),
    );
    expect(statements).toHaveLength(1);
    expect(statements[0]!.actions).toEqual(['s3:PutObject']);
    const resource = JSON.stringify(statements[0]!.statement.Resource);
    expect(resource).toContain('UploadsBucket');
    expect(resource).toContain('/imports/*');
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })],
      },
    });
  });

  it('the bucket announces objects created under imports/ on the jobs queue, which only it may send to', () => {
    const bucketId = logicalId(stateful, stateful.bucket.bucket);
    const queueId = logicalId(stateful, stateful.queues.get('jobs')!.queue);
    statefulTemplate.hasResourceProperties('Custom::S3BucketNotifications', {
      BucketName: { Ref: bucketId },
      NotificationConfiguration: {
        QueueConfigurations: [
          {
            Events: ['s3:ObjectCreated:*'],
            Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: 'imports/' }] } },
            QueueArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
          },
        ],
      },
    });
    statefulTemplate.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queueId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 's3.amazonaws.com' },
            Action: Match.arrayWith(['sqs:SendMessage']),
            Condition: { ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [bucketId, 'Arn'] } } },
          }),
        ]),
      },
    });
  });

  it('throttles the REST stage like the HTTP API', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'v1',
      MethodSettings: [Match.objectLike({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 })],
    });
  });

  it('deploys without the account-wide API Gateway CloudWatch role, and does not take it over', () => {
    // REST API access and execution logging both need that role (AWS::ApiGateway::Account); a stage
    // asking for either fails in an account without one. HTTP API access logs do not need it, and
    // the HTTP API stage in front of this API logs every upload request.
    const stages = Object.values(resourcesOfType(template, 'AWS::ApiGateway::Stage'));
    expect(stages).toHaveLength(1);
    const stage = stages[0]!.Properties;
    expect(stage.AccessLogSetting).toBeUndefined();
    for (const settings of (stage.MethodSettings ?? []) as Record<string, unknown>[]) {
      expect(settings.LoggingLevel ?? 'OFF').toBe('OFF');
      expect(settings.DataTraceEnabled ?? false).toBe(false);
    }
    for (const t of [template, statefulTemplate]) {
      t.resourceCountIs('AWS::ApiGateway::Account', 0);
      t.resourceCountIs('AWS::ApiGateway::Deployment', t === template ? 1 : 0);
    }
    const httpStages = Object.values(resourcesOfType(template, 'AWS::ApiGatewayV2::Stage'));
    expect(httpStages).toHaveLength(1);
    expect(httpStages[0]!.Properties.AccessLogSettings).toBeDefined();
  });
});
