import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { toAppConfig } from '../../../shared/config/env';
import { flatBadRequest } from '../../../shared/errors';
import { ok } from '../../../shared/http/response';
import { type AuthedRequest, httpGroup } from '../../../shared/http/stack';
import type { Deps } from '../../../shared/ports';
import { hashKey } from '../../../shared/projects/repository';

const SECRET = 'sk_test_secret';

/** A store that knows one key and project, counts rate-limit windows, and fails on anything else. */
function fakeDeps(): Deps {
  const db = {
    send: async (cmd: { constructor: { name: string }; input: { Key?: { pk: string } } }) => {
      const name = cmd.constructor.name;
      const pk = cmd.input.Key?.pk ?? '';
      if (name === 'GetCommand' && pk === `KEY#${hashKey(SECRET)}`)
        return { Item: { projectId: 'p1', kind: 'secret' } };
      if (name === 'GetCommand' && pk === 'P#p1') return { Item: { id: 'p1', name: 'p', createdAt: 'x' } };
      if (name === 'GetCommand') return {};
      if (name === 'UpdateCommand' && pk.includes('#RATE#')) return { Attributes: { count: 1 } };
      throw new Error('connect ECONNREFUSED 10.0.0.1:8000 table secret-internal-name');
    },
  };
  return {
    db,
    tableName: 't',
    clock: { now: () => new Date('2026-01-01T00:00:00Z') },
    ids: { uuid: () => 'generated-id' },
    config: toAppConfig({ TABLE_NAME: 't', RATE_LIMIT_PER_MINUTE: 1000, IDEMPOTENCY_TTL_HOURS: 24 }),
  } as unknown as Deps;
}

function event(
  method: string,
  path: string,
  routeKey: string,
  init: Partial<APIGatewayProxyEventV2> = {},
): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: { authorization: `Bearer ${SECRET}`, ...(init.headers ?? {}) },
    requestContext: {
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'gw-request-id',
    } as APIGatewayProxyEventV2['requestContext'],
    isBase64Encoded: false,
    ...init,
  } as APIGatewayProxyEventV2;
}

const ctx = { getRemainingTimeInMillis: () => 10_000 } as Context;

describe('http stack', () => {
  const deps = fakeDeps();
  const handler = httpGroup(deps, 'contacts', [
    {
      method: 'GET',
      path: '/contacts',
      handler: async (req: AuthedRequest) => ok({ projectId: req.projectId, query: req.query }),
    },
    {
      method: 'POST',
      path: '/contacts',
      handler: async (req: AuthedRequest) => {
        if (!req.body) throw flatBadRequest('email is required');
        return ok({ body: req.body });
      },
    },
    {
      method: 'GET',
      path: '/contacts/{id}',
      handler: async () => {
        await deps.db.send({ constructor: { name: 'QueryCommand' }, input: {} } as never);
        return ok({});
      },
    },
  ]);

  it('scopes the request to the key project and adds request id and rate-limit headers', async () => {
    const res = await handler(event('GET', '/contacts', 'GET /contacts'), ctx);
    expect(res).toMatchObject({ statusCode: 200 });
    expect(JSON.parse(String(res.body))).toEqual({ projectId: 'p1', query: {} });
    expect(res.headers).toMatchObject({
      'x-request-id': 'gw-request-id',
      'ratelimit-limit': '1000',
      'ratelimit-remaining': '999',
    });
  });

  it('hides internals of unexpected errors behind a 500 envelope', async () => {
    const res = await handler(event('GET', '/contacts/x', 'GET /contacts/{id}'), ctx);
    expect(res.statusCode).toBe(500);
    const body = String(res.body);
    expect(JSON.parse(body)).toMatchObject({
      success: false,
      error: { code: 'INTERNAL_SERVER_ERROR', statusCode: 500, requestId: 'gw-request-id' },
    });
    expect(body).not.toMatch(/ECONNREFUSED|secret-internal-name|10\.0\.0\.1/);
  });

  it('answers flat {error} bodies where the route asks for them', async () => {
    const res = await handler(event('POST', '/contacts', 'POST /contacts'), ctx);
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(String(res.body))).toEqual({ error: 'email is required' });
  });

  it('parses JSON bodies, also base64-encoded, and refuses malformed ones with 400', async () => {
    const b64 = Buffer.from('{"email":"a@b.c"}').toString('base64');
    const res = await handler(
      event('POST', '/contacts', 'POST /contacts', { body: b64, isBase64Encoded: true }),
      ctx,
    );
    expect(JSON.parse(String(res.body))).toEqual({ body: { email: 'a@b.c' } });
    const bad = await handler(event('POST', '/contacts', 'POST /contacts', { body: '{nope' }), ctx);
    expect(bad.statusCode).toBe(400);
    expect(JSON.parse(String(bad.body)).error.code).toBe('BAD_REQUEST');
  });

  it('ignores an unusable X-Request-ID and uses its own', async () => {
    const res = await handler(
      event('GET', '/contacts', 'GET /contacts', { headers: { 'x-request-id': 'bad id\r\nx: y' } }),
      ctx,
    );
    expect(res.headers?.['x-request-id']).toBe('gw-request-id');
  });

  it('refuses implementing a route that the manifest does not name', () => {
    expect(() =>
      httpGroup(deps, 'contacts', [{ method: 'GET', path: '/nope', handler: async () => ok({}) }]),
    ).toThrow(/not in the manifest/);
  });
});
