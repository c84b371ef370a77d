/**
 * Idempotency-Key handling for `/v1/send` and `/v1/track` (spec Limits; decisions.md).
 * A key is scoped to the project and the endpoint and remembered for the configured TTL
 * (24 h by default). The first request claims the key with a conditional put, so concurrent
 * duplicates cannot both run; any reuse while the claim lives answers 409
 * IDEMPOTENCY_KEY_REUSED, also while the first request is still running. A first request that
 * ends in an error (4xx validation or 5xx) releases its key so that a corrected retry can use it.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AppError, conflict } from '../errors';
import type { Deps } from '../ports';
import { isConditionFailed } from '../store/dynamo';
import { keys } from '../table';

const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

type IdemDeps = Pick<Deps, 'db' | 'tableName' | 'clock' | 'config'>;

export interface IdempotentRequest {
  readonly projectId: string;
  /** The endpoint, e.g. `POST /v1/send`. */
  readonly scope: string;
  /** The raw header value; undefined when the header is absent. */
  readonly key: string | undefined;
  /** What is echoed back as `originalRequest` on reuse. */
  readonly request: { method: string; path: string; body?: unknown };
}

export function validateIdempotencyKey(key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  if (!KEY_PATTERN.test(key)) {
    throw new AppError(
      400,
      'INVALID_IDEMPOTENCY_KEY',
      'Idempotency-Key must be 1 to 255 printable ASCII characters',
      {
        details: { length: key.length },
      },
    );
  }
  return key;
}

/** Runs `fn` at most once per key; returns its status code and result. */
export async function withIdempotency<T extends { statusCode: number }>(
  deps: IdemDeps,
  req: IdempotentRequest,
  fn: () => Promise<T>,
): Promise<T> {
  const key = validateIdempotencyKey(req.key);
  if (key === undefined) return fn();
  const itemKey = keys.idempotency(req.projectId, req.scope, key);
  const now = deps.clock.now();
  const nowSec = Math.floor(now.getTime() / 1000);
  try {
    await deps.db.send(
      new PutCommand({
        TableName: deps.tableName,
        Item: {
          ...itemKey,
          key,
          state: 'running',
          request: req.request,
          requestedAt: now.toISOString(),
          expiresAt: nowSec + deps.config.idempotencyTtlSeconds,
        },
        // An expired claim that TTL has not removed yet counts as free.
        ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
        ExpressionAttributeValues: { ':now': nowSec },
      }),
    );
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    throw await reuseError(deps, itemKey, key);
  }

  let result: T;
  try {
    result = await fn();
  } catch (error) {
    await release(deps, itemKey);
    throw error;
  }
  if (result.statusCode >= 400) {
    await release(deps, itemKey);
    return result;
  }
  await deps.db.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key: itemKey,
      UpdateExpression: 'SET #state = :done, statusCode = :code',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':done': 'completed', ':code': result.statusCode },
    }),
  );
  return result;
}

async function release(deps: IdemDeps, itemKey: { pk: string; sk: string }) {
  await deps.db.send(new DeleteCommand({ TableName: deps.tableName, Key: itemKey }));
}

async function reuseError(
  deps: IdemDeps,
  itemKey: { pk: string; sk: string },
  key: string,
): Promise<AppError> {
  const out = await deps.db.send(
    new GetCommand({ TableName: deps.tableName, Key: itemKey, ConsistentRead: true }),
  );
  const item = out.Item ?? {};
  return conflict('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key has already been used', {
    key,
    originalRequest: item.request ?? null,
    originalRequestAt: item.requestedAt ?? null,
    originalStatusCode: typeof item.statusCode === 'number' ? item.statusCode : null,
  });
}
