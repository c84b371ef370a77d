/**
 * The AWS side of the SES event pipeline (lib/constructs/email-events.ts) and opt-in inbound mail
 * (lib/constructs/inbound-mail.ts): what SES may do, where its messages go, and who gets which
 * variable and right.
 */
import { App } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { stageConfigFromContext } from '../../lib/config';
import { InboundMail } from '../../lib/constructs/inbound-mail';
import { pascalCase, SES_EVENTS_QUEUE } from '../../lib/stateful-stack';
import { type FunctionUses, functionUses, type PortUse } from '../../shared/manifest';
import { logicalId, policyStatements, resourcesOfType, type SynthesizedSesame, synthSesame } from './support';

const INBOUND_DOMAIN = 'inbound.example.com';

const plain = synthSesame();
const inbound = synthSesame({ config: { inboundDomain: INBOUND_DOMAIN } });

const account = { Ref: 'AWS::AccountId' };
/** `arn:<partition>:ses:<region>:<account>:<rest...>` as CDK renders it. */
const sesArn = (...rest: unknown[]) => ({
  'Fn::Join': [
    '',
    ['arn:', { Ref: 'AWS::Partition' }, ':ses:', { Ref: 'AWS::Region' }, ':', account, ...rest],
  ],
});

/** The construct id CDK gives a manifest function (`Http<Group>`, `Worker<Queue>`...). */
const constructIdOf = (f: FunctionUses) =>
  `${{ http: 'Http', queue: 'Worker', schedule: 'Schedule', authorizer: 'Authorizer' }[f.kind]}${pascalCase(f.name)}`;

function ids(s: SynthesizedSesame) {
  const { stateful } = s;
  const events = stateful.emailEvents;
  if (!events) throw new Error('no email events');
  return {
    configurationSet: logicalId(stateful, events.configurationSet),
    topic: logicalId(stateful, events.topic),
    queue: logicalId(stateful, stateful.queues.get(SES_EVENTS_QUEUE)!.queue),
    inboundTopic: stateful.inboundMail ? logicalId(stateful, stateful.inboundMail.topic) : undefined,
    inboundBucket: stateful.inboundMail ? logicalId(stateful, stateful.inboundMail.bucket) : undefined,
  };
}

/** The statements of the policy document of every resource of `type` (topic or queue policies). */
function resourcePolicyStatements(s: SynthesizedSesame, type: string, target: string) {
  return Object.values(resourcesOfType(s.statefulTemplate, type))
    .filter((p) => JSON.stringify(p.Properties).includes(`{"Ref":"${target}"}`))
    .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement);
}

describe('SES configuration set', () => {
  const { statefulTemplate: template } = plain;
  const { configurationSet, topic } = ids(plain);

  it('is one, in the stateful stack, publishing exactly the pipeline event types to the events topic', () => {
    plain.statefulTemplate.resourceCountIs('AWS::SES::ConfigurationSet', 1);
    plain.statelessTemplate.resourceCountIs('AWS::SES::ConfigurationSet', 0);
    const destinations = Object.values(
      resourcesOfType(template, 'AWS::SES::ConfigurationSetEventDestination'),
    );
    expect(destinations).toHaveLength(1);
    const { ConfigurationSetName, EventDestination } = destinations[0]!.Properties as {
      ConfigurationSetName: unknown;
      EventDestination: { Enabled: boolean; MatchingEventTypes: string[]; SnsDestination: unknown };
    };
    expect(ConfigurationSetName).toEqual({ Ref: configurationSet });
    expect(EventDestination.Enabled).toBe(true);
    expect(EventDestination.SnsDestination).toEqual({ TopicARN: { Ref: topic } });
    expect([...EventDestination.MatchingEventTypes].sort()).toEqual(
      [
        'send',
        'delivery',
        'deliveryDelay',
        'bounce',
        'complaint',
        'reject',
        'open',
        'click',
        'renderingFailure',
      ].sort(),
    );
  });

  it('outputs its name and the events topic ARN', () => {
    template.hasOutput('SesConfigurationSetName', { Value: { Ref: configurationSet } });
    template.hasOutput('SesEventsTopicArn', { Value: { Ref: topic } });
  });
});

describe('SES events topic', () => {
  const { statefulTemplate: template } = plain;
  const { configurationSet, topic, queue } = ids(plain);

  it('is the only topic without inbound mail, unencrypted (no KMS key costing at idle; see the construct)', () => {
    const topics = resourcesOfType(template, 'AWS::SNS::Topic');
    expect(Object.keys(topics)).toEqual([topic]);
    expect(topics[topic]!.Properties.KmsMasterKeyId).toBeUndefined();
  });

  it('lets only SES publish, only from this account and this configuration set, and only over TLS', () => {
    const statements = resourcePolicyStatements(plain, 'AWS::SNS::TopicPolicy', topic);
    const allows = statements.filter((s) => s.Effect === 'Allow');
    expect(allows).toEqual([
      expect.objectContaining({
        Action: 'sns:Publish',
        Principal: { Service: 'ses.amazonaws.com' },
        Resource: { Ref: topic },
        Condition: {
          StringEquals: {
            'AWS:SourceAccount': account,
            'AWS:SourceArn': sesArn(':configuration-set/', { Ref: configurationSet }),
          },
        },
      }),
    ]);
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 'sns:Publish',
        Principal: '*',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
  });

  it('is created before the event destination (SES checks it can publish when the destination is added)', () => {
    const policyId = Object.keys(resourcesOfType(template, 'AWS::SNS::TopicPolicy')).find((id) =>
      JSON.stringify(resourcesOfType(template, 'AWS::SNS::TopicPolicy')[id]!.Properties.Topics).includes(
        topic,
      ),
    );
    template.hasResource('AWS::SES::ConfigurationSetEventDestination', {
      DependsOn: Match.arrayWith([policyId]),
    });
  });

  it('delivers raw to the jobs queue: the SQS body is the SES event JSON itself', () => {
    const subscriptions = Object.values(resourcesOfType(template, 'AWS::SNS::Subscription'));
    expect(subscriptions.map((s) => s.Properties)).toEqual([
      {
        Protocol: 'sqs',
        TopicArn: { Ref: topic },
        Endpoint: { 'Fn::GetAtt': [queue, 'Arn'] },
        RawMessageDelivery: true,
      },
    ]);
  });

  it('is the only SNS topic the jobs queue accepts messages from', () => {
    const fromSns = resourcePolicyStatements(plain, 'AWS::SQS::QueuePolicy', queue).filter(
      (s) => JSON.stringify(s.Principal) === JSON.stringify({ Service: 'sns.amazonaws.com' }),
    );
    expect(fromSns).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: { 'Fn::GetAtt': [queue, 'Arn'] },
        Condition: { ArnEquals: { 'aws:SourceArn': { Ref: topic } } },
      }),
    ]);
  });
});

describe('functions', () => {
  const { stateless, statelessTemplate: template, manifest } = plain;
  const { configurationSet, topic } = ids(plain);
  const functions = resourcesOfType(template, 'AWS::Lambda::Function');
  const functionIdOf = (f: FunctionUses) => {
    const prefix = { http: 'Http', queue: 'Worker', schedule: 'Schedule', authorizer: 'Authorizer' }[f.kind];
    return logicalId(stateless, stateless.functions.get(`${prefix}${pascalCase(f.name)}`)!.function);
  };
  const withUse = (use: PortUse) =>
    functionUses(manifest)
      .filter((f) => f.uses.includes(use))
      .map(functionIdOf)
      .sort();
  const withVariable = (name: string) =>
    Object.entries(functions)
      .filter(([, fn]) => name in (fn.Properties.Environment as { Variables: object }).Variables)
      .map(([id]) => id)
      .sort();
  const variable = (fnId: string, name: string) =>
    (functions[fnId]!.Properties.Environment as { Variables: Record<string, unknown> }).Variables[name];

  it('name the configuration set in SES_CONFIGURATION_SET exactly when they send mail', () => {
    const senders = withUse('mailer');
    expect(senders.length).toBeGreaterThan(0);
    expect(withVariable('SES_CONFIGURATION_SET')).toEqual(senders);
    for (const id of senders) {
      expect(variable(id, 'SES_CONFIGURATION_SET'), id).toEqual({
        'Fn::ImportValue': expect.stringContaining(configurationSet),
      });
    }
  });

  it('may send with the configuration set, on its ARN as well as on the identities', () => {
    const configurationSetArn = sesArn(':configuration-set/', {
      'Fn::ImportValue': expect.stringContaining(configurationSet),
    });
    const send = policyStatements(template).filter(({ actions }) => actions.includes('ses:SendEmail'));
    expect(send.length).toBe(withUse('mailer').length);
    for (const { actions, statement } of send) {
      expect(actions).toEqual(['ses:SendEmail', 'ses:SendRawEmail']);
      expect(statement.Resource).toEqual([sesArn(':identity/*'), configurationSetArn]);
    }
  });

  it('name the events topic in SES_EVENTS_TOPIC_ARN exactly when they receive SNS deliveries', () => {
    const receivers = withUse('receive-sns');
    expect(withVariable('SES_EVENTS_TOPIC_ARN')).toEqual(receivers);
    for (const id of receivers) {
      expect(variable(id, 'SES_EVENTS_TOPIC_ARN'), id).toEqual({
        'Fn::ImportValue': expect.stringContaining(topic),
      });
    }
  });
});

describe('inbound mail', () => {
  const { statefulTemplate: template, stateful } = inbound;
  const { queue, topic, inboundTopic, inboundBucket } = ids(inbound);
  const mail = stateful.inboundMail!;
  const ruleSetName = 'Sesame-test-Stateful-inbound';
  const ruleArn = sesArn(`:receipt-rule-set/${ruleSetName}:receipt-rule/store-and-notify`);
  const fromThisRule = { StringEquals: { 'AWS:SourceAccount': account, 'AWS:SourceArn': ruleArn } };

  it('is not created without the inboundDomain setting', () => {
    for (const type of ['AWS::SES::ReceiptRuleSet', 'AWS::SES::ReceiptRule', 'AWS::SES::ReceiptFilter']) {
      plain.statefulTemplate.resourceCountIs(type, 0);
      plain.statelessTemplate.resourceCountIs(type, 0);
    }
    expect(plain.stateful.inboundMail).toBeUndefined();
    expect(Object.keys(plain.statefulTemplate.findOutputs('InboundReceiptRuleSetName'))).toEqual([]);
    const buckets = (s: SynthesizedSesame) =>
      Object.keys(resourcesOfType(s.statefulTemplate, 'AWS::S3::Bucket'));
    expect(buckets(inbound).filter((id) => !buckets(plain).includes(id))).toEqual([inboundBucket]);
  });

  it('reads the domain from CDK context, normalized, and refuses what is not a domain', () => {
    const fromContext = (context: Record<string, unknown>) =>
      stageConfigFromContext(new App({ context }).node);
    expect(fromContext({}).inboundDomain).toBeUndefined();
    expect(fromContext({ inboundDomain: 'Inbound.Example.COM.' }).inboundDomain).toBe(INBOUND_DOMAIN);
    expect(() => fromContext({ inboundDomain: 'not a domain' })).toThrow(/inboundDomain/);
    expect(() => fromContext({ inboundDomain: 'ann@example.com' })).toThrow(/inboundDomain/);
  });

  it('has one rule set, named for the stack and output for set-active-receipt-rule-set', () => {
    template.resourceCountIs('AWS::SES::ReceiptRuleSet', 1);
    template.hasResourceProperties('AWS::SES::ReceiptRuleSet', { RuleSetName: ruleSetName });
    expect(mail.ruleSetName).toBe(ruleSetName);
    template.hasOutput('InboundReceiptRuleSetName', {
      Value: ruleSetName,
      Description: Match.stringLikeRegexp(
        `aws ses set-active-receipt-rule-set --rule-set-name ${ruleSetName}`,
      ),
    });
  });

  it('has one rule for every address at the domain: store under inbound/ in the bucket, then notify the topic', () => {
    const rules = resourcesOfType(template, 'AWS::SES::ReceiptRule');
    expect(Object.values(rules)).toHaveLength(1);
    const [rule] = Object.values(rules);
    expect(rule!.Properties).toEqual({
      RuleSetName: { Ref: logicalId(stateful, mail.ruleSet) },
      Rule: {
        Name: 'store-and-notify',
        Enabled: true,
        ScanEnabled: true,
        Recipients: [INBOUND_DOMAIN],
        Actions: [
          {
            S3Action: {
              BucketName: { Ref: inboundBucket },
              ObjectKeyPrefix: InboundMail.KEY_PREFIX,
              TopicArn: { Ref: inboundTopic },
            },
          },
        ],
      },
    });
    // SES writes a test object and checks the topic when it creates the rule.
    const policyOf = (type: string, target: string) =>
      Object.entries(resourcesOfType(template, type)).find(([, p]) =>
        JSON.stringify(p.Properties).includes(`{"Ref":"${target}"}`),
      )![0];
    expect(rule!.DependsOn).toEqual(
      expect.arrayContaining([
        policyOf('AWS::S3::BucketPolicy', inboundBucket!),
        policyOf('AWS::SNS::TopicPolicy', inboundTopic!),
      ]),
    );
  });

  it('keeps the raw mail in a private, encrypted, TLS-only bucket that expires it after 30 days', () => {
    const bucket = resourcesOfType(template, 'AWS::S3::Bucket')[inboundBucket!]!;
    expect(bucket.DeletionPolicy).toBe('Retain');
    expect(bucket.Properties).toMatchObject({
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
      LifecycleConfiguration: {
        Rules: [{ Id: 'expire-inbound-mail', ExpirationInDays: 30, Status: 'Enabled' }],
      },
    });
    const statements = resourcePolicyStatements(inbound, 'AWS::S3::BucketPolicy', inboundBucket!);
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 's3:*',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
  });

  it('lets only SES write to the bucket, only under inbound/, only for this account and this rule', () => {
    const allows = resourcePolicyStatements(inbound, 'AWS::S3::BucketPolicy', inboundBucket!).filter(
      (s) => s.Effect === 'Allow',
    );
    expect(allows).toEqual([
      expect.objectContaining({
        Action: 's3:PutObject',
        Principal: { Service: 'ses.amazonaws.com' },
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [inboundBucket, 'Arn'] }, '/inbound/*']] },
        Condition: fromThisRule,
      }),
    ]);
  });

  it('lets only SES publish the notifications, only for this account and this rule, only over TLS', () => {
    const statements = resourcePolicyStatements(inbound, 'AWS::SNS::TopicPolicy', inboundTopic!);
    expect(statements.filter((s) => s.Effect === 'Allow')).toEqual([
      expect.objectContaining({
        Action: 'sns:Publish',
        Principal: { Service: 'ses.amazonaws.com' },
        Resource: { Ref: inboundTopic },
        Condition: fromThisRule,
      }),
    ]);
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });

  it('delivers the notifications raw to the jobs queue, which accepts SNS messages from the two topics only', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      TopicArn: { Ref: inboundTopic },
      Endpoint: { 'Fn::GetAtt': [queue, 'Arn'] },
      RawMessageDelivery: true,
    });
    template.resourceCountIs('AWS::SNS::Subscription', 2);
    const sources = resourcePolicyStatements(inbound, 'AWS::SQS::QueuePolicy', queue)
      .filter((s) => JSON.stringify(s.Principal) === JSON.stringify({ Service: 'sns.amazonaws.com' }))
      .map((s) => (s.Condition as { ArnEquals: { 'aws:SourceArn': unknown } }).ArnEquals['aws:SourceArn']);
    expect(sources).toEqual(expect.arrayContaining([{ Ref: topic }, { Ref: inboundTopic }]));
    expect(sources).toHaveLength(2);
  });

  describe('the functions that read received mail (the inbound-mail use)', () => {
    const readers = (s: SynthesizedSesame) =>
      functionUses(s.manifest)
        .filter((f) => f.uses.includes('inbound-mail'))
        .map((f) => logicalId(s.stateless, s.stateless.functions.get(constructIdOf(f))!.function))
        .sort();
    const variables = (s: SynthesizedSesame) =>
      Object.entries(resourcesOfType(s.statelessTemplate, 'AWS::Lambda::Function')).map(([id, fn]) => ({
        id,
        variables: (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables,
      }));
    /** The statements of the stateless stack's policies that name the inbound bucket. */
    const onInboundBucket = (s: SynthesizedSesame) =>
      policyStatements(s.statelessTemplate).filter(({ statement }) =>
        JSON.stringify(statement.Resource).includes(inboundBucket!),
      );
    const bucketArn = { 'Fn::ImportValue': expect.stringContaining(`${inboundBucket}Arn`) };

    it('are the jobs worker, and get INBOUND_BUCKET, the inbound bucket, only with inbound mail', () => {
      expect(readers(inbound)).toEqual([
        logicalId(inbound.stateless, inbound.stateless.functions.get('WorkerJobs')!.function),
      ]);
      const withBucket = variables(inbound).filter((f) => 'INBOUND_BUCKET' in f.variables);
      expect(withBucket.map((f) => f.id).sort()).toEqual(readers(inbound));
      for (const f of withBucket) {
        expect(f.variables.INBOUND_BUCKET, f.id).toEqual({
          'Fn::ImportValue': expect.stringContaining(`Ref${inboundBucket}`),
        });
      }
      expect(variables(plain).filter((f) => 'INBOUND_BUCKET' in f.variables)).toEqual([]);
    });

    it('may read the stored messages (inbound/*) and list the bucket, nothing more; without inbound mail, nothing', () => {
      const statements = onInboundBucket(inbound);
      expect(statements.map(({ statement }) => statement)).toEqual([
        {
          Effect: 'Allow',
          Action: 's3:GetObject',
          Resource: { 'Fn::Join': ['', [bucketArn, `/${InboundMail.KEY_PREFIX}*`]] },
        },
        // Without it, S3 answers a missing (expired) message with AccessDenied, not NoSuchKey.
        { Effect: 'Allow', Action: 's3:ListBucket', Resource: bucketArn },
      ]);
      const policies = resourcesOfType(inbound.statelessTemplate, 'AWS::IAM::Policy');
      const roleOf = (fnId: string) =>
        (
          resourcesOfType(inbound.statelessTemplate, 'AWS::Lambda::Function')[fnId]!.Properties.Role as {
            'Fn::GetAtt': string[];
          }
        )['Fn::GetAtt'][0];
      const readerRoles = readers(inbound).map(roleOf);
      for (const { policy } of statements) {
        const roles = (policies[policy]!.Properties.Roles as { Ref: string }[]).map((r) => r.Ref);
        expect(
          roles.every((r) => readerRoles.includes(r)),
          policy,
        ).toBe(true);
      }
      expect(JSON.stringify(plain.statelessTemplate.toJSON())).not.toContain('Inbound');
    });

    it('change nothing else in the stateless stack', () => {
      const template = structuredClone(inbound.statelessTemplate.toJSON()) as {
        Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
      };
      for (const resource of Object.values(template.Resources)) {
        if (resource.Type === 'AWS::Lambda::Function') {
          delete (resource.Properties.Environment as { Variables: Record<string, unknown> }).Variables
            .INBOUND_BUCKET;
        }
        if (resource.Type === 'AWS::IAM::Policy') {
          const document = resource.Properties.PolicyDocument as { Statement: { Resource: unknown }[] };
          document.Statement = document.Statement.filter(
            (st) => !JSON.stringify(st.Resource).includes(inboundBucket!),
          );
        }
      }
      expect(template).toEqual(plain.statelessTemplate.toJSON());
    });
  });

  it('passes cdk-nag, its acknowledgements (no access logs on the bucket, the readers inbound/* grant) silencing real findings', () => {
    const findings = (checks: AwsSolutionsChecks, app = inbound.app) =>
      checks
        .validateScope(app)
        .violations.flatMap((v) =>
          v.violatingResources.map((r) => `${v.ruleName} ${r.constructPath ?? '?'}`),
        );
    expect(findings(new AwsSolutionsChecks())).toEqual([]);
    const unfiltered = () => {
      const checks = new AwsSolutionsChecks();
      Object.assign(checks, { isAcknowledged: () => false });
      return checks;
    };
    const before = findings(unfiltered(), plain.app);
    const added = findings(unfiltered()).filter((f) => !before.includes(f));
    // The bucket's (no access logs) and the jobs worker's read of `inbound/*` (an imported ARN).
    const worker = inbound.stateless.functions.get('WorkerJobs')!;
    expect(added.sort()).toEqual([
      expect.stringMatching(
        new RegExp(
          `^AwsSolutions-IAM5\\[Resource::Sesame-test-Stateful:ExportsOutputFnGetAtt${inboundBucket}Arn\\w+` +
            `/inbound/\\*\\] ${worker.role.node.path}/DefaultPolicy/Resource$`,
        ),
      ),
      `AwsSolutions-S1 ${mail.bucket.node.path}/Resource`,
    ]);
  });
});
