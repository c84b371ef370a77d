/**
 * Per-project rate limit shared by every instance: a fixed one-minute window counted with an
 * atomic `ADD` on one item per project and window (TTL removes old windows). One write unit per
 * request; no read.
 */
import { AppError } from '../errors';
import type { Deps } from '../ports';
import type { StoreDeps } from '../store/store';
import { countInRateWindow, type RateScope } from './repository';

export interface RateLimitState {
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window resets. */
  readonly reset: number;
}

export const rateLimitHeaders = (s: RateLimitState): Record<string, string> => ({
  'ratelimit-limit': String(s.limit),
  'ratelimit-remaining': String(s.remaining),
  'ratelimit-reset': String(s.reset),
});

/** Counts the request (a string scope is a project id); throws 429 RATE_LIMIT_EXCEEDED past the limit. */
export async function consumeRateLimit(
  deps: StoreDeps & Pick<Deps, 'clock' | 'config'>,
  scope: string | RateScope,
): Promise<RateLimitState> {
  const nowMs = deps.clock.now().getTime();
  const window = Math.floor(nowMs / 60_000);
  const reset = Math.max(1, Math.ceil(((window + 1) * 60_000 - nowMs) / 1000));
  const limit = deps.config.rateLimitPerMinute;
  const count = await countInRateWindow(
    deps,
    typeof scope === 'string' ? { projectId: scope } : scope,
    window,
    (window + 2) * 60,
  );
  const state: RateLimitState = { limit, remaining: Math.max(0, limit - count), reset };
  if (count > limit) {
    throw new AppError(429, 'RATE_LIMIT_EXCEEDED', `Rate limit of ${limit} requests per minute exceeded`, {
      headers: { ...rateLimitHeaders(state), 'retry-after': String(reset) },
      suggestion: `Retry after ${reset} seconds`,
    });
  }
  return state;
}

/**
 * Failed authentications a client (one source IP) may make per window before it gets 429
 * RATE_LIMIT_EXCEEDED, answered before any table read. Counted in memory per handler instance
 * (each warm Lambda counts on its own, so across N instances a client gets up to N times this):
 * the point is that a flood of bad keys costs no DynamoDB reads, not a global guarantee. 20 a
 * minute leaves room for a client with a mistyped or rotated key to retry a few times; legitimate
 * traffic never fails authentication at that rate.
 */
export const AUTH_FAILURE_LIMIT = 20;
/** The window the failures are counted in (fixed, starting at the client's first failure). */
export const AUTH_FAILURE_WINDOW_MS = 60_000;
/** Clients tracked per instance at most; past it, finished windows are dropped (then all, if need be). */
export const AUTH_FAILURE_MAX_CLIENTS = 10_000;

/** Counts failed authentications per client and refuses clients past the limit. */
export class AuthFailureLimiter {
  private readonly clients = new Map<string, { start: number; failures: number }>();

  constructor(
    private readonly now: () => number,
    private readonly limit = AUTH_FAILURE_LIMIT,
    private readonly windowMs = AUTH_FAILURE_WINDOW_MS,
  ) {}

  /** Throws 429 (with Retry-After) when `client` has failed `limit` times in its current window. */
  check(client: string): void {
    const entry = this.current(client);
    if (!entry || entry.failures < this.limit) return;
    const retryAfter = Math.max(1, Math.ceil((entry.start + this.windowMs - this.now()) / 1000));
    throw new AppError(
      429,
      'RATE_LIMIT_EXCEEDED',
      `Too many failed authentications from this client: at most ${this.limit} per ${this.windowMs / 1000} seconds`,
      {
        headers: { 'retry-after': String(retryAfter) },
        suggestion: `Check the API key, then retry after ${retryAfter} seconds`,
      },
    );
  }

  /** Records one failed authentication of `client`. */
  fail(client: string): void {
    const entry = this.current(client);
    if (entry) {
      entry.failures++;
      return;
    }
    if (this.clients.size >= AUTH_FAILURE_MAX_CLIENTS) this.prune();
    this.clients.set(client, { start: this.now(), failures: 1 });
  }

  private current(client: string) {
    const entry = this.clients.get(client);
    if (entry && this.now() - entry.start >= this.windowMs) {
      this.clients.delete(client);
      return undefined;
    }
    return entry;
  }

  private prune() {
    const now = this.now();
    for (const [client, entry] of this.clients)
      if (now - entry.start >= this.windowMs) this.clients.delete(client);
    if (this.clients.size >= AUTH_FAILURE_MAX_CLIENTS) this.clients.clear();
  }
}
