import * as path from 'node:path';
import { AssetHashType, DockerImage, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { defaults } from '../../shared/manifest';
import { bundleEntrySync, sesameBundling } from '../bundling';
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
 * A Lambda function as every Sesame entry point runs: Node.js 22 on arm64, bundled by esbuild in
 * the CDK process (`../bundling.ts`: minified ESM split into chunks, with source maps, AWS SDK v3
 * inside the bundle so the version is the one tested), its own log group with a retention, and its own role that may write only to that
 * log group until `bind*` methods of other constructs add more.
 */
export class SesameFunction extends Construct {
  readonly function: LambdaFunction;
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

    const entry = path.join(repoRoot, props.entry);
    this.function = new LambdaFunction(this, 'Function', {
      // The asset is the bundle, hashed by its output (as NodejsFunction does); the source folder
      // is only where bundling starts. The Docker image is never pulled: local bundling always
      // succeeds or throws.
      code: Code.fromAsset(repoRoot, {
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          image: DockerImage.fromRegistry('local-bundling-only'),
          // CDK caches a bundled asset by its source folder and its bundling options (as JSON,
          // where `local`, a function, is nothing): the entry, named here, makes the key the
          // function's own; without it every function of an app got the first one's bundle.
          environment: { SESAME_ENTRY: props.entry },
          local: {
            tryBundle(outputDir) {
              bundleEntrySync(entry, outputDir);
              return true;
            },
          },
        },
      }),
      handler: `${path.basename(sesameBundling.entryFile, '.mjs')}.handler`,
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memoryMb ?? defaults.memoryMb,
      timeout: Duration.seconds(props.timeoutSeconds ?? defaults.httpTimeoutSeconds),
      role: this.role,
      logGroup: this.logGroup,
      // No NODE_OPTIONS=--enable-source-maps: with it, Node reads every loaded file's source map
      // at load, about 10 ms of each cold start. The logs that print a stack map it on demand
      // (shared/stack-trace.ts).
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
