/** DynamoDB helpers shared by every repository. Same code locally (dynalite) and on AWS. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { badRequest } from '../errors';

export function isConditionFailed(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error instanceof Error && error.name === 'ConditionalCheckFailedException')
  );
}

export type Item = Record<string, unknown>;

/** Runs a query to the end, page by page (for background work, not request paths). */
export async function* queryAll(db: DynamoDBDocumentClient, input: QueryCommandInput): AsyncGenerator<Item> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    for (const item of page.Items ?? []) yield item;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/** Deletes keys in batches of 25, retrying unprocessed ones with backoff. */
export async function batchDelete(
  db: DynamoDBDocumentClient,
  tableName: string,
  itemKeys: readonly { pk: string; sk: string }[],
): Promise<void> {
  for (let i = 0; i < itemKeys.length; i += 25) {
    let requests: NonNullable<ConstructorParameters<typeof BatchWriteCommand>[0]['RequestItems']>[string] =
      itemKeys.slice(i, i + 25).map((k) => ({ DeleteRequest: { Key: { pk: k.pk, sk: k.sk } } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
      const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
      requests = out.UnprocessedItems?.[tableName] ?? [];
      if (attempt > 8 && requests.length > 0) throw new Error('BatchWrite kept returning unprocessed items');
    }
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opaque cursor: base64url JSON of a LastEvaluatedKey. */
export function encodeCursor(key: Record<string, unknown> | undefined): string {
  return key ? Buffer.from(JSON.stringify(key)).toString('base64url') : '';
}

/**
 * Decodes a cursor and checks that it belongs where it is used (`expect` holds attributes the
 * key must carry, such as the project's index partition), so a cursor can never step into another
 * project's data.
 */
export function decodeCursor(
  cursor: string | undefined,
  expect: Record<string, string>,
): Record<string, unknown> | undefined {
  if (!cursor) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('Invalid cursor', { cursor });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw badRequest('Invalid cursor');
  const key = parsed as Record<string, unknown>;
  for (const [name, value] of Object.entries(expect)) {
    if (key[name] !== value) throw badRequest('Invalid cursor');
  }
  for (const value of Object.values(key)) {
    if (typeof value !== 'string') throw badRequest('Invalid cursor');
  }
  return key;
}

/** Runs a conditional write: true when written, false when its condition failed. */
export async function sendConditional(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

/** A conditional UpdateItem on the table: true when written, false when its condition failed. */
export function conditionalUpdate(
  deps: { db: DynamoDBDocumentClient; tableName: string },
  input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>,
): Promise<boolean> {
  return sendConditional(() => deps.db.send(new UpdateCommand({ TableName: deps.tableName, ...input })));
}
