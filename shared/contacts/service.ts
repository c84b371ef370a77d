/**
 * Contact use cases: upsert by email, get, patch, delete, list and lookup. Every call is scoped
 * by the caller's project; another project's ids are simply not found.
 *
 * Every contact write that changes what the contact counts for (shared/contacts/contribution.ts)
 * is followed by one update of the project's counters (stats.ts): right after it, or, in a chunked
 * job that passes a `StatsDelta`, summed into the job's one update per chunk. A write that changes
 * nothing writes nothing, counters included. A process that stops between the contact write and
 * the counter update leaves the counters off by that one change until the next recount
 * (recount.ts), which every import, bulk and field-strip job queues when it ends; a counter update
 * that fails (rather than never running) queues one at once.
 */
import { isDeepStrictEqual } from 'node:util';
import { conflict, notFound } from '../errors';
import { emit } from '../events/emit';
import type { EventRecord } from '../events/repository';
import { enqueue } from '../jobs/registry';
import type { Deps } from '../ports';
import { type StoreDeps, sleep } from '../store/store';
import { decideClaim } from './claim';
import { StatsDelta } from './contribution';
import { applyDataPatch, type DataPatch } from './data';
import { recordFieldTypes } from './field-types';
import { purgeContactJobMessage, requestRecount } from './messages';
import {
  type Contact,
  type ContactRecord,
  countSearchMatches,
  deleteClaimIf,
  findContactsByEmail,
  getClaim,
  getContactRecord,
  listContactPage,
  present,
  putClaim,
  putNewContact,
  replaceContact,
  tombstoneContact,
} from './repository';
import { applyStatsDelta, readContactStats } from './stats';

export type ContactDeps = StoreDeps & Pick<Deps, 'clock' | 'ids' | 'queue'>;

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
    const holder = claim && (await getContactRecord(deps, projectId, claim.contactId));
    const decision = decideClaim({ emailLower, claim, holder, now: deps.clock.now() });
    // Every write below is conditional: one that loses a race goes round again.
    switch (decision.action) {
      case 'claim': {
        const id = deps.ids.uuid();
        if (!(await putClaim(deps, projectId, emailLower, id))) continue;
        const created = await createWithId(deps, projectId, id, email, input, options);
        if (created) return created;
        continue;
      }
      case 'adopt': {
        const created = await createWithId(deps, projectId, decision.contactId, email, input, options);
        if (created) return created;
        continue;
      }
      case 'update': {
        const updated = await updateRecord(deps, projectId, decision.contact, {
          subscribed: input.subscribed,
          patch: input.patch,
          source: input.source,
        });
        if (updated) return { contact: updated.record, isNew: false, subscriptionEvent: updated.event };
        continue;
      }
      case 'release':
        await releaseClaim(deps, projectId, emailLower, decision);
        continue;
      case 'wait':
        continue;
    }
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
  await countChange(deps, projectId, undefined, record);
  return { contact: record, isNew: true };
}

/**
 * Counts a contact's change from `before` to `after` (either missing or a tombstone): into `batch`
 * when a chunked job sums its chunk, else at once, and not at all when it changes nothing counted.
 */
export async function countChange(
  deps: StoreDeps & Pick<Deps, 'clock' | 'queue' | 'ids'>,
  projectId: string,
  before: ContactRecord | undefined,
  after: ContactRecord | undefined,
  batch?: StatsDelta,
): Promise<void> {
  const delta = batch ?? new StatsDelta();
  await syncSegments(deps, projectId, before, after, delta);
  if (batch) {
    batch.add(before, after);
    return;
  }
  delta.add(before, after);
  if (delta.isEmpty) return;
  try {
    await applyStatsDelta(deps, projectId, delta);
  } catch (error) {
    // The contact is written and stays so; its counters are repaired by a recount. Only when even
    // that cannot be queued does the request fail (and the counters wait for the next recount).
    try {
      await requestRecount(deps, projectId);
    } catch {
      throw error;
    }
    console.warn(
      JSON.stringify({
        level: 'warn',
        message: 'Contact counters not updated; a recount is queued',
        projectId,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }
}

/**
 * The contact's segment memberships follow its change (shared/segments/membership.ts), their
 * counts summed into `delta`. A failure leaves the contact written: its memberships are repaired
 * by its next write, which compares with what is stored.
 */
async function syncSegments(
  deps: StoreDeps & Pick<Deps, 'clock' | 'queue' | 'ids'>,
  projectId: string,
  before: ContactRecord | undefined,
  after: ContactRecord | undefined,
  delta: StatsDelta,
): Promise<void> {
  try {
    // Loaded on the first contact write, not when a function starts: a cold `/v1/track` that
    // changes no contact never evaluates the condition engine.
    const { syncContactSegments } = await import('../segments/membership');
    await syncContactSegments(deps, projectId, before, after, delta.members);
  } catch (error) {
    console.warn(
      JSON.stringify({
        level: 'warn',
        message: 'Segment memberships not updated; the next write of the contact repairs them',
        projectId,
        contactId: (after ?? before)?.id,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }
}

interface Change {
  readonly email?: string;
  readonly subscribed?: boolean;
  readonly snoozedUntil?: string | null;
  readonly patch?: DataPatch;
  readonly source: string;
  readonly origin?: SubscriptionOrigin;
  /** Where a chunked job sums its counter changes; counted at once without it. */
  readonly stats?: StatsDelta;
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
  for (const pending of current.pendingEvents ?? []) await emit(deps, pending, { replay: true });
  const now = deps.clock.now().toISOString();
  const { data, setPaths } = change.patch
    ? applyDataPatch(current.data, change.patch)
    : { data: current.data, setPaths: [] };
  const subscribed = change.subscribed ?? current.subscribed;
  let event: EventRecord | undefined;
  if (subscribed !== current.subscribed) {
    const origin = change.origin;
    event = {
      id: deps.ids.uuid(),
      projectId,
      contactId: current.id,
      name: subscribed ? SUBSCRIBED_EVENT : UNSUBSCRIBED_EVENT,
      data: {
        source: change.source,
        ...(origin ? { emailId: origin.emailId } : {}),
        ...(origin?.campaignId ? { campaignId: origin.campaignId } : {}),
      },
      createdAt: now,
      // An unsubscribe through a campaign email's link counts for the campaign (once per email:
      // the caller says whether this email has counted one before).
      ...(!subscribed && origin?.campaignId && origin.credit
        ? { campaignCounts: { campaignId: origin.campaignId, counts: { unsubscribed: 1 } } }
        : {}),
    };
  }
  const email = change.email ?? current.email;
  const snoozedUntil = change.snoozedUntil === undefined ? current.snoozedUntil : change.snoozedUntil;
  // Nothing the item stores would change: no write (its table and index entries cost 3 units).
  // A pending outbox event still needs the write that clears it.
  if (
    !current.pendingEvents?.length &&
    email === current.email &&
    subscribed === current.subscribed &&
    snoozedUntil === current.snoozedUntil &&
    isDeepStrictEqual(data, current.data)
  ) {
    return { record: current };
  }
  const { pendingEvents: _drop, ...rest } = current;
  const record: ContactRecord = {
    ...rest,
    email,
    emailLower: email.toLowerCase(),
    subscribed,
    snoozedUntil,
    data,
    updatedAt: now,
    version: current.version + 1,
    ...(event ? { pendingEvents: [event] } : {}),
  };
  await recordFieldTypes(deps, projectId, setPaths);
  if (!(await replaceContact(deps, projectId, record, current.version))) return undefined;
  await countChange(deps, projectId, current, record, change.stats);
  if (event) await emit(deps, event);
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

/** The email whose link made a subscription change, recorded on its event. */
export interface SubscriptionOrigin {
  readonly emailId: string;
  /** The email's campaign, if it is a campaign's. */
  readonly campaignId?: string;
  /** An unsubscribe counts for the campaign (its email has not counted one before). */
  readonly credit?: boolean;
}

export interface PatchInput {
  readonly email?: string;
  readonly subscribed?: boolean;
  readonly snoozedUntil?: string | null;
  readonly patch?: DataPatch;
  /** Recorded on a subscription event. @default 'api' */
  readonly source?: string;
  /** Recorded on a subscription event: the email whose link made the change. */
  readonly origin?: SubscriptionOrigin;
  /** Where a chunked job (bulk) sums its counter changes; counted at once without it. */
  readonly stats?: StatsDelta;
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
      origin: input.origin,
      stats: input.stats,
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
    const decision = decideClaim({ emailLower: email.toLowerCase(), claim, holder, now: deps.clock.now() });
    // Unless the claim is stale, the email belongs to another contact: it has it, is moving to it
    // right now, or is being created with it (a claim whose contact is missing: a create in
    // flight, or one that crashed and that the next upsert of the email completes).
    if (decision.action !== 'release') {
      throw conflict('CONTACT_EMAIL_TAKEN', 'Another contact in this project already has this email', {
        email,
        contactId: claim.contactId,
      });
    }
    await releaseClaim(deps, projectId, email, decision);
  }
  throw conflict('CONTACT_BUSY', 'The email is being changed by another request; retry shortly', { email });
}

/**
 * Deletes a contact: a tombstone hides it at once (lists, gets and lookups stop seeing it), then
 * the jobs queue purges its events, its email claim and the item itself. A retried delete
 * of a tombstoned contact enqueues the purge again.
 */
export async function deleteContact(
  deps: ContactDeps,
  projectId: string,
  contactId: string,
  options: { readonly stats?: StatsDelta } = {},
): Promise<void> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt > 0) await backoff(attempt);
    const record = await getContactRecord(deps, projectId, contactId);
    if (!record) throw notFound('Contact');
    if (!record.deletedAt) {
      const at = deps.clock.now().toISOString();
      // Conditional on the version read, so that the counters lose what it held: a change since
      // (or another delete) means reading again.
      if (!(await tombstoneContact(deps, projectId, contactId, at, record.version))) continue;
      await countChange(deps, projectId, record, undefined, options.stats);
    }
    await enqueuePurge(deps, projectId, contactId);
    return;
  }
  throw conflict('CONTACT_BUSY', 'The contact is being changed by another request; retry shortly', {
    contactId,
  });
}

export async function enqueuePurge(deps: ContactDeps, projectId: string, contactId: string) {
  await enqueue(deps, purgeContactJobMessage, { projectId, contactId });
}

/**
 * Frees a stale claim (a `release` decision): a deleted holder's purge is asked for again (the
 * purge is what removes its claim), then the claim goes if it still points at that contact.
 */
export async function releaseClaim(
  deps: ContactDeps,
  projectId: string,
  emailLower: string,
  release: { readonly contactId: string; readonly purge: boolean },
): Promise<void> {
  if (release.purge) await enqueuePurge(deps, projectId, release.contactId);
  await deleteClaimIf(deps, projectId, emailLower, release.contactId);
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

export async function listContacts(
  deps: ContactDeps,
  projectId: string,
  q: ListQuery,
): Promise<CursorPage<Contact>> {
  const filter = { order: q.sort, subscribed: q.subscribed, search: q.search, dir: q.dir };
  const [page, total] = await Promise.all([
    listContactPage(deps, projectId, { ...filter, limit: q.limit, cursor: q.cursor }),
    q.cursor ? 0 : totalOf(deps, projectId, filter),
  ]);
  return { data: page.records.map(present), cursor: page.cursor, hasMore: page.hasMore, total };
}

/**
 * A first page's total: from the counters (one read, whatever the project's size), except for a
 * search by email substring, which counts its matches among the first `SEARCH_TOTAL_WINDOW`
 * contacts of the list (exact up to that many contacts; bounded, not exact, beyond).
 */
async function totalOf(
  deps: ContactDeps,
  projectId: string,
  filter: { order: 'createdAt' | 'email'; subscribed?: boolean; search?: string; dir: 'asc' | 'desc' },
): Promise<number> {
  if (filter.search) return countSearchMatches(deps, projectId, filter);
  const stats = await readContactStats(deps, projectId);
  if (filter.subscribed === undefined) return stats.total;
  return filter.subscribed ? stats.subscribed : Math.max(0, stats.total - stats.subscribed);
}

export interface LookupResult {
  readonly found: { id: string; email: string; subscribed: boolean }[];
  readonly notFound: string[];
}

/**
 * Which of these emails are contacts of the project: two eventually consistent batched reads per
 * 100 emails (claims, then their contacts), at most one read unit per email.
 */
export async function lookupContacts(
  deps: ContactDeps,
  projectId: string,
  emails: readonly string[],
): Promise<LookupResult> {
  const unique = [...new Map(emails.map((e) => [e.trim().toLowerCase(), e.trim()])).entries()];
  const byLower = await findContactsByEmail(
    deps,
    projectId,
    unique.map(([lower]) => lower),
  );
  const found: LookupResult['found'] = [];
  const missing: string[] = [];
  for (const [lower, original] of unique) {
    const record = byLower.get(lower);
    if (record) found.push({ id: record.id, email: record.email, subscribed: record.subscribed });
    else missing.push(original);
  }
  return { found, notFound: missing };
}
