import {
  CfnOutput,
  CrossStackReferences,
  ReferenceStrength,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  type HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
  type ThrottleSettings,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import type { Construct } from 'constructs';
import { manifest as defaultManifest, defaults, type Manifest } from '../shared/manifest';
import { bindEmailSending } from './constructs/email-sending';
import { FunctionScheduleTarget } from './constructs/function-schedule-target';
import { SesameFunction } from './constructs/sesame-function';
import { pascalCase, type StatefulResources } from './stateful-stack';

export interface StatelessStackProps extends StackProps {
  readonly stateful: StatefulResources;
  /**
   * The deploy manifest to build routes, workers and schedules from. Its queues must be the ones
   * the stateful stack was built with.
   * @default the manifest in `shared/manifest.ts`
   */
  readonly manifest?: Manifest;
  /**
   * Account-wide request rate limits of the API (a guard against runaway cost and abuse).
   * @default { rateLimit: 50, burstLimit: 100 }
   */
  readonly apiThrottle?: ThrottleSettings;
  /**
   * Retention of function and API access logs.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
}

/**
 * Compute and wiring, built from the manifest: the HTTP API with one Lambda per route group, one
 * SQS-triggered worker per queue, and one EventBridge Scheduler schedule per manifest schedule.
 * Holds no data: it can be destroyed and redeployed without losing anything but logs.
 */
export class StatelessStack extends Stack {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  /** Every function of the stack, by construct id (`Http<Group>`, `Worker<Queue>`, `Schedule<Name>`). */
  readonly functions = new Map<string, SesameFunction>();

  private readonly stateful: StatefulResources;
  private readonly logRetention: RetentionDays;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    // Exports/imports: CloudFormation refuses to delete a table, bucket or queue of the stateful
    // stack while this stack still uses it. (Removing one is a two-step deploy, see docs/deploy.md.)
    CrossStackReferences.of(this).consume(ReferenceStrength.STRONG);
    const manifest: Manifest = props.manifest ?? defaultManifest;
    this.stateful = props.stateful;
    this.logRetention = props.logRetention ?? RetentionDays.ONE_MONTH;

    for (const def of manifest.queues) {
      if (!this.stateful.queues.has(def.name)) {
        throw new Error(`Queue ${def.name} is in the manifest but not in the stateful stack`);
      }
    }

    // HTTP API: one Lambda per route group, one route per manifest route.
    this.api = new HttpApi(this, 'Api', {
      description: 'Sesame HTTP API',
      createDefaultStage: false,
    });
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: this.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: props.apiThrottle ?? { rateLimit: 50, burstLimit: 100 },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            time: '$context.requestTime',
            ip: '$context.identity.sourceIp',
            method: '$context.httpMethod',
            routeKey: '$context.routeKey',
            path: '$context.path',
            status: '$context.status',
            responseLength: '$context.responseLength',
            latencyMs: '$context.responseLatency',
            integrationError: '$context.integrationErrorMessage',
          }),
        ),
      },
    });
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Authentication is part of the application, per the spec: server clients send a Sesame API key (secret or ' +
        'public, with different rights) that the shared middleware hashes and looks up in DynamoDB to find the ' +
        'project, the dashboard sends a signed session cookie, and a few routes (GET /config, signed unsubscribe ' +
        'links) are open by design. An API Gateway Lambda authorizer would add a second invocation per request ' +
        'without adding protection, and IAM or Cognito authorizers do not fit API-key clients.',
    });

    for (const group of manifest.routeGroups) {
      const fn = this.addFunction(`Http${pascalCase(group.name)}`, {
        entry: group.handler,
        description: `Sesame HTTP routes: ${group.name}`,
        memoryMb: group.memoryMb ?? defaults.memoryMb,
        timeoutSeconds: group.timeoutSeconds ?? defaults.httpTimeoutSeconds,
      });
      // One integration and one invoke permission (for this API) per group; API Gateway picks the
      // group's Lambda by route and the Lambda's router dispatches within the group.
      const integration = new HttpLambdaIntegration(`${pascalCase(group.name)}Integration`, fn, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
        scopePermissionToRoute: false,
      });
      for (const route of group.routes) {
        this.api.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration });
      }
      // Requests matching no route go to the fallback group, which answers the spec's 404 envelope
      // instead of API Gateway's own `{"message":"Not Found"}`.
      if (group.name === manifest.fallbackGroup) {
        new HttpRoute(this.api, 'DefaultRoute', {
          httpApi: this.api,
          routeKey: HttpRouteKey.DEFAULT,
          integration,
        });
      }
    }
    if (!manifest.routeGroups.some((g) => g.name === manifest.fallbackGroup)) {
      throw new Error(`The fallback group ${manifest.fallbackGroup} is not a route group`);
    }

    // Queue workers: one record at a time inside, partial batch failures reported, concurrency capped.
    for (const def of manifest.queues) {
      const workQueue = this.stateful.queues.get(def.name)!;
      const { settings } = workQueue;
      const fn = this.addFunction(`Worker${pascalCase(def.name)}`, {
        entry: def.handler,
        description: `Sesame queue worker: ${def.name}`,
        timeoutSeconds: settings.timeoutSeconds,
      });
      fn.addEventSource(
        new SqsEventSource(workQueue.queue, {
          batchSize: settings.batchSize,
          maxConcurrency: settings.maxConcurrency,
          reportBatchItemFailures: true,
        }),
      );
    }

    // Recurring jobs from the manifest. They live in the default schedule group, out of reach of
    // the runtime's rights over the one-off group.
    for (const def of manifest.schedules) {
      const fn = this.addFunction(`Schedule${pascalCase(def.name)}`, {
        entry: def.handler,
        description: `Sesame schedule: ${def.name}`,
        timeoutSeconds: defaults.workerTimeoutSeconds,
      });
      new Schedule(this, `${pascalCase(def.name)}Schedule`, {
        schedule: ScheduleExpression.expression(def.expression),
        description: def.description,
        target: new FunctionScheduleTarget(fn),
      });
    }

    new CfnOutput(this, 'ApiUrl', { value: this.stage.url, description: 'Base URL of the Sesame API' });
  }

  /** A Sesame function with every binding the handlers' `deps` need. */
  private addFunction(
    id: string,
    props: { entry: string; description: string; memoryMb?: number; timeoutSeconds: number },
  ): LambdaFunction {
    const sesameFunction = new SesameFunction(this, id, { ...props, logRetention: this.logRetention });
    const fn = sesameFunction.function;
    this.stateful.table.bindReadWrite(fn);
    this.stateful.bucket.bindReadWrite(fn);
    for (const queue of this.stateful.queues.values()) queue.bindSender(fn);
    this.stateful.oneOffScheduler.bind(fn);
    bindEmailSending(fn);
    this.functions.set(id, sesameFunction);
    return fn;
  }
}
