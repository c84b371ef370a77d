import {
  Aws,
  CfnOutput,
  CrossStackReferences,
  Duration,
  ReferenceStrength,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  type HttpStage,
  LogGroupLogDestination,
  PayloadFormatVersion,
  type ThrottleSettings,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration, HttpUrlIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import type { Construct } from 'constructs';
import { manifest as defaultManifest, defaults, type Manifest, type PortUse } from '../shared/manifest';
import { DirectUploadApi } from './constructs/direct-upload-api';
import { bindEmailSending } from './constructs/email-sending';
import { FunctionScheduleTarget } from './constructs/function-schedule-target';
import { bindSubscriptionLinks } from './constructs/link-signing';
import {
  bindSenderDomainCheck,
  bindSenderDomainManagement,
  bindSenderDomainRemoval,
} from './constructs/sender-domains';
import { SesameFunction } from './constructs/sesame-function';
import {
  bindBillingFlag,
  bindStripeApi,
  bindStripeWebhooks,
  type StripeSettings,
} from './constructs/stripe-billing';
import { pascalCase, SES_EVENTS_QUEUE, type StatefulResources } from './stateful-stack';

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
  /**
   * Public base URL of the API for links in emails (a custom domain in front of the API).
   * @default the API's own `https://<api-id>.execute-api.<region>.<suffix>` URL
   */
  readonly publicBaseUrl?: string;
  /** Open signup (SIGNUP_ENABLED of the functions that use `accounts`). @default false */
  readonly signupEnabled?: boolean;
  /** Sender of Sesame's own mails (SYSTEM_FROM). @default none: those mails are not sent */
  readonly systemFrom?: string;
  /** Stripe billing (docs/billing.md). @default none: billing is off (400 BILLING_DISABLED) */
  readonly stripe?: StripeSettings;
}

/**
 * Compute and wiring, built from the manifest: the HTTP API with one Lambda per route group, one
 * SQS-triggered worker per queue, and one EventBridge Scheduler schedule per manifest schedule.
 * Holds no data: it can be destroyed and redeployed without losing anything but logs.
 */
export class StatelessStack extends Stack {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  /** Every function of the stack, by construct id (`Http<Group>`, `Worker<Queue>`, `Schedule<Name>`, `Authorizer<Upload>`). */
  readonly functions = new Map<string, SesameFunction>();
  /** The REST API of each manifest direct upload, by upload name. */
  readonly directUploads = new Map<string, DirectUploadApi>();

  private readonly stateful: StatefulResources;
  private readonly logRetention: RetentionDays;
  private publicBaseUrl = '';
  private stripe: StripeSettings | undefined;
  private accounts: { signupEnabled: boolean; systemFrom: string | undefined } = {
    signupEnabled: false,
    systemFrom: undefined,
  };

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
    // CORS is per API on HTTP APIs, so the manifest's configuration covers every route (see CorsDef).
    const cors = manifest.cors;
    this.api = new HttpApi(this, 'Api', {
      description: 'Sesame HTTP API',
      createDefaultStage: false,
      ...(cors
        ? {
            corsPreflight: {
              allowOrigins: [...cors.allowOrigins],
              allowMethods: cors.allowMethods.map((m) => CorsHttpMethod[m]),
              allowHeaders: [...cors.allowHeaders],
              exposeHeaders: [...cors.exposeHeaders],
              maxAge: Duration.seconds(cors.maxAgeSeconds),
            },
          }
        : {}),
    });
    // Links in emails point here; the API id is known before any function exists (no cycle).
    this.accounts = { signupEnabled: props.signupEnabled ?? false, systemFrom: props.systemFrom };
    this.stripe = props.stripe;
    this.publicBaseUrl =
      props.publicBaseUrl?.replace(/\/+$/, '') ??
      `https://${this.api.apiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}`;
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
        'Authentication is part of the application: server clients send a Sesame API key (secret or ' +
        'public, with different rights) that the shared middleware hashes and looks up in DynamoDB to find the ' +
        'project, the dashboard sends a signed session cookie, and a few routes (GET /config, the API reference, signed unsubscribe ' +
        'links) are open by design. An API Gateway Lambda authorizer would add a second invocation per request ' +
        'without adding protection, and IAM or Cognito authorizers do not fit API-key clients.',
    });

    for (const group of manifest.routeGroups) {
      const fn = this.addFunction(`Http${pascalCase(group.name)}`, {
        entry: group.handler,
        description: `Sesame HTTP routes: ${group.name}`,
        memoryMb: group.memoryMb ?? defaults.memoryMb,
        timeoutSeconds: group.timeoutSeconds ?? defaults.httpTimeoutSeconds,
        uses: group.uses,
      });
      // One integration and one invoke permission (for this API's routes) per group, plus one for
      // `$default` on the fallback group (below); API Gateway picks the group's Lambda by route and
      // the Lambda's router dispatches within the group.
      const integration = new HttpLambdaIntegration(`${pascalCase(group.name)}Integration`, fn, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
        scopePermissionToRoute: false,
      });
      for (const route of group.routes) {
        this.api.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration });
      }
      // Requests matching no route go to the fallback group, which answers the 404 error envelope
      // instead of API Gateway's own `{"message":"Not Found"}`.
      if (group.name === manifest.fallbackGroup) {
        new HttpRoute(this.api, 'DefaultRoute', {
          httpApi: this.api,
          routeKey: HttpRouteKey.DEFAULT,
          integration,
        });
        // API Gateway invokes the `$default` route as `<api-id>/<stage>/$default` (no method or
        // path part), which the group's `<api-id>/*/*/*` permission above does not match: without
        // this one, unknown paths and the CORS preflights this route receives would answer 500.
        fn.addPermission('DefaultRouteInvoke', {
          principal: new ServicePrincipal('apigateway.amazonaws.com'),
          sourceArn: this.formatArn({
            service: 'execute-api',
            resource: this.api.apiId,
            resourceName: `*/${HttpRouteKey.DEFAULT.key}`,
          }),
        });
      }
    }
    // Direct uploads: the HTTP API forwards the route (body untouched) to a REST API that stores
    // the body in the upload bucket, so no Lambda invocation carries it (docs/imports.md).
    for (const def of manifest.directUploads ?? []) {
      const authorizer = this.addFunction(`Authorizer${pascalCase(def.name)}`, {
        entry: def.authorizer,
        description: `Sesame upload authorizer: ${def.method} ${def.path}`,
        timeoutSeconds: 10,
        uses: def.authorizerUses,
      });
      const upload = new DirectUploadApi(this, `${pascalCase(def.name)}Upload`, {
        definition: def,
        bucket: this.stateful.bucket,
        authorizer,
        throttle: props.apiThrottle
          ? { rateLimit: props.apiThrottle.rateLimit ?? 50, burstLimit: props.apiThrottle.burstLimit ?? 100 }
          : undefined,
      });
      this.directUploads.set(def.name, upload);
      this.api.addRoutes({
        path: def.path,
        methods: [HttpMethod[def.method]],
        integration: new HttpUrlIntegration(`${pascalCase(def.name)}Integration`, upload.routeUrl, {
          method: HttpMethod[def.method],
        }),
      });
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
        uses: settings.uses,
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
        uses: def.uses,
      });
      new Schedule(this, `${pascalCase(def.name)}Schedule`, {
        schedule: ScheduleExpression.expression(def.expression),
        description: def.description,
        target: new FunctionScheduleTarget(fn),
      });
    }

    new CfnOutput(this, 'ApiUrl', { value: this.stage.url, description: 'Base URL of the Sesame API' });
  }

  /**
   * A Sesame function with the rights and environment of what its manifest entry `uses`, and
   * nothing else (see `PortUse` in shared/manifest.ts).
   */
  private addFunction(
    id: string,
    props: {
      entry: string;
      description: string;
      memoryMb?: number;
      timeoutSeconds: number;
      uses?: readonly PortUse[];
    },
  ): LambdaFunction {
    const { uses, ...functionProps } = props;
    const sesameFunction = new SesameFunction(this, id, {
      ...functionProps,
      logRetention: this.logRetention,
    });
    this.bindUses(sesameFunction, uses ?? []);
    this.functions.set(id, sesameFunction);
    return sesameFunction.function;
  }

  /** Binds each use: the construct owning the resource sets the variable and grants the right. */
  private bindUses(sesameFunction: SesameFunction, uses: readonly PortUse[]): void {
    const fn = sesameFunction.function;
    const { table, bucket, images, queues, oneOffScheduler, linkSigning, emailEvents, inboundMail } =
      this.stateful;
    const declared = new Set(uses);
    // Every function gets the table's name (the environment schema requires it); rights per use.
    table.bind(fn, {
      read: declared.has('table:read'),
      write: declared.has('table:write'),
      scan: declared.has('table:scan'),
    });
    const events = () => {
      if (!emailEvents) {
        throw new Error(
          `${sesameFunction.node.path} uses SES events, but the manifest has no ${SES_EVENTS_QUEUE} queue`,
        );
      }
      return emailEvents;
    };
    const binders: Record<PortUse, (() => void) | undefined> = {
      'table:read': undefined,
      'table:write': undefined,
      'table:scan': undefined,
      queue: () => {
        for (const queue of queues.values()) queue.bindSender(fn);
      },
      scheduler: () => oneOffScheduler.bind(fn),
      blobs: () => bucket.bindReadWrite(fn),
      images: () => images.bindWriter(fn),
      // Sends name the configuration set whose events feed the jobs queue.
      mailer: () => bindEmailSending(fn, events()),
      // Public DNS needs no AWS right.
      dns: undefined,
      'manage-sender-domains': () => bindSenderDomainManagement(sesameFunction),
      'check-sender-domains': () => bindSenderDomainCheck(sesameFunction),
      'delete-sender-domains': () => bindSenderDomainRemoval(sesameFunction),
      'sign-links': () =>
        bindSubscriptionLinks(fn, { publicBaseUrl: this.publicBaseUrl, signingKey: linkSigning }),
      // The images bucket's name and public URL; `images` sets them too.
      'feature-flags': () => {
        if (!declared.has('images')) images.bindName(fn);
        // `billing.enabled`: the key parameter's name, no right on it.
        if (this.stripe && !declared.has('stripe')) bindBillingFlag(fn, this.stripe);
      },
      // The topic whose HTTPS deliveries POST /webhooks/sns accepts; no AWS right.
      'receive-sns': () => events().bindTopicArn(fn),
      // Reading received mail, when the deployment receives any (`inboundDomain`); otherwise the
      // use has nothing to bind, and the port says so if it is called (shared/composition/aws.ts).
      'inbound-mail': () => inboundMail?.bindReader(fn),
      // Stripe's secrets from their SSM parameters, each to the functions that use it; nothing
      // without Stripe (the routes answer 400 BILLING_DISABLED).
      stripe: () => this.stripe && bindStripeApi(fn, this.stripe),
      'stripe-webhooks': () => this.stripe && bindStripeWebhooks(fn, this.stripe),
      // Settings only, no right.
      accounts: () => {
        fn.addEnvironment('SIGNUP_ENABLED', String(this.accounts.signupEnabled));
        if (this.accounts.systemFrom) fn.addEnvironment('SYSTEM_FROM', this.accounts.systemFrom);
      },
    };
    for (const use of declared) binders[use]?.();
  }
}
