/**
 * Per-project rate limit shared by every instance: a fixed one-minute window counted with an
 * atomic `ADD` on one item per project and window (TTL removes old windows). One write unit per
 * request; no read.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AppError } from '../errors';
import type { Deps } from '../ports';
import { keys } from '../table';

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

/** Counts the request; throws 429 RATE_LIMIT_EXCEEDED past the limit. */
export async function consumeRateLimit(
  deps: Pick<Deps, 'db' | 'tableName' | 'clock' | 'config'>,
  projectId: string,
): Promise<RateLimitState> {
  const nowMs = deps.clock.now().getTime();
  const window = Math.floor(nowMs / 60_000);
  const reset = Math.max(1, Math.ceil(((window + 1) * 60_000 - nowMs) / 1000));
  const limit = deps.config.rateLimitPerMinute;
  const out = await deps.db.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key: keys.rateWindow(projectId, window),
      UpdateExpression: 'ADD #count :one SET expiresAt = if_not_exists(expiresAt, :exp)',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':one': 1, ':exp': (window + 2) * 60 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const count = Number(out.Attributes?.count ?? 1);
  const state: RateLimitState = { limit, remaining: Math.max(0, limit - count), reset };
  if (count > limit) {
    throw new AppError(429, 'RATE_LIMIT_EXCEEDED', `Rate limit of ${limit} requests per minute exceeded`, {
      headers: { ...rateLimitHeaders(state), 'retry-after': String(reset) },
      suggestion: `Retry after ${reset} seconds`,
    });
  }
  return state;
}
