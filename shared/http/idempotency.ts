/**
 * Idempotency-Key handling for `/v1/send` and `/v1/track`.
 *
 * A key is scoped to the project and the endpoint and remembered for the configured TTL (24 h by
 * default). The record holds the method, the path and a SHA-256 of the request body (never the
 * body), the state, and once a request finished with 2xx its status and bounded response.
 *
 * - The first request claims the key with a conditional put and gets a **lease** no longer than
 *   its function's timeout. Any reuse while the lease lives answers 409 IDEMPOTENCY_KEY_REUSED,
 *   also while the first request is still running.
 * - A request refused before it began lasting work (a 4xx/5xx status or an `AppError`, before
 *   `claim.markStarted()`) releases its key, so a corrected retry may use it. One that fails
 *   after that, or throws anything else, gives its lease up instead: the claim stays, and a retry
 *   of the same request resumes it at once.
 * - A claim whose lease has passed (its process died, or gave up) counts as released. A retry
 *   with the same body **resumes** it: it keeps the claim's id, so work keyed by `claim.id(...)`
 *   (email records, events) is found and not done twice; a retry with another body starts anew.
 * - Reuse after a 2xx answers 409 whose `details.response` is the first response, so a client
 *   that timed out learns the outcome.
 */
import { createHash, randomUUID } from 'node:crypto';
import { AppError, conflict } from '../errors';
import type { Deps } from '../ports';
import type { StoreDeps } from '../store/store';
import { validateIdempotencyKey } from './idempotency-key';
import {
  claimIdempotencyKey,
  completeIdempotencyClaim,
  getIdempotencyRecord,
  giveUpIdempotencyLease,
  type IdempotencyRecord,
  type IdempotencyRef,
  type RememberedRequest,
  releaseIdempotencyKey,
  takeOverIdempotencyClaim,
} from './repository';

/** Largest response kept with a key (JSON bytes); a larger one is remembered without it. */
export const MAX_STORED_RESPONSE_BYTES = 100 * 1024;

export type IdemDeps = StoreDeps & Pick<Deps, 'clock' | 'config'>;

export interface IdempotentRequest {
  readonly projectId: string;
  /** The endpoint, e.g. `POST /v1/send`. */
  readonly scope: string;
  /** The raw header value; undefined when the header is absent. */
  readonly key: string | undefined;
  /** Remembered as method, path and the SHA-256 of the body's canonical JSON. */
  readonly request: { method: string; path: string; body?: unknown };
  /** How long a claim holds the key before it counts as abandoned: the function's timeout. */
  readonly leaseSeconds: number;
}

/** The claim a request runs under; undefined when it came without a key. */
export interface Claim {
  /** Stable across a resume: the same for the first attempt and every attempt that resumes it. */
  readonly claimId: string;
  /** True when an earlier attempt under this claim died or gave up part way. */
  readonly resumed: boolean;
  /** When the claim's first attempt began: the same on a resume (for times that are part of keys). */
  readonly requestedAt: Date;
  /** A UUID derived from the claim id and `label`: the same on every attempt of this claim. */
  id(label: string): string;
  /**
   * Says that lasting work has begun: from then on a refusal (an `AppError`) no longer releases
   * the key but leaves the claim for a retry of the same request to resume.
   */
  markStarted(): void;
  /**
   * False once this attempt's lease has run out: a retry may have taken the claim over, so
   * long work checks it between steps and stops (on AWS the function's timeout ends it anyway).
   */
  held(): boolean;
}

/** SHA-256 of the body's JSON with object keys sorted, so a re-serialized retry matches. */
export function bodyHash(body: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(body) ?? '')
    .digest('hex');
}

function canonicalJson(value: unknown): string | undefined {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v) ?? 'null').join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A UUID (version 8, RFC 9562) made from a SHA-256 of `seed`. */
export function derivedUuid(seed: string): string {
  const b = createHash('sha256').update(seed).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x80;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function claimOf(
  deps: IdemDeps,
  claimId: string,
  resumed: boolean,
  requestedAt: string,
  leaseUntil: number,
): Claim & { readonly started: boolean } {
  let started = false;
  return {
    claimId,
    resumed,
    requestedAt: new Date(requestedAt),
    held: () => deps.clock.now().getTime() < leaseUntil * 1000,
    id: (label) => derivedUuid(`${claimId}:${label}`),
    markStarted: () => {
      started = true;
    },
    get started() {
      return started;
    },
  };
}

/** Runs `fn` at most once per key (resuming it after a crash); returns its status code and result. */
export async function withIdempotency<T extends { statusCode: number; body?: unknown }>(
  deps: IdemDeps,
  req: IdempotentRequest,
  fn: (claim: Claim | undefined) => Promise<T>,
): Promise<T> {
  const key = validateIdempotencyKey(req.key);
  if (key === undefined) return fn(undefined);
  const ref: IdempotencyRef = { projectId: req.projectId, scope: req.scope, key };
  const remembered: RememberedRequest = {
    method: req.request.method,
    path: req.request.path,
    bodySha256: bodyHash(req.request.body),
  };
  const { claim, leaseToken } = await acquire(deps, ref, remembered, req.leaseSeconds);

  let result: T;
  try {
    result = await fn(claim);
  } catch (error) {
    // A refusal before any lasting work frees the key; anything else may have stopped part
    // way, so the claim stays for a retry to resume, with its lease given up.
    if (error instanceof AppError && !claim.started) await releaseIdempotencyKey(deps, ref, leaseToken);
    else await giveUpIdempotencyLease(deps, ref, leaseToken);
    throw error;
  }
  if (result.statusCode >= 400) {
    if (claim.started) await giveUpIdempotencyLease(deps, ref, leaseToken);
    else await releaseIdempotencyKey(deps, ref, leaseToken);
    return result;
  }
  await complete(deps, ref, leaseToken, result);
  return result;
}

async function acquire(
  deps: IdemDeps,
  ref: IdempotencyRef,
  request: RememberedRequest,
  leaseSeconds: number,
): Promise<{ claim: ReturnType<typeof claimOf>; leaseToken: string }> {
  const now = deps.clock.now();
  const nowSec = Math.floor(now.getTime() / 1000);
  const leaseToken = randomUUID();
  const leaseUntil = nowSec + leaseSeconds;
  const fresh: IdempotencyRecord = {
    key: ref.key,
    state: 'running',
    claimId: randomUUID(),
    leaseToken,
    leaseUntil,
    request,
    requestedAt: now.toISOString(),
    expiresAt: nowSec + deps.config.idempotencyTtlSeconds,
  };
  const claimed = await claimIdempotencyKey(deps, ref, fresh, nowSec);
  if (claimed)
    return { claim: claimOf(deps, fresh.claimId, false, fresh.requestedAt, leaseUntil), leaseToken };

  const existing = await getIdempotencyRecord(deps, ref);
  if (existing && existing.state === 'running' && existing.leaseUntil < nowSec) {
    // Abandoned: the same request resumes the claim; another one takes the key afresh.
    const resume = existing.request.bodySha256 === request.bodySha256;
    const claimId = resume ? existing.claimId : fresh.claimId;
    const requestedAt = resume ? existing.requestedAt : fresh.requestedAt;
    const taken = await takeOverIdempotencyClaim(
      deps,
      ref,
      { claimId, leaseToken, leaseUntil, request, requestedAt },
      { oldToken: existing.leaseToken, nowSec },
    );
    if (taken) return { claim: claimOf(deps, claimId, resume, requestedAt, leaseUntil), leaseToken };
    // Another retry took it over first.
    throw reuseError(await getIdempotencyRecord(deps, ref), ref.key);
  }
  throw reuseError(existing, ref.key);
}

async function complete<T extends { statusCode: number; body?: unknown }>(
  deps: IdemDeps,
  ref: IdempotencyRef,
  leaseToken: string,
  result: T,
): Promise<void> {
  // False when a retry took the claim over after this attempt's lease ran out; it records the outcome.
  await completeIdempotencyClaim(deps, ref, leaseToken, result.statusCode, storableResponse(result.body));
}

/** The response body as JSON, when it is small enough to keep with the key. */
function storableResponse(body: unknown): unknown {
  if (typeof body !== 'string' || Buffer.byteLength(body) > MAX_STORED_RESPONSE_BYTES) return undefined;
  try {
    return JSON.parse(body);
  } catch (error) {
    // Not JSON: nothing a client could be handed back in `details`.
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

function reuseError(item: IdempotencyRecord | undefined, key: string): AppError {
  const completed = item?.state === 'completed';
  return conflict('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key has already been used', {
    key,
    originalRequest: item?.request ?? null,
    originalRequestAt: item?.requestedAt ?? null,
    originalStatusCode: completed && typeof item.statusCode === 'number' ? item.statusCode : null,
    ...(completed && item.response !== undefined ? { response: item.response } : {}),
  });
}
