/**
 * The Idempotency-Key header's rule and a route group's lease, apart from the idempotency store
 * (`idempotency.ts`), which `withIdempotencyKey` loads only for a request that carries a key.
 */
import { AppError } from '../errors';
import { defaults, manifest } from '../manifest';
import type { Claim, IdemDeps, IdempotentRequest } from './idempotency';

const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** A claim's lease in a route group: its Lambda timeout, after which the request cannot still run. */
export function leaseSecondsOf(groupName: string): number {
  const group = manifest.routeGroups.find((g) => g.name === groupName);
  if (!group) throw new Error(`Route group ${groupName} is not in the manifest`);
  return group.timeoutSeconds ?? defaults.httpTimeoutSeconds;
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

/**
 * `withIdempotency` for a request with a key; `fn(undefined)` for one without, which loads no
 * idempotency code.
 */
export async function withIdempotencyKey<T extends { statusCode: number; body?: unknown }>(
  deps: IdemDeps,
  req: IdempotentRequest,
  fn: (claim: Claim | undefined) => Promise<T>,
): Promise<T> {
  if (validateIdempotencyKey(req.key) === undefined) return fn(undefined);
  const { withIdempotency } = await import('./idempotency');
  return withIdempotency(deps, req, fn);
}
