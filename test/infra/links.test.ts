/**
 * The key of the signed links in emails: generated once into an SSM parameter by a deploy-time
 * custom resource in the stateful stack, handed to every function as a dynamic reference (never
 * as a value in a template or an export), next to the public base URL the links use.
 */
import { describe, expect, it } from 'vitest';
import { logicalId, resourcesOfType, synthSesame } from './support';

const sesame = synthSesame();
const { stateful, stateless, statefulTemplate, statelessTemplate } = sesame;
const parameterName = '/sesame/Sesame-test-Stateful/link-signing-secret';

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
        Resource: {
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
        },
      },
    ]);
  });

  it('reaches every function as an SSM dynamic reference, with the API URL as PUBLIC_BASE_URL', () => {
    const apiId = logicalId(stateless, stateless.api);
    const functions = Object.values(resourcesOfType(statelessTemplate, 'AWS::Lambda::Function'));
    expect(functions.length).toBeGreaterThan(0);
    for (const fn of functions) {
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables.LINK_SIGNING_SECRET).toBe(`{{resolve:ssm:${parameterName}}}`);
      expect(variables.PUBLIC_BASE_URL).toEqual({
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
    // The value is never exported from the stateful stack.
    expect(JSON.stringify(statefulTemplate.toJSON().Outputs ?? {})).not.toContain('link-signing');
  });

  it('uses a configured public base URL (custom domain) instead', () => {
    const custom = synthSesame({ config: { publicBaseUrl: 'https://mail.example.com/' } });
    for (const fn of Object.values(resourcesOfType(custom.statelessTemplate, 'AWS::Lambda::Function'))) {
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables.PUBLIC_BASE_URL).toBe('https://mail.example.com');
    }
  });
});
