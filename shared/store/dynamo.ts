/**
 * The store's requests over DynamoDB: each `StoreRequests` method as the SDK command it sends
 * (`./store.ts` has the store's shape and the operations made from requests).
 */
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { badRequest } from '../errors';
import { indexes, keyAttributes } from '../table';
import {
  encodeCursor,
  type Item,
  type Key,
  type Query,
  type Store,
  type StoreRequests,
  sleep,
  storeOver,
} from './store';

/** The store over a document client and the table: the one factory the composition roots call. */
export function createStore(db: DynamoDBDocumentClient, tableName: string): Store {
  return storeOver(dynamoRequests(db, tableName));
}

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
            ...(write.returnNew
              ? { ReturnValues: write.returnNew === 'all' ? 'ALL_NEW' : 'UPDATED_NEW' }
              : {}),
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

    async scan(scan, options = {}) {
      const out = await db.send(
        new ScanCommand({
          TableName,
          ...(scan.filter ? { FilterExpression: scan.filter } : {}),
          ...(scan.names ? { ExpressionAttributeNames: scan.names } : {}),
          ...(scan.values ? { ExpressionAttributeValues: scan.values } : {}),
          ...(options.limit === undefined ? {} : { Limit: options.limit }),
          // The cursor is one this method answered (background work keeps it; no client sees it).
          ExclusiveStartKey: decodeCursor(options.cursor, {}),
        }),
      );
      return { items: out.Items ?? [], cursor: encodeCursor(out.LastEvaluatedKey) };
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
