/**
 * Contact items and email claims. Only this module knows their keys.
 *
 * Two items make a contact: the email claim (`P#pid#EMAIL#<lower email>` -> contactId), which
 * is what makes emails unique, and the contact item. They are written claim first, contact second,
 * so a crash in between leaves a claim whose contact is missing; readers treat such a claim as
 * nothing, and the next upsert of that email adopts it (creating the contact with the claimed id).
 * A contact whose email changed leaves a stale claim that readers recognise (the contact's email
 * differs) and writers remove.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EventRecord } from '../events/repository';
import type { Deps } from '../ports';
import { type Item, isConditionFailed, sendConditional } from '../store/dynamo';
import { keys } from '../table';
import type { ContactData } from './data';

export interface Contact {
  readonly id: string;
  readonly email: string;
  readonly subscribed: boolean;
  readonly snoozedUntil: string | null;
  readonly data: ContactData;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface ContactRecord extends Contact {
  readonly emailLower: string;
  readonly version: number;
  /** Set when the contact is deleted; its items are purged by the jobs queue. */
  readonly deletedAt?: string;
  /** Events written after this version; re-written (idempotently) by the next update. */
  readonly pendingEvents?: readonly EventRecord[];
}

export interface EmailClaim {
  readonly contactId: string;
  readonly email: string;
  /** While set and in the future, an email change to this address is in progress. */
  readonly pendingUntil?: string;
}

export type StoreDeps = Pick<Deps, 'db' | 'tableName'>;

export function toItem(projectId: string, c: ContactRecord): Item {
  const index = keys.contactsIndex(projectId);
  return {
    ...keys.contact(projectId, c.id),
    ...(c.deletedAt
      ? {}
      : {
          gsi1pk: index,
          gsi1sk: `${c.createdAt}#${c.id}`,
          gsi2pk: index,
          gsi2sk: `${c.emailLower}#${c.id}`,
        }),
    entity: 'contact',
    ...c,
  };
}

export function fromItem(item: Item): ContactRecord {
  return {
    id: String(item.id),
    email: String(item.email),
    emailLower: String(item.emailLower),
    subscribed: item.subscribed === true,
    snoozedUntil: typeof item.snoozedUntil === 'string' ? item.snoozedUntil : null,
    data: (item.data ?? {}) as ContactData,
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
    version: Number(item.version ?? 0),
    ...(typeof item.deletedAt === 'string' ? { deletedAt: item.deletedAt } : {}),
    ...(Array.isArray(item.pendingEvents) && item.pendingEvents.length > 0
      ? { pendingEvents: item.pendingEvents as EventRecord[] }
      : {}),
  };
}

/** The public shape of a contact. */
export function present(c: ContactRecord): Contact {
  return {
    id: c.id,
    email: c.email,
    subscribed: c.subscribed,
    snoozedUntil: c.snoozedUntil,
    data: c.data,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

export async function getContactRecord(
  deps: StoreDeps,
  projectId: string,
  contactId: string,
): Promise<ContactRecord | undefined> {
  const out = await deps.db.send(
    new GetCommand({
      TableName: deps.tableName,
      Key: keys.contact(projectId, contactId),
      ConsistentRead: true,
    }),
  );
  return out.Item ? fromItem(out.Item) : undefined;
}

export async function getClaim(
  deps: StoreDeps,
  projectId: string,
  email: string,
): Promise<EmailClaim | undefined> {
  const out = await deps.db.send(
    new GetCommand({
      TableName: deps.tableName,
      Key: keys.emailClaim(projectId, email),
      ConsistentRead: true,
    }),
  );
  if (!out.Item) return undefined;
  return {
    contactId: String(out.Item.contactId),
    email: String(out.Item.email),
    ...(typeof out.Item.pendingUntil === 'string' ? { pendingUntil: out.Item.pendingUntil } : {}),
  };
}

/**
 * Claims an email for a contact; false when someone holds it. `pendingUntil` marks an email
 * change in progress; `origin` names the import row that created the claim (so a re-run of that
 * row recognises its own claim).
 */
export async function putClaim(
  deps: StoreDeps,
  projectId: string,
  email: string,
  contactId: string,
  options: { pendingUntil?: string; origin?: string } = {},
): Promise<boolean> {
  return sendConditional(() =>
    deps.db.send(
      new PutCommand({
        TableName: deps.tableName,
        Item: {
          ...keys.emailClaim(projectId, email),
          entity: 'emailClaim',
          contactId,
          email: email.toLowerCase(),
          ...(options.pendingUntil ? { pendingUntil: options.pendingUntil } : {}),
          ...(options.origin ? { origin: options.origin } : {}),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
}

/** Removes a claim only if it still points at `contactId`. */
export async function deleteClaimIf(deps: StoreDeps, projectId: string, email: string, contactId: string) {
  try {
    await deps.db.send(
      new DeleteCommand({
        TableName: deps.tableName,
        Key: keys.emailClaim(projectId, email),
        ConditionExpression: 'contactId = :id',
        ExpressionAttributeValues: { ':id': contactId },
      }),
    );
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
  }
}

/** Creates the contact item; false when an item with that id exists already. */
export async function putNewContact(deps: StoreDeps, projectId: string, c: ContactRecord): Promise<boolean> {
  return sendConditional(() =>
    deps.db.send(
      new PutCommand({
        TableName: deps.tableName,
        Item: toItem(projectId, c),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
}

/** Replaces the contact if nobody changed it since `expectedVersion`; false otherwise. */
export async function replaceContact(
  deps: StoreDeps,
  projectId: string,
  c: ContactRecord,
  expectedVersion: number,
): Promise<boolean> {
  return sendConditional(() =>
    deps.db.send(
      new PutCommand({
        TableName: deps.tableName,
        Item: toItem(projectId, c),
        ConditionExpression: 'version = :v AND attribute_not_exists(deletedAt)',
        ExpressionAttributeValues: { ':v': expectedVersion },
      }),
    ),
  );
}

/** Marks a contact deleted and drops it from the list indexes; false if it is missing or gone. */
export async function tombstoneContact(deps: StoreDeps, projectId: string, contactId: string, at: string) {
  return sendConditional(() =>
    deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: keys.contact(projectId, contactId),
        UpdateExpression:
          'SET deletedAt = :at, version = version + :one REMOVE gsi1pk, gsi1sk, gsi2pk, gsi2sk',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deletedAt)',
        ExpressionAttributeValues: { ':at': at, ':one': 1 },
      }),
    ),
  );
}

export async function deleteContactItem(deps: StoreDeps, projectId: string, contactId: string) {
  await deps.db.send(
    new DeleteCommand({ TableName: deps.tableName, Key: keys.contact(projectId, contactId) }),
  );
}
