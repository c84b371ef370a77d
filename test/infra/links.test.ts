/**
 * The key of the signed links in emails: generated once into an SSM parameter by a deploy-time
 * custom resource in the stateful stack, and read at run time (by parameter name, with
 * `ssm:GetParameter` on that one parameter) only by the functions the manifest grants
 * `sign-links`; never a value or a dynamic reference in a template, an export or an environment.
 */
import { describe, expect, it } from 'vitest';
import { LINK_SIGNING_SECRET_PARAMETER_VAR } from '../../lib/constructs/link-signing';
import { pascalCase } from '../../lib/stateful-stack';
import { envSchema } from '../../shared/config/env';
import { functionUses } from '../../shared/manifest';
import { logicalId, policyStatements, resourcesOfType, synthSesame } from './support';

const sesame = synthSesame();
const { stateful, stateless, statefulTemplate, statelessTemplate, manifest } = sesame;
const parameterName = '/sesame/Sesame-test-Stateful/link-signing-secret';
const parameterArn = {
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':ssm:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      `:parameter${parameterName}`,
    ],
  ],
};

/** Construct ids of the functions whose manifest entry uses `sign-links`. */
function signers(): string[] {
  const prefix = { http: 'Http', queue: 'Worker', schedule: 'Schedule', authorizer: 'Authorizer' };
  return functionUses(manifest)
    .filter((f) => f.uses.includes('sign-links'))
    .map((f) => `${prefix[f.kind]}${pascalCase(f.name)}`);
}

describe('link-signing key', () => {
  it('is ensured by a custom resource in the stateful stack, named after the stack', () => {
    expect(stateful.linkSigning.parameterName).toBe(parameterName);
    const resources = Object.values(resourcesOfType(statefulTemplate, 'Custom::SesameLinkSigningSecret'));
    expect(resources).toHaveLength(1);
    expect(resources[0]!.Properties.ParameterName).toBe(parameterName);
    // CloudFormation cannot generate the value itself; no SSM or Secrets Manager resource holds it.
    statefulTemplate.resourceCountIs('AWS::SSM::Parameter', 0);
    statefulTemplate.resourceCountIs('AWS::SecretsManager::Secret', 0);
  });

  it('gives the provider only Get and Put on that one parameter, and runs it on Node.js 22', () => {
    const ofProvider = (type: string) =>
      Object.entries(resourcesOfType(statefulTemplate, type))
        .filter(([id]) => id.startsWith('CustomSesameLinkSigningSecretCustomResourceProvider'))
        .map(([, r]) => r);
    const functions = ofProvider('AWS::Lambda::Function');
    expect(functions).toHaveLength(1);
    expect(functions[0]!.Properties.Runtime).toBe('nodejs22.x');
    const roles = ofProvider('AWS::IAM::Role');
    expect(roles).toHaveLength(1);
    const policies = roles[0]!.Properties.Policies as {
      PolicyDocument: { Statement: Record<string, unknown>[] };
    }[];
    expect(policies.flatMap((p) => p.PolicyDocument.Statement)).toEqual([
      {
        Effect: 'Allow',
        Action: ['ssm:GetParameter', 'ssm:PutParameter'],
        Resource: parameterArn,
      },
    ]);
  });

  it('is in no function environment: no value, no {{resolve:...}} reference', () => {
    const functions = Object.values(resourcesOfType(statelessTemplate, 'AWS::Lambda::Function'));
    expect(functions.length).toBeGreaterThan(0);
    for (const fn of functions) {
      const environment = JSON.stringify(fn.Properties.Environment);
      expect(environment).not.toContain('{{resolve:');
      expect(environment).not.toContain('LINK_SIGNING_SECRET"');
    }
    // Nor anywhere else in either template, nor exported from the stateful stack.
    expect(JSON.stringify(statelessTemplate.toJSON())).not.toContain('{{resolve:ssm');
    expect(JSON.stringify(statefulTemplate.toJSON())).not.toContain('{{resolve:ssm');
    expect(JSON.stringify(statefulTemplate.toJSON().Outputs ?? {})).not.toContain('link-signing');
  });

  it('is read at run time only by the functions granted sign-links, by parameter name', () => {
    const granted = signers();
    // The public group signs links (/v1/send) and checks them (the subscription pages); the
    // campaigns group signs them in test sends, and the jobs worker in campaign fan-outs. Every
    // group with project routes checks sessions with a key derived from it (X-Project-Id), and
    // the accounts group signs sessions and mailed tokens; the import upload's authorizer checks
    // sessions too. The track group (public key only), the config and webhook groups and the other
    // workers never read it.
    expect([...granted].sort()).toEqual([
      'AuthorizerContactsImport',
      'HttpAccounts',
      'HttpActivity',
      'HttpBilling',
      'HttpBillingStripe',
      'HttpCampaigns',
      'HttpContacts',
      'HttpDomains',
      'HttpEvents',
      'HttpPublic',
      'HttpSegments',
      'HttpTemplates',
      'HttpUploads',
      'HttpWorkflows',
      'WorkerJobs',
    ]);
    // The variable CDK sets is the one the runtime's environment schema reads.
    expect(Object.keys(envSchema.shape)).toContain(LINK_SIGNING_SECRET_PARAMETER_VAR);
    const readers = new Set<string>();
    const policies = resourcesOfType(statelessTemplate, 'AWS::IAM::Policy');
    for (const { policy, actions, statement } of policyStatements(statelessTemplate)) {
      if (!actions.includes('ssm:GetParameter')) continue;
      expect(actions).toEqual(['ssm:GetParameter']);
      expect(statement.Resource).toEqual(parameterArn);
      for (const role of policies[policy]!.Properties.Roles as { Ref: string }[]) readers.add(role.Ref);
    }
    for (const [id, sesameFunction] of stateless.functions) {
      const variables = (
        resourcesOfType(statelessTemplate, 'AWS::Lambda::Function')[
          logicalId(stateless, sesameFunction.function)
        ]!.Properties.Environment as { Variables: Record<string, unknown> }
      ).Variables;
      const isGranted = granted.includes(id);
      expect(readers.has(logicalId(stateless, sesameFunction.role)), id).toBe(isGranted);
      expect(variables.LINK_SIGNING_SECRET_PARAMETER, id).toBe(isGranted ? parameterName : undefined);
    }
    // The parameter is a String, or a SecureString under aws/ssm, whose key policy lets the account's
    // principals decrypt through SSM: no KMS grant is needed.
    for (const { actions } of policyStatements(statelessTemplate)) {
      expect(actions.some((a) => a.startsWith('kms:'))).toBe(false);
    }
  });

  it('gives the functions that make or check links the API URL as PUBLIC_BASE_URL, and no other', () => {
    const apiId = logicalId(stateless, stateless.api);
    const granted = signers();
    expect(granted.length).toBeGreaterThan(0);
    for (const [id, sesameFunction] of stateless.functions) {
      const fn = resourcesOfType(statelessTemplate, 'AWS::Lambda::Function')[
        logicalId(stateless, sesameFunction.function)
      ]!;
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      if (!granted.includes(id)) {
        expect(variables.PUBLIC_BASE_URL, id).toBeUndefined();
        continue;
      }
      expect(variables.PUBLIC_BASE_URL, id).toEqual({
        'Fn::Join': [
          '',
          [
            'https://',
            { Ref: apiId },
            '.execute-api.',
            { Ref: 'AWS::Region' },
            '.',
            { Ref: 'AWS::URLSuffix' },
          ],
        ],
      });
    }
  });

  it('uses a configured public base URL (custom domain) instead', () => {
    const custom = synthSesame({ config: { publicBaseUrl: 'https://mail.example.com/' } });
    const functions = resourcesOfType(custom.statelessTemplate, 'AWS::Lambda::Function');
    for (const id of signers()) {
      const fn = functions[logicalId(custom.stateless, custom.stateless.functions.get(id)!.function)]!;
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables.PUBLIC_BASE_URL, id).toBe('https://mail.example.com');
    }
  });
});
