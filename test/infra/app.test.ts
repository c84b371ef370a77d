import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { stageConfigFromContext } from '../../lib/config';
import { synthSesame } from './support';

describe('stage configuration', () => {
  const fromContext = (context: Record<string, unknown>) => stageConfigFromContext(new App({ context }).node);

  it('defaults to the dev stage, with deletion protection', () => {
    expect(fromContext({})).toEqual({
      stage: 'dev',
      deletionProtection: true,
      apiRateLimit: 50,
      apiBurstLimit: 100,
      // Signup closed unless asked for: an open one lends the account's SES reputation to strangers.
      signupEnabled: false,
    });
  });

  it('reads -c values, which arrive as strings', () => {
    expect(
      fromContext({
        stage: 'prod',
        deletionProtection: 'false',
        apiRateLimit: '200',
        apiBurstLimit: '400',
        signupEnabled: 'true',
        systemFrom: 'sesame@mail.example.org',
      }),
    ).toEqual({
      stage: 'prod',
      deletionProtection: false,
      apiRateLimit: 200,
      apiBurstLimit: 400,
      signupEnabled: true,
      systemFrom: 'sesame@mail.example.org',
    });
  });

  it('rejects what would make invalid names, listing every problem', () => {
    expect(() => fromContext({ stage: 'Prod_1', apiRateLimit: '-1' })).toThrow(/stage: .*; apiRateLimit: /);
    expect(() => fromContext({ systemFrom: 'not an address' })).toThrow(/systemFrom: /);
  });
});

describe('app', () => {
  const { stateful, stateless } = synthSesame({ config: { stage: 'qa' } });

  it('names the stacks Sesame-<stage>-Stateful and Sesame-<stage>-Stateless', () => {
    expect(stateful.stackName).toBe('Sesame-qa-Stateful');
    expect(stateless.stackName).toBe('Sesame-qa-Stateless');
  });

  it('is environment-agnostic, so synth needs no account, region or lookups', () => {
    for (const stack of [stateful, stateless]) {
      expect(stack.environment).toBe('aws://unknown-account/unknown-region');
    }
  });

  it('deploys the stateful stack first', () => {
    expect(stateless.dependencies).toContain(stateful);
  });
});
