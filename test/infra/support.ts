/**
 * Builds the Sesame app the way `bin/sesame.ts` does, without asset bundling (the templates are
 * the same apart from asset hashes; `npm run synth` covers bundling).
 */
import { App, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { addSesameStacks, type SesameStacks } from '../../lib/app';
import { type StageConfig, stageConfigSchema } from '../../lib/config';
import { type Manifest, manifest } from '../../shared/manifest';

export interface SynthesizedSesame extends SesameStacks {
  readonly app: App;
  readonly manifest: Manifest;
  readonly statefulTemplate: Template;
  readonly statelessTemplate: Template;
}

export function synthSesame(
  options: { manifest?: Manifest; config?: Partial<StageConfig> } = {},
): SynthesizedSesame {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const config = stageConfigSchema.parse({ stage: 'test', ...options.config });
  const stacks = addSesameStacks(app, config, { manifest: options.manifest });
  return {
    ...stacks,
    app,
    manifest: options.manifest ?? manifest,
    statefulTemplate: Template.fromStack(stacks.stateful),
    statelessTemplate: Template.fromStack(stacks.stateless),
  };
}

/** The logical id a construct's CloudFormation resource gets in its stack. */
export function logicalId(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  const child = construct.node.defaultChild;
  if (!child) throw new Error('construct has no default child');
  return stack.resolve(stack.getLogicalId(child as Parameters<Stack['getLogicalId']>[0])) as string;
}

type Resources = Record<
  string,
  { Type: string; Properties: Record<string, unknown>; [key: string]: unknown }
>;

/** All resources of one type in a template, by logical id. */
export function resourcesOfType(template: Template, type: string): Resources {
  return template.findResources(type) as Resources;
}

/** Every IAM statement of every `AWS::IAM::Policy` in the template, with its policy's logical id. */
export function policyStatements(
  template: Template,
): { policy: string; actions: string[]; statement: Record<string, unknown> }[] {
  return Object.entries(resourcesOfType(template, 'AWS::IAM::Policy')).flatMap(([policy, resource]) => {
    const document = resource.Properties.PolicyDocument as { Statement: Record<string, unknown>[] };
    return document.Statement.map((statement) => ({
      policy,
      actions: ([] as string[]).concat(statement.Action as string | string[]),
      statement,
    }));
  });
}
