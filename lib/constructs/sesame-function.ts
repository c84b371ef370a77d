import * as path from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { defaults } from '../../shared/manifest';
import { repoRoot } from '../paths';

export interface SesameFunctionProps {
  /** Handler module, relative to the repository root (as in the manifest); it exports `handler`. */
  readonly entry: string;
  readonly description?: string;
  /**
   * Memory in MB (CPU scales with it).
   * @default 512 (`defaults.memoryMb`)
   */
  readonly memoryMb?: number;
  /**
   * @default 29 seconds (`defaults.httpTimeoutSeconds`)
   */
  readonly timeoutSeconds?: number;
  /**
   * How long the function's logs are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
}

/**
 * ESM needs `require` for the CommonJS dependencies esbuild inlines (parts of the AWS SDK among
 * them); this is the banner esbuild's documentation suggests.
 */
const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/**
 * How every function is bundled (bench/bundles.ts builds with the same options through esbuild).
 */
export const sesameBundling = {
  format: OutputFormat.ESM,
  target: 'node22',
  mainFields: ['module', 'main'],
  minify: true,
  sourceMap: true,
  // Mappings are enough for stack traces; embedding sources would double the asset size.
  sourcesContent: false,
  bundleAwsSDK: true,
  banner: ESM_REQUIRE_BANNER,
} satisfies BundlingOptions;

/**
 * A Lambda function as every Sesame entry point runs: Node.js 22 on arm64, bundled locally by
 * esbuild (minified ESM with source maps, AWS SDK v3 inside the bundle so the version is the
 * one tested), its own log group with a retention, and its own role that may write only to that
 * log group until `bind*` methods of other constructs add more.
 */
export class SesameFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: SesameFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      // Stateless stack: logs go with the function; the retention already bounds what is kept.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // An own role instead of the default one keeps AWSLambdaBasicExecutionRole (which may create
    // any log group) off the function: it only needs to write to the group above.
    this.role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: path.join(repoRoot, props.entry),
      handler: 'handler',
      projectRoot: repoRoot,
      depsLockFilePath: path.join(repoRoot, 'package-lock.json'),
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memoryMb ?? defaults.memoryMb,
      timeout: Duration.seconds(props.timeoutSeconds ?? defaults.httpTimeoutSeconds),
      role: this.role,
      logGroup: this.logGroup,
      environment: { NODE_OPTIONS: '--enable-source-maps' },
      bundling: sesameBundling,
    });

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node.js 22 is the runtime the architecture pins for Lambda and for the local runtime alike, so both run the ' +
        'code under test on the same major version; nodejs22.x is a supported Lambda runtime, and moving to a newer ' +
        'major is a deliberate, tested upgrade rather than something to pick up at synth time.',
    });
  }
}
