import { Aws } from 'aws-cdk-lib';
import { Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { MANAGED_RECORD_NAME_PATTERNS } from '../../shared/domains/records';
import { acknowledgeWildcardResource } from '../nag';
import { sesIdentitiesArn } from './email-sending';
import type { SesameFunction } from './sesame-function';

/** SES v2 actions behind `POST /domains`, the forced check and `DELETE /domains/{id}`. */
export const SES_IDENTITY_MANAGE_ACTIONS = [
  'ses:CreateEmailIdentity',
  'ses:GetEmailIdentity',
  'ses:DeleteEmailIdentity',
  'ses:PutEmailIdentityMailFromAttributes',
] as const;

/** The only SES action the background check needs. */
export const SES_IDENTITY_READ_ACTIONS = ['ses:GetEmailIdentity'] as const;

/** The only SES action a deleted project's wipe needs (its domains' identities, when Sesame made them). */
export const SES_IDENTITY_DELETE_ACTIONS = ['ses:DeleteEmailIdentity'] as const;

/** Record types Sesame writes: DKIM CNAMEs, the MAIL FROM MX, SPF and DMARC TXT. */
export const ROUTE53_RECORD_TYPES = ['CNAME', 'MX', 'TXT'] as const;

export const route53HostedZonesArn = (): string => `arn:${Aws.PARTITION}:route53:::hostedzone/*`;

/**
 * Managing sender domains (manifest use `manage-sender-domains`), in a policy of its own so the
 * acknowledgements below cover these statements and nothing else: SES identity create/read/delete and MAIL FROM on the account's
 * identities; finding hosted zones and upserting only CNAME, MX and TXT record sets with the
 * names Sesame uses (`*._domainkey.*`, `mail.*`, `_dmarc.*`), never deleting.
 */
export function bindSenderDomainManagement(fn: SesameFunction): void {
  const policy = new Policy(fn, 'SenderDomainsPolicy', {
    roles: [fn.role],
    statements: [
      new PolicyStatement({ actions: [...SES_IDENTITY_MANAGE_ACTIONS], resources: [sesIdentitiesArn()] }),
      new PolicyStatement({ actions: ['route53:ListHostedZonesByName'], resources: ['*'] }),
      new PolicyStatement({
        actions: ['route53:ChangeResourceRecordSets'],
        resources: [route53HostedZonesArn()],
        conditions: {
          'ForAllValues:StringEquals': {
            'route53:ChangeResourceRecordSetsActions': ['UPSERT'],
            'route53:ChangeResourceRecordSetsRecordTypes': [...ROUTE53_RECORD_TYPES],
          },
          'ForAllValues:StringLike': {
            'route53:ChangeResourceRecordSetsNormalizedRecordNames': [...MANAGED_RECORD_NAME_PATTERNS],
          },
        },
      }),
    ],
  });
  acknowledgeWildcardResource(
    policy,
    sesIdentitiesArn(),
    'Sender domains are added by users at runtime, so their SES identities cannot be listed at deploy time; the ' +
      'grant is limited to creating, reading and deleting identities and setting their MAIL FROM domain in this ' +
      'account and region.',
  );
  acknowledgeWildcardResource(
    policy,
    '*',
    'route53:ListHostedZonesByName supports no resource-level permissions (IAM requires "*"); it only lists zone ' +
      'names and ids, to find the hosted zone of a domain a user adds.',
  );
  acknowledgeWildcardResource(
    policy,
    route53HostedZonesArn(),
    "The hosted zone of a sender domain is found at runtime among the account's zones; conditions restrict the " +
      'changes to UPSERT of CNAME, MX and TXT record sets named *._domainkey.*, mail.* or _dmarc.*.',
  );
}

/**
 * Deleting the SES identities of a deleted project's sender domains (manifest use
 * `delete-sender-domains`): DeleteEmailIdentity, nothing else (no reading, no Route 53).
 */
export function bindSenderDomainRemoval(fn: SesameFunction): void {
  const policy = new Policy(fn, 'SenderDomainRemovalPolicy', {
    roles: [fn.role],
    statements: [
      new PolicyStatement({ actions: [...SES_IDENTITY_DELETE_ACTIONS], resources: [sesIdentitiesArn()] }),
    ],
  });
  acknowledgeWildcardResource(
    policy,
    sesIdentitiesArn(),
    'Deleting a project deletes the SES identities Sesame created for its sender domains, which users add at ' +
      'runtime, so the identities cannot be listed at deploy time; the grant is DeleteEmailIdentity alone.',
  );
}

/** Checking sender domains (manifest use `check-sender-domains`): reading SES identities, nothing else. */
export function bindSenderDomainCheck(fn: SesameFunction): void {
  const policy = new Policy(fn, 'SenderDomainCheckPolicy', {
    roles: [fn.role],
    statements: [
      new PolicyStatement({ actions: [...SES_IDENTITY_READ_ACTIONS], resources: [sesIdentitiesArn()] }),
    ],
  });
  acknowledgeWildcardResource(
    policy,
    sesIdentitiesArn(),
    'The background check reads the SES identity of every pending sender domain, which users add at runtime, so ' +
      'the identities cannot be listed at deploy time; the grant is GetEmailIdentity alone.',
  );
}
