/**
 * Least privilege at the composition root: `scopeDeps` hands a function's code only the ports its
 * manifest entry declares it `uses` (`PortUse` in shared/manifest.ts). On AWS the function's role
 * refuses anything else (CDK grants exactly the declaration); the scoped deps refuse it the same
 * way in every mode, with an error naming the missing declaration, so a function that needs a
 * right it does not declare fails in the local runtime and the tests, not only once deployed.
 * Correct code never notices: the ports it declares are the very same objects.
 *
 * A use is checked when code calls a port's method (holding or passing a port is free); the
 * table's two halves are told apart by the store request made (`tableUses`).
 */
import { type FunctionKind, functionUses, manifest, type PortUse } from '../manifest';
import type { Deps } from '../ports';
import { type Store, type StoreRequests, storeOver } from '../store/store';

/** Thrown when code uses a port its function does not declare. */
export class UndeclaredPortError extends Error {
  constructor(owner: string, use: PortUse, what: string) {
    super(`${owner} called ${what} but does not declare '${use}' (shared/manifest.ts)`);
    this.name = 'UndeclaredPortError';
  }
}

export interface ScopeOptions {
  /** Called on every use, declared or not, before it is checked (tests record what code touches). */
  readonly onUse?: (use: PortUse) => void;
}

/** What each store request uses of the table (`writeIf` and `page` are made of `write` and `query`). */
const tableUses: Readonly<Record<keyof StoreRequests, PortUse>> = {
  get: 'table:read',
  batchGet: 'table:read',
  query: 'table:read',
  queryAll: 'table:read',
  count: 'table:read',
  write: 'table:write',
  batchDelete: 'table:write',
  scan: 'table:scan',
};

/** `deps` with every port that `owner` (e.g. `route group contacts`) does not declare refused. */
export function scopeDeps(
  deps: Deps,
  uses: readonly PortUse[],
  owner: string,
  options: ScopeOptions = {},
): Deps {
  const declared = new Set(uses);
  const check = (use: PortUse, what: string) => {
    options.onUse?.(use);
    if (!declared.has(use)) throw new UndeclaredPortError(owner, use, what);
  };
  /** `target` with each method call checked against the use `useOf(method)` names. */
  const guard = <T extends object>(
    name: string,
    target: T,
    useOf: (method: string, args: readonly unknown[]) => PortUse,
    possible: readonly PortUse[],
  ): T => {
    // An absent port (a test's partial deps) stays absent.
    if (typeof target !== 'object' || target === null) return target;
    if (!options.onUse && possible.every((use) => declared.has(use))) return target;
    return new Proxy(target, {
      get(t, prop) {
        const value = Reflect.get(t, prop, t);
        if (typeof value !== 'function' || typeof prop !== 'string' || prop === 'constructor') return value;
        return (...args: unknown[]) => {
          const what = `deps.${name}.${prop}`;
          check(useOf(prop, args), what);
          return (value as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  };
  const only = (use: PortUse) => () => use;
  const emailIdentitiesRead = declared.has('manage-sender-domains')
    ? 'manage-sender-domains'
    : 'check-sender-domains';
  // Deleting alone (a deleted project's wipe) is its own use; managing includes it.
  const emailIdentitiesDelete = declared.has('manage-sender-domains')
    ? 'manage-sender-domains'
    : 'delete-sender-domains';
  /** The store with each request checked; its own operations are made of the checked requests. */
  const guardStore = (store: Store): Store => {
    // An absent store (a test's partial deps) stays absent.
    if (typeof store !== 'object' || store === null) return store;
    const tableUseList = ['table:read', 'table:write', 'table:scan'] as const;
    if (!options.onUse && tableUseList.every((use) => declared.has(use))) return store;
    const checked = <K extends keyof StoreRequests>(request: K): StoreRequests[K] =>
      ((...args: unknown[]) => {
        check(tableUses[request], `deps.store.${request}`);
        return (store[request] as (...a: unknown[]) => unknown).apply(store, args);
      }) as StoreRequests[K];
    return storeOver({
      get: checked('get'),
      batchGet: checked('batchGet'),
      query: checked('query'),
      queryAll: checked('queryAll'),
      count: checked('count'),
      write: checked('write'),
      batchDelete: checked('batchDelete'),
      scan: checked('scan'),
    });
  };
  return {
    ...deps,
    store: guardStore(deps.store),
    queue: guard('queue', deps.queue, only('queue'), ['queue']),
    scheduler: guard('scheduler', deps.scheduler, only('scheduler'), ['scheduler']),
    mailer: guard('mailer', deps.mailer, only('mailer'), ['mailer']),
    dns: guard('dns', deps.dns, only('dns'), ['dns']),
    blobs: guard('blobs', deps.blobs, only('blobs'), ['blobs']),
    images: guard('images', deps.images, only('images'), ['images']),
    dnsZones: guard('dnsZones', deps.dnsZones, only('manage-sender-domains'), ['manage-sender-domains']),
    snsEndpoints: guard('snsEndpoints', deps.snsEndpoints, only('receive-sns'), ['receive-sns']),
    inboundMail: guard('inboundMail', deps.inboundMail, only('inbound-mail'), ['inbound-mail']),
    // Checking event signatures takes the webhook secret only; every other call, the API key.
    billing: guard(
      'billing',
      deps.billing,
      (method) => (method === 'verifyWebhook' ? 'stripe-webhooks' : 'stripe'),
      ['stripe', 'stripe-webhooks'],
    ),
    // The background check only reads identities; managing them includes reading.
    emailIdentities: guard(
      'emailIdentities',
      deps.emailIdentities,
      (method) =>
        method === 'getDomainIdentity'
          ? emailIdentitiesRead
          : method === 'deleteDomainIdentity'
            ? emailIdentitiesDelete
            : 'manage-sender-domains',
      ['manage-sender-domains', emailIdentitiesRead, emailIdentitiesDelete],
    ),
    // A view, not a copy: the local runtime completes its config (publicBaseUrl) after start.
    config: guard('config', deps.config, only('sign-links'), ['sign-links']),
  };
}

/** `scopeDeps` with what the manifest declares for the function `name` of `kind`. */
export function declaredDeps(deps: Deps, kind: FunctionKind, name: string): Deps {
  const fn = functionUses(manifest).find((f) => f.kind === kind && f.name === name);
  if (!fn) throw new Error(`No ${kind} function named ${name} in the manifest`);
  return scopeDeps(deps, fn.uses, `${kind} function ${name}`);
}
