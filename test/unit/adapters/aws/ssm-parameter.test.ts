import { GetParameterCommand, ParameterNotFound, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_PARAMETER_TTL_MS,
  SsmParameterError,
  ssmParameterLoader,
} from '../../../../shared/adapters/aws/ssm-parameter';
import { awsDeps } from '../../../../shared/composition/aws';
import { everyUse } from '../../../../shared/composition/aws-every';
import { LINK_SIGNING_SECRET_TTL_MS } from '../../../../shared/composition/aws-ports/ssm';

const name = '/sesame/Sesame-prod-Stateful/link-signing-secret';
const client = new SSMClient({ region: 'eu-west-1' });
const ssm = mockClient(SSMClient);
const value = (v: string) => ({ Parameter: { Name: name, Type: 'SecureString' as const, Value: v } });

let time = 1_000_000;
const now = () => time;

beforeEach(() => {
  ssm.reset();
  time = 1_000_000;
});

afterAll(() => {
  ssm.restore();
});

describe('ssmParameterLoader', () => {
  it('reads the named parameter with decryption on, so a SecureString works too', async () => {
    ssm.on(GetParameterCommand).resolves(value('k'.repeat(48)));
    const load = ssmParameterLoader(client, { name, now });
    expect(await load()).toBe('k'.repeat(48));
    expect(ssm.commandCalls(GetParameterCommand).map((c) => c.args[0].input)).toStrictEqual([
      { Name: name, WithDecryption: true },
    ]);
  });

  it('reuses the value for the TTL (5 minutes by default), then reads again and sees a new value', async () => {
    expect(DEFAULT_PARAMETER_TTL_MS).toBe(5 * 60 * 1000);
    ssm.on(GetParameterCommand).resolvesOnce(value('first')).resolvesOnce(value('second'));
    const load = ssmParameterLoader(client, { name, now });
    expect(await load()).toBe('first');
    time += DEFAULT_PARAMETER_TTL_MS - 1;
    expect(await load()).toBe('first');
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(1);
    time += 1;
    expect(await load()).toBe('second');
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(2);
  });

  it('honours a shorter TTL', async () => {
    ssm.on(GetParameterCommand).resolves(value('v'));
    const load = ssmParameterLoader(client, { name, now, ttlMs: 1000 });
    await load();
    time += 1000;
    await load();
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(2);
  });

  it('shares one read between concurrent callers', async () => {
    ssm.on(GetParameterCommand).resolves(value('v'));
    const load = ssmParameterLoader(client, { name, now });
    expect(await Promise.all([load(), load(), load()])).toEqual(['v', 'v', 'v']);
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(1);
  });

  it('fails naming the parameter when it does not exist, and tries again on the next call', async () => {
    ssm
      .on(GetParameterCommand)
      .rejectsOnce(new ParameterNotFound({ message: '', $metadata: {} }))
      .resolvesOnce(value('v'));
    const load = ssmParameterLoader(client, { name, now });
    const failure = load();
    await expect(failure).rejects.toThrow(SsmParameterError);
    await expect(failure).rejects.toThrow(`SSM parameter ${name} does not exist`);
    expect(await load()).toBe('v');
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(2);
  });

  it('fails on an empty value and on other SSM errors, with the service message', async () => {
    ssm.on(GetParameterCommand).resolvesOnce({ Parameter: { Name: name } });
    await expect(ssmParameterLoader(client, { name, now })()).rejects.toThrow(
      `SSM parameter ${name} has no value`,
    );
    const denied = Object.assign(new Error('User is not authorized to perform ssm:GetParameter'), {
      name: 'AccessDeniedException',
    });
    ssm.reset();
    ssm.on(GetParameterCommand).rejects(denied);
    await expect(ssmParameterLoader(client, { name, now })()).rejects.toThrow(
      /could not be read: User is not authorized to perform ssm:GetParameter/,
    );
  });

  it('answers the earlier value when a refresh fails, and refreshes on the next call', async () => {
    ssm
      .on(GetParameterCommand)
      .resolvesOnce(value('old'))
      .rejectsOnce(new Error('ThrottlingException'))
      .resolvesOnce(value('new'));
    const stale = vi.fn();
    const load = ssmParameterLoader(client, { name, now, onStaleValue: stale });
    expect(await load()).toBe('old');
    time += DEFAULT_PARAMETER_TTL_MS;
    expect(await load()).toBe('old');
    expect(stale).toHaveBeenCalledTimes(1);
    expect(String(stale.mock.calls[0]![0])).toContain('ThrottlingException');
    expect(await load()).toBe('new');
    expect(ssm.commandCalls(GetParameterCommand)).toHaveLength(3);
  });
});

describe('awsDeps: the link-signing key', () => {
  const base = { TABLE_NAME: 't', PUBLIC_BASE_URL: 'https://api.example.com' };

  it('is read from the parameter named by LINK_SIGNING_SECRET_PARAMETER, decrypted and cached', async () => {
    expect(LINK_SIGNING_SECRET_TTL_MS).toBe(5 * 60 * 1000);
    ssm.on(GetParameterCommand).resolves(value('s'.repeat(48)));
    const deps = awsDeps({ ...base, LINK_SIGNING_SECRET_PARAMETER: name }, everyUse);
    // Nothing is read before a link is made or checked.
    expect(ssm.calls()).toHaveLength(0);
    expect(await deps.config.linkSigningSecret()).toBe('s'.repeat(48));
    expect(await deps.config.linkSigningSecret()).toBe('s'.repeat(48));
    expect(ssm.commandCalls(GetParameterCommand).map((c) => c.args[0].input)).toStrictEqual([
      { Name: name, WithDecryption: true },
    ]);
  });

  it('prefers the parameter over a literal LINK_SIGNING_SECRET', async () => {
    ssm.on(GetParameterCommand).resolves(value('p'.repeat(48)));
    const deps = awsDeps(
      {
        ...base,
        LINK_SIGNING_SECRET: 'l'.repeat(40),
        LINK_SIGNING_SECRET_PARAMETER: name,
      },
      everyUse,
    );
    expect(await deps.config.linkSigningSecret()).toBe('p'.repeat(48));
  });

  it('uses a literal LINK_SIGNING_SECRET without SSM, and has none when neither is set', async () => {
    expect(
      await awsDeps({ ...base, LINK_SIGNING_SECRET: 'l'.repeat(40) }, everyUse).config.linkSigningSecret(),
    ).toBe('l'.repeat(40));
    expect(await awsDeps(base, everyUse).config.linkSigningSecret()).toBeUndefined();
    expect(ssm.calls()).toHaveLength(0);
  });

  it('rejects a malformed parameter name at start-up', () => {
    expect(() => awsDeps({ ...base, LINK_SIGNING_SECRET_PARAMETER: 'no-leading-slash' }, everyUse)).toThrow(
      /LINK_SIGNING_SECRET_PARAMETER: expected an SSM parameter name/,
    );
  });
});
