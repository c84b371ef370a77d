/**
 * Contact use cases: upsert by email, get, patch, delete, list and lookup. Every call is scoped
 * by the caller's project; another project's ids are simply not found.
 */
import { BatchGetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { conflict, notFound } from '../errors';
import { type EventRecord, putEvent } from '../events/repository';
import type { Deps } from '../ports';
import { decodeCursor, encodeCursor, type Item, sleep } from '../store/dynamo';
import { keys } from '../table';
import { applyDataPatch, type DataPatch } from './data';
import { recordFieldTypes } from './field-types';
import {
  type Contact,
  type ContactRecord,
  deleteClaimIf,
  fromItem,
  getClaim,
  getContactRecord,
  present,
  putClaim,
  putNewContact,
  replaceContact,
  tombstoneContact,
} from './repository';

export type ContactDeps = Pick<Deps, 'db' | 'tableName' | 'clock' | 'ids' | 'queue'>;

export const SUBSCRIBED_EVENT = 'contact.subscribed';
export const UNSUBSCRIBED_EVENT = 'contact.unsubscribed';

/**
 * Optimistic writes retry when another request changed the contact first. Each round lets at least
 * one writer through, so the budget covers a burst of concurrent writers to one contact (the
 * integration tests run twenty), with full-jitter backoff spreading them out.
 */
const MAX_ATTEMPTS = 30;
const backoff = (attempt: number) => sleep(Math.random() * Math.min(250, 4 * 2 ** attempt));
/** How long an email change may hold a claim before others may treat it as abandoned. */
const EMAIL_CHANGE_GRACE_MS = 60_000;

export interface UpsertInput {
  readonly email: string;
  /** Explicit subscription; undefined keeps an existing contact's state and uses the default for new ones. */
  readonly subscribed?: boolean;
  readonly patch: DataPatch;
  /** Where the change came from, recorded on subscription events (`api`, `send`, `track`, `import`). */
  readonly source: string;
}

export interface UpsertResult {
  readonly contact: ContactRecord;
  readonly isNew: boolean;
  /** The subscription event emitted, if the request flipped an existing contact's flag. */
  readonly subscriptionEvent?: EventRecord;
}

/**
 * Creates or updates the contact with this email. Safe under concurrency: parallel upserts of a
 * new email create exactly one contact (the email claim is a conditional write) and no update
 * is lost (contact writes are conditional on the version read).
 */
export async function upsertContact(
  deps: ContactDeps,
  projectId: string,
  input: UpsertInput,
  options: { defaultSubscribed: boolean },
): Promise<UpsertResult> {
  const email = input.email.trim();
  const emailLower = email.toLowerCase();
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt > 0) await backoff(attempt);
    const claim = await getClaim(deps, projectId, emailLower);
    if (!claim) {
      const id = deps.ids.uuid();
      if (!(await putClaim(deps, projectId, emailLower, id))) continue;
      const created = await createWithId(deps, projectId, id, email, input, options);
      if (created) return created;
      continue;
    }
    const current = await getContactRecord(deps, projectId, claim.contactId);
    if (!current) {
      // The claim's creator crashed (or is between its two writes): adopt the claimed id.
      const created = await createWithId(deps, projectId, claim.contactId, email, input, options);
      if (created) return created;
      continue;
    }
    if (current.deletedAt || current.emailLower !== emailLower) {
      if (
        !current.deletedAt &&
        claim.pendingUntil &&
        Date.parse(claim.pendingUntil) > deps.clock.now().getTime()
      ) {
        continue; // another request is moving a contact to this email right now
      }
      if (current.deletedAt) await enqueuePurge(deps, projectId, current.id);
      await deleteClaimIf(deps, projectId, emailLower, claim.contactId);
      continue;
    }
    const updated = await updateRecord(deps, projectId, current, {
      subscribed: input.subscribed,
      patch: input.patch,
      source: input.source,
    });
    if (updated) return { contact: updated.record, isNew: false, subscriptionEvent: updated.event };
  }
  throw conflict('CONTACT_BUSY', 'The contact is being changed by another request; retry shortly', { email });
}

async function createWithId(
  deps: ContactDeps,
  projectId: string,
  id: string,
  email: string,
  input: UpsertInput,
  options: { defaultSubscribed: boolean },
): Promise<UpsertResult | undefined> {
  const now = deps.clock.now().toISOString();
  const { data, setPaths } = applyDataPatch({}, input.patch);
  const record: ContactRecord = {
    id,
    email,
    emailLower: email.toLowerCase(),
    subscribed: input.subscribed ?? options.defaultSubscribed,
    snoozedUntil: null,
    data,
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
  await recordFieldTypes(deps, projectId, setPaths);
  if (!(await putNewContact(deps, projectId, record))) return undefined;
  return { contact: record, isNew: true };
}

interface Change {
  readonly email?: string;
  readonly subscribed?: boolean;
  readonly snoozedUntil?: string | null;
  readonly patch?: DataPatch;
  readonly source: string;
}

/**
 * Read-modify-write of one contact, conditional on the version read. Events due from an earlier
 * write (`pendingEvents`) are re-written first, so a crash after a contact write never loses them.
 */
async function updateRecord(
  deps: ContactDeps,
  projectId: string,
  current: ContactRecord,
  change: Change,
): Promise<{ record: ContactRecord; event?: EventRecord } | undefined> {
  for (const pending of current.pendingEvents ?? []) await putEvent(deps, pending);
  const now = deps.clock.now().toISOString();
  const { data, setPaths } = change.patch
    ? applyDataPatch(current.data, change.patch)
    : { data: current.data, setPaths: [] };
  const subscribed = change.subscribed ?? current.subscribed;
  let event: EventRecord | undefined;
  if (subscribed !== current.subscribed) {
    event = {
      id: deps.ids.uuid(),
      projectId,
      contactId: current.id,
      name: subscribed ? SUBSCRIBED_EVENT : UNSUBSCRIBED_EVENT,
      data: { source: change.source },
      createdAt: now,
    };
  }
  const email = change.email ?? current.email;
  const { pendingEvents: _drop, ...rest } = current;
  const record: ContactRecord = {
    ...rest,
    email,
    emailLower: email.toLowerCase(),
    subscribed,
    snoozedUntil: change.snoozedUntil === undefined ? current.snoozedUntil : change.snoozedUntil,
    data,
    updatedAt: now,
    version: current.version + 1,
    ...(event ? { pendingEvents: [event] } : {}),
  };
  await recordFieldTypes(deps, projectId, setPaths);
  if (!(await replaceContact(deps, projectId, record, current.version))) return undefined;
  if (event) await putEvent(deps, event);
  return { record, event };
}

/** A live contact of the project, or undefined (missing, deleted, or another project's). */
export async function findContact(deps: ContactDeps, projectId: string, contactId: string) {
  const record = await getContactRecord(deps, projectId, contactId);
  return record && !record.deletedAt ? record : undefined;
}

export async function getContact(deps: ContactDeps, projectId: string, contactId: string): Promise<Contact> {
  const record = await findContact(deps, projectId, contactId);
  if (!record) throw notFound('Contact');
  return present(record);
}

export interface PatchInput {
  readonly email?: string;
  readonly subscribed?: boolean;
  readonly snoozedUntil?: string | null;
  readonly patch?: DataPatch;
  /** Recorded on a subscription event. @default 'api' */
  readonly source?: string;
}

export async function patchContact(
  deps: ContactDeps,
  projectId: string,
  contactId: string,
  input: PatchInput,
): Promise<Contact> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt > 0) await backoff(attempt);
    const current = await findContact(deps, projectId, contactId);
    if (!current) throw notFound('Contact');
    const newEmail = input.email?.trim();
    const moving = newEmail !== undefined && newEmail.toLowerCase() !== current.emailLower;
    if (moving) await claimForMove(deps, projectId, contactId, newEmail);
    const updated = await updateRecord(deps, projectId, current, {
      email: newEmail,
      subscribed: input.subscribed,
      snoozedUntil: input.snoozedUntil,
      patch: input.patch,
      source: input.source ?? 'api',
    });
    if (!updated) continue;
    if (moving) await deleteClaimIf(deps, projectId, current.emailLower, contactId);
    return present(updated.record);
  }
  throw conflict('CONTACT_BUSY', 'The contact is being changed by another request; retry shortly', {
    contactId,
  });
}

/** Claims `email` for a contact that is changing its address; 409 when another contact has it. */
async function claimForMove(deps: ContactDeps, projectId: string, contactId: string, email: string) {
  const pendingUntil = new Date(deps.clock.now().getTime() + EMAIL_CHANGE_GRACE_MS).toISOString();
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (await putClaim(deps, projectId, email, contactId, { pendingUntil })) return;
    const claim = await getClaim(deps, projectId, email);
    if (!claim) continue;
    if (claim.contactId === contactId) return;
    const holder = await getContactRecord(deps, projectId, claim.contactId);
    const taken = () =>
      conflict('CONTACT_EMAIL_TAKEN', 'Another contact in this project already has this email', {
        email,
        contactId: claim.contactId,
      });
    // No contact behind the claim: a create is in flight, or crashed and the next upsert of the
    // email completes it. Either way the email belongs to that contact.
    if (!holder) throw taken();
    if (holder.deletedAt) {
      await enqueuePurge(deps, projectId, holder.id);
    } else if (holder.emailLower === email.toLowerCase()) {
      throw taken();
    } else if (claim.pendingUntil && Date.parse(claim.pendingUntil) > deps.clock.now().getTime()) {
      throw taken(); // another contact is moving to this email right now
    }
    // Otherwise the claim is stale (its contact was deleted or moved away): free it and retry.
    await deleteClaimIf(deps, projectId, email, claim.contactId);
  }
  throw conflict('CONTACT_BUSY', 'The email is being changed by another request; retry shortly', { email });
}

/**
 * Deletes a contact: a tombstone hides it at once (lists, gets and lookups stop seeing it), then
 * the jobs queue purges its events, its email claim and the item itself. A retried delete
 * of a tombstoned contact enqueues the purge again.
 */
export async function deleteContact(deps: ContactDeps, projectId: string, contactId: string): Promise<void> {
  const record = await getContactRecord(deps, projectId, contactId);
  if (!record) throw notFound('Contact');
  if (!record.deletedAt) {
    const done = await tombstoneContact(deps, projectId, contactId, deps.clock.now().toISOString());
    if (!done) {
      const again = await getContactRecord(deps, projectId, contactId);
      if (!again) throw notFound('Contact');
    }
  }
  await enqueuePurge(deps, projectId, contactId);
}

export async function enqueuePurge(deps: ContactDeps, projectId: string, contactId: string) {
  await deps.queue.send('jobs', { type: 'contact.purge', projectId, contactId });
}

export interface ListQuery {
  readonly limit: number;
  readonly cursor?: string;
  readonly search?: string;
  readonly subscribed?: boolean;
  readonly sort: 'createdAt' | 'email';
  readonly dir: 'asc' | 'desc';
}

export interface CursorPage<T> {
  readonly data: T[];
  readonly cursor: string;
  readonly hasMore: boolean;
  readonly total: number;
}

/** Pages read per request at most when filters discard many items (keeps latency bounded). */
const MAX_PAGES_PER_REQUEST = 10;

export async function listContacts(
  deps: ContactDeps,
  projectId: string,
  q: ListQuery,
): Promise<CursorPage<Contact>> {
  const index = q.sort === 'email' ? 'gsi2' : 'gsi1';
  const pkName = `${index}pk`;
  const partition = keys.contactsIndex(projectId);
  const base = baseQuery(deps, index, partition, q);
  const found: Item[] = [];
  let startKey = decodeCursor(q.cursor, { [pkName]: partition });
  let lastKey: Record<string, unknown> | undefined;
  for (let page = 0; page < MAX_PAGES_PER_REQUEST; page++) {
    const out = await deps.db.send(
      new QueryCommand({
        ...base,
        ScanIndexForward: q.dir === 'asc',
        Limit: q.limit + 1,
        ExclusiveStartKey: startKey,
      }),
    );
    found.push(...(out.Items ?? []));
    lastKey = out.LastEvaluatedKey;
    if (found.length > q.limit || !lastKey) break;
    startKey = lastKey;
  }
  let hasMore: boolean;
  let cursor: string;
  if (found.length > q.limit) {
    found.length = q.limit;
    const last = found[found.length - 1]!;
    hasMore = true;
    cursor = encodeCursor({
      pk: last.pk,
      sk: last.sk,
      [pkName]: last[pkName],
      [`${index}sk`]: last[`${index}sk`],
    });
  } else {
    hasMore = lastKey !== undefined;
    cursor = hasMore ? encodeCursor(lastKey) : '';
  }
  const total = q.cursor ? 0 : await countContacts(deps, base);
  return { data: found.map((item) => present(fromItem(item))), cursor, hasMore, total };
}

function baseQuery(deps: ContactDeps, index: string, partition: string, q: ListQuery): QueryCommandInput {
  const filters: string[] = [];
  const values: Record<string, unknown> = { ':p': partition };
  if (q.subscribed !== undefined) {
    filters.push('subscribed = :s');
    values[':s'] = q.subscribed;
  }
  if (q.search) {
    filters.push('contains(emailLower, :q)');
    values[':q'] = q.search.toLowerCase();
  }
  return {
    TableName: deps.tableName,
    IndexName: index,
    KeyConditionExpression: `${index}pk = :p`,
    ExpressionAttributeValues: values,
    ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
  };
}

async function countContacts(deps: ContactDeps, base: QueryCommandInput): Promise<number> {
  let total = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await deps.db.send(
      new QueryCommand({ ...base, Select: 'COUNT', ExclusiveStartKey: startKey }),
    );
    total += out.Count ?? 0;
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return total;
}

export interface LookupResult {
  readonly found: { id: string; email: string; subscribed: boolean }[];
  readonly notFound: string[];
}

/** Which of these emails are contacts of the project: two batched reads per 100 emails. */
export async function lookupContacts(
  deps: ContactDeps,
  projectId: string,
  emails: readonly string[],
): Promise<LookupResult> {
  const unique = [...new Map(emails.map((e) => [e.trim().toLowerCase(), e.trim()])).entries()];
  const byLower = new Map<string, ContactRecord>();
  for (let i = 0; i < unique.length; i += 100) {
    const chunk = unique.slice(i, i + 100);
    const claims = await batchGet(
      deps,
      chunk.map(([lower]) => keys.emailClaim(projectId, lower)),
    );
    const contactIds = [...new Set(claims.map((c) => String(c.contactId)))];
    const contacts = await batchGet(
      deps,
      contactIds.map((id) => keys.contact(projectId, id)),
    );
    for (const item of contacts) {
      const record = fromItem(item);
      if (!record.deletedAt) byLower.set(record.emailLower, record);
    }
  }
  const found: LookupResult['found'] = [];
  const missing: string[] = [];
  for (const [lower, original] of unique) {
    const record = byLower.get(lower);
    if (record) found.push({ id: record.id, email: record.email, subscribed: record.subscribed });
    else missing.push(original);
  }
  return { found, notFound: missing };
}

async function batchGet(deps: ContactDeps, itemKeys: { pk: string; sk: string }[]): Promise<Item[]> {
  const out: Item[] = [];
  let pending = itemKeys;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
    if (attempt > 8) throw new Error('BatchGet kept returning unprocessed keys');
    const res = await deps.db.send(
      new BatchGetCommand({ RequestItems: { [deps.tableName]: { Keys: pending, ConsistentRead: true } } }),
    );
    out.push(...(res.Responses?.[deps.tableName] ?? []));
    pending = (res.UnprocessedKeys?.[deps.tableName]?.Keys ?? []) as { pk: string; sk: string }[];
  }
  return out;
}
