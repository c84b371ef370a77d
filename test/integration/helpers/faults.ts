/**
 * Crashes injected at the store seam: a store whose chosen request fails, once, as a process that
 * stops there would. Tests name the request by what it does to which item (`op`, `key`), never by
 * SDK command.
 *
 *     const deps = crashingAt(rt.deps, (call) => call.op === 'put' && call.key?.sk === '#CONTACT');
 *     await expect(upsertContact(deps, ...)).rejects.toThrow('simulated crash');
 *
 * For handlers built once (a queue worker), keep a `StoreFaults`, inject it into their deps and
 * arm it per test with `failAt`. To look at requests, or to fail every request of a kind while
 * a test says so, watch the store (`watchedDeps`).
 */
import type { Key, Store, Write } from '../../../shared/store/store';
import { storeOver } from '../../../shared/store/store';

/** A store request as a fault sees it. */
export interface StoreCall {
  readonly op:
    | 'get'
    | 'batchGet'
    | 'put'
    | 'update'
    | 'delete'
    | 'batchDelete'
    | 'query'
    | 'queryAll'
    | 'count'
    | 'scan';
  /** The item a single-item request reads or writes. */
  readonly key?: Key;
  /** An update's expression. */
  readonly expression?: string;
  /** A write's condition. */
  readonly condition?: string;
  /** A put's item. */
  readonly item?: Readonly<Record<string, unknown>>;
}

export type CallMatch = (call: StoreCall) => boolean;

function callOf(write: Write): StoreCall {
  const condition = write.if === undefined ? {} : { condition: write.if };
  if ('put' in write)
    return {
      op: 'put',
      key: { pk: String(write.put.pk), sk: String(write.put.sk) },
      item: write.put,
      ...condition,
    };
  if ('update' in write)
    return { op: 'update', key: write.update, expression: write.expression, ...condition };
  return { op: 'delete', key: write.delete, ...condition };
}

/** What a watch sees of a store's requests. */
export interface StoreWatch {
  /** Before the request is sent; throwing fails it (with what was thrown). */
  readonly before?: (call: StoreCall) => void;
  /** Once the request succeeded. */
  readonly after?: (call: StoreCall) => void;
}

/** `store`, telling `watch` of each request. */
export function watchStore(store: Store, watch: StoreWatch): Store {
  /** `run`, with `watch` told of each call (`describe` tells what it is from its first argument). */
  const watched =
    <A extends unknown[], T>(describe: (first: A[0]) => StoreCall, run: (...args: A) => Promise<T>) =>
    async (...args: A): Promise<T> => {
      const call = describe(args[0]);
      watch.before?.(call);
      const out = await run(...args);
      watch.after?.(call);
      return out;
    };
  return storeOver({
    get: watched((key) => ({ op: 'get', key }), store.get.bind(store)),
    batchGet: watched(() => ({ op: 'batchGet' }), store.batchGet.bind(store)),
    write: watched(callOf, store.write.bind(store)),
    batchDelete: watched(() => ({ op: 'batchDelete' }), store.batchDelete.bind(store)),
    query: watched(() => ({ op: 'query' }), store.query.bind(store)),
    count: watched(() => ({ op: 'count' }), store.count.bind(store)),
    scan: watched(() => ({ op: 'scan' }), store.scan.bind(store)),
    async *queryAll(query) {
      watch.before?.({ op: 'queryAll' });
      yield* store.queryAll(query);
      watch.after?.({ op: 'queryAll' });
    },
  });
}

/** `deps` with its store watched. */
export function watchedDeps<D extends { readonly store: Store }>(deps: D, watch: StoreWatch): D {
  return { ...deps, store: watchStore(deps.store, watch) };
}

/** Faults for the stores it wraps: at most one armed at a time, each firing once. */
export class StoreFaults {
  #armed: { match: CallMatch; nth: number; seen: number } | undefined;
  #fired = false;

  constructor(private readonly message = 'simulated crash') {}

  /** The `nth` request that `match` accepts fails, once. Replaces a fault armed before. */
  failAt(match: CallMatch, nth = 1): void {
    this.#armed = { match, nth, seen: 0 };
    this.#fired = false;
  }

  /** No fault from now on. */
  clear(): void {
    this.#armed = undefined;
    this.#fired = false;
  }

  /** Whether the fault armed last has fired. */
  get fired(): boolean {
    return this.#fired;
  }

  /** `store`, with the faults. */
  wrap(store: Store): Store {
    return watchStore(store, {
      before: (call) => {
        if (this.#fails(call)) throw new Error(this.message);
      },
    });
  }

  /** `deps` with its store wrapped. */
  inject<D extends { readonly store: Store }>(deps: D): D {
    return { ...deps, store: this.wrap(deps.store) };
  }

  #fails(call: StoreCall): boolean {
    const armed = this.#armed;
    if (!armed || this.#fired || !armed.match(call) || ++armed.seen !== armed.nth) return false;
    this.#fired = true;
    return true;
  }
}

/** `deps` whose store fails once, at the first request `match` accepts. */
export function crashingAt<D extends { readonly store: Store }>(
  deps: D,
  match: CallMatch,
  message = 'simulated crash',
): D {
  const faults = new StoreFaults(message);
  faults.failAt(match);
  return faults.inject(deps);
}
