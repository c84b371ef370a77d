import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors';
import { bodyHash, withIdempotency } from '../../shared/http/idempotency';
import type { Deps } from '../../shared/ports';
import { useLocalRuntime } from './helpers/local';
import { waitUntil } from './helpers/wait';

let nowMs = Date.parse('2026-01-01T00:00:10Z');
const clock = { now: () => new Date(nowMs) };
const rt = useLocalRuntime({ env: { RATE_LIMIT_PER_MINUTE: '5', IDEMPOTENCY_TTL_HOURS: '24' }, clock });

/** A `/v1/send` request under `key`, as the route hands it to withIdempotency. */
const sendRequest = (key: string | undefined, scope = 'POST /v1/send', projectId = rt.projectId) => ({
  projectId,
  scope,
  key,
  request: { method: 'POST', path: '/v1/send', body: { to: 'a@b.c' } },
  leaseSeconds: 29,
});

const send = (
  deps: Deps,
  key: string | undefined,
  status = 200,
  scope = 'POST /v1/send',
  projectId = rt.projectId,
) =>
  withIdempotency(deps, sendRequest(key, scope, projectId), async () => ({
    statusCode: status,
  }));

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a rejection');
}

// At a limit of 5, fewer than 20 requests remain in every window, so each instance adds every
// request to the shared window at once and the limit is exact; the in-memory counting of larger
// limits, its write units and its bound across instances: rate-limit-shared.test.ts.
describe('rate limit', () => {
  it('allows the limit per minute per project, then 429 with Retry-After, then resets', async () => {
    nowMs = Date.parse('2026-01-01T00:01:15Z');
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof rt.api>> | undefined;
    for (let i = 0; i < 6; i++) {
      last = await rt.api('GET', '/contacts');
      statuses.push(last.status);
      if (i === 0) {
        expect(last.headers['ratelimit-limit']).toBe('5');
        expect(last.headers['ratelimit-remaining']).toBe('4');
        expect(last.headers['ratelimit-reset']).toBe('45');
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(last!.headers['retry-after']).toBe('45');
    expect(last!.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    // Open routes are not counted; the next window starts afresh.
    expect((await rt.api('GET', '/config', { key: null })).status).toBe(200);
    nowMs = Date.parse('2026-01-01T00:02:00Z');
    expect((await rt.api('GET', '/contacts')).status).toBe(200);
  });

  it('counts every instance against one shared window', async () => {
    nowMs = Date.parse('2026-01-01T00:05:00Z');
    const second = await rt.startAnotherInstance();
    try {
      const a = await Promise.all([0, 1, 2].map(() => rt.api('GET', '/contacts')));
      const b = await Promise.all([0, 1, 2].map(() => second.api('GET', '/contacts')));
      const statuses = [...a, ...b].map((r) => r.status).sort();
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    } finally {
      await second.stop();
    }
  });
});

describe('Idempotency-Key', () => {
  it('runs once; a reuse answers 409 with the original request', async () => {
    nowMs = Date.parse('2026-01-02T00:00:00Z');
    expect(await send(rt.deps, 'key-1')).toEqual({ statusCode: 200 });
    const err = await rejection(send(rt.deps, 'key-1'));
    expect(err.statusCode).toBe(409);
    expect(err.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(err.extra.details).toEqual({
      key: 'key-1',
      originalRequest: { method: 'POST', path: '/v1/send', bodySha256: bodyHash({ to: 'a@b.c' }) },
      originalRequestAt: '2026-01-02T00:00:00.000Z',
      originalStatusCode: 200,
    });
  });

  it('is scoped to the project and the endpoint', async () => {
    expect((await send(rt.deps, 'key-2')).statusCode).toBe(200);
    expect((await send(rt.deps, 'key-2', 200, 'POST /v1/track')).statusCode).toBe(200);
    expect((await send(rt.deps, 'key-2', 200, 'POST /v1/send', 'another-project')).statusCode).toBe(200);
  });

  it('lets exactly one of concurrent duplicates run; the others get 409 while it runs', async () => {
    let runs = 0;
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const first = withIdempotency(
      rt.deps,
      {
        projectId: rt.projectId,
        scope: 'POST /v1/send',
        key: 'key-3',
        request: { method: 'POST', path: '/v1/send' },
        leaseSeconds: 29,
      },
      async () => {
        runs++;
        await gate;
        return { statusCode: 200 };
      },
    );
    // The first holds the claim once its handler runs.
    await waitUntil('the first request to run', () => runs === 1);
    const dupes = await Promise.allSettled([
      send(rt.deps, 'key-3'),
      send(rt.deps, 'key-3'),
      send(rt.deps, 'key-3'),
    ]);
    release();
    await first;
    expect(runs).toBe(1);
    for (const d of dupes) {
      expect(d.status).toBe('rejected');
      const reason = (d as PromiseRejectedResult).reason as AppError;
      expect(reason.code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect(reason.extra.details?.originalStatusCode).toBeNull();
    }
  });

  it('releases the key when the request fails (4xx or thrown)', async () => {
    expect((await send(rt.deps, 'key-4', 422)).statusCode).toBe(422);
    expect((await send(rt.deps, 'key-4', 200)).statusCode).toBe(200);
    await expect(
      withIdempotency(
        rt.deps,
        {
          projectId: rt.projectId,
          scope: 'POST /v1/send',
          key: 'key-5',
          request: { method: 'POST', path: '/v1/send' },
          leaseSeconds: 29,
        },
        async () => {
          throw new AppError(422, 'VALIDATION_ERROR', 'bad');
        },
      ),
    ).rejects.toThrow('bad');
    expect((await send(rt.deps, 'key-5')).statusCode).toBe(200);
  });

  it('keeps the claim of a request that failed part way, for the same request to resume at once', async () => {
    nowMs = Date.parse('2026-01-04T00:00:00Z');
    const req = sendRequest('key-7');
    const seen: { claimId: string; resumed: boolean }[] = [];
    await expect(
      withIdempotency(rt.deps, req, async (claim) => {
        seen.push({ claimId: claim!.claimId, resumed: claim!.resumed });
        claim!.markStarted();
        throw new AppError(409, 'CONTACT_BUSY', 'busy');
      }),
    ).rejects.toThrow('busy');
    // No lease to wait out: the failed attempt gave it up.
    const result = await withIdempotency(rt.deps, req, async (claim) => {
      seen.push({ claimId: claim!.claimId, resumed: claim!.resumed });
      return { statusCode: 200 };
    });
    expect(result.statusCode).toBe(200);
    expect(seen).toEqual([
      { claimId: seen[0]!.claimId, resumed: false },
      { claimId: seen[0]!.claimId, resumed: true },
    ]);
  });

  it('lets exactly one of several retries take over an abandoned claim', async () => {
    nowMs = Date.parse('2026-01-05T00:00:00Z');
    const req = sendRequest('key-8');
    // The first attempt never finishes (its process died).
    let started = false;
    void withIdempotency(rt.deps, req, () => {
      started = true;
      return new Promise<{ statusCode: number }>(() => {});
    });
    await waitUntil('the first attempt to hold the claim', () => started);
    expect(
      (await rejection(withIdempotency(rt.deps, req, async () => ({ statusCode: 200 })))).statusCode,
    ).toBe(409);
    nowMs += 30_000;
    let runs = 0;
    // The one that takes over holds the claim until the other three have been refused.
    let refused = 0;
    let release: () => void = () => {};
    const othersRefused = new Promise<void>((r) => {
      release = r;
    });
    const retries = await Promise.allSettled(
      Array.from({ length: 4 }, () =>
        withIdempotency(rt.deps, req, async (claim) => {
          runs++;
          expect(claim!.resumed).toBe(true);
          await othersRefused;
          return { statusCode: 200 };
        }).catch((error: unknown) => {
          if (++refused === 3) release();
          throw error;
        }),
      ),
    );
    expect(runs).toBe(1);
    expect(retries.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of retries.filter((x) => x.status === 'rejected'))
      expect(((r as PromiseRejectedResult).reason as AppError).code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('expires after the configured time', async () => {
    nowMs = Date.parse('2026-01-03T00:00:00Z');
    await send(rt.deps, 'key-6');
    nowMs += 23 * 3600_000;
    expect((await rejection(send(rt.deps, 'key-6'))).statusCode).toBe(409);
    nowMs += 2 * 3600_000;
    expect((await send(rt.deps, 'key-6')).statusCode).toBe(200);
  });

  it('refuses keys that are empty, too long or not printable ASCII with 400', async () => {
    for (const key of ['', 'x'.repeat(256), 'tab\there', 'ünïcode']) {
      const err = await rejection(send(rt.deps, key));
      expect(err.statusCode).toBe(400);
      expect(err.code).toBe('INVALID_IDEMPOTENCY_KEY');
    }
    expect((await send(rt.deps, 'x'.repeat(255))).statusCode).toBe(200);
    expect((await send(rt.deps, undefined)).statusCode).toBe(200);
    expect((await send(rt.deps, undefined)).statusCode).toBe(200);
  });
});
