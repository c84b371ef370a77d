/**
 * The store: the one seam between the repositories and DynamoDB. Repositories describe what they
 * read and write (keys, conditions, the access pattern whose index they query); the store turns
 * that into requests. Only the store knows the SDK's commands, the table's name and which
 * physical index serves an access pattern. The same code runs against DynamoDB and dynalite.
 *
 * A store is its requests (`StoreRequests`: each one DynamoDB request, or a loop of one kind)
 * plus two operations made from them (`writeIf`, `page`), so wrapping the requests (as the crash
 * tests do to fail one write, and `scopeDeps` to check each against what its function declares)
 * covers everything a repository does.
 *
 * This module holds the store's shape and what is made from requests; `./dynamo.ts` sends them.
 * It imports no SDK package, so code reached through a dynamic `import()` (which esbuild does not
 * tree-shake) can use it without bringing the DynamoDB client's whole index into a bundle.
 */
import { type AccessIndex, keyAttributes, table } from '../table';

export type Item = Record<string, unknown>;

export interface Key {
  readonly pk: string;
  readonly sk: string;
}

/** The placeholders of a request's expressions (`#name` and `:value`). */
export interface Placeholders {
  readonly names?: Readonly<Record<string, string>>;
  readonly values?: Readonly<Record<string, unknown>>;
}

/** One item write. With `if` (a condition expression) it happens only when the condition holds. */
export type Write = Placeholders & { readonly if?: string } & (
    | { readonly put: Item }
    /**
     * `expression` is an update expression; `returnNew` answers the attributes it changed, and
     * `'all'` the whole item as the update left it (no extra cost either way).
     */
    | { readonly update: Key; readonly expression: string; readonly returnNew?: boolean | 'all' }
    /** `returnOld` answers the item deleted (undefined when there was none). */
    | { readonly delete: Key; readonly returnOld?: boolean }
  );

export type ConditionalWrite = Write & { readonly if: string };

/** Narrows a query's sort key. */
export type SortCondition =
  | { readonly beginsWith: string }
  | { readonly between: readonly [string, string] }
  | { readonly below: string };

/** Items of one partition of the table, or of an access pattern's index. */
export interface Query extends Placeholders {
  /** The access pattern whose index to read; the table itself when absent. */
  readonly index?: AccessIndex;
  readonly partition: string;
  readonly sort?: SortCondition;
  /** A filter expression: applied after the read, which is billed for the items it drops too. */
  readonly filter?: string;
  /** Only these attributes of each item. */
  readonly attributes?: readonly string[];
  /** Strongly consistent (the table only; indexes are eventually consistent). */
  readonly consistent?: boolean;
}

export interface QueryOptions {
  readonly limit?: number;
  /** Where an earlier request stopped; 400 when it is not a position in this query's partition. */
  readonly cursor?: string;
  /** Sort key ascending. @default true */
  readonly forward?: boolean;
}

export interface PageOptions extends QueryOptions {
  readonly limit: number;
  /** Requests at most, when a filter leaves a request short of the page. @default 1 */
  readonly maxRequests?: number;
}

/**
 * Items of the whole table that a filter keeps (a DynamoDB Scan, never an index): for rare
 * background work only, never on a request path. Each request reads up to `limit` items of the
 * table (or 1 MB) and is billed for all it reads, whatever the filter keeps.
 */
export interface Scan extends Placeholders {
  readonly filter?: string;
}

export interface Page {
  readonly items: Item[];
  /** Opaque; '' when nothing follows. */
  readonly cursor: string;
  readonly hasMore: boolean;
}

/** What a store sends: each is one DynamoDB request, or a loop of one kind. */
export interface StoreRequests {
  get(key: Key, options?: { readonly consistent?: boolean }): Promise<Item | undefined>;
  /** Items by key (100 a request, unprocessed keys retried with backoff); missing ones left out, any order. */
  batchGet(keys: readonly Key[], options?: { readonly consistent?: boolean }): Promise<Item[]>;
  /**
   * A put, update or delete; a failed condition rejects (ConditionalCheckFailedException). Answers
   * what `returnNew` or `returnOld` asked for.
   */
  write(write: Write): Promise<Item | undefined>;
  /** Deletes (25 a request, unprocessed ones retried with backoff); missing items are no error. */
  batchDelete(keys: readonly Key[]): Promise<void>;
  /** One request; its `cursor` is '' when the query has no more items. */
  query(query: Query, options?: QueryOptions): Promise<{ items: Item[]; cursor: string }>;
  /** Every item, request after request: for background work and small partitions. */
  queryAll(query: Query): AsyncIterable<Item>;
  /** How many items match; reads them all, and is billed so. */
  count(query: Query): Promise<number>;
  /**
   * One Scan request from `cursor` (a cursor this method answered; '' or absent: the table's start);
   * its `cursor` is '' when the table has no more items. Background work only (manifest use
   * `table:scan`); a store without it (a test's) refuses.
   */
  scan?(
    scan: Scan,
    options?: { readonly limit?: number; readonly cursor?: string },
  ): Promise<{
    items: Item[];
    cursor: string;
  }>;
}

export interface Store extends StoreRequests {
  scan: NonNullable<StoreRequests['scan']>;
  /** A conditional write: true when written, false when its condition did not hold. */
  writeIf(write: ConditionalWrite): Promise<boolean>;
  /**
   * Up to `limit` items and the cursor of the rest. Each request asks for `limit + 1` items, so
   * `hasMore` is exact; with a filter, up to `maxRequests` requests fill the page.
   */
  page(query: Query, options: PageOptions): Promise<Page>;
}

/** A store over `requests`: theirs plus the operations made from them. */
export function storeOver(requests: StoreRequests): Store {
  return {
    get: (key, options) => requests.get(key, options),
    batchGet: (keys, options) => requests.batchGet(keys, options),
    write: (write) => requests.write(write),
    batchDelete: (keys) => requests.batchDelete(keys),
    query: (query, options) => requests.query(query, options),
    queryAll: (query) => requests.queryAll(query),
    count: (query) => requests.count(query),
    scan: async (scan, options) => {
      if (!requests.scan) throw new Error('This store cannot scan the table');
      return requests.scan(scan, options);
    },
    writeIf: async (write) => {
      try {
        await requests.write(write);
        return true;
      } catch (error) {
        if (isConditionFailed(error)) return false;
        throw error;
      }
    },
    page: (query, options) => readPage(requests, query, options),
  };
}

/** What repositories take: deps with the store (`Deps` has it; tests may hand a store of their own). */
export interface StoreDeps {
  readonly store: Store;
}

function isConditionFailed(error: unknown): boolean {
  // By name, not `instanceof`: importing the SDK's error class here would bring the DynamoDB client's
  // whole index into every bundle that reaches the store through a dynamic `import()`.
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readPage(requests: StoreRequests, given: Query, options: PageOptions): Promise<Page> {
  // A page cut short resumes from its last item's keys (`positionOf`): a query that names its
  // attributes reads those keys too, or its cursor would be empty (and refused when passed back).
  const query = given.attributes
    ? { ...given, attributes: [...new Set([...given.attributes, ...keyNamesOf(given)])] }
    : given;
  const items: Item[] = [];
  let cursor = options.cursor;
  let rest = '';
  for (let request = 0; request < (options.maxRequests ?? 1); request++) {
    const out = await requests.query(query, { limit: options.limit + 1, cursor, forward: options.forward });
    items.push(...out.items);
    rest = out.cursor;
    if (items.length > options.limit || !rest) break;
    cursor = rest;
  }
  if (items.length <= options.limit) return { items, cursor: rest, hasMore: rest !== '' };
  items.length = options.limit;
  return { items, cursor: encodeCursor(positionOf(query, items[items.length - 1]!)), hasMore: true };
}

/** The key attributes a query resumes from: the table's, and the index's when it reads one. */
function keyNamesOf(query: Query): string[] {
  const attributes: string[] = [table.partitionKey, table.sortKey];
  if (query.index) {
    const { partitionKey, sortKey } = keyAttributes(query.index);
    attributes.push(partitionKey, sortKey);
  }
  return attributes;
}

/** The key a query resumes after `item` from. */
function positionOf(query: Query, item: Item): Item {
  return Object.fromEntries(keyNamesOf(query).map((name) => [name, item[name]]));
}

/** Opaque cursor: base64url JSON of a key to resume from. */
export function encodeCursor(key: Item | undefined): string {
  return key ? Buffer.from(JSON.stringify(key)).toString('base64url') : '';
}

/** The key a cursor this store made resumes from (server-side only: clients see it opaque). */
export function cursorKey(cursor: string): Item {
  return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Item;
}
