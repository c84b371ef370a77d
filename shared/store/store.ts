/**
 * The store: the one seam between the repositories and DynamoDB. Repositories describe what they
 * read and write (keys, conditions, the access pattern whose index they query); the store turns
 * that into requests. Only this module knows the SDK's commands, the table's name and which
 * physical index serves an access pattern. The same code runs against DynamoDB and dynalite.
 *
 * A store is its requests (`StoreRequests`: each one DynamoDB request, or a loop of one kind)
 * plus two operations made from them (`writeIf`, `page`), so wrapping the requests (as the crash
 * tests do to fail one write, and `scopeDeps` to check each against what its function declares)
 * covers everything a repository does.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { badRequest } from '../errors';
import { type AccessIndex, indexes, keyAttributes, table } from '../table';

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
    /** `expression` is an update expression; `returnNew` answers the attributes it changed. */
    | { readonly update: Key; readonly expression: string; readonly returnNew?: boolean }
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
}

export interface Store extends StoreRequests {
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

/** The store over a document client and the table: the one factory the composition roots call. */
export function createStore(db: DynamoDBDocumentClient, tableName: string): Store {
  return storeOver(dynamoRequests(db, tableName));
}

/** What repositories take: deps with the store (`Deps` has it; tests may hand a store of their own). */
export interface StoreDeps {
  readonly store: Store;
}

function isConditionFailed(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error instanceof Error && error.name === 'ConditionalCheckFailedException')
  );
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Backoff before retrying unprocessed batch keys. */
const retryDelay = (attempt: number) => Math.min(1000, 25 * 2 ** attempt);
/** Batch rounds at most before unprocessed keys are an error. */
const MAX_BATCH_ATTEMPTS = 9;

function dynamoRequests(db: DynamoDBDocumentClient, TableName: string): StoreRequests {
  const consistent = (options?: { consistent?: boolean }) =>
    options?.consistent ? { ConsistentRead: true } : {};
  return {
    async get(key, options) {
      const out = await db.send(new GetCommand({ TableName, Key: key, ...consistent(options) }));
      return out.Item;
    },

    async batchGet(keys, options) {
      const found: Item[] = [];
      for (let i = 0; i < keys.length; i += 100) {
        let pending: Key[] = keys.slice(i, i + 100);
        for (let attempt = 0; pending.length > 0; attempt++) {
          if (attempt >= MAX_BATCH_ATTEMPTS) throw new Error('BatchGet kept returning unprocessed keys');
          if (attempt > 0) await sleep(retryDelay(attempt));
          const out = await db.send(
            new BatchGetCommand({ RequestItems: { [TableName]: { Keys: pending, ...consistent(options) } } }),
          );
          found.push(...(out.Responses?.[TableName] ?? []));
          pending = (out.UnprocessedKeys?.[TableName]?.Keys ?? []) as Key[];
        }
      }
      return found;
    },

    async write(write) {
      const guard = {
        ...(write.if ? { ConditionExpression: write.if } : {}),
        ...(write.names ? { ExpressionAttributeNames: write.names } : {}),
        ...(write.values ? { ExpressionAttributeValues: write.values } : {}),
      };
      if ('put' in write) {
        await db.send(new PutCommand({ TableName, Item: write.put, ...guard }));
        return undefined;
      }
      if ('update' in write) {
        const out = await db.send(
          new UpdateCommand({
            TableName,
            Key: write.update,
            UpdateExpression: write.expression,
            ...guard,
            ...(write.returnNew ? { ReturnValues: 'UPDATED_NEW' } : {}),
          }),
        );
        return out.Attributes;
      }
      const out = await db.send(
        new DeleteCommand({
          TableName,
          Key: write.delete,
          ...guard,
          ...(write.returnOld ? { ReturnValues: 'ALL_OLD' } : {}),
        }),
      );
      return out.Attributes;
    },

    async batchDelete(keys) {
      for (let i = 0; i < keys.length; i += 25) {
        let requests = keys.slice(i, i + 25).map((k) => ({ DeleteRequest: { Key: { pk: k.pk, sk: k.sk } } }));
        for (let attempt = 0; requests.length > 0; attempt++) {
          if (attempt >= MAX_BATCH_ATTEMPTS) throw new Error('BatchWrite kept returning unprocessed items');
          if (attempt > 0) await sleep(retryDelay(attempt));
          const out = await db.send(new BatchWriteCommand({ RequestItems: { [TableName]: requests } }));
          requests = (out.UnprocessedItems?.[TableName] ?? []) as typeof requests;
        }
      }
    },

    async query(query, options = {}) {
      const out = await db.send(
        new QueryCommand({
          ...queryInput(TableName, query),
          ...(options.forward === false ? { ScanIndexForward: false } : {}),
          ...(options.limit === undefined ? {} : { Limit: options.limit }),
          ExclusiveStartKey: decodeCursor(options.cursor, {
            [keyAttributes(query.index).partitionKey]: query.partition,
          }),
        }),
      );
      return { items: out.Items ?? [], cursor: encodeCursor(out.LastEvaluatedKey) };
    },

    async *queryAll(query) {
      const input = queryInput(TableName, query);
      let start: Item | undefined;
      do {
        const out = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
        yield* out.Items ?? [];
        start = out.LastEvaluatedKey;
      } while (start);
    },

    async count(query) {
      const input = queryInput(TableName, query);
      let total = 0;
      let start: Item | undefined;
      do {
        const out = await db.send(new QueryCommand({ ...input, Select: 'COUNT', ExclusiveStartKey: start }));
        total += out.Count ?? 0;
        start = out.LastEvaluatedKey;
      } while (start);
      return total;
    },
  };
}

/** Placeholders of the key condition; a query's own expressions must not use them. */
const KEY_VALUES = { partition: ':kp', from: ':ks', to: ':ke' } as const;

/** The Query request for `query`, without paging. */
function queryInput(tableName: string, query: Query): QueryCommandInput {
  const { partitionKey, sortKey } = keyAttributes(query.index);
  const values: Item = { [KEY_VALUES.partition]: query.partition };
  let condition = `${partitionKey} = ${KEY_VALUES.partition}`;
  const sort = query.sort;
  if (sort && 'beginsWith' in sort) {
    condition += ` AND begins_with(${sortKey}, ${KEY_VALUES.from})`;
    values[KEY_VALUES.from] = sort.beginsWith;
  } else if (sort && 'between' in sort) {
    condition += ` AND ${sortKey} BETWEEN ${KEY_VALUES.from} AND ${KEY_VALUES.to}`;
    values[KEY_VALUES.from] = sort.between[0];
    values[KEY_VALUES.to] = sort.between[1];
  } else if (sort) {
    condition += ` AND ${sortKey} < ${KEY_VALUES.from}`;
    values[KEY_VALUES.from] = sort.below;
  }
  const projection = query.attributes?.map((name, i) => [`#attr${i}`, name] as const);
  const names = { ...(projection ? Object.fromEntries(projection) : {}) };
  for (const [placeholder, name] of Object.entries(query.names ?? {})) {
    if (placeholder in names) throw new Error(`${placeholder} is a placeholder of the store`);
    names[placeholder] = name;
  }
  for (const [placeholder, value] of Object.entries(query.values ?? {})) {
    if (placeholder in values) throw new Error(`${placeholder} is a placeholder of the store`);
    values[placeholder] = value;
  }
  return {
    TableName: tableName,
    ...(query.index ? { IndexName: indexes[query.index] } : {}),
    KeyConditionExpression: condition,
    ...(query.filter ? { FilterExpression: query.filter } : {}),
    ...(projection
      ? { ProjectionExpression: projection.map(([placeholder]) => placeholder).join(', ') }
      : {}),
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
    ExpressionAttributeValues: values,
    ...(query.consistent ? { ConsistentRead: true } : {}),
  };
}

async function readPage(requests: StoreRequests, query: Query, options: PageOptions): Promise<Page> {
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

/** The key a query resumes after `item` from: the table's key, and the index's when it reads one. */
function positionOf(query: Query, item: Item): Item {
  const attributes: string[] = [table.partitionKey, table.sortKey];
  if (query.index) {
    const { partitionKey, sortKey } = keyAttributes(query.index);
    attributes.push(partitionKey, sortKey);
  }
  return Object.fromEntries(attributes.map((name) => [name, item[name]]));
}

/** Opaque cursor: base64url JSON of a key to resume from. */
export function encodeCursor(key: Item | undefined): string {
  return key ? Buffer.from(JSON.stringify(key)).toString('base64url') : '';
}

/**
 * Decodes a cursor and checks that it belongs where it is used (`expect` holds attributes the
 * key must carry, such as the query's partition), so a cursor can never step into another
 * project's data.
 */
function decodeCursor(cursor: string | undefined, expect: Record<string, string>): Item | undefined {
  if (!cursor) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch (error) {
    if (error instanceof SyntaxError) throw badRequest('Invalid cursor', { cursor });
    throw error;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw badRequest('Invalid cursor');
  const key = parsed as Item;
  for (const [name, value] of Object.entries(expect)) {
    if (key[name] !== value) throw badRequest('Invalid cursor');
  }
  for (const value of Object.values(key)) {
    if (typeof value !== 'string') throw badRequest('Invalid cursor');
  }
  return key;
}
