/**
 * Client-level helpers for the modules that still hand the document client around instead of the
 * store (`shared/contacts/purge.ts`, `shared/jobs/status.ts`, `shared/sending/`). Repositories use
 * the store (`./store.ts`); these go once those modules do.
 */
import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { type Item, type Key, type StoreDeps, storeOf } from './store';

export { sleep } from './store';

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
  itemKeys: readonly Key[],
): Promise<void> {
  await storeOf({ db, tableName }).batchDelete(itemKeys);
}

/** A conditional UpdateItem, through the store of `deps`: true when written, false when its condition failed. */
export function conditionalUpdate(
  deps: StoreDeps,
  input: {
    Key: Key;
    UpdateExpression: string;
    ConditionExpression: string;
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
  },
): Promise<boolean> {
  return storeOf(deps).writeIf({
    update: input.Key,
    expression: input.UpdateExpression,
    if: input.ConditionExpression,
    names: input.ExpressionAttributeNames,
    values: input.ExpressionAttributeValues,
  });
}
