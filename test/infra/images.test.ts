/**
 * Image hosting (lib/constructs/image-hosting.ts): a private bucket only its CloudFront
 * distribution may read, through Origin Access Control, and the upload function's right to put
 * images in it and nothing more.
 */
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { logicalId, policyStatements, resourcesOfType, synthSesame } from './support';

const sesame = synthSesame();
const { stateful, stateless, statefulTemplate, statelessTemplate, app } = sesame;

const bucketId = logicalId(stateful, stateful.images.bucket);
const distributionId = logicalId(stateful, stateful.images.distribution);
const bucketArn = { 'Fn::GetAtt': [bucketId, 'Arn'] };
const objects = { 'Fn::Join': ['', [bucketArn, '/*']] };
const distributionArn = {
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':cloudfront::',
      { Ref: 'AWS::AccountId' },
      ':distribution/',
      { Ref: distributionId },
    ],
  ],
};

/** The stateless stack's import of a stateful export whose name mentions `id` and `attribute`. */
const imported = (id: string, attribute: string) => ({
  'Fn::ImportValue': expect.stringMatching(new RegExp(`${id}.*${attribute}`)),
});

describe('images bucket', () => {
  const bucket = resourcesOfType(statefulTemplate, 'AWS::S3::Bucket')[bucketId]!;

  it('is private, encrypted, owner-enforced and retained, without versioning or lifecycle', () => {
    expect(bucket.Properties).toEqual({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    });
    expect(bucket).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it('refuses requests without TLS, and lets only this distribution read its objects (OAC, AWS:SourceArn)', () => {
    const policies = Object.values(resourcesOfType(statefulTemplate, 'AWS::S3::BucketPolicy')).filter(
      (p) => JSON.stringify(p.Properties.Bucket) === JSON.stringify({ Ref: bucketId }),
    );
    expect(policies).toHaveLength(1);
    const statements = (policies[0]!.Properties.PolicyDocument as { Statement: Record<string, unknown>[] })
      .Statement;
    expect(statements.filter((s) => s.Effect === 'Deny')).toEqual([
      {
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 's3:*',
        Resource: [bucketArn, objects],
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      },
    ]);
    // The one grant: the CloudFront service, reading objects (no listing), for this distribution.
    expect(statements.filter((s) => s.Effect === 'Allow')).toEqual([
      {
        Effect: 'Allow',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:GetObject',
        Resource: objects,
        Condition: { StringEquals: { 'AWS:SourceArn': distributionArn } },
      },
    ]);
  });
});

describe('images distribution', () => {
  const distribution = resourcesOfType(statefulTemplate, 'AWS::CloudFront::Distribution')[distributionId]!;
  const config = distribution.Properties.DistributionConfig as Record<string, unknown>;

  it('reads the bucket through an Origin Access Control (signed sigv4 requests), never a legacy OAI', () => {
    const oacs = resourcesOfType(statefulTemplate, 'AWS::CloudFront::OriginAccessControl');
    expect(Object.keys(oacs)).toHaveLength(1);
    const [oacId, oac] = Object.entries(oacs)[0]!;
    expect(oac.Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    expect(config.Origins).toEqual([
      {
        Id: expect.any(String),
        DomainName: { 'Fn::GetAtt': [bucketId, 'RegionalDomainName'] },
        OriginAccessControlId: { 'Fn::GetAtt': [oacId, 'Id'] },
        // Empty with OAC, as CloudFormation asks.
        S3OriginConfig: { OriginAccessIdentity: '' },
      },
    ]);
    statefulTemplate.resourceCountIs('AWS::CloudFront::CloudFrontOriginAccessIdentity', 0);
  });

  it('serves GET and HEAD over HTTPS only, with the managed security headers (nosniff among them)', () => {
    expect(config).toMatchObject({
      Enabled: true,
      DefaultCacheBehavior: {
        AllowedMethods: ['GET', 'HEAD'],
        ViewerProtocolPolicy: 'redirect-to-https',
        // Managed-CachingOptimizedForUncompressedObjects and Managed-SecurityHeadersPolicy.
        CachePolicyId: 'b2884449-e4de-46a7-ac36-70bc7f1ddd6d',
        ResponseHeadersPolicyId: '67f7725c-6f97-4210-82d7-5512b31e9d03',
      },
      PriceClass: 'PriceClass_100',
    });
    expect(config.DefaultRootObject).toBeUndefined();
  });

  it('is in the stateful stack, so the domain in every image URL outlives a redeploy of the functions', () => {
    statelessTemplate.resourceCountIs('AWS::CloudFront::Distribution', 0);
    const outputs = Object.values(statefulTemplate.findOutputs('*')).map((o) => o.Value);
    expect(outputs).toContainEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]],
    });
  });
});

describe('upload function', () => {
  const functions = resourcesOfType(statelessTemplate, 'AWS::Lambda::Function');
  const functionOf = (id: string) => functions[logicalId(stateless, stateless.functions.get(id)!.function)]!;
  const variables = (id: string) =>
    (functionOf(id).Properties.Environment as { Variables: Record<string, unknown> }).Variables;
  const imageVariables = {
    IMAGE_BUCKET: imported(bucketId, ''),
    IMAGE_BASE_URL: { 'Fn::Join': ['', ['https://', imported(distributionId, 'DomainName')]] },
  };

  it('may only put objects under images/ of the images bucket', () => {
    const roleId = logicalId(stateless, stateless.functions.get('HttpUploads')!.role);
    const policies = resourcesOfType(statelessTemplate, 'AWS::IAM::Policy');
    const s3 = policyStatements(statelessTemplate).filter(
      ({ policy, actions }) =>
        JSON.stringify(policies[policy]?.Properties.Roles).includes(`"${roleId}"`) &&
        actions.some((a) => a.startsWith('s3:')),
    );
    expect(s3.map((s) => s.statement)).toEqual([
      {
        Effect: 'Allow',
        Action: 's3:PutObject',
        Resource: { 'Fn::Join': ['', [imported(bucketId, 'Arn'), '/images/*']] },
      },
    ]);
    expect(JSON.stringify(s3[0]!.statement.Resource)).toContain(bucketId);
  });

  it('is the only function with a right on the images bucket', () => {
    const holders = policyStatements(statelessTemplate)
      .filter(({ statement }) => JSON.stringify(statement.Resource).includes(bucketId))
      .map(({ policy }) => policy);
    const uploadsPolicy = Object.entries(resourcesOfType(statelessTemplate, 'AWS::IAM::Policy')).find(
      ([, p]) =>
        JSON.stringify(p.Properties.Roles).includes(
          `"${logicalId(stateless, stateless.functions.get('HttpUploads')!.role)}"`,
        ),
    )![0];
    expect(new Set(holders)).toEqual(new Set([uploadsPolicy]));
  });

  it('gets the bucket name and the public URL; GET /config gets them too, with no right', () => {
    expect(variables('HttpUploads')).toMatchObject(imageVariables);
    expect(variables('HttpConfig')).toMatchObject(imageVariables);
  });
});

describe('cdk-nag', () => {
  const mine = (path: string) => path.includes('/Images/') || path.includes('/HttpUploads/');

  it('finds nothing unacknowledged on the images bucket, its distribution or the upload function', () => {
    const findings = new AwsSolutionsChecks()
      .validateScope(app)
      .violations.flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} ${r.constructPath ?? '?'}`))
      .filter(mine);
    expect(findings).toEqual([]);
  });

  it('acknowledges only what it finds there: access logs, geo restriction, WAF, TLS of the default certificate', () => {
    const unfiltered = new AwsSolutionsChecks();
    Object.assign(unfiltered, { isAcknowledged: () => false });
    const raw = unfiltered
      .validateScope(app)
      .violations.flatMap((v) =>
        v.violatingResources.map((r) => ({ rule: v.ruleName, path: r.constructPath })),
      );
    const acks = stateful.images.node.findAll().flatMap((c) =>
      c.node.metadata
        .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((m) => Object.keys(m.data as Record<string, string>))
        .map((id) => ({ id: id.replace(/^annotation::/i, ''), path: c.node.path })),
    );
    expect(acks.map((a) => a.id).sort()).toEqual([
      'AwsSolutions-CFR1',
      'AwsSolutions-CFR2',
      'AwsSolutions-CFR3',
      'AwsSolutions-CFR4',
      'AwsSolutions-S1',
    ]);
    for (const ack of acks) {
      const silenced = raw.filter((f) => f.rule === ack.id && f.path?.startsWith(ack.path));
      expect(silenced.length, `${ack.id} on ${ack.path}`).toBeGreaterThan(0);
    }
  });
});
