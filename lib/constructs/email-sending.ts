import { Aws } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { acknowledgeWildcardResource } from '../nag';

/** IAM actions SES v2 `SendEmail` checks (a raw message is authorized as `ses:SendRawEmail`). */
export const SES_SEND_ACTIONS = ['ses:SendEmail', 'ses:SendRawEmail'] as const;

/**
 * Reads the account's sending quota (SendQuota.MaxSendRate paces campaign fan-outs when
 * SES_MAX_SEND_RATE is not set). An account-level action: it has no resource type, so `*`.
 */
export const SES_QUOTA_ACTIONS = ['ses:GetAccount'] as const;

/** ARN pattern of the account's SES identities in the deployment region. */
export const sesIdentitiesArn = (): string =>
  `arn:${Aws.PARTITION}:ses:${Aws.REGION}:${Aws.ACCOUNT_ID}:identity/*`;

/**
 * Grants sending through SES from any verified identity of this account and region, and reading
 * the account's send quota. Sender domains are added by users at runtime, so they cannot be listed
 * at deploy time. When a configuration set is created for SES events, add its ARN to this statement.
 */
export function bindEmailSending(fn: LambdaFunction): void {
  if (!fn.role) throw new Error(`${fn.node.path} has no role to grant sending to`);
  fn.addToRolePolicy(
    new PolicyStatement({ actions: [...SES_SEND_ACTIONS], resources: [sesIdentitiesArn()] }),
  );
  fn.addToRolePolicy(new PolicyStatement({ actions: [...SES_QUOTA_ACTIONS], resources: ['*'] }));
  acknowledgeWildcardResource(
    fn.role,
    '*',
    'ses:GetAccount reads the account-level sending quota; the action has no resource type, so IAM takes only `*`.',
  );
  acknowledgeWildcardResource(
    fn.role,
    sesIdentitiesArn(),
    'Sender domains are added and verified by users at runtime, so their SES identities cannot be listed at ' +
      'deploy time; the grant is limited to the two send actions on identities of this account and region.',
  );
}
