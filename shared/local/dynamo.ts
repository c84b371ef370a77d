/**
 * The embedded DynamoDB of the local runtime: dynalite on a free loopback port, in memory or
 * persistent under `<dataDir>/dynamodb`, with the table created from `shared/table.ts` (the same
 * definition CDK deploys). Repositories talk to it through the ordinary DynamoDB document client.
 *
 * A persistent table whose keys or indexes no longer match the definition (an index was added)
 * is rebuilt: items are read out, the table is recreated, items are written back. dynalite cannot
 * add an index to an existing table, and local data is small.
 *
 * The same rebuild repairs a table after a crash (`rebuild: true`): dynalite writes an item's
 * index entries and then the item as separate steps, so a process killed in between leaves
 * index entries with no item, or with other values, behind. Rebuilding from the items drops them.
 */
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  type AttributeDefinition,
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { table } from '../table';

// dynalite is CommonJS without types.
const dynalite = createRequire(import.meta.url)('dynalite') as (options: {
  path?: string;
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
}) => import('node:http').Server;

export interface LocalDynamo {
  readonly db: DynamoDBDocumentClient;
  /** The low-level client (for table administration). */
  readonly client: DynamoDBClient;
  readonly endpoint: string;
  readonly tableName: string;
  close(): Promise<void>;
}

export interface LocalDynamoOptions {
  readonly tableName: string;
  /** Persist under `<dataDir>/dynamodb`; in memory when undefined. */
  readonly dataDir?: string;
  /** @default 0 (a free port) */
  readonly port?: number;
  /** Rebuild the indexes from the items (after an unclean stop). @default false */
  readonly rebuild?: boolean;
}

/** The region and static credentials every local client uses (dynalite checks neither). */
export const LOCAL_REGION = 'us-east-1';
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

export async function startDynamo(options: LocalDynamoOptions): Promise<LocalDynamo> {
  const server = dynalite({
    path: options.dataDir ? join(options.dataDir, 'dynamodb') : undefined,
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const db = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  const close = async () => {
    client.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve, reject) =>
      server.close((error) => (error ? reject(error) : resolve())),
    );
  };
  try {
    await ensureTable(client, db, options.tableName, options.rebuild ?? false);
  } catch (error) {
    await close();
    throw error;
  }
  return { db, client, endpoint, tableName: options.tableName, close };
}

/** The CreateTable input for `table` (on-demand, every index projecting ALL). */
export function createTableInput(tableName: string) {
  const attributes = new Set<string>([table.partitionKey, table.sortKey]);
  for (const index of table.indexes) {
    attributes.add(index.partitionKey);
    attributes.add(index.sortKey);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: [...attributes].map(
      (name): AttributeDefinition => ({ AttributeName: name, AttributeType: 'S' }),
    ),
    KeySchema: [
      { AttributeName: table.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: table.sortKey, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: table.indexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: index.projection },
    })),
  };
}

async function ensureTable(
  client: DynamoDBClient,
  db: DynamoDBDocumentClient,
  tableName: string,
  rebuild: boolean,
): Promise<void> {
  const existing = await describe(client, tableName);
  if (existing && matchesDefinition(existing) && !rebuild) return;
  let items: Record<string, unknown>[] = [];
  if (existing) {
    items = await scanAll(db, tableName);
    await client.send(new DeleteTableCommand({ TableName: tableName }));
    await waitFor(async () => (await describe(client, tableName)) === undefined);
  }
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  await waitFor(async () => (await describe(client, tableName))?.TableStatus === 'ACTIVE');
  for (let i = 0; i < items.length; i += 25) {
    let requests = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    while (requests.length > 0) {
      const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
      requests = (out.UnprocessedItems?.[tableName] ?? []) as typeof requests;
    }
  }
}

function matchesDefinition(description: TableDescription): boolean {
  const keys = (schema: TableDescription['KeySchema']) =>
    (schema ?? []).map((k) => `${k.AttributeName}:${k.KeyType}`).join(',');
  const wanted = createTableInput(description.TableName ?? '');
  if (keys(description.KeySchema) !== keys(wanted.KeySchema)) return false;
  const have = new Map((description.GlobalSecondaryIndexes ?? []).map((i) => [i.IndexName, i]));
  if (have.size !== wanted.GlobalSecondaryIndexes.length) return false;
  return wanted.GlobalSecondaryIndexes.every((w) => {
    const h = have.get(w.IndexName);
    return (
      h !== undefined &&
      keys(h.KeySchema) === keys(w.KeySchema) &&
      h.Projection?.ProjectionType === w.Projection.ProjectionType
    );
  });
}

async function describe(client: DynamoDBClient, tableName: string): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if (error instanceof ResourceNotFoundException || (error as Error).name === 'ResourceNotFoundException') {
      return undefined;
    }
    throw error;
  }
}

async function scanAll(db: DynamoDBDocumentClient, tableName: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('Timed out waiting for the local table');
}
