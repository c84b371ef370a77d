/**
 * Maintenance job: removes a deleted contact and everything keyed to it. Order matters for crash
 * safety: events first, then the email claim, then the tombstone itself, so a purge that dies
 * midway is redone by the redelivered message (the tombstone still says what to do).
 */

import { deleteEvents } from '../events/repository';
import type { Deps } from '../ports';
import { batchDelete, queryAll } from '../store/dynamo';
import { keys } from '../table';
import { deleteClaimIf, deleteContactItem, getContactRecord } from './repository';

type PurgeDeps = Pick<Deps, 'db' | 'tableName'>;

export async function purgeContact(
  deps: PurgeDeps,
  projectId: string,
  contactId: string,
): Promise<'purged' | 'alive'> {
  const record = await getContactRecord(deps, projectId, contactId);
  if (record && !record.deletedAt) return 'alive';
  const contactKey = keys.contact(projectId, contactId);
  const events: { pk: string; sk: string }[] = [];
  const others: { pk: string; sk: string }[] = [];
  for await (const item of queryAll(deps.db, {
    TableName: deps.tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.contactPartition(projectId, contactId) },
    ProjectionExpression: 'pk, sk',
  })) {
    const key = { pk: String(item.pk), sk: String(item.sk) };
    if (key.sk === contactKey.sk) continue;
    (key.sk.startsWith('EV#') ? events : others).push(key);
  }
  // Events through the events module, so the project's event counters drop with them.
  await deleteEvents(deps, projectId, events);
  await batchDelete(deps.db, deps.tableName, others);
  if (record) {
    await deleteClaimIf(deps, projectId, record.emailLower, contactId);
    await deleteContactItem(deps, projectId, contactId);
  }
  return 'purged';
}
