/**
 * The import upload authorizer checks the key with the HTTP routes' API-key authenticator, but
 * uncached and without the failed-authentication limit: every upload creates a job for the
 * project the key names now, and API Gateway answers every refusal itself.
 */
import { describe, expect, it } from 'vitest';
import { toAppConfig } from '../../../shared/config/env';
import { authorizeImportUpload, UNAUTHORIZED } from '../../../shared/imports/upload';
import type { Deps } from '../../../shared/ports';
import { hashKey } from '../../../shared/projects/repository';
import { createStore } from '../../../shared/store/dynamo';

const SECRET = 'sk_upload_secret';
const PUBLIC = 'pk_upload_public';
const methodArn = 'arn:aws:execute-api:us-east-1:000000000000:api/v1/POST/contacts/import';

function setup() {
  let disabled = false;
  const calls: string[] = [];
  const scheduled: unknown[] = [];
  const db = {
    send: async (cmd: { constructor: { name: string }; input: { Key?: { pk: string }; Item?: unknown } }) => {
      const name = cmd.constructor.name;
      const pk = cmd.input.Key?.pk ?? '';
      calls.push(`${name} ${pk}`);
      if (name === 'GetCommand' && pk === `KEY#${hashKey(SECRET)}`)
        return { Item: { projectId: 'p1', kind: 'secret' } };
      if (name === 'GetCommand' && pk === `KEY#${hashKey(PUBLIC)}`)
        return { Item: { projectId: 'p1', kind: 'public' } };
      if (name === 'GetCommand' && pk === 'P#p1')
        return { Item: { id: 'p1', name: 'p', createdAt: 'x', disabled } };
      if (name === 'GetCommand') return {};
      if (name === 'UpdateCommand' && pk.includes('#RATE#')) return { Attributes: { count: 1 } };
      if (name === 'PutCommand') return {};
      throw new Error(`unexpected ${name}`);
    },
  };
  const deps = {
    store: createStore(db as never, 't'),
    clock: { now: () => new Date('2026-01-01T00:00:00Z') },
    ids: { uuid: () => '00000000-0000-4000-8000-000000000001' },
    config: toAppConfig({ TABLE_NAME: 't', RATE_LIMIT_PER_MINUTE: 1000, IDEMPOTENCY_TTL_HOURS: 24 }),
    scheduler: { scheduleAt: async (input: unknown) => void scheduled.push(input), cancel: async () => {} },
  } as unknown as Deps;
  const authorize = (key: string | undefined) =>
    authorizeImportUpload(deps, {
      methodArn,
      headers: {
        ...(key === undefined ? {} : { Authorization: `Bearer ${key}` }),
        'Content-Type': 'multipart/form-data; boundary=x',
      },
      requestContext: { identity: { sourceIp: '203.0.113.7' } },
    });
  return {
    authorize,
    calls,
    scheduled,
    disable: (value: boolean) => {
      disabled = value;
    },
  };
}

describe('import upload authorizer', () => {
  it('throws Unauthorized for no key, a public key, an unknown key', async () => {
    const t = setup();
    for (const key of [undefined, PUBLIC, 'sk_unknown', 'not-a-key']) {
      await expect(t.authorize(key), String(key)).rejects.toThrow(UNAUTHORIZED);
    }
    expect(t.scheduled).toEqual([]);
  });

  it('allows a secret key of an enabled project, naming the project and the new job', async () => {
    const t = setup();
    const result = await t.authorize(SECRET);
    expect(result).toMatchObject({
      principalId: 'p1',
      policyDocument: { Statement: [{ Effect: 'Allow', Resource: methodArn }] },
      context: { projectId: 'p1', jobId: '00000000-0000-4000-8000-000000000001' },
    });
    expect(t.scheduled).toHaveLength(1);
  });

  it('denies a disabled project at once (no cache), with the project as principal', async () => {
    const t = setup();
    expect((await t.authorize(SECRET)).policyDocument.Statement[0]!.Effect).toBe('Allow');
    t.disable(true);
    const denied = await t.authorize(SECRET);
    expect(denied.principalId).toBe('p1');
    expect(denied.policyDocument.Statement[0]!.Effect).toBe('Deny');
    expect(denied.context).toEqual({
      code: 'PROJECT_DISABLED',
      message: 'This project is disabled',
      at: '2026-01-01T00:00:00.000Z',
    });
  });

  it('reads the key on every upload and never refuses a client for its failures (API Gateway throttles)', async () => {
    const t = setup();
    for (let i = 0; i < 30; i++) await expect(t.authorize('sk_unknown')).rejects.toThrow(UNAUTHORIZED);
    expect(t.calls.filter((c) => c === `GetCommand KEY#${hashKey('sk_unknown')}`)).toHaveLength(30);
    expect((await t.authorize(SECRET)).policyDocument.Statement[0]!.Effect).toBe('Allow');
  });
});
