/**
 * Rule 5 of custom data: the first type seen for a key fixes it for the project. One item per
 * field path (`FIELD#<path>`), created with a conditional put; later values never change it.
 * Known paths are remembered per instance for a minute so steady traffic costs no extra writes.
 */
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '../ports';
import { isConditionFailed } from '../store/dynamo';
import { keys } from '../table';
import { type DataValue, type FieldType, inferType } from './data';

type FieldDeps = Pick<Deps, 'db' | 'tableName' | 'clock'>;

export interface FieldTypeRecord {
  readonly path: string;
  readonly type: FieldType;
  readonly createdAt: string;
}

const KNOWN_TTL_MS = 60_000;
const known = new WeakMap<object, Map<string, number>>();

/** Records the inferred type of every path not seen before in the project. */
export async function recordFieldTypes(
  deps: FieldDeps,
  projectId: string,
  setPaths: readonly (readonly [string, DataValue])[],
): Promise<void> {
  let cache = known.get(deps.db);
  if (!cache) {
    cache = new Map();
    known.set(deps.db, cache);
  }
  const now = deps.clock.now();
  for (const [path, value] of setPaths) {
    const cacheKey = `${projectId}\u0000${path}`;
    const seen = cache.get(cacheKey);
    if (seen !== undefined && now.getTime() - seen < KNOWN_TTL_MS) continue;
    try {
      await deps.db.send(
        new PutCommand({
          TableName: deps.tableName,
          Item: {
            ...keys.field(projectId, path),
            entity: 'field',
            path,
            type: inferType(value),
            createdAt: now.toISOString(),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
    if (cache.size > 10_000) cache.clear();
    cache.set(cacheKey, now.getTime());
  }
}

/** Forgets cached paths (after a field is deleted, its next value infers a type anew). */
export function forgetFieldTypes(deps: FieldDeps, projectId: string, pathPrefix: string) {
  const cache = known.get(deps.db);
  if (!cache) return;
  for (const key of cache.keys()) {
    const [pid, path] = key.split('\u0000');
    if (pid === projectId && (path === pathPrefix || path?.startsWith(`${pathPrefix}.`))) cache.delete(key);
  }
}

export async function listFieldTypes(deps: FieldDeps, projectId: string): Promise<FieldTypeRecord[]> {
  const out: FieldTypeRecord[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await deps.db.send(
      new QueryCommand({
        TableName: deps.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.projectPartition(projectId), ':prefix': 'FIELD#' },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      out.push({ path: String(item.path), type: item.type as FieldType, createdAt: String(item.createdAt) });
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return out;
}
