/**
 * Events of a project. Each event lives in its contact's partition (so deleting a contact can
 * purge them with one query) and is indexed by time (gsi1) and by name (gsi2).
 *
 * Two kinds of counters are kept on write, so that names and statistics never read the events
 * themselves: a registry item per event name (count, first and last seen) and a count per UTC
 * hour (kept 35 days). Both are bumped only when the event item is new, so re-writing an event
 * (a retried write, a contact's pending events) never counts twice. A crash between the event
 * write and the counter writes leaves a count one low; deleting events by name reconciles that
 * name's count exactly (see `reconcileNameCount`).
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '../ports';
import { type Item, isConditionFailed, queryAll, sendConditional } from '../store/dynamo';
import { keys } from '../table';

export interface EventRecord {
  readonly id: string;
  readonly projectId: string;
  readonly contactId: string;
  readonly name: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
  /** The contact's email when the event was recorded, for display (not updated later). */
  readonly email?: string;
}

type StoreDeps = Pick<Deps, 'db' | 'tableName'>;

/** Hour buckets outlive the longest statistics window (30 days) by a margin. */
const HOUR_BUCKET_TTL_SECONDS = 35 * 24 * 3600;

export function eventItem(e: EventRecord): Record<string, unknown> {
  const sortKey = `${e.createdAt}#${e.id}`;
  return {
    ...keys.contactEvent(e.projectId, e.contactId, e.createdAt, e.id),
    gsi1pk: keys.eventsIndex(e.projectId),
    gsi1sk: sortKey,
    gsi2pk: keys.eventNameIndex(e.projectId, e.name),
    gsi2sk: sortKey,
    entity: 'event',
    ...e,
  };
}

export function fromEventItem(item: Item): EventRecord {
  return {
    id: String(item.id),
    projectId: String(item.projectId),
    contactId: String(item.contactId),
    name: String(item.name),
    data: (item.data ?? {}) as Record<string, unknown>,
    createdAt: String(item.createdAt),
    ...(typeof item.email === 'string' ? { email: item.email } : {}),
  };
}

/** `2026-11-21T20:15:00.000Z` -> `2026-11-21T20` (the hour bucket's sort key). */
export const hourOf = (iso: string) => iso.slice(0, 13);

/**
 * Stores an event once: writing the same event (same id and time) again changes nothing.
 * Returns whether the event was new (and counted).
 */
export async function putEvent(deps: StoreDeps, event: EventRecord): Promise<boolean> {
  const isNew = await sendConditional(() =>
    deps.db.send(
      new PutCommand({
        TableName: deps.tableName,
        Item: eventItem(event),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
  if (!isNew) return false;
  await Promise.all([
    bumpName(deps, event.projectId, event.name, 1, event.createdAt),
    bumpHour(deps, event.projectId, hourOf(event.createdAt), 1),
  ]);
  return true;
}

async function bumpName(deps: StoreDeps, projectId: string, name: string, by: number, at: string) {
  await deps.db.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key: keys.eventName(projectId, name),
      UpdateExpression:
        'SET #name = :name, entity = :entity, firstSeenAt = if_not_exists(firstSeenAt, :at), lastSeenAt = :at ADD #count :by',
      ExpressionAttributeNames: { '#name': 'name', '#count': 'count' },
      ExpressionAttributeValues: { ':name': name, ':entity': 'eventName', ':at': at, ':by': by },
    }),
  );
}

async function bumpHour(deps: StoreDeps, projectId: string, hour: string, by: number) {
  const expiresAt = Math.floor(Date.parse(`${hour}:00:00.000Z`) / 1000) + HOUR_BUCKET_TTL_SECONDS;
  await deps.db.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key: keys.eventHour(projectId, hour),
      UpdateExpression: 'SET entity = :entity, expiresAt = :exp ADD #count :by',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':entity': 'eventHour', ':exp': expiresAt, ':by': by },
    }),
  );
}

export interface EventNameRecord {
  readonly name: string;
  readonly count: number;
  readonly firstSeenAt: string;
  readonly lastSeenAt: string;
}

const fromNameItem = (item: Item): EventNameRecord => ({
  name: String(item.name ?? item.sk),
  count: Number(item.count ?? 0),
  firstSeenAt: String(item.firstSeenAt ?? ''),
  lastSeenAt: String(item.lastSeenAt ?? ''),
});

/** Every event name of the project with its count (one query over the registry partition). */
export async function listEventNames(deps: StoreDeps, projectId: string): Promise<EventNameRecord[]> {
  const out: EventNameRecord[] = [];
  for await (const item of queryAll(deps.db, {
    TableName: deps.tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.eventNamesPartition(projectId) },
  })) {
    const record = fromNameItem(item);
    if (record.count > 0) out.push(record);
  }
  return out;
}

export async function getEventName(
  deps: StoreDeps,
  projectId: string,
  name: string,
): Promise<EventNameRecord | undefined> {
  const out = await deps.db.send(
    new GetCommand({ TableName: deps.tableName, Key: keys.eventName(projectId, name), ConsistentRead: true }),
  );
  return out.Item ? fromNameItem(out.Item) : undefined;
}

/** Counts per UTC hour (`YYYY-MM-DDTHH` -> count) from `fromHour` to `toHour`, both included. */
export async function hourlyCounts(
  deps: StoreDeps,
  projectId: string,
  fromHour: string,
  toHour: string,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for await (const item of queryAll(deps.db, {
    TableName: deps.tableName,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': keys.eventHoursPartition(projectId),
      ':from': fromHour,
      ':to': toHour,
    },
  })) {
    counts.set(String(item.sk), Number(item.count ?? 0));
  }
  return counts;
}

/** Whether any event of this name exists (one indexed read of at most one item). */
export async function anyEventNamed(deps: StoreDeps, projectId: string, name: string): Promise<boolean> {
  const out = await deps.db.send(
    new QueryCommand({
      TableName: deps.tableName,
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :p',
      ExpressionAttributeValues: { ':p': keys.eventNameIndex(projectId, name) },
      Limit: 1,
    }),
  );
  return (out.Items ?? []).length > 0;
}

/**
 * Deletes events by key; returns those that existed (a redelivered job deletes nothing twice,
 * so counters are lowered once per event), and lowers the name and hour counters by them.
 */
export async function deleteEvents(
  deps: StoreDeps,
  projectId: string,
  items: readonly Item[],
): Promise<EventRecord[]> {
  const deleted: EventRecord[] = [];
  for (let i = 0; i < items.length; i += 25) {
    const chunk = items.slice(i, i + 25);
    const results = await Promise.all(
      chunk.map((item) =>
        deps.db.send(
          new DeleteCommand({
            TableName: deps.tableName,
            Key: { pk: item.pk, sk: item.sk },
            ReturnValues: 'ALL_OLD',
          }),
        ),
      ),
    );
    for (const r of results) if (r.Attributes) deleted.push(fromEventItem(r.Attributes));
  }
  const byName = new Map<string, number>();
  const byHour = new Map<string, number>();
  for (const e of deleted) {
    byName.set(e.name, (byName.get(e.name) ?? 0) + 1);
    byHour.set(hourOf(e.createdAt), (byHour.get(hourOf(e.createdAt)) ?? 0) + 1);
  }
  await Promise.all([
    ...[...byName].map(([name, n]) => lowerName(deps, projectId, name, n)),
    ...[...byHour].map(([hour, n]) => bumpHour(deps, projectId, hour, -n)),
  ]);
  return deleted;
}

/** Lowers a name's count without creating a registry item for a name that has none. */
async function lowerName(deps: StoreDeps, projectId: string, name: string, by: number) {
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.eventName(projectId, name),
        UpdateExpression: 'ADD #count :by',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':by': -by },
      }),
    );
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
  }
}

/**
 * Sets a name's registry count to the number of its events actually stored, and removes the
 * item when none are left. The write is conditional on the count read before counting, so an
 * event recorded meanwhile is never lost (the loop starts over).
 */
export async function reconcileNameCount(deps: StoreDeps, projectId: string, name: string): Promise<number> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const before = await getEventName(deps, projectId, name);
    const actual = await countEventsNamed(deps, projectId, name);
    const expected = before ? { ':seen': before.count } : {};
    try {
      if (actual === 0) {
        if (!before) return 0;
        await deps.db.send(
          new DeleteCommand({
            TableName: deps.tableName,
            Key: keys.eventName(projectId, name),
            ConditionExpression: '#count = :seen',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: expected,
          }),
        );
      } else {
        await deps.db.send(
          new UpdateCommand({
            TableName: deps.tableName,
            Key: keys.eventName(projectId, name),
            UpdateExpression: 'SET #count = :actual, #name = :name, entity = :entity',
            ConditionExpression: before ? '#count = :seen' : 'attribute_not_exists(pk)',
            ExpressionAttributeNames: { '#count': 'count', '#name': 'name' },
            ExpressionAttributeValues: {
              ':actual': actual,
              ':name': name,
              ':entity': 'eventName',
              ...expected,
            },
          }),
        );
      }
      return actual;
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
  }
  throw new Error(`Event name ${name} kept changing while its count was reconciled`);
}

async function countEventsNamed(deps: StoreDeps, projectId: string, name: string): Promise<number> {
  let total = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await deps.db.send(
      new QueryCommand({
        TableName: deps.tableName,
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :p',
        ExpressionAttributeValues: { ':p': keys.eventNameIndex(projectId, name) },
        Select: 'COUNT',
        ExclusiveStartKey: startKey,
      }),
    );
    total += out.Count ?? 0;
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return total;
}
