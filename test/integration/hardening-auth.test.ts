/**
 * Failed authentication is cheap, through HTTP against the local runtime: an unknown key is
 * looked up once per warm handler and then answered from a short negative cache, and a client
 * (source IP) that keeps failing gets 429 RATE_LIMIT_EXCEEDED with Retry-After before any table
 * read, while other clients keep working.
 *
 * Requests come from distinct loopback addresses (127.0.0.x, bound as the socket's local
 * address), which the local gateway reports as `requestContext.http.sourceIp`, as API Gateway
 * reports the client's address.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { AUTH_FAILURE_LIMIT, AUTH_FAILURE_WINDOW_MS } from '../../shared/http/rate-limit';
import { createProject, hashKey } from '../../shared/projects/repository';
import { type Json, useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Json;
}

/** GET (or POST) through the gateway from the given local address. */
function apiFrom(
  sourceIp: string,
  method: string,
  path: string,
  key: string,
  body?: unknown,
): Promise<Reply> {
  const url = new URL(rt.url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        localAddress: sourceIp,
        method,
        path,
        agent: false,
        headers: {
          authorization: `Bearer ${key}`,
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
            : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text ? JSON.parse(text) : undefined,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Counts the commands the runtime's store sends to its table (API-key reads apart). */
function countTableRequests() {
  const db = rt.runtime.dynamo.db;
  const name = `countTableRequests${Math.random().toString(36).slice(2)}`;
  const counts = { all: 0, keyReads: new Map<string, number>() };
  db.middlewareStack.add(
    (next, context) => async (args) => {
      counts.all++;
      const pk = (args.input as { Key?: { pk?: unknown } }).Key?.pk;
      if (
        /^Get(Item)?Command$/.test(String(context.commandName)) &&
        typeof pk === 'string' &&
        pk.startsWith('KEY#')
      ) {
        counts.keyReads.set(pk, (counts.keyReads.get(pk) ?? 0) + 1);
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  cleanups.push(() => db.middlewareStack.remove(name));
  return {
    get all() {
      return counts.all;
    },
    keyReadsOf: (raw: string) => counts.keyReads.get(`KEY#${hashKey(raw)}`) ?? 0,
  };
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

let seq = 0;
const unknownKey = (kind: 'sk' | 'pk' = 'sk') => `${kind}_unknown_${Date.now().toString(36)}_${++seq}`;

describe('failed authentication', () => {
  it('reads the table once for an unknown key, then answers repeats from the negative cache', async () => {
    const counter = countTableRequests();
    const bad = unknownKey();
    for (let i = 0; i < 8; i++) {
      const res = await apiFrom('127.0.0.3', 'GET', '/contacts', bad);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('INVALID_API_KEY');
    }
    expect(counter.keyReadsOf(bad)).toBe(1);
    // The same for a public key on the public group.
    const badPublic = unknownKey('pk');
    for (let i = 0; i < 5; i++) {
      const res = await apiFrom('127.0.0.3', 'POST', '/v1/track', badPublic, {
        email: 'a@b.test',
        event: 'x',
      });
      expect(res.status).toBe(401);
    }
    expect(counter.keyReadsOf(badPublic)).toBe(1);
    // A key made now (never looked up before) works at once.
    const fresh = await createProject(rt.deps, { name: 'fresh' });
    expect((await apiFrom('127.0.0.3', 'GET', '/contacts', fresh.secretKey)).status).toBe(200);
  });

  it(`answers 429 with Retry-After past ${AUTH_FAILURE_LIMIT} failures from one client, before any table read`, async () => {
    const blocked = '127.0.0.2';
    for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) {
      const res = await apiFrom(blocked, 'GET', '/contacts', unknownKey());
      expect(res.status, `failure ${i + 1}`).toBe(401);
    }
    const other = await createProject(rt.deps, { name: 'other' });
    const counter = countTableRequests();
    for (let i = 0; i < 5; i++) {
      const res = await apiFrom(blocked, 'GET', '/contacts', unknownKey());
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({
        success: false,
        error: { code: 'RATE_LIMIT_EXCEEDED', statusCode: 429 },
      });
      const retryAfter = Number(res.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(AUTH_FAILURE_WINDOW_MS / 1000);
    }
    // A key this instance does not know yet is refused too, without a read.
    expect((await apiFrom(blocked, 'GET', '/contacts', other.secretKey)).status).toBe(429);
    expect(counter.all).toBe(0);

    // Other clients are not affected: a valid key from another address works, so does a new one.
    const ok = await apiFrom('127.0.0.1', 'GET', '/contacts', rt.secretKey);
    expect(ok.status).toBe(200);
    expect((await apiFrom('127.0.0.4', 'GET', '/contacts', other.secretKey)).status).toBe(200);
    // ...and a bad key from another address is still an ordinary 401.
    expect((await apiFrom('127.0.0.4', 'GET', '/contacts', unknownKey())).status).toBe(401);
  });

  it('lets a key the instance already knows as valid through from a blocked client', async () => {
    const blocked = '127.0.0.5';
    // The seeded key is known to the contacts handler from earlier requests.
    expect((await apiFrom('127.0.0.1', 'GET', '/contacts', rt.secretKey)).status).toBe(200);
    for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) await apiFrom(blocked, 'GET', '/contacts', unknownKey());
    expect((await apiFrom(blocked, 'GET', '/contacts', unknownKey())).status).toBe(429);
    expect((await apiFrom(blocked, 'GET', '/contacts', rt.secretKey)).status).toBe(200);
    // The public key is not valid on a secret route: still refused.
    expect((await apiFrom(blocked, 'GET', '/contacts', rt.publicKey)).status).toBe(429);
  });
});
