/**
 * Contact items and email claims. Only this module knows their keys.
 *
 * Two items make a contact: the email claim (`P#pid#EMAIL#<lower email>` -> contactId), which
 * is what makes emails unique, and the contact item. They are written claim first, contact second,
 * so a crash in between leaves a claim whose contact is missing; readers treat such a claim as
 * nothing, and the next upsert of that email adopts it (creating the contact with the claimed id).
 * A contact whose email changed leaves a stale claim that readers recognise (the contact's email
 * differs) and writers remove. What a writer does with the claim and contact it read is decided
 * in `claim.ts`.
 *
 * The custom field types of a project (`FIELD#<path>`) are kept here too. The project's contact
 * counters (total, subscribed, coverage and values), which every writer of contacts updates, are
 * `stats.ts`.
 */
import type { EventRecord } from '../events/repository';
import { encodeCursor, type Item, type Key, type Query, type StoreDeps } from '../store/store';
import { type AccessIndex, indexEntry, keyAttributes, keys, table } from '../table';
import type { ContactData, FieldType } from './data';

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
  /** The import row (`<importId>#<row>`) that created the claim or completed its contact. */
  readonly origin?: string;
}

/** The list indexes of a live contact; a tombstone leaves both. */
const LIST_INDEXES: readonly AccessIndex[] = ['contactsByCreation', 'contactsByEmail'];

/** The subscription as the list indexes' sort keys hold it. */
const flagOf = (subscribed: boolean) => (subscribed ? 'S' : 'U');

/**
 * Where a contact sorts in each list index. Both indexes are keys only, so the sort keys carry
 * what the list filters need (the subscription and the lower-case email): a filtered page reads
 * small index entries and then only its matches by key. By creation: `<createdAt>#<id>#<S|U>#<email>`
 * (ids hold no `#`, so the order is the creation time's, then the id's); by email:
 * `<email> <S|U>#<id>` (a space sorts below every character a valid address holds, so the order is
 * the email's).
 */
export function listSortKeys(c: Pick<ContactRecord, 'id' | 'createdAt' | 'emailLower' | 'subscribed'>) {
  const flag = flagOf(c.subscribed);
  return {
    createdAt: `${c.createdAt}#${c.id}#${flag}#${c.emailLower}`,
    email: `${c.emailLower} ${flag}#${c.id}`,
  };
}

/** What a list index entry's sort key says of its contact (the inverse of `listSortKeys`). */
function entryOf(
  order: ContactFilter['order'],
  sortKey: string,
): { emailLower: string; subscribed: boolean } {
  if (order === 'email') {
    const space = sortKey.lastIndexOf(' ');
    return { emailLower: sortKey.slice(0, space), subscribed: sortKey[space + 1] === 'S' };
  }
  const [, , flag = '', ...email] = sortKey.split('#');
  return { emailLower: email.join('#'), subscribed: flag === 'S' };
}

export function toItem(projectId: string, c: ContactRecord): Item {
  const index = keys.contactsIndex(projectId);
  const sort = listSortKeys(c);
  return {
    ...keys.contact(projectId, c.id),
    ...(c.deletedAt
      ? {}
      : {
          ...indexEntry('contactsByCreation', index, sort.createdAt),
          ...indexEntry('contactsByEmail', index, sort.email),
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
  const item = await deps.store.get(keys.contact(projectId, contactId), { consistent: true });
  return item ? fromItem(item) : undefined;
}

function claimOf(item: Item): EmailClaim {
  return {
    contactId: String(item.contactId),
    email: String(item.email),
    ...(typeof item.pendingUntil === 'string' ? { pendingUntil: item.pendingUntil } : {}),
    ...(typeof item.origin === 'string' ? { origin: item.origin } : {}),
  };
}

export async function getClaim(
  deps: StoreDeps,
  projectId: string,
  email: string,
): Promise<EmailClaim | undefined> {
  const item = await deps.store.get(keys.emailClaim(projectId, email), { consistent: true });
  return item ? claimOf(item) : undefined;
}

/**
 * Items by key (100 keys a request), mapped and indexed as asked: strongly consistent, as writers
 * need, unless `consistent` is false (half the read units).
 */
async function readAll<T>(
  deps: StoreDeps,
  itemKeys: readonly Key[],
  indexOf: (item: Item) => string,
  map: (item: Item) => T,
  consistent = true,
): Promise<Map<string, T>> {
  const items = await deps.store.batchGet(itemKeys, { consistent });
  return new Map(items.map((item) => [indexOf(item), map(item)]));
}

/** The claims of these lower-case emails, by email (`consistent` false: as readers see them). */
export function readClaims(deps: StoreDeps, projectId: string, emails: readonly string[], consistent = true) {
  const claimKeys = emails.map((e) => keys.emailClaim(projectId, e));
  return readAll(deps, claimKeys, (item) => String(item.email), claimOf, consistent);
}

/** Contact records by id, tombstones included (`consistent` false: as readers see them). */
export function readContactRecords(
  deps: StoreDeps,
  projectId: string,
  ids: readonly string[],
  consistent = true,
) {
  const contactKeys = ids.map((id) => keys.contact(projectId, id));
  return readAll(deps, contactKeys, (item) => String(item.id), fromItem, consistent);
}

/**
 * The live contacts holding these lower-case emails, by email: for each 100 emails, one batched
 * read of their claims and one of the contacts behind them, both eventually consistent (as the
 * contact lists are): half a read unit per claim and per contact of up to 4 KB, so at most one per
 * email.
 */
export async function findContactsByEmail(
  deps: StoreDeps,
  projectId: string,
  emails: readonly string[],
): Promise<Map<string, ContactRecord>> {
  const found = new Map<string, ContactRecord>();
  for (let i = 0; i < emails.length; i += 100) {
    const claims = await readClaims(deps, projectId, emails.slice(i, i + 100), false);
    const ids = [...new Set([...claims.values()].map((c) => c.contactId))];
    for (const record of (await readContactRecords(deps, projectId, ids, false)).values()) {
      if (!record.deletedAt) found.set(record.emailLower, record);
    }
  }
  return found;
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
  return deps.store.writeIf({
    put: {
      ...keys.emailClaim(projectId, email),
      entity: 'emailClaim',
      contactId,
      email: email.toLowerCase(),
      ...(options.pendingUntil ? { pendingUntil: options.pendingUntil } : {}),
      ...(options.origin ? { origin: options.origin } : {}),
    },
    if: 'attribute_not_exists(pk)',
  });
}

/** Marks another writer's unfinished claim as completed by an import row; false if it changed. */
export async function tagClaim(
  deps: StoreDeps,
  projectId: string,
  emailLower: string,
  contactId: string,
  origin: string,
): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.emailClaim(projectId, emailLower),
    expression: 'SET origin = :o',
    if: 'contactId = :id AND attribute_not_exists(origin)',
    values: { ':o': origin, ':id': contactId },
  });
}

/** Removes a claim only if it still points at `contactId`. */
export async function deleteClaimIf(deps: StoreDeps, projectId: string, email: string, contactId: string) {
  await deps.store.writeIf({
    delete: keys.emailClaim(projectId, email),
    if: 'contactId = :id',
    values: { ':id': contactId },
  });
}

/** Creates the contact item; false when an item with that id exists already. */
export async function putNewContact(deps: StoreDeps, projectId: string, c: ContactRecord): Promise<boolean> {
  return deps.store.writeIf({ put: toItem(projectId, c), if: 'attribute_not_exists(pk)' });
}

/** Replaces the contact if nobody changed it since `expectedVersion`; false otherwise. */
export async function replaceContact(
  deps: StoreDeps,
  projectId: string,
  c: ContactRecord,
  expectedVersion: number,
): Promise<boolean> {
  return deps.store.writeIf({
    put: toItem(projectId, c),
    if: 'version = :v AND attribute_not_exists(deletedAt)',
    values: { ':v': expectedVersion },
  });
}

/**
 * Marks a contact deleted and drops it from the list indexes, if nobody changed it since
 * `expectedVersion` (so that what the counters take away is what it held); false otherwise.
 */
export async function tombstoneContact(
  deps: StoreDeps,
  projectId: string,
  contactId: string,
  at: string,
  expectedVersion: number,
) {
  const indexAttributes = LIST_INDEXES.flatMap((index) => {
    const { partitionKey, sortKey } = keyAttributes(index);
    return [partitionKey, sortKey];
  });
  return deps.store.writeIf({
    update: keys.contact(projectId, contactId),
    expression: `SET deletedAt = :at, version = version + :one REMOVE ${indexAttributes.join(', ')}`,
    if: 'attribute_exists(pk) AND attribute_not_exists(deletedAt) AND version = :v',
    values: { ':at': at, ':one': 1, ':v': expectedVersion },
  });
}

export async function deleteContactItem(deps: StoreDeps, projectId: string, contactId: string) {
  await deps.store.write({ delete: keys.contact(projectId, contactId) });
}

/** The keys a page of a contact's partition holds besides the contact item, by kind. */
export interface ContactPartitionPage {
  /** The contact's events (deleted through the events module, which keeps the counters). */
  readonly events: Key[];
  /** Anything else keyed to the contact. */
  readonly others: Key[];
  /** Items the page read, the contact item included. */
  readonly read: number;
  readonly hasMore: boolean;
}

/**
 * Up to `limit` items of a contact's partition from its start, read consistently (so what was
 * deleted since is gone): what a purge deletes a chunk at a time.
 */
export async function contactPartitionPage(
  deps: StoreDeps,
  projectId: string,
  contactId: string,
  limit: number,
): Promise<ContactPartitionPage> {
  const contactKey = keys.contact(projectId, contactId);
  const page = await deps.store.page(
    { partition: keys.contactPartition(projectId, contactId), attributes: ['pk', 'sk'], consistent: true },
    { limit },
  );
  const events: Key[] = [];
  const others: Key[] = [];
  for (const item of page.items) {
    const key = { pk: String(item.pk), sk: String(item.sk) };
    if (key.sk === contactKey.sk) continue;
    (key.sk.startsWith(keys.contactEventPrefix) ? events : others).push(key);
  }
  return { events, others, read: page.items.length, hasMore: page.hasMore };
}

/** Deletes items of a contact's partition that `contactPartitionPage` listed as `others`. */
export async function deleteContactPartitionItems(deps: StoreDeps, items: readonly Key[]): Promise<void> {
  await deps.store.batchDelete(items);
}

/** Which contacts a list reads: its order, and the filters applied to what the index holds. */
export interface ContactFilter {
  readonly order: 'createdAt' | 'email';
  readonly subscribed?: boolean;
  /** Part of the email, any case. */
  readonly search?: string;
}

/** The list's index query (keys only: see `listSortKeys`). */
function contactsQuery(projectId: string, f: Pick<ContactFilter, 'order'>): Query {
  return {
    index: f.order === 'email' ? 'contactsByEmail' : 'contactsByCreation',
    partition: keys.contactsIndex(projectId),
  };
}

/** Whether an index entry passes the filter, from its sort key alone; undefined: no filter. */
function entryFilter(f: ContactFilter): ((entry: Item) => boolean) | undefined {
  const search = f.search?.toLowerCase();
  if (f.subscribed === undefined && !search) return undefined;
  const { sortKey } = keyAttributes(contactsQuery('', f).index);
  return (entry) => {
    const of = entryOf(f.order, String(entry[sortKey] ?? ''));
    return (
      (f.subscribed === undefined || of.subscribed === f.subscribed) &&
      (!search || of.emailLower.includes(search))
    );
  };
}

/**
 * Index entries a filtered page (a search, a subscription filter) examines at most: it then answers
 * the matches it found, possibly none, with `hasMore` and the cursor of where it stopped. The entries
 * are keys only (about 200 bytes), so a page examines at most about 25 read units of them, whatever
 * the filter and the project's size, and reads only the contacts it answers.
 */
export const MAX_EXAMINED_PER_PAGE = 1000;

/**
 * Contacts a search's first-page `total` counts its matches among: the first this many in the list's
 * order (about 25 read units of index entries). Exact for a project of at most this many contacts;
 * beyond it, a count of the matches among them (docs/contacts.md).
 */
export const SEARCH_TOTAL_WINDOW = 1000;

type PageQuery = ContactFilter & {
  readonly dir: 'asc' | 'desc';
  readonly limit: number;
  readonly cursor?: string;
};

/**
 * One page of the project's live contacts; the cursor is the list's own (400 in another list). The
 * page's index entries come first (keys only), then its contacts in one eventually consistent
 * batched read (half a read unit each up to 4 KB); a contact changed or deleted between the two
 * reads is answered as it is now, and left out when it no longer passes the filter.
 */
export async function listContactPage(
  deps: StoreDeps,
  projectId: string,
  q: PageQuery,
): Promise<{ records: ContactRecord[]; cursor: string; hasMore: boolean }> {
  const query = contactsQuery(projectId, q);
  const match = entryFilter(q);
  const forward = q.dir === 'asc';
  const page = match
    ? await filteredPage(deps, query, q, match)
    : await deps.store.page(query, { limit: q.limit, cursor: q.cursor, forward });
  const ids = page.items.map((entry) => contactIdOf(entry));
  const found = await readContactRecords(deps, projectId, ids, false);
  const search = q.search?.toLowerCase();
  const records = ids
    .map((id) => found.get(id))
    .filter(
      (r): r is ContactRecord =>
        r !== undefined &&
        !r.deletedAt &&
        (q.subscribed === undefined || r.subscribed === q.subscribed) &&
        (!search || r.emailLower.includes(search)),
    );
  return { records, cursor: page.cursor, hasMore: page.hasMore };
}

/** The contact an index entry points at, from the table key it carries. */
const contactIdOf = (entry: Item) => String(entry.pk).slice(String(entry.pk).lastIndexOf('#C#') + 3);

/**
 * The matching entries of a filtered list's page: requests until the page has one match more than it
 * shows (so `hasMore` is exact) or `MAX_EXAMINED_PER_PAGE` entries were read. The first asks for
 * `limit + 1` entries; each next one for as many as the matches still missing need at the share of
 * matches seen so far (twice as many as before when none matched), so a page reads little past its
 * last match.
 */
async function filteredPage(deps: StoreDeps, query: Query, q: PageQuery, match: (entry: Item) => boolean) {
  const items: Item[] = [];
  const forward = q.dir === 'asc';
  const wanted = q.limit + 1;
  let cursor = q.cursor;
  let examined = 0;
  let ask = wanted;
  for (;;) {
    ask = Math.min(ask, MAX_EXAMINED_PER_PAGE - examined);
    const out = await deps.store.query(query, { limit: ask, cursor, forward });
    examined += ask;
    items.push(...out.items.filter(match));
    if (items.length > q.limit) {
      items.length = q.limit;
      return { items, cursor: encodeCursor(positionOf(query, items[items.length - 1]!)), hasMore: true };
    }
    if (!out.cursor) return { items, cursor: '', hasMore: false };
    cursor = out.cursor;
    if (examined >= MAX_EXAMINED_PER_PAGE) return { items, cursor, hasMore: true };
    ask =
      items.length === 0
        ? ask * 2
        : Math.max(wanted, Math.ceil(((wanted - items.length) * examined * 1.25) / items.length));
  }
}

/** Where a query of the list resumes after `item`: the table's key and the index's. */
function positionOf(query: Query, item: Item): Item {
  const { partitionKey, sortKey } = keyAttributes(query.index);
  const names = [table.partitionKey, table.sortKey, partitionKey, sortKey];
  return Object.fromEntries(names.map((name) => [name, item[name]]));
}

/**
 * How many live contacts a search finds among the first `SEARCH_TOTAL_WINDOW` of the list (in its
 * order and direction), from their index entries: a search's first-page total, bounded whatever
 * the project's size.
 */
export async function countSearchMatches(
  deps: StoreDeps,
  projectId: string,
  f: ContactFilter & { readonly dir: 'asc' | 'desc' },
): Promise<number> {
  const query = contactsQuery(projectId, f);
  const match = entryFilter(f) ?? (() => true);
  let count = 0;
  let examined = 0;
  let cursor: string | undefined;
  do {
    const out = await deps.store.query(query, {
      limit: SEARCH_TOTAL_WINDOW - examined,
      cursor,
      forward: f.dir === 'asc',
    });
    examined += out.items.length;
    count += out.items.filter(match).length;
    cursor = out.cursor || undefined;
  } while (cursor && examined < SEARCH_TOTAL_WINDOW);
  return count;
}

export interface FieldTypeRecord {
  readonly path: string;
  readonly type: FieldType;
  readonly createdAt: string;
}

/** Stores a field's type unless the project has one for that path already (the first type wins). */
export async function putFieldTypeIfNew(deps: StoreDeps, projectId: string, record: FieldTypeRecord) {
  return deps.store.writeIf({
    put: { ...keys.field(projectId, record.path), entity: 'field', ...record },
    if: 'attribute_not_exists(pk)',
  });
}

/** Which of `paths` have a type recorded: one strongly consistent batched read. */
export async function recordedFieldPaths(
  deps: StoreDeps,
  projectId: string,
  paths: readonly string[],
): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const items = await deps.store.batchGet(
    paths.map((path) => keys.field(projectId, path)),
    { consistent: true },
  );
  return new Set(items.map((item) => String(item.path)));
}

export async function listFieldTypes(deps: StoreDeps, projectId: string): Promise<FieldTypeRecord[]> {
  const out: FieldTypeRecord[] = [];
  const query = { partition: keys.projectPartition(projectId), sort: { beginsWith: keys.fieldPrefix } };
  for await (const item of deps.store.queryAll(query)) {
    out.push({ path: String(item.path), type: item.type as FieldType, createdAt: String(item.createdAt) });
  }
  return out;
}

export async function deleteFieldType(deps: StoreDeps, projectId: string, path: string): Promise<void> {
  await deps.store.write({ delete: keys.field(projectId, path) });
}

/** The physical index attributes contacts carried before the lists moved to keys-only indexes. */
const FORMER_LIST_ATTRIBUTES = ['gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'];

/** A Scan filter (with its placeholders) for contact items that lack their list index entries. */
export const unindexedContacts = {
  filter: 'sk = :contact AND attribute_not_exists(#listed) AND attribute_not_exists(deletedAt)',
  names: { '#listed': keyAttributes('contactsByCreation').partitionKey },
  values: { ':contact': keys.contact('', '').sk },
};

/**
 * Gives a contact item written before the lists moved to keys-only indexes its entries in them,
 * and takes it out of the indexes it was in: one update, conditional on its version, so a writer
 * that changed it meanwhile (and so wrote the new entries) wins. False when it changed or went.
 */
export async function reindexContactItem(deps: StoreDeps, item: Item): Promise<boolean> {
  const projectId = /^P#([^#]+)#C#/.exec(String(item.pk))?.[1];
  if (!projectId || item.sk !== keys.contact('', '').sk) return false;
  const record = fromItem(item);
  if (record.deletedAt) return false;
  const sort = listSortKeys(record);
  const index = keys.contactsIndex(projectId);
  const entries = {
    ...indexEntry('contactsByCreation', index, sort.createdAt),
    ...indexEntry('contactsByEmail', index, sort.email),
  };
  const names = Object.keys(entries);
  return deps.store.writeIf({
    update: { pk: String(item.pk), sk: String(item.sk) },
    expression: `SET ${names.map((_, i) => `#n${i} = :v${i}`).join(', ')} REMOVE ${FORMER_LIST_ATTRIBUTES.join(', ')}`,
    if: 'version = :version AND attribute_not_exists(deletedAt)',
    names: Object.fromEntries(names.map((name, i) => [`#n${i}`, name])),
    values: {
      ...Object.fromEntries(Object.values(entries).map((value, i) => [`:v${i}`, value])),
      ':version': record.version,
    },
  });
}
