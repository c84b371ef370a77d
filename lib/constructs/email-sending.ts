import { Aws } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { acknowledgeWildcardResource } from '../nag';
import type { EmailEvents } from './email-events';

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
 * Grants sending through SES from any verified identity of this account and region with the
 * deployment's configuration set, and reading the account's send quota; sets
 * `SES_CONFIGURATION_SET`, which the SES mailer names on every send so SES publishes the message's
 * events (lib/constructs/email-events.ts). Sender domains are added by users at runtime, so they
 * cannot be listed at deploy time. SES authorizes a send that names a configuration set on both the
 * identity and the set (`configuration-set/<name>`), so the statement lists both.
 */
export function bindEmailSending(fn: LambdaFunction, events: EmailEvents): void {
  if (!fn.role) throw new Error(`${fn.node.path} has no role to grant sending to`);
  fn.addEnvironment('SES_CONFIGURATION_SET', events.configurationSet.configurationSetName);
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: [...SES_SEND_ACTIONS],
      resources: [sesIdentitiesArn(), events.configurationSetArn(fn)],
    }),
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
