/**
 * The HTTP layer's own items: Idempotency-Key records (shared/http/idempotency.ts decides what
 * happens to them) and the per-project rate-limit windows (shared/http/rate-limit.ts). Only this
 * module knows their keys. Every write but the window count is conditional on the record's state,
 * so that two attempts of one request never both win.
 */
import type { StoreDeps } from '../store/store';
import { keys } from '../table';

/** An Idempotency-Key: scoped to the project and the endpoint (`scope`, e.g. `POST /v1/send`). */
export interface IdempotencyRef {
  readonly projectId: string;
  readonly scope: string;
  readonly key: string;
}

/** What is echoed back as `originalRequest` on reuse. */
export interface RememberedRequest {
  readonly method: string;
  readonly path: string;
  readonly bodySha256: string;
}

export interface IdempotencyRecord {
  readonly key: string;
  readonly state: 'running' | 'completed';
  readonly claimId: string;
  /** Changes with every attempt; only the holder of the current token may finish or release. */
  readonly leaseToken: string;
  /** Epoch seconds. */
  readonly leaseUntil: number;
  readonly request: RememberedRequest;
  readonly requestedAt: string;
  readonly statusCode?: number;
  readonly response?: unknown;
  readonly expiresAt: number;
}

const idempotencyKey = (ref: IdempotencyRef) => keys.idempotency(ref.projectId, ref.scope, ref.key);

/**
 * Writes `record` unless the key is held: false when a record that has not expired exists (an
 * expired one that TTL has not removed yet counts as free).
 */
export function claimIdempotencyKey(
  deps: StoreDeps,
  ref: IdempotencyRef,
  record: IdempotencyRecord,
  nowSec: number,
): Promise<boolean> {
  return deps.store.writeIf({
    put: { ...idempotencyKey(ref), entity: 'idempotency', ...record },
    if: 'attribute_not_exists(pk) OR expiresAt < :now',
    values: { ':now': nowSec },
  });
}

export async function getIdempotencyRecord(
  deps: StoreDeps,
  ref: IdempotencyRef,
): Promise<IdempotencyRecord | undefined> {
  return (await deps.store.get(idempotencyKey(ref), { consistent: true })) as IdempotencyRecord | undefined;
}

/**
 * Takes a running claim whose lease (held with `oldToken`) passed before `nowSec` over for a new
 * attempt; false when it was not so (another attempt took it first).
 */
export function takeOverIdempotencyClaim(
  deps: StoreDeps,
  ref: IdempotencyRef,
  attempt: Pick<IdempotencyRecord, 'claimId' | 'leaseToken' | 'leaseUntil' | 'request' | 'requestedAt'>,
  held: { readonly oldToken: string; readonly nowSec: number },
): Promise<boolean> {
  return deps.store.writeIf({
    update: idempotencyKey(ref),
    expression:
      'SET claimId = :claim, leaseToken = :token, leaseUntil = :lease, #request = :request, requestedAt = :at',
    if: '#state = :running AND leaseToken = :old AND leaseUntil < :now',
    names: { '#state': 'state', '#request': 'request' },
    values: {
      ':claim': attempt.claimId,
      ':token': attempt.leaseToken,
      ':lease': attempt.leaseUntil,
      ':request': attempt.request,
      ':at': attempt.requestedAt,
      ':running': 'running',
      ':old': held.oldToken,
      ':now': held.nowSec,
    },
  });
}

/**
 * Records the claim's outcome (`response`: the body to hand back on reuse, if any) while
 * `leaseToken` holds it; false when a retry took the claim over (it records the outcome then).
 */
export function completeIdempotencyClaim(
  deps: StoreDeps,
  ref: IdempotencyRef,
  leaseToken: string,
  statusCode: number,
  response: unknown,
): Promise<boolean> {
  return deps.store.writeIf({
    update: idempotencyKey(ref),
    expression: `SET #state = :done, statusCode = :code${response === undefined ? '' : ', #response = :response'}`,
    if: 'leaseToken = :token',
    names: {
      '#state': 'state',
      ...(response === undefined ? {} : { '#response': 'response' }),
    },
    values: {
      ':done': 'completed',
      ':code': statusCode,
      ':token': leaseToken,
      ...(response === undefined ? {} : { ':response': response }),
    },
  });
}

/** Frees the key while `leaseToken` holds it. */
export function releaseIdempotencyKey(deps: StoreDeps, ref: IdempotencyRef, leaseToken: string) {
  return deps.store.writeIf({
    delete: idempotencyKey(ref),
    if: 'leaseToken = :token',
    values: { ':token': leaseToken },
  });
}

/** Ends the lease `leaseToken` holds, keeping the claim for a retry to resume. */
export function giveUpIdempotencyLease(deps: StoreDeps, ref: IdempotencyRef, leaseToken: string) {
  return deps.store.writeIf({
    update: idempotencyKey(ref),
    expression: 'SET leaseUntil = :zero',
    if: 'leaseToken = :token',
    values: { ':zero': 0, ':token': leaseToken },
  });
}

/** Whose requests a rate-limit window counts: a project's (API keys), or a signed-in user's on the user routes. */
export type RateScope = { readonly projectId: string } | { readonly userId: string };

/**
 * Adds `requests` (what one instance counted since its last write) to the scope's window
 * (`window`: minutes since the epoch), kept until `expiresAt` (epoch seconds, for TTL): one atomic
 * update, no read, 1 WCU however many it adds. Answers the window's count.
 */
export async function countInRateWindow(
  deps: StoreDeps,
  scope: RateScope,
  window: number,
  expiresAt: number,
  requests = 1,
): Promise<number> {
  const updated = await deps.store.write({
    update:
      'userId' in scope
        ? keys.userRateWindow(scope.userId, window)
        : keys.rateWindow(scope.projectId, window),
    expression: 'ADD #count :n SET expiresAt = if_not_exists(expiresAt, :exp)',
    names: { '#count': 'count' },
    values: { ':n': requests, ':exp': expiresAt },
    returnNew: true,
  });
  return Number(updated?.count ?? requests);
}
