/**
 * Maintenance job: removes a deleted contact and everything keyed to it, as a chunked job
 * (shared/jobs/chunked.ts), a page of its partition a chunk, so a contact with any number of
 * events is purged in bounded messages. Order matters for crash safety: the partition's items
 * (events, through the events module, so the project's event counters drop with them) first,
 * then the email claim, then the tombstone itself, so a purge that dies midway is redone by the
 * redelivered message (the tombstone still says what to do).
 *
 * Each chunk reads the partition from its start: what earlier chunks deleted is gone from a
 * consistent read, so the position needs no cursor, and purges of one contact that run at once
 * (a delete retried, a claim released) only repeat each other's deletes.
 */
import type * as z from 'zod/mini';
import { deleteEvents } from '../events/repository';
import { type ChunkOptions, chunkedJob } from '../jobs/chunked';
import type { StoreDeps } from '../store/store';
import { purgeContactJobMessage } from './messages';
import {
  type ContactRecord,
  contactPartitionPage,
  deleteClaimIf,
  deleteContactItem,
  deleteContactPartitionItems,
  getContactRecord,
} from './repository';

type PurgeMessage = z.infer<typeof purgeContactJobMessage.schema>;

/** What is purged: the contact's tombstone, or nothing when the contact item is gone already. */
interface Purge {
  readonly record: ContactRecord | undefined;
}

/**
 * The purge as a chunked job (`chunkSize`: items of the contact's partition read and deleted a
 * chunk, 100 by default); a contact that is not deleted is left alone.
 */
export function purgeChunks(options: ChunkOptions = {}) {
  return chunkedJob(purgeContactJobMessage, {
    budget: options,
    async load(deps: StoreDeps, m: PurgeMessage): Promise<Purge | undefined> {
      const record = await getContactRecord(deps, m.projectId, m.contactId);
      return record && !record.deletedAt ? undefined : { record };
    },
    async process(deps, purge, m) {
      const page = await contactPartitionPage(deps, m.projectId, m.contactId, options.chunkSize ?? 100);
      await deleteEvents(deps, m.projectId, page.events);
      await deleteContactPartitionItems(deps, page.others);
      return { next: purge, items: page.read, done: !page.hasMore };
    },
    async finish(deps, { record }, m) {
      if (!record) return;
      await deleteClaimIf(deps, m.projectId, record.emailLower, m.contactId);
      await deleteContactItem(deps, m.projectId, m.contactId);
    },
    continuation: (m) => ({ projectId: m.projectId, contactId: m.contactId }),
  });
}
