import * as path from 'node:path';
import {
  Aws,
  CustomResource,
  CustomResourceProvider,
  CustomResourceProviderRuntime,
  Stack,
} from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { repoRoot } from '../paths';

/** The variable naming the key's parameter (read by shared/composition/aws.ts). */
export const LINK_SIGNING_SECRET_PARAMETER_VAR = 'LINK_SIGNING_SECRET_PARAMETER';

export interface LinkSigningSecretProps {
  /**
   * SSM parameter holding the key.
   * @default `/sesame/<stack name>/link-signing-secret`
   */
  readonly parameterName?: string;
}

/**
 * The HMAC key of the signed subscription links in emails (`unsubscribeUrl`, `subscribeUrl`,
 * `manageUrl`; see shared/subscriptions/links.ts). A link must keep working for as long as the
 * mail is read, so the key is state: it lives in the stateful stack, is generated once by a
 * custom resource into an SSM String parameter (standard tier: no cost; Secrets Manager would
 * cost a monthly fee per secret) and is never rotated or deleted by CloudFormation.
 *
 * The value is in no template, no stack export and no function environment: functions granted
 * `sign-links` (shared/manifest.ts) get the parameter's NAME (`LINK_SIGNING_SECRET_PARAMETER`)
 * and `ssm:GetParameter` on it, and read the value at run time with decryption, caching it per
 * warm function (shared/composition/aws.ts). An operator may replace the parameter with a
 * SecureString under the AWS managed key `aws/ssm`, whose key policy already lets principals of the
 * account decrypt through SSM; a customer managed key needs its own `kms:Decrypt` grant.
 */
export class LinkSigningSecret extends Construct {
  readonly parameterName: string;
  /** ARN of the parameter, for the custom resource's grant. */
  readonly parameterArn: string;

  constructor(scope: Construct, id: string, props: LinkSigningSecretProps = {}) {
    super(scope, id);
    const stack = Stack.of(this);
    this.parameterName = props.parameterName ?? `/sesame/${stack.stackName}/link-signing-secret`;
    if (!/^\/[A-Za-z0-9_.\-/]{1,1000}$/.test(this.parameterName)) {
      throw new Error(`Invalid SSM parameter name ${this.parameterName}`);
    }
    this.parameterArn = `arn:${Aws.PARTITION}:ssm:${Aws.REGION}:${Aws.ACCOUNT_ID}:parameter${this.parameterName}`;

    const provider = CustomResourceProvider.getOrCreateProvider(this, 'Custom::SesameLinkSigningSecret', {
      codeDirectory: path.join(repoRoot, 'lib', 'constructs', 'link-signing-secret-handler'),
      runtime: CustomResourceProviderRuntime.NODEJS_22_X,
      description: 'Sesame: creates the link-signing key parameter once (deploy time only)',
      policyStatements: [
        {
          Effect: 'Allow',
          Action: ['ssm:GetParameter', 'ssm:PutParameter'],
          Resource: this.parameterArn,
        },
      ],
    });
    new CustomResource(this, 'Resource', {
      resourceType: 'Custom::SesameLinkSigningSecret',
      serviceToken: provider.serviceToken,
      properties: { ParameterName: this.parameterName },
    });
  }

  /**
   * Lets `fn` read the key at run time: sets `LINK_SIGNING_SECRET_PARAMETER` to the parameter's
   * name and grants `ssm:GetParameter` on this one parameter.
   */
  bindReader(fn: LambdaFunction): void {
    fn.addEnvironment(LINK_SIGNING_SECRET_PARAMETER_VAR, this.parameterName);
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['ssm:GetParameter'], resources: [this.parameterArn] }),
    );
  }
}

export interface SubscriptionLinkSettings {
  /** Public base URL of the API, without a trailing slash. */
  readonly publicBaseUrl: string;
  /**
   * The key, for a function that signs or checks links (manifest grant `sign-links`).
   * @default none: the function can neither make nor check links
   */
  readonly signingKey?: LinkSigningSecret;
}

/**
 * Sets `PUBLIC_BASE_URL`, and for a function that signs or checks links the name of the key's
 * parameter with the right to read it.
 */
export function bindSubscriptionLinks(fn: LambdaFunction, settings: SubscriptionLinkSettings): void {
  fn.addEnvironment('PUBLIC_BASE_URL', settings.publicBaseUrl);
  settings.signingKey?.bindReader(fn);
}
