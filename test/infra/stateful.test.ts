import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { queueSettings } from '../../lib/constructs/work-queue';
import { StatefulStack } from '../../lib/stateful-stack';
import { defaults, type Manifest, manifest } from '../../shared/manifest';
import { table } from '../../shared/table';
import { logicalId, resourcesOfType, synthSesame } from './support';

const { stateful, statefulTemplate: template } = synthSesame();

describe('table', () => {
  it('has the keys and indexes of shared/table.ts, all string-typed, each index with its projection', () => {
    const attributes = [
      table.partitionKey,
      table.sortKey,
      ...table.indexes.flatMap((i) => [i.partitionKey, i.sortKey]),
    ];
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: table.partitionKey, KeyType: 'HASH' },
        { AttributeName: table.sortKey, KeyType: 'RANGE' },
      ],
      AttributeDefinitions: Match.arrayWith(
        attributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      ),
      GlobalSecondaryIndexes: table.indexes.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: index.projection },
      })),
    });
  });

  it('is on-demand with no provisioned throughput (no idle cost)', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      ProvisionedThroughput: Match.absent(),
    });
  });

  it('has point-in-time recovery and TTL on the configured attribute', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true },
    });
  });

  it('is retained on stack deletion and deletion-protected by default', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
  });

  it('lets the stage turn deletion protection off', () => {
    const app = new App();
    const stack = new StatefulStack(app, 'NoProtection', { deletionProtection: false });
    Template.fromStack(stack).hasResourceProperties('AWS::DynamoDB::Table', {
      DeletionProtectionEnabled: false,
    });
  });
});

describe('upload bucket', () => {
  it('blocks public access, encrypts, and retains', () => {
    template.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
      }),
    });
  });

  it('expires imports/ after 7 days', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ Prefix: 'imports/', ExpirationInDays: 7, Status: 'Enabled' }),
        ]),
      },
    });
  });

  it('refuses requests without TLS', () => {
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });
});

describe('queues', () => {
  const queues = resourcesOfType(template, 'AWS::SQS::Queue');

  it('creates one queue and one dead-letter queue per manifest queue', () => {
    expect(Object.keys(queues)).toHaveLength(manifest.queues.length * 2);
    expect(stateful.queues.size).toBe(manifest.queues.length);
  });

  for (const def of manifest.queues) {
    it(`${def.name}: has its own encrypted DLQ, kept 14 days, after the manifest's receive count`, () => {
      const work = stateful.queues.get(def.name)!;
      const queueId = logicalId(stateful, work.queue);
      const dlqId = logicalId(stateful, work.deadLetterQueue);
      const expected = queueSettings(def);
      expect(queues[queueId]?.Properties).toMatchObject({
        VisibilityTimeout: def.visibilityTimeoutSeconds ?? defaults.visibilityTimeoutSeconds,
        SqsManagedSseEnabled: true,
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
          maxReceiveCount: def.maxReceiveCount ?? defaults.maxReceiveCount,
        },
      });
      expect(expected.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(expected.timeoutSeconds);
      expect(queues[dlqId]?.Properties).toMatchObject({
        MessageRetentionPeriod: 14 * 24 * 3600,
        SqsManagedSseEnabled: true,
      });
      expect(queues[dlqId]?.Properties.RedrivePolicy).toBeUndefined();
    });
  }

  it('refuses requests without TLS on every queue and DLQ', () => {
    const policies = Object.values(resourcesOfType(template, 'AWS::SQS::QueuePolicy'));
    const covered = policies
      .filter((p) => JSON.stringify(p.Properties.PolicyDocument).includes('"aws:SecureTransport":"false"'))
      .flatMap((p) => p.Properties.Queues as { Ref: string }[])
      .map((q) => q.Ref);
    expect(new Set(covered)).toEqual(new Set(Object.keys(queues)));
  });

  it('takes receive count and visibility timeout from the definition, else from defaults', () => {
    const custom: Manifest = {
      ...manifest,
      directUploads: [],
      queues: [
        {
          name: 'campaign-send',
          handler: 'x.ts',
          maxReceiveCount: 3,
          visibilityTimeoutSeconds: 120,
          timeoutSeconds: 20,
        },
        { name: 'bulk', handler: 'y.ts' },
      ],
    };
    const stack = new StatefulStack(new App(), 'CustomQueues', { manifest: custom });
    const t = Template.fromStack(stack);
    const byName = (name: string) =>
      resourcesOfType(t, 'AWS::SQS::Queue')[logicalId(stack, stack.queues.get(name)!.queue)];
    expect(byName('campaign-send')?.Properties).toMatchObject({
      VisibilityTimeout: 120,
      RedrivePolicy: { maxReceiveCount: 3 },
    });
    expect(byName('bulk')?.Properties).toMatchObject({
      VisibilityTimeout: defaults.visibilityTimeoutSeconds,
      RedrivePolicy: { maxReceiveCount: defaults.maxReceiveCount },
    });
  });

  it('rejects a visibility timeout shorter than the worker timeout', () => {
    expect(() =>
      queueSettings({ name: 'slow', handler: 'x.ts', timeoutSeconds: 300, visibilityTimeoutSeconds: 60 }),
    ).toThrow(/visibility timeout/);
  });
});

describe('one-off schedules', () => {
  it('has a schedule group whose name the runtime accepts', () => {
    const name = stateful.oneOffScheduler.group.scheduleGroupName;
    // The same rule as SCHEDULER_GROUP_NAME in shared/composition/aws.ts.
    expect(name).toMatch(/^[0-9A-Za-z._-]{1,64}$/);
    template.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: name });
  });

  it('has a role only EventBridge Scheduler of this account can assume, sending only to the queues', () => {
    const roleId = logicalId(stateful, stateful.oneOffScheduler.role);
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          Match.objectLike({
            Principal: { Service: 'scheduler.amazonaws.com' },
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          }),
        ],
      },
    });
    const rolePolicies = Object.values(resourcesOfType(template, 'AWS::IAM::Policy')).filter((p) =>
      JSON.stringify(p.Properties.Roles).includes(roleId),
    );
    expect(rolePolicies).toHaveLength(1);
    const queueArns = [...stateful.queues.values()].map((q) => ({
      'Fn::GetAtt': [logicalId(stateful, q.queue), 'Arn'],
    }));
    expect((rolePolicies[0]!.Properties.PolicyDocument as { Statement: unknown[] }).Statement).toEqual([
      {
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: queueArns.length === 1 ? queueArns[0] : queueArns,
      },
    ]);
  });
});
