/**
 * Failed authentication in the HTTP stack, with a store over a fake client that counts its
 * requests and a clock the test moves: the negative key cache and the per-client failure limit.
 */
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { toAppConfig } from '../../../shared/config/env';
import { AUTH_FAILURE_LIMIT, AUTH_FAILURE_WINDOW_MS } from '../../../shared/http/rate-limit';
import { ok } from '../../../shared/http/response';
import { CACHE_TTL_MS, httpGroup, NEGATIVE_CACHE_TTL_MS } from '../../../shared/http/stack';
import { httpApiEvent } from '../../../shared/local/apigw-event';
import type { Deps } from '../../../shared/ports';
import { hashKey } from '../../../shared/projects/repository';
import { createStore } from '../../../shared/store/dynamo';

const SECRET = 'sk_known_secret';

function setup() {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const keys = new Map<string, { projectId: string; kind: string }>([
    [`KEY#${hashKey(SECRET)}`, { projectId: 'p1', kind: 'secret' }],
  ]);
  const calls: string[] = [];
  const db = {
    send: async (cmd: { constructor: { name: string }; input: { Key?: { pk: string } } }) => {
      const name = cmd.constructor.name;
      const pk = cmd.input.Key?.pk ?? '';
      calls.push(`${name} ${pk}`);
      if (name === 'GetCommand' && pk.startsWith('KEY#')) return { Item: keys.get(pk) };
      if (name === 'GetCommand' && pk === 'P#p1') return { Item: { id: 'p1', name: 'p', createdAt: 'x' } };
      if (name === 'UpdateCommand' && pk.includes('#RATE#')) return { Attributes: { count: 1 } };
      throw new Error(`unexpected ${name}`);
    },
  };
  const deps = {
    store: createStore(db as never, 't'),
    clock: { now: () => new Date(now) },
    ids: { uuid: () => 'id' },
    config: toAppConfig({ TABLE_NAME: 't', RATE_LIMIT_PER_MINUTE: 1000, IDEMPOTENCY_TTL_HOURS: 24 }),
  } as unknown as Deps;
  const handler = httpGroup(deps, 'contacts', [
    { method: 'GET', path: '/contacts', handler: async () => ok({ fine: true }) },
  ]);
  const ctx = { getRemainingTimeInMillis: () => 10_000 } as Context;
  const get = (key: string | undefined, sourceIp = '203.0.113.7') =>
    handler(
      httpApiEvent('GET', '/contacts', {
        headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
        sourceIp,
        requestId: 'r',
      }),
      ctx,
    );
  const reads = (raw: string) => calls.filter((c) => c === `GetCommand KEY#${hashKey(raw)}`).length;
  return {
    get,
    calls,
    reads,
    advance: (ms: number) => {
      now += ms;
    },
    addKey: (raw: string) => keys.set(`KEY#${hashKey(raw)}`, { projectId: 'p1', kind: 'secret' }),
  };
}

describe('negative key cache', () => {
  it(`reads an unknown key once per ${NEGATIVE_CACHE_TTL_MS / 1000} s, and a key created meanwhile works after that`, async () => {
    const t = setup();
    const late = 'sk_created_later';
    for (let i = 0; i < 5; i++) expect((await t.get(late, `198.51.100.${i}`)).statusCode).toBe(401);
    expect(t.reads(late)).toBe(1);
    t.addKey(late);
    t.advance(NEGATIVE_CACHE_TTL_MS - 1);
    expect((await t.get(late, '198.51.100.9')).statusCode).toBe(401);
    expect(t.reads(late)).toBe(1);
    t.advance(1);
    expect((await t.get(late, '198.51.100.9')).statusCode).toBe(200);
    expect(t.reads(late)).toBe(2);
  });

  it('reads a known key on every request (a rotation must take effect at once), however many unknown ones are tried', async () => {
    const t = setup();
    expect((await t.get(SECRET)).statusCode).toBe(200);
    for (let i = 0; i < 1500; i++) await t.get(`sk_random_${i}`, `10.0.${i >> 8}.${i & 255}`);
    expect((await t.get(SECRET)).statusCode).toBe(200);
    expect(t.reads(SECRET)).toBe(2);
    t.advance(CACHE_TTL_MS);
    await t.get(SECRET);
    expect(t.reads(SECRET)).toBe(3);
  });
});

describe('failed-authentication limit per client', () => {
  it(`answers 429 with Retry-After after ${AUTH_FAILURE_LIMIT} failures in a window, before any read`, async () => {
    const t = setup();
    // No key, a public key on a secret route, an unknown key: all failures.
    const failures = [undefined, 'pk_wrong_kind', 'sk_nobody'];
    for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) {
      expect((await t.get(failures[i % failures.length])).statusCode).toBe(401);
    }
    const before = t.calls.length;
    t.advance(10_000);
    const blocked = await t.get('sk_another');
    expect(blocked.statusCode).toBe(429);
    expect(JSON.parse(String(blocked.body)).error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(blocked.headers?.['retry-after']).toBe(String((AUTH_FAILURE_WINDOW_MS - 10_000) / 1000));
    expect((await t.get(undefined)).statusCode).toBe(429);
    expect(t.calls.length).toBe(before);
    // Another client is unaffected.
    expect((await t.get('sk_nobody_else', '203.0.113.8')).statusCode).toBe(401);
    expect((await t.get(SECRET, '203.0.113.8')).statusCode).toBe(200);
    // The window ends: the client may try again.
    t.advance(AUTH_FAILURE_WINDOW_MS - 10_000);
    expect((await t.get('sk_nobody')).statusCode).toBe(401);
  });

  it('lets a key the instance knows as valid through from a blocked client', async () => {
    const t = setup();
    expect((await t.get(SECRET, '203.0.113.9')).statusCode).toBe(200);
    for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) await t.get(`sk_bad_${i}`);
    expect((await t.get('sk_bad_more')).statusCode).toBe(429);
    expect((await t.get(SECRET)).statusCode).toBe(200);
  });

  it('does not count successful authentications', async () => {
    const t = setup();
    for (let i = 0; i < AUTH_FAILURE_LIMIT * 2; i++) expect((await t.get(SECRET)).statusCode).toBe(200);
    for (let i = 0; i < AUTH_FAILURE_LIMIT - 1; i++) await t.get(`sk_bad_${i}`);
    expect((await t.get('sk_bad_last')).statusCode).toBe(401);
  });
});
