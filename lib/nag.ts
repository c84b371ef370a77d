/**
 * Helpers for cdk-nag acknowledgements that must name one exact finding.
 *
 * cdk-nag v3 reports each wildcard resource of an IAM policy as its own finding,
 * `AwsSolutions-IAM5[Resource::<resource as written in the template>]`, and only an acknowledgement
 * with that exact id (on the policy or an ancestor construct) silences it. Rendering the id with
 * cdk-nag's own flattening keeps acknowledgements in step with logical ids and stack names.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';
import type { IConstruct } from 'constructs';

/**
 * The id of the AwsSolutions-IAM5 finding for `resource` in a policy of `scope`'s stack. Values
 * from another stack must already be imports (`Stack.exportValue`), as they are in the template.
 */
export function wildcardResourceFindingId(scope: IConstruct, resource: string): string {
  return `AwsSolutions-IAM5[Resource::${flattenCfnReference(Stack.of(scope).resolve(resource))}]`;
}

/**
 * Acknowledges the IAM5 finding for one wildcard `resource` on `scope` (a role, or an ancestor of
 * the policies to cover), with the reason the wildcard is the narrowest grant that works.
 */
export function acknowledgeWildcardResource(scope: IConstruct, resource: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: wildcardResourceFindingId(scope, resource), reason });
}
