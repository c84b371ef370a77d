import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { toAppConfig } from '../../../shared/config/env';
import { AppError, flatBadRequest } from '../../../shared/errors';
import type { Authenticators } from '../../../shared/http/auth';
import { ok } from '../../../shared/http/response';
import { type AuthedRequest, httpGroup, openRoute, route } from '../../../shared/http/stack';
import { httpApiEvent } from '../../../shared/local/apigw-event';
import type { Deps } from '../../../shared/ports';
import { hashKey } from '../../../shared/projects/repository';
import { createStore } from '../../../shared/store/dynamo';

const SECRET = 'sk_test_secret';

/** A table that knows one key and project, counts rate-limit windows, and fails on anything else. */
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
    store: createStore(db as never, 't'),
    clock: { now: () => new Date('2026-01-01T00:00:00Z') },
    ids: { uuid: () => 'generated-id' },
    config: toAppConfig({ TABLE_NAME: 't', RATE_LIMIT_PER_MINUTE: 1000, IDEMPOTENCY_TTL_HOURS: 24 }),
  } as unknown as Deps;
}

/** The event API Gateway sends for the request, with the test's key unless headers say otherwise. */
function event(
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string | Buffer } = {},
): APIGatewayProxyEventV2 {
  return httpApiEvent(method, path, {
    headers: { authorization: `Bearer ${SECRET}`, ...init.headers },
    body: init.body,
    requestId: 'gw-request-id',
  });
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
      flatBadRequest: true,
      handler: async (req: AuthedRequest) => {
        if (!req.body) throw flatBadRequest('email is required');
        return ok({ body: req.body });
      },
    },
    route({
      method: 'GET',
      path: '/contacts/{id}',
      params: z.object({ id: z.string() }),
      handler: async () => {
        await deps.store.query({ partition: 'x' });
        return ok({});
      },
    }),
  ]);

  it('scopes the request to the key project and adds request id and rate-limit headers', async () => {
    const res = await handler(event('GET', '/contacts'), ctx);
    expect(res).toMatchObject({ statusCode: 200 });
    expect(JSON.parse(String(res.body))).toEqual({ projectId: 'p1', query: {} });
    expect(res.headers).toMatchObject({
      'x-request-id': 'gw-request-id',
      'ratelimit-limit': '1000',
      'ratelimit-remaining': '999',
    });
  });

  it('hides internals of unexpected errors behind a 500 envelope', async () => {
    const res = await handler(event('GET', '/contacts/x'), ctx);
    expect(res.statusCode).toBe(500);
    const body = String(res.body);
    expect(JSON.parse(body)).toMatchObject({
      success: false,
      error: { code: 'INTERNAL_SERVER_ERROR', statusCode: 500, requestId: 'gw-request-id' },
    });
    expect(body).not.toMatch(/ECONNREFUSED|secret-internal-name|10\.0\.0\.1/);
  });

  it('answers flat {error} bodies where the route asks for them', async () => {
    const res = await handler(event('POST', '/contacts'), ctx);
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(String(res.body))).toEqual({ error: 'email is required' });
  });

  it('parses JSON bodies, also base64-encoded, and refuses malformed ones with 400', async () => {
    // No content type: API Gateway base64-encodes the body, and the stack reads it as JSON.
    const encoded = event('POST', '/contacts', { body: Buffer.from('{"email":"a@b.c"}') });
    expect(encoded.isBase64Encoded).toBe(true);
    const res = await handler(encoded, ctx);
    expect(JSON.parse(String(res.body))).toEqual({ body: { email: 'a@b.c' } });
    const bad = await handler(
      event('POST', '/contacts', { headers: { 'content-type': 'application/json' }, body: '{nope' }),
      ctx,
    );
    expect(bad.statusCode).toBe(400);
    expect(JSON.parse(String(bad.body)).error.code).toBe('BAD_REQUEST');
  });

  it('ignores an unusable X-Request-ID and uses its own', async () => {
    const res = await handler(
      event('GET', '/contacts', { headers: { 'x-request-id': 'bad id\r\nx: y' } }),
      ctx,
    );
    expect(res.headers?.['x-request-id']).toBe('gw-request-id');
  });

  it('refuses implementing a route that the manifest does not name', () => {
    expect(() =>
      httpGroup(deps, 'contacts', [{ method: 'GET', path: '/nope', handler: async () => ok({}) }]),
    ).toThrow(/not in the manifest/);
  });

  it('refuses an implementation whose openness differs from the manifest', () => {
    expect(() =>
      httpGroup(deps, 'contacts', [
        { method: 'GET', path: '/contacts', auth: 'none', handler: async () => ok({}) },
      ]),
    ).toThrow(/authenticated \(secret\) in the manifest/);
    expect(() =>
      httpGroup(deps, 'config', [{ method: 'GET', path: '/config', handler: async () => ok({}) }]),
    ).toThrow(/open in the manifest/);
  });

  it('refuses a route with path parameters but no schema for each of them', () => {
    expect(() =>
      httpGroup(deps, 'contacts', [{ method: 'GET', path: '/contacts/{id}', handler: async () => ok({}) }]),
    ).toThrow(/no params schema/);
    expect(() =>
      httpGroup(deps, 'contacts', [
        route({
          method: 'GET',
          path: '/contacts/{id}',
          params: z.object({ other: z.string() }),
          handler: async () => ok({}),
        }),
      ]),
    ).toThrow(/does not parse every one of id/);
  });

  it('parses path parameters before the handler: 422 naming the parameter, or its parsed value', async () => {
    const seen = vi.fn();
    const group = httpGroup(deps, 'contacts', [
      route({
        method: 'GET',
        path: '/contacts/{id}',
        params: z.object({ id: z.uuid({ message: 'Contact id must be a UUID' }) }),
        handler: async (req) => {
          seen(req.params.id);
          return ok({});
        },
      }),
    ]);
    const bad = await group(event('GET', '/contacts/not-a-uuid'), ctx);
    expect(bad.statusCode).toBe(422);
    expect(JSON.parse(String(bad.body)).error).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'id', code: 'invalid_string', message: 'Contact id must be a UUID' }],
    });
    expect(seen).not.toHaveBeenCalled();
    const id = '7a1c0f6e-7f5b-4a8e-9f59-0c3c7d2a9b10';
    expect((await group(event('GET', `/contacts/${id}`), ctx)).statusCode).toBe(200);
    expect(seen).toHaveBeenCalledWith(id);
  });

  it('authenticates with the authenticator the manifest names for the route', async () => {
    const authenticate = vi.fn(async ({ headers }: { headers: Record<string, string | undefined> }) => {
      if (headers['x-test-caller'] !== 'ok') throw new AppError(401, 'INVALID_API_KEY', 'who are you');
      return { auth: 'secret' as const, projectId: 'p-from-test' };
    });
    const refuse = async () => {
      throw new Error('the public authenticator must not run for a secret route');
    };
    const authenticators: Authenticators = { secret: { authenticate }, public: { authenticate: refuse } };
    const group = httpGroup(
      deps,
      'contacts',
      [
        {
          method: 'GET',
          path: '/contacts',
          handler: async (req: AuthedRequest) => ok({ projectId: req.projectId, principal: req.principal }),
        },
      ],
      { authenticators },
    );
    const res = await group(event('GET', '/contacts', { headers: { 'x-test-caller': 'ok' } }), ctx);
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(String(res.body))).toEqual({
      projectId: 'p-from-test',
      principal: { auth: 'secret', projectId: 'p-from-test' },
    });
    expect(authenticate).toHaveBeenCalledWith(
      expect.objectContaining({ sourceIp: '127.0.0.1', cookies: [], rawBody: undefined }),
    );
    expect((await group(event('GET', '/contacts'), ctx)).statusCode).toBe(401);
  });

  it('runs no authenticator and counts no rate limit on open routes', async () => {
    const never = async () => {
      throw new Error('no authenticator runs for an open route');
    };
    const group = httpGroup(
      deps,
      'public',
      [
        openRoute({
          method: 'GET',
          path: '/v1/subscription/{token}',
          params: z.object({ token: z.string() }),
          handler: async (req) => ok({ token: req.params.token }),
        }),
      ],
      { authenticators: { secret: { authenticate: never }, public: { authenticate: never } } },
    );
    const res = await group(event('GET', '/v1/subscription/abc'), ctx);
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(String(res.body))).toEqual({ token: 'abc' });
    expect(res.headers).not.toHaveProperty('ratelimit-limit');
  });

  it('hands route code only the ports the group declares: anything else is a hidden 500', async () => {
    const sendRaw = vi.fn(async () => ({ messageId: 'm' }));
    const group = httpGroup(
      { ...deps, mailer: { sendRaw, maxSendRate: async () => undefined } },
      'templates',
      (scoped) => [
        {
          method: 'GET',
          path: '/templates',
          handler: async () => {
            await scoped.mailer.sendRaw({ from: 'a@b.c', to: ['d@e.f'], raw: new Uint8Array() });
            return ok({});
          },
        },
      ],
    );
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const res = await group(event('GET', '/templates'), ctx);
      expect(res.statusCode).toBe(500);
      expect(String(res.body)).not.toMatch(/mailer|manifest/);
      expect(String(errors.mock.calls[0]?.[0])).toMatch(
        /http function templates .*deps\.mailer\.sendRaw.*'mailer'/,
      );
      expect(sendRaw).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });
});
