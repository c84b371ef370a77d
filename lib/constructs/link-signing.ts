import * as path from 'node:path';
import {
  Aws,
  CustomResource,
  CustomResourceProvider,
  CustomResourceProviderRuntime,
  Stack,
} from 'aws-cdk-lib';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { repoRoot } from '../paths';

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
 * Functions receive it as `LINK_SIGNING_SECRET` through a CloudFormation dynamic reference
 * (`{{resolve:ssm:...}}`), so the value appears in no template and no stack export.
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

  /** The `{{resolve:ssm:...}}` reference CloudFormation replaces with the value at deploy time. */
  get dynamicReference(): string {
    return `{{resolve:ssm:${this.parameterName}}}`;
  }
}

export interface SubscriptionLinkSettings {
  /** SSM dynamic reference to the key (see LinkSigningSecret). */
  readonly secretReference: string;
  /** Public base URL of the API, without a trailing slash. */
  readonly publicBaseUrl: string;
}

/** Sets `LINK_SIGNING_SECRET` and `PUBLIC_BASE_URL`, which links in emails and the link pages need. */
export function bindSubscriptionLinks(fn: LambdaFunction, settings: SubscriptionLinkSettings): void {
  fn.addEnvironment('LINK_SIGNING_SECRET', settings.secretReference);
  fn.addEnvironment('PUBLIC_BASE_URL', settings.publicBaseUrl);
}
