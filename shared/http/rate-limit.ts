/**
 * Per-project rate limit shared by every instance: a fixed one-minute window per project (or, on
 * the user routes, per signed-in user), counted on one item per window with an atomic `ADD` (TTL
 * removes old windows), no read.
 *
 * Each instance counts in memory and adds what it counted to the shared item in one `ADD` every
 * `RATE_LIMIT_FLUSH_EVERY` requests of a scope, so a busy project pays about one write unit per
 * ten requests instead of one per request. What an instance has not added yet, the others do not
 * see; the bound on that:
 *
 * - An instance writes on its first request of a window (so it starts from the shared count), and
 *   then after at most `min(RATE_LIMIT_FLUSH_EVERY, max(1, floor(remaining / 10)))` requests,
 *   `remaining` being what the shared count left when it last wrote: writes come closer together
 *   as the window fills, and once fewer than 20 requests remain, every request writes.
 * - Between two writes an instance admits at most `RATE_LIMIT_FLUSH_EVERY - 1` requests the others
 *   cannot see. So the instances together admit at most `limit + I x (RATE_LIMIT_FLUSH_EVERY - 1)`
 *   requests in a window, I being the number of instances that served the scope in it (each warm
 *   Lambda of each function); one instance alone never overshoots, since the count it reads
 *   includes everything it added.
 * - An instance never refuses a request wrongly: the shared count only grows within a window, so
 *   what an instance knows is never more than the truth. A request it refuses is not counted
 *   (nothing is written for it), as it did nothing.
 *
 * The headers are the instance's view: `RateLimit-Remaining` is the limit less the shared count it
 * last read and what it counted since.
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

/**
 * Requests an instance counts in memory, at most, before it adds them to the shared window. Ten
 * takes the limit's writes from one per request to about one per ten, and keeps the overshoot of a
 * few warm instances (9 each) within about 1% of the default limit of 1,000.
 */
export const RATE_LIMIT_FLUSH_EVERY = 10;
/** Writes come every `remaining / RATE_LIMIT_FLUSH_SHARE` requests once that is below the above. */
const RATE_LIMIT_FLUSH_SHARE = 10;

type RateDeps = StoreDeps & Pick<Deps, 'clock' | 'config'>;

interface WindowCount {
  readonly window: number;
  /** The shared count this instance last read (what it added included); undefined before its first write. */
  shared: number | undefined;
  /** Requests admitted since, not yet added to the shared count. */
  pending: number;
}

/** At most this many scopes' windows are kept per instance; past it, finished windows are dropped. */
const MAX_SCOPES = 10_000;

/** One instance's counter of the shared windows (one per HTTP handler, so per warm Lambda). */
export class RateLimiter {
  private readonly counts = new Map<string, WindowCount>();

  constructor(
    private readonly deps: RateDeps,
    private readonly flushEvery = RATE_LIMIT_FLUSH_EVERY,
  ) {}

  /** Counts the request (a string scope is a project id); throws 429 RATE_LIMIT_EXCEEDED past the limit. */
  async consume(scope: string | RateScope): Promise<RateLimitState> {
    const target: RateScope = typeof scope === 'string' ? { projectId: scope } : scope;
    const nowMs = this.deps.clock.now().getTime();
    const window = Math.floor(nowMs / 60_000);
    const reset = Math.max(1, Math.ceil(((window + 1) * 60_000 - nowMs) / 1000));
    const limit = this.deps.config.rateLimitPerMinute;
    const state = this.windowOf(target, window);

    if (state.shared !== undefined && state.shared + state.pending >= limit) throw tooMany(limit, reset);
    state.pending++;
    let count = (state.shared ?? 0) + state.pending;
    if (state.shared === undefined || state.pending >= this.flushAfter(limit - state.shared)) {
      const adding = state.pending;
      state.pending = 0;
      const total = await countInRateWindow(this.deps, target, window, (window + 2) * 60, adding);
      // Concurrent writes may answer out of order; the count only grows.
      state.shared = Math.max(state.shared ?? 0, total);
      count = state.shared + state.pending;
      if (total > limit) throw tooMany(limit, reset);
    }
    return { limit, remaining: Math.max(0, limit - count), reset };
  }

  private flushAfter(remaining: number): number {
    return Math.min(this.flushEvery, Math.max(1, Math.floor(remaining / RATE_LIMIT_FLUSH_SHARE)));
  }

  private windowOf(scope: RateScope, window: number): WindowCount {
    const key = 'userId' in scope ? `u:${scope.userId}` : `p:${scope.projectId}`;
    const known = this.counts.get(key);
    if (known && known.window === window) return known;
    // What a finished window did not add no longer matters: its item only counted that minute.
    if (!known && this.counts.size >= MAX_SCOPES) {
      for (const [k, c] of this.counts) if (c.window !== window) this.counts.delete(k);
      if (this.counts.size >= MAX_SCOPES) this.counts.clear();
    }
    const fresh: WindowCount = { window, shared: undefined, pending: 0 };
    this.counts.set(key, fresh);
    return fresh;
  }
}

function tooMany(limit: number, reset: number): AppError {
  const state: RateLimitState = { limit, remaining: 0, reset };
  return new AppError(429, 'RATE_LIMIT_EXCEEDED', `Rate limit of ${limit} requests per minute exceeded`, {
    headers: { ...rateLimitHeaders(state), 'retry-after': String(reset) },
    suggestion: `Retry after ${reset} seconds`,
  });
}

/**
 * Counts one request with a write of its own (exact, no in-memory count): for callers that keep
 * no instance state, such as the upload authorizer, whose requests are rare.
 */
export function consumeRateLimit(deps: RateDeps, scope: string | RateScope): Promise<RateLimitState> {
  return new RateLimiter(deps, 1).consume(scope);
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
