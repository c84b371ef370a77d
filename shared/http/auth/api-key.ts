/**
 * The API-key authenticator: `Authorization: Bearer <key>`, a secret key (`sk_`) or a public one
 * (`pk_`) as the route asks, looked up by its hash, whose project exists and is not disabled.
 * The HTTP stack uses it for `secret` and `public` routes; the import upload authorizer
 * (shared/imports/upload.ts) uses it for its secret key, uncached.
 */
import { AppError, invalidApiKey } from '../../errors';
import type { Deps } from '../../ports';
import { findApiKey, getProject, type KeyKind, keyKindOf } from '../../projects/repository';
import { AuthFailureLimiter } from '../rate-limit';
import type { Authenticator, AuthInput, Principal } from './types';

/**
 * Project lookups are cached per handler instance for a short time (disabling a project takes
 * effect within the TTL). A key is read on every request, with a consistent read (1 read unit):
 * a rotation deletes the old keys, and they must be refused on the very next request on every
 * instance, which no per-instance cache can promise. Valid keys are still remembered for the
 * failure limiter (`peek`), and unknown ones for `NEGATIVE_CACHE_TTL_MS`.
 */
export const CACHE_TTL_MS = 60_000;
/**
 * Unknown keys (and projects) are remembered as unknown for a shorter time, so a client repeating
 * a bad key costs no read after its first. The window this opens: a key that an instance looked up
 * before it existed keeps failing on that instance for up to 15 seconds after it is created.
 * Newly generated keys are random and have never been tried, so they work at once.
 */
export const NEGATIVE_CACHE_TTL_MS = 15_000;
/** Entries per cache at most (each kind); a full cache starts over, costing one read per key. */
const CACHE_MAX_ENTRIES = 1000;
const NEGATIVE_CACHE_MAX_ENTRIES = 10_000;

/** A disabled project's key: 403, answered with the project known (the upload authorizer denies with it). */
export class ProjectDisabledError extends AppError {
  constructor(readonly projectId: string) {
    super(403, 'PROJECT_DISABLED', 'This project is disabled');
  }
}

export interface ApiKeyAuthenticatorOptions {
  /**
   * Cache key and project lookups (`CACHE_TTL_MS`, unknown ones `NEGATIVE_CACHE_TTL_MS`).
   * @default true
   */
  readonly cache?: boolean;
  /**
   * Count failed authentications per client (source IP) and refuse a client past the limit with
   * 429 before any read (`AuthFailureLimiter`).
   * @default true
   */
  readonly limitFailures?: boolean;
}

type KeyDeps = Pick<Deps, 'store' | 'clock' | 'ids'>;

/** One instance per handler instance: its caches and failure counts are shared by its kinds. */
export class ApiKeyAuthenticator {
  private readonly keys: Lookup<{ projectId: string; kind: KeyKind }>;
  private readonly projects: Lookup<{ disabled: boolean }>;
  private readonly failures: AuthFailureLimiter | undefined;

  constructor(deps: KeyDeps, options: ApiKeyAuthenticatorOptions = {}) {
    const now = () => deps.clock.now().getTime();
    const cache = options.cache ?? true;
    this.keys = lookup(now, cache, (raw) => findApiKey(deps, raw), { reloadKnown: true });
    this.projects = lookup(now, cache, (id) => getProject(deps, id));
    this.failures = (options.limitFailures ?? true) ? new AuthFailureLimiter(now) : undefined;
  }

  /** The project, unless it does not exist (undefined) or is disabled (throws 403 PROJECT_DISABLED). */
  async liveProject(projectId: string): Promise<{ disabled: boolean } | undefined> {
    const project = await this.projects.get(projectId);
    if (project?.disabled) throw new ProjectDisabledError(projectId);
    return project;
  }

  /** The authenticator of routes that take a key of `kind`. */
  forKind(kind: KeyKind): Authenticator {
    return { authenticate: (input) => this.authenticate(kind, input) };
  }

  private async authenticate(want: KeyKind, input: AuthInput): Promise<Principal> {
    const client = input.sourceIp;
    const raw = bearerToken(input.headers.authorization);
    // A client past its failed-authentication budget is refused before any table read; a key
    // this instance already knows as valid for the route still passes (it costs no read
    // either), so clients sharing an address with a misbehaving one keep working.
    if (raw === undefined || this.keys.peek(raw)?.kind !== want) this.failures?.check(client);
    const fail = (error: AppError): never => {
      this.failures?.fail(client);
      throw error;
    };
    if (raw === undefined) return fail(invalidApiKey());
    if (keyKindOf(raw) !== want) {
      return fail(
        invalidApiKey(
          want === 'public'
            ? 'This endpoint takes a public key (pk_)'
            : 'This endpoint takes a secret key (sk_)',
        ),
      );
    }
    const record = await this.keys.get(raw);
    if (!record || record.kind !== want) return fail(invalidApiKey());
    const project = await this.projects.get(record.projectId);
    if (!project) return fail(invalidApiKey());
    if (project.disabled) throw new ProjectDisabledError(record.projectId);
    return { auth: want, projectId: record.projectId };
  }
}

/** The key of `Authorization: Bearer <key>`, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

interface Lookup<V> {
  get(id: string): Promise<V | undefined>;
  /** The cached value when it is known and fresh; never loads. */
  peek(id: string): V | undefined;
}

function lookup<V>(
  now: () => number,
  cache: boolean,
  load: (id: string) => Promise<V | undefined>,
  options: { readonly reloadKnown?: boolean } = {},
): Lookup<V> {
  if (!cache) return { get: load, peek: () => undefined };
  const known = new Map<string, { at: number; value: V }>();
  // Apart from the known ones, so that a flood of random keys cannot evict them.
  const unknown = new Map<string, number>();
  const fresh = (at: number | undefined, ttl: number, t: number) => at !== undefined && t - at < ttl;
  return {
    async get(id) {
      const t = now();
      const hit = known.get(id);
      if (hit && !options.reloadKnown && fresh(hit.at, CACHE_TTL_MS, t)) return hit.value;
      if (fresh(unknown.get(id), NEGATIVE_CACHE_TTL_MS, t)) return undefined;
      const value = await load(id);
      if (value !== undefined) {
        if (known.size >= CACHE_MAX_ENTRIES) known.clear();
        known.set(id, { at: t, value });
        unknown.delete(id);
      } else {
        known.delete(id);
        if (unknown.size >= NEGATIVE_CACHE_MAX_ENTRIES) unknown.clear();
        unknown.set(id, t);
      }
      return value;
    },
    peek(id) {
      const hit = known.get(id);
      return hit && fresh(hit.at, CACHE_TTL_MS, now()) ? hit.value : undefined;
    },
  };
}
