import { describe, expect, it } from 'vitest';
import { TABLE_READ_ACTIONS } from '../../lib/constructs/data-table';
import { SES_IDENTITY_MANAGE_ACTIONS, SES_IDENTITY_READ_ACTIONS } from '../../lib/constructs/sender-domains';
import { queueEnvPrefix, queueSettings } from '../../lib/constructs/work-queue';
import { pascalCase } from '../../lib/stateful-stack';
import { awsDeps, portsOf, queueEnvVar } from '../../shared/composition/aws';
import { everyPort } from '../../shared/composition/aws-every';

const everyPortOf = (uses: readonly PortUse[]) =>
  Object.fromEntries(portsOf(uses).map((p) => [p, everyPort[p]]));

import { defaults, type FunctionUses, functionUses, type PortUse, routeKey } from '../../shared/manifest';
import { logicalId, policyStatements, resourcesOfType, synthSesame } from './support';

const sesame = synthSesame();
const { stateless, stateful, statelessTemplate: template, manifest } = sesame;

const functionId = (id: string) => {
  const fn = stateless.functions.get(id);
  if (!fn) throw new Error(`no function ${id}`);
  return logicalId(stateless, fn.function);
};
const functions = resourcesOfType(template, 'AWS::Lambda::Function');

/** The construct id CDK gives a manifest function. */
const functionIdOf = (f: FunctionUses) =>
  `${{ http: 'Http', queue: 'Worker', schedule: 'Schedule', authorizer: 'Authorizer' }[f.kind]}${pascalCase(f.name)}`;

/** The IAM actions each manifest use stands for: the test's own reading of `PortUse`. */
const actionsOfUse: Record<PortUse, readonly string[]> = {
  'table:read': ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'],
  'table:write': [
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:BatchWriteItem',
    'dynamodb:ConditionCheckItem',
  ],
  // Background work only (the jobs worker's project wipe): a Scan of the table, not its indexes.
  'table:scan': ['dynamodb:Scan'],
  queue: ['sqs:SendMessage'],
  scheduler: [
    'scheduler:CreateSchedule',
    'scheduler:UpdateSchedule',
    'scheduler:DeleteSchedule',
    'iam:PassRole',
  ],
  blobs: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:ListBucket'],
  // Put only: the upload function can neither read, list nor delete images.
  images: ['s3:PutObject'],
  mailer: ['ses:SendEmail', 'ses:SendRawEmail', 'ses:GetAccount'],
  dns: [],
  'manage-sender-domains': [
    ...SES_IDENTITY_MANAGE_ACTIONS,
    'route53:ListHostedZonesByName',
    'route53:ChangeResourceRecordSets',
  ],
  'check-sender-domains': [...SES_IDENTITY_READ_ACTIONS],
  'delete-sender-domains': ['ses:DeleteEmailIdentity'],
  'sign-links': ['ssm:GetParameter'],
  'feature-flags': [],
  accounts: [],
  // HTTPS requests to SNS's own hosts; no AWS right.
  'receive-sns': [],
  // Reading the inbound bucket exists only in a deployment that receives mail (`inboundDomain`);
  // this file synthesizes one that does not. test/infra/email-events.test.ts synthesizes both:
  // with it, s3:GetObject on the stored messages and s3:ListBucket on the bucket.
  'inbound-mail': [],
  // Stripe's secrets exist only in a deployment with Stripe (`stripePriceId`); this file's has
  // none. test/infra/billing-stripe.test.ts synthesizes one: ssm:GetParameter on each secret.
  stripe: [],
  'stripe-webhooks': [],
};

/** The variables each manifest use stands for. */
const environmentOfUse: Record<PortUse, readonly string[]> = {
  'table:read': [],
  'table:write': [],
  'table:scan': [],
  queue: manifest.queues.map((q) => `${queueEnvPrefix(q.name)}_URL`),
  // The ARNs name the queues a one-off schedule may target.
  scheduler: [
    'SCHEDULER_ROLE_ARN',
    'SCHEDULER_GROUP_NAME',
    ...manifest.queues.map((q) => `${queueEnvPrefix(q.name)}_ARN`),
  ],
  blobs: ['UPLOAD_BUCKET'],
  images: ['IMAGE_BUCKET', 'IMAGE_BASE_URL'],
  // The configuration set every send names (its events feed the jobs queue).
  mailer: ['SES_CONFIGURATION_SET'],
  dns: [],
  'manage-sender-domains': [],
  'check-sender-domains': [],
  'delete-sender-domains': [],
  'sign-links': ['PUBLIC_BASE_URL', 'LINK_SIGNING_SECRET_PARAMETER'],
  // `storage.enabled` of GET /config: image uploads are configured.
  'feature-flags': ['IMAGE_BUCKET', 'IMAGE_BASE_URL'],
  // SYSTEM_FROM only when the deployment names one (`systemFrom`; not in this file's).
  accounts: ['SIGNUP_ENABLED'],
  'receive-sns': ['SES_EVENTS_TOPIC_ARN'],
  // INBOUND_BUCKET, only with `inboundDomain` (see actionsOfUse).
  'inbound-mail': [],
  // Only with Stripe (see actionsOfUse).
  stripe: [],
  'stripe-webhooks': [],
};

/** Every function has TABLE_NAME (the environment schema requires it). */
const expectedEnvironment = (uses: readonly PortUse[]) =>
  [...new Set(['TABLE_NAME', ...uses.flatMap((use) => environmentOfUse[use])])].sort();

/** A well-formed value for each variable, as the runtime's schemas want them. */
function sampleValue(name: string): string {
  if (name.endsWith('_URL') && name.startsWith('QUEUE_'))
    return 'https://sqs.us-east-1.amazonaws.com/123456789012/jobs';
  if (name.endsWith('_ARN') && name.startsWith('QUEUE_')) return 'arn:aws:sqs:us-east-1:123456789012:jobs';
  const values: Record<string, string> = {
    TABLE_NAME: 'table',
    UPLOAD_BUCKET: 'bucket',
    IMAGE_BUCKET: 'images',
    IMAGE_BASE_URL: 'https://d111111abcdef8.cloudfront.net',
    SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler',
    SCHEDULER_GROUP_NAME: 'group',
    PUBLIC_BASE_URL: 'https://api.example.com',
    LINK_SIGNING_SECRET_PARAMETER: '/sesame/test/link-signing-secret',
    SES_CONFIGURATION_SET: 'ConfigurationSet-abc',
    SES_EVENTS_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:ses-events',
    SIGNUP_ENABLED: 'false',
  };
  const value = values[name];
  if (value === undefined) throw new Error(`no sample value for ${name}`);
  return value;
}

/** Every IAM action granted to the role of function `id` (construct id). */
function actionsOf(id: string): Set<string> {
  const roleId = logicalId(stateless, stateless.functions.get(id)!.role);
  const policies = resourcesOfType(template, 'AWS::IAM::Policy');
  return new Set(
    policyStatements(template)
      .filter(({ policy }) => JSON.stringify(policies[policy]?.Properties?.Roles).includes(`"${roleId}"`))
      .flatMap((s) => s.actions),
  );
}

/**
 * The invoke permissions API Gateway has on a function through this stack's HTTP API, each with
 * the part of its source ARN after `arn:<partition>:execute-api:<region>:<account>:<api-id>`.
 */
function invokePermissions(fnId: string): { id: string; tail: string }[] {
  const apiId = logicalId(stateless, stateless.api);
  const prefix = JSON.stringify([
    'arn:',
    { Ref: 'AWS::Partition' },
    ':execute-api:',
    { Ref: 'AWS::Region' },
    ':',
    { Ref: 'AWS::AccountId' },
    ':',
    { Ref: apiId },
  ]);
  return Object.entries(resourcesOfType(template, 'AWS::Lambda::Permission')).flatMap(([id, p]) => {
    const { Action, Principal, FunctionName, SourceArn } = p.Properties as Record<string, unknown>;
    if (Action !== 'lambda:InvokeFunction' || Principal !== 'apigateway.amazonaws.com') return [];
    if (JSON.stringify(FunctionName) !== JSON.stringify({ 'Fn::GetAtt': [fnId, 'Arn'] })) return [];
    const parts = (SourceArn as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join']?.[1] ?? [];
    if (JSON.stringify(parts.slice(0, 8)) !== prefix) return [];
    const rest = parts.slice(8);
    return rest.every((x) => typeof x === 'string') ? [{ id, tail: rest.join('') }] : [];
  });
}

/** IAM ArnLike on the resource part of an ARN: `*` matches any run of characters (`/` too), `?` one. */
function arnLike(pattern: string, value: string): boolean {
  const source = [...pattern]
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`).test(value);
}

describe('HTTP API', () => {
  const routes = Object.values(resourcesOfType(template, 'AWS::ApiGatewayV2::Route'));
  const integrations = resourcesOfType(template, 'AWS::ApiGatewayV2::Integration');

  it('has exactly the routes of the manifest', () => {
    const expected = [
      ...manifest.routeGroups.flatMap((g) => g.routes.map((r) => `${r.method} ${r.path}`)),
      ...(manifest.directUploads ?? []).map((u) => `${u.method} ${u.path}`),
      '$default',
    ];
    expect(routes.map((r) => r.Properties.RouteKey).sort()).toEqual([...expected].sort());
  });

  it('sends requests matching no route to the fallback group', () => {
    const fallback = routes.find((r) => r.Properties.RouteKey === '$default');
    const fnId = functionId(`Http${pascalCase(manifest.fallbackGroup)}`);
    const integrationId = Object.entries(integrations).find(
      ([, i]) =>
        JSON.stringify(i.Properties.IntegrationUri) === JSON.stringify({ 'Fn::GetAtt': [fnId, 'Arn'] }),
    )?.[0];
    expect(fallback?.Properties.Target).toEqual({
      'Fn::Join': ['', ['integrations/', { Ref: integrationId }]],
    });
  });

  for (const group of manifest.routeGroups.filter((g) => g.routes.length > 0)) {
    it(`routes every ${group.name} path to the ${group.name} Lambda with payload format 2.0`, () => {
      const fnId = functionId(`Http${pascalCase(group.name)}`);
      const [integrationId, ...others] = Object.entries(integrations)
        .filter(
          ([, i]) =>
            JSON.stringify(i.Properties.IntegrationUri) === JSON.stringify({ 'Fn::GetAtt': [fnId, 'Arn'] }),
        )
        .map(([id]) => id);
      expect(others).toEqual([]);
      expect(integrations[integrationId!]?.Properties).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        PayloadFormatVersion: '2.0',
      });
      for (const route of group.routes) {
        const found = routes.find((r) => r.Properties.RouteKey === `${route.method} ${route.path}`);
        expect(found?.Properties.Target).toEqual({
          'Fn::Join': ['', ['integrations/', { Ref: integrationId }]],
        });
      }
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        Principal: 'apigateway.amazonaws.com',
        FunctionName: { 'Fn::GetAtt': [fnId, 'Arn'] },
      });
    });
  }

  it('serves POST /v1/track from a Lambda of its own that serves nothing else, sends no mail and reads no link key', () => {
    // The group is the manifest's; the route reaches its function and no other route does.
    const groups = manifest.routeGroups.filter((g) => g.routes.some((r) => routeKey(r) === 'POST /v1/track'));
    expect(groups.map((g) => [g.name, g.handler, g.routes.map(routeKey)])).toEqual([
      ['track', 'functions/http/track/index.ts', ['POST /v1/track']],
    ]);
    const fnId = functionId('HttpTrack');
    expect(fnId).not.toBe(functionId('HttpPublic'));
    expect(functions[fnId]?.Properties.Description).toBe('Sesame HTTP routes: track');
    const track = routes.find((r) => r.Properties.RouteKey === 'POST /v1/track')!;
    const target = track.Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] };
    const integrationRef = target['Fn::Join'][1][1].Ref;
    expect(integrations[integrationRef]?.Properties).toMatchObject({
      IntegrationType: 'AWS_PROXY',
      IntegrationUri: { 'Fn::GetAtt': [fnId, 'Arn'] },
    });
    expect(
      routes
        .filter((r) => JSON.stringify(r.Properties.Target) === JSON.stringify(target))
        .map((r) => r.Properties.RouteKey),
    ).toEqual(['POST /v1/track']);
    // The table, the queue (a purge), its log stream: nothing of sending, links or domains.
    expect([...actionsOf('HttpTrack')].sort()).toEqual(
      [
        ...new Set([
          'logs:CreateLogStream',
          'logs:PutLogEvents',
          ...actionsOfUse['table:read'],
          ...actionsOfUse['table:write'],
          ...actionsOfUse.queue,
        ]),
      ].sort(),
    );
    const variables = Object.keys(
      (functions[fnId]!.Properties.Environment as { Variables: Record<string, unknown> }).Variables,
    );
    expect(variables.sort()).toEqual(expectedEnvironment(['table:read', 'table:write', 'queue']));
  });

  it('lets API Gateway invoke the fallback function for the $default route, as <api-id>/*/$default', () => {
    const fnId = functionId(`Http${pascalCase(manifest.fallbackGroup)}`);
    const tails = invokePermissions(fnId).map((p) => p.tail);
    expect(tails).toContain('/*/$default');
  });

  it("lets API Gateway invoke every route's function, $default included, and no other function", () => {
    // API Gateway invokes `<api-id>/<stage>/<METHOD>/<path>` for a route and `<api-id>/<stage>/$default`
    // for the $default route; the group permission `/*/*/*` needs three more segments than the latter has.
    expect(arnLike('/*/*/*', '/$default/$default')).toBe(false);
    const fallbackId = functionId(`Http${pascalCase(manifest.fallbackGroup)}`);
    for (const group of manifest.routeGroups) {
      const fnId = functionId(`Http${pascalCase(group.name)}`);
      const permissions = invokePermissions(fnId);
      const invokes = (resource: string) => permissions.some((p) => arnLike(p.tail, resource));
      for (const route of group.routes) {
        expect(invokes(`/$default/${route.method}${route.path}`), `${route.method} ${route.path}`).toBe(true);
      }
      expect(invokes('/$default/$default'), `${group.name} on $default`).toBe(fnId === fallbackId);
    }
  });

  it('lets browsers on any origin POST with a key, a JSON body and an Idempotency-Key (CORS is API-wide)', () => {
    const apis = Object.values(resourcesOfType(template, 'AWS::ApiGatewayV2::Api'));
    expect(apis).toHaveLength(1);
    expect(apis[0]?.Properties.CorsConfiguration).toEqual({
      AllowOrigins: ['*'],
      AllowMethods: ['POST'],
      AllowHeaders: ['authorization', 'content-type', 'idempotency-key'],
      ExposeHeaders: [
        'x-request-id',
        'ratelimit-limit',
        'ratelimit-remaining',
        'ratelimit-reset',
        'retry-after',
      ],
      MaxAge: 86400,
    });
    expect(apis[0]?.Properties.CorsConfiguration).not.toHaveProperty('AllowCredentials');
  });

  it('logs access to a log group with a retention, and throttles', () => {
    const stage = Object.values(resourcesOfType(template, 'AWS::ApiGatewayV2::Stage'));
    expect(stage).toHaveLength(1);
    expect(stage[0]?.Properties).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
    });
    const destination = (
      stage[0]!.Properties.AccessLogSettings as { DestinationArn: { 'Fn::GetAtt': string[] } }
    ).DestinationArn['Fn::GetAtt'][0]!;
    expect(resourcesOfType(template, 'AWS::Logs::LogGroup')[destination]?.Properties).toMatchObject({
      RetentionInDays: 30,
    });
  });
});

describe('functions', () => {
  const expectedCount =
    manifest.routeGroups.length +
    manifest.queues.length +
    manifest.schedules.length +
    (manifest.directUploads ?? []).length;

  it('are one per route group, queue, schedule and direct-upload authorizer', () => {
    expect(Object.keys(functions)).toHaveLength(expectedCount);
  });

  it('run Node.js 22 on arm64, outside any VPC, without provisioned or reserved concurrency', () => {
    for (const fn of Object.values(functions)) {
      expect(fn.Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'] });
      expect(fn.Properties.VpcConfig).toBeUndefined();
      expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
    }
    template.resourceCountIs('AWS::Lambda::Version', 0);
    template.resourceCountIs('AWS::Lambda::Alias', 0);
  });

  // Node's --enable-source-maps reads every loaded file's map at load (about 10 ms of a cold
  // start): the logs map the stacks they print instead (shared/stack-trace.ts).
  it('run without --enable-source-maps', () => {
    for (const fn of Object.values(functions)) {
      expect(fn.Properties.Handler).toBe('index.handler');
      expect(JSON.stringify(fn.Properties.Environment)).not.toContain('NODE_OPTIONS');
    }
  });

  it('each log to their own log group, kept one month', () => {
    const logGroups = resourcesOfType(template, 'AWS::Logs::LogGroup');
    const used = Object.values(functions).map(
      (fn) => (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref,
    );
    expect(new Set(used).size).toBe(expectedCount);
    for (const id of used) expect(logGroups[id]?.Properties).toMatchObject({ RetentionInDays: 30 });
  });

  it('name queue variables as the runtime reads them', () => {
    for (const q of manifest.queues) {
      expect(`${queueEnvPrefix(q.name)}_URL`).toBe(queueEnvVar(q.name, 'URL'));
      expect(`${queueEnvPrefix(q.name)}_ARN`).toBe(queueEnvVar(q.name, 'ARN'));
    }
    expect(queueEnvPrefix('campaign-send')).toBe('QUEUE_CAMPAIGN_SEND');
  });

  it('get exactly the environment of what their manifest entry uses', () => {
    for (const f of functionUses(manifest)) {
      const id = functionIdOf(f);
      const fn = functions[functionId(id)]!;
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(Object.keys(variables).sort(), id).toEqual(expectedEnvironment(f.uses));
      if (f.uses.includes('scheduler')) {
        expect(variables.SCHEDULER_GROUP_NAME, id).toBe(stateful.oneOffScheduler.group.scheduleGroupName);
      }
    }
  });

  it('can each build their deps from the environment they get (no variable the runtime requires is left out)', () => {
    for (const f of functionUses(manifest)) {
      const id = functionIdOf(f);
      const fn = functions[functionId(id)]!;
      const names = Object.keys(
        (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables,
      );
      const source = Object.fromEntries(names.map((name) => [name, sampleValue(name)]));
      expect(() => awsDeps(source, { uses: f.uses, wiring: everyPortOf(f.uses) }), id).not.toThrow();
    }
  });

  it('take memory and timeout from the manifest, else from defaults', () => {
    for (const group of manifest.routeGroups) {
      expect(functions[functionId(`Http${pascalCase(group.name)}`)]?.Properties).toMatchObject({
        MemorySize: group.memoryMb ?? defaults.memoryMb,
        Timeout: group.timeoutSeconds ?? defaults.httpTimeoutSeconds,
      });
    }
    for (const def of manifest.queues) {
      expect(functions[functionId(`Worker${pascalCase(def.name)}`)]?.Properties).toMatchObject({
        Timeout: queueSettings(def).timeoutSeconds,
      });
    }
  });
});

describe('queue workers', () => {
  const mappings = Object.values(resourcesOfType(template, 'AWS::Lambda::EventSourceMapping'));

  it('have one event source per queue, reporting partial batch failures', () => {
    expect(mappings).toHaveLength(manifest.queues.length);
    for (const mapping of mappings) {
      expect(mapping.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    }
  });

  for (const def of manifest.queues) {
    it(`${def.name}: reads its queue with the manifest's batch size and concurrency cap`, () => {
      const settings = queueSettings(def);
      const queueArnExport = stateful.resolve(stateful.queues.get(def.name)!.queue.queueArn);
      const mapping = mappings.find(
        (m) =>
          JSON.stringify(m.Properties.FunctionName) ===
          JSON.stringify({ Ref: functionId(`Worker${pascalCase(def.name)}`) }),
      );
      expect(mapping?.Properties).toMatchObject({
        BatchSize: settings.batchSize,
        ScalingConfig: { MaximumConcurrency: settings.maxConcurrency },
        EventSourceArn: { 'Fn::ImportValue': expect.stringContaining(queueArnExport['Fn::GetAtt'][0]) },
      });
    });
  }
});

describe('schedules', () => {
  it('invoke each manifest schedule handler on its expression', () => {
    const schedules = Object.values(resourcesOfType(template, 'AWS::Scheduler::Schedule'));
    expect(schedules).toHaveLength(manifest.schedules.length);
    for (const def of manifest.schedules) {
      const fnArn = { 'Fn::GetAtt': [functionId(`Schedule${pascalCase(def.name)}`), 'Arn'] };
      const schedule = schedules.find((s) => s.Properties.Description === def.description);
      expect(schedule?.Properties).toMatchObject({
        ScheduleExpression: def.expression,
        State: 'ENABLED',
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: { Arn: fnArn },
      });
      // The target role may invoke that function and nothing else.
      const roleId = (schedule!.Properties.Target as { RoleArn: { 'Fn::GetAtt': string[] } }).RoleArn[
        'Fn::GetAtt'
      ][0];
      const rolePolicies = Object.values(resourcesOfType(template, 'AWS::IAM::Policy')).filter((p) =>
        JSON.stringify(p.Properties.Roles).includes(`"${roleId}"`),
      );
      expect(
        rolePolicies.map((p) => (p.Properties.PolicyDocument as { Statement: unknown }).Statement),
      ).toEqual([[{ Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: fnArn }]]);
    }
  });

  it('are not created when the manifest has none', () => {
    const none = synthSesame({ manifest: { ...manifest, schedules: [] } });
    none.statelessTemplate.resourceCountIs('AWS::Scheduler::Schedule', 0);
  });
});

describe('IAM', () => {
  const statements = policyStatements(template);

  it('grants no wildcard actions anywhere', () => {
    for (const { actions } of statements) {
      for (const action of actions) expect(action).not.toMatch(/\*/);
    }
    for (const { actions } of policyStatements(sesame.statefulTemplate)) {
      for (const action of actions) expect(action).not.toMatch(/\*/);
    }
  });

  it('attaches no managed policies to function roles', () => {
    for (const role of Object.values(resourcesOfType(template, 'AWS::IAM::Role'))) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });

  it('gives every function exactly the actions its manifest entry uses, derived from the manifest', () => {
    const workerActions = [
      'sqs:ReceiveMessage',
      'sqs:ChangeMessageVisibility',
      'sqs:GetQueueUrl',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
    ];
    const all = functionUses(manifest);
    expect(all.map(functionIdOf).sort()).toEqual([...stateless.functions.keys()].sort());
    for (const f of all) {
      const id = functionIdOf(f);
      const expected = [
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        ...f.uses.flatMap((use) => actionsOfUse[use]),
        ...(f.kind === 'queue' ? workerActions : []),
      ];
      const actions = actionsOf(id);
      expect([...actions].sort(), id).toEqual([...new Set(expected)].sort());
      // A Scan only where the manifest says so (the jobs worker's project wipe), never on a request path.
      expect(actions.has('dynamodb:Scan'), id).toBe(f.uses.includes('table:scan'));
    }
    expect(all.filter((f) => f.uses.includes('table:scan')).map(functionIdOf)).toEqual(['WorkerJobs']);
    // On the table itself, not its indexes.
    const scans = statements.filter(({ actions }) => actions.includes('dynamodb:Scan'));
    expect(scans.length).toBeGreaterThan(0);
    for (const { statement } of scans) expect(JSON.stringify(statement.Resource)).not.toContain('/index/');
  });

  it('gives GET /config (and the 404s) no table right and no SES, and the upload authorizer no more than its job', () => {
    expect([...actionsOf('HttpConfig')].sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
    const authorizer = actionsOf('AuthorizerContactsImport');
    for (const action of [
      ...TABLE_READ_ACTIONS,
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'scheduler:CreateSchedule',
      // The link key's parameter, from which a session cookie's key is derived.
      'ssm:GetParameter',
    ])
      expect(authorizer.has(action), action).toBe(true);
    expect([...authorizer].filter((a) => a.startsWith('ssm:'))).toEqual(['ssm:GetParameter']);
    for (const prefix of ['ses:', 's3:', 'sqs:', 'route53:'])
      expect(
        [...authorizer].filter((a) => a.startsWith(prefix)),
        prefix,
      ).toEqual([]);
    // Only the functions that send mail may: /v1/send, campaign test sends and fan-outs, account mails.
    const senders = [...stateless.functions.keys()].filter((id) => actionsOf(id).has('ses:SendRawEmail'));
    expect([...senders].sort()).toEqual(['HttpAccounts', 'HttpCampaigns', 'HttpPublic', 'WorkerJobs']);
  });

  it('scopes sender-domain rights to SES identities and UPSERTs of the records Sesame publishes', () => {
    const identities = {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':ses:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':identity/*',
        ],
      ],
    };
    const ses = statements.filter(({ actions }) =>
      actions.some((a) => /^ses:(Create|Get|Delete|Put)EmailIdentity/.test(a)),
    );
    // One policy per function that manages or checks sender domains.
    expect(ses.length).toBe(
      functionUses(manifest).filter(
        (f) =>
          f.uses.includes('manage-sender-domains') ||
          f.uses.includes('check-sender-domains') ||
          f.uses.includes('delete-sender-domains'),
      ).length,
    );
    for (const { statement } of ses) expect(statement.Resource).toEqual(identities);
    // Sending on identities and the deployment's configuration set only (SES authorizes a send
    // naming a configuration set on both); on `*` only the two actions that have no resource
    // type: the quota read of each sender and the hosted zone lookup.
    const configurationSet = {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':ses:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':configuration-set/',
          {
            'Fn::ImportValue': expect.stringContaining(
              logicalId(stateful, stateful.emailEvents!.configurationSet),
            ),
          },
        ],
      ],
    };
    const send = statements.filter(({ actions }) => actions.includes('ses:SendRawEmail'));
    expect(send.length).toBe(4);
    for (const { statement } of send) expect(statement.Resource).toEqual([identities, configurationSet]);
    const wildcard = statements.filter(({ statement }) => statement.Resource === '*');
    expect(wildcard.map(({ actions }) => actions.join()).sort()).toEqual([
      'route53:ListHostedZonesByName',
      'ses:GetAccount',
      'ses:GetAccount',
      'ses:GetAccount',
      'ses:GetAccount',
    ]);
    const change = statements.filter(({ actions }) => actions.includes('route53:ChangeResourceRecordSets'));
    expect(change).toHaveLength(1);
    expect(change[0]!.actions).toEqual(['route53:ChangeResourceRecordSets']);
    expect(change[0]!.statement.Resource).toEqual({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':route53:::hostedzone/*']],
    });
    expect(change[0]!.statement.Condition).toEqual({
      'ForAllValues:StringEquals': {
        'route53:ChangeResourceRecordSetsActions': ['UPSERT'],
        'route53:ChangeResourceRecordSetsRecordTypes': ['CNAME', 'MX', 'TXT'],
      },
      'ForAllValues:StringLike': {
        'route53:ChangeResourceRecordSetsNormalizedRecordNames': ['*._domainkey.*', 'mail.*', '_dmarc.*'],
      },
    });
    const list = statements.filter(({ actions }) => actions.includes('route53:ListHostedZonesByName'));
    expect(list.map((s) => [s.actions, s.statement.Resource])).toEqual([
      [['route53:ListHostedZonesByName'], '*'],
    ]);
  });

  it('scopes table access to the table and its named indexes', () => {
    const tableArn = stateful.resolve(stateful.table.table.tableArn) as { 'Fn::GetAtt': string[] };
    const table = tableArn['Fn::GetAtt'][0]!;
    const dynamo = statements.filter(({ actions }) => actions.some((a) => a.startsWith('dynamodb:')));
    for (const { statement } of dynamo) {
      const text = JSON.stringify(statement.Resource);
      expect(text).toContain(table);
      expect(text).not.toContain('index/*');
    }
  });

  it('lets functions pass the scheduler role to EventBridge Scheduler only', () => {
    for (const { actions, statement } of statements) {
      if (!actions.includes('iam:PassRole')) continue;
      expect(statement.Condition).toEqual({
        StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' },
      });
      expect(JSON.stringify(statement.Resource)).toContain(
        logicalId(stateful, stateful.oneOffScheduler.role),
      );
    }
  });
});

describe('idle cost', () => {
  const templates = [sesame.statefulTemplate, template];

  it('has no VPC, NAT gateway, provisioned capacity or always-on compute', () => {
    for (const t of templates) {
      for (const type of [
        'AWS::EC2::NatGateway',
        'AWS::EC2::VPC',
        'AWS::EC2::Instance',
        'AWS::Lambda::Version',
        'AWS::ECS::Service',
        'AWS::RDS::DBInstance',
        'AWS::ElastiCache::CacheCluster',
        'AWS::KMS::Key',
        'AWS::EC2::VPCEndpoint',
      ]) {
        t.resourceCountIs(type, 0);
      }
      // REST APIs (direct uploads) bill per request; only a stage cache would cost at idle.
      for (const stage of Object.values(resourcesOfType(t, 'AWS::ApiGateway::Stage'))) {
        expect(stage.Properties.CacheClusterEnabled ?? false).toBe(false);
      }
      expect(JSON.stringify(t.toJSON())).not.toContain('ProvisionedConcurrency');
    }
  });

  it('stays within the free CloudWatch alarm count', () => {
    const alarms = templates.reduce(
      (n, t) => n + Object.keys(t.findResources('AWS::CloudWatch::Alarm')).length,
      0,
    );
    expect(alarms).toBeLessThanOrEqual(10);
  });

  it('keeps every log group bounded by a retention', () => {
    for (const t of templates) {
      for (const group of Object.values(resourcesOfType(t, 'AWS::Logs::LogGroup'))) {
        expect(group.Properties.RetentionInDays).toBeGreaterThan(0);
      }
    }
  });
});
