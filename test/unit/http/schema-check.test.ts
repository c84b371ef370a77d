/**
 * The stack's schema checks (SESAME_CHECK_SCHEMAS=1, as every test tier runs): a handler that
 * parses with a schema its route does not declare, or answers a status, a field or an error code
 * the API reference does not name, fails its request with a 500 that names the route.
 */
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { AppError, flatBadRequest } from '../../../shared/errors';
import { ok } from '../../../shared/http/response';
import { type HttpHandler, httpGroup, type OpenRouteImpl } from '../../../shared/http/stack';
import { parse } from '../../../shared/http/validation';
import { httpApiEvent } from '../../../shared/local/apigw-event';
import type { Deps } from '../../../shared/ports';

const deps = {
  clock: { now: () => new Date('2026-01-01T00:00:00Z') },
  ids: { uuid: () => 'generated-id' },
  config: {},
} as unknown as Deps;
const ctx = { getRemainingTimeInMillis: () => 10_000 } as Context;

const declared = z.object({ name: z.string() });
const other = z.object({ name: z.string() });
const answer = z.object({ id: z.string(), tags: z.array(z.object({ label: z.string() })) });

const group = (route: Omit<OpenRouteImpl, 'method' | 'path' | 'auth'>): HttpHandler =>
  httpGroup(deps, 'config', [{ method: 'GET', path: '/config', auth: 'none', ...route }]);

async function call(handler: HttpHandler, init: { body?: unknown; query?: string } = {}) {
  const res = await handler(
    httpApiEvent('GET', `/config${init.query ?? ''}`, {
      headers: { 'content-type': 'application/json' },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    }),
    ctx,
  );
  return { status: res.statusCode, body: JSON.parse(String(res.body)) };
}

describe('schema checks', () => {
  const logged: string[] = [];
  afterEach(() => {
    logged.length = 0;
    vi.restoreAllMocks();
  });
  const quiet = () =>
    vi.spyOn(console, 'error').mockImplementation((line: string) => {
      logged.push(String(line));
    });

  it('are on in the test tiers', () => {
    expect(process.env.SESAME_CHECK_SCHEMAS).toBe('1');
  });

  it('pass a handler that parses with its declared schema, or a part of it, and answers as documented', async () => {
    const handler = group({
      body: z.object({ outer: declared }),
      responses: { 200: answer },
      handler: async (req) => {
        parse(z.object({ outer: declared }), { outer: { name: 'z' } }); // not the request's body: not watched
        return ok({ id: 'x', tags: [{ label: (req.body as { outer: { name: string } }).outer.name }] });
      },
    });
    expect(await call(handler, { body: { outer: { name: 'a' } } })).toEqual({
      status: 200,
      body: { id: 'x', tags: [{ label: 'a' }] },
    });
    const parts = group({
      body: z.extend(declared, { extra: z.optional(z.number()) }),
      handler: async (req) => ok(parse(declared, req.body)),
    });
    expect((await call(parts, { body: { name: 'b' } })).status).toBe(200);
  });

  it('fail a handler that parses its body or query with another schema', async () => {
    quiet();
    const body = group({ body: declared, handler: async (req) => ok(parse(other, req.body)) });
    expect((await call(body, { body: { name: 'a' } })).status).toBe(500);
    expect(logged.join()).toMatch(
      /Route GET \/config parses its body with a schema its RouteDoc does not declare/,
    );
    const query = group({ handler: async (req) => ok(parse(z.object({ q: z.string() }), req.query)) });
    expect((await call(query, { query: '?q=1' })).status).toBe(500);
    expect(logged.join()).toMatch(/parses its query .*no query schema declared/);
  });

  it('fail an answer with a status, a field or a type the route does not document', async () => {
    quiet();
    const status = group({ responses: { 201: answer }, handler: async () => ok({ id: 'x', tags: [] }) });
    expect((await call(status)).status).toBe(500);
    expect(logged.join()).toMatch(/answered 200, which its RouteDoc.responses does not list/);
    const field = group({
      responses: { 200: answer },
      handler: async () => ok({ id: 'x', tags: [{ label: 'a', secret: 1 }] }),
    });
    expect((await call(field)).status).toBe(500);
    expect(logged.join()).toMatch(/the field tags\[0\]\.secret, which its RouteDoc does not name/);
    const type = group({ responses: { 200: answer }, handler: async () => ok({ id: 1, tags: [] }) });
    expect((await call(type)).status).toBe(500);
    expect(logged.join()).toMatch(/a body its RouteDoc rejects: id:/);
  });

  it('fail an error code missing from the catalogue, and pass a listed one', async () => {
    quiet();
    const unknown = group({
      handler: async () => {
        throw new AppError(409, 'SOMETHING_NEW', 'new');
      },
    });
    const res = await call(unknown);
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('INTERNAL_SERVER_ERROR');
    expect(logged.join()).toMatch(/Error code SOMETHING_NEW is not in shared\/http\/error-codes.ts/);
    const known = group({
      handler: async () => {
        throw new AppError(409, 'CONTACT_BUSY', 'busy');
      },
    });
    expect((await call(known)).body.error.code).toBe('CONTACT_BUSY');
  });

  it('fail a flat {error} 400 from a route that does not say it answers one', async () => {
    quiet();
    const refuse = async () => {
      throw flatBadRequest('name is required');
    };
    expect(await call(group({ flatBadRequest: true, handler: refuse }))).toEqual({
      status: 400,
      body: { error: 'name is required' },
    });
    expect((await call(group({ handler: refuse }))).status).toBe(500);
    expect(logged.join()).toMatch(
      /answered a flat \{error\} 400, which its RouteDoc \(flatBadRequest\) does not say/,
    );
  });
});
