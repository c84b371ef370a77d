/**
 * Events of a project. Each event lives in its contact's partition (so deleting a contact can
 * purge them with one query) and is indexed by time (gsi1) and by name (gsi2).
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '../ports';
import { isConditionFailed } from '../store/dynamo';
import { keys } from '../table';

export interface EventRecord {
  readonly id: string;
  readonly projectId: string;
  readonly contactId: string;
  readonly name: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
}

type StoreDeps = Pick<Deps, 'db' | 'tableName'>;

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

/** Stores an event once: writing the same event (same id and time) again changes nothing. */
export async function putEvent(deps: StoreDeps, event: EventRecord): Promise<void> {
  try {
    await deps.db.send(
      new PutCommand({
        TableName: deps.tableName,
        Item: eventItem(event),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
  }
}
