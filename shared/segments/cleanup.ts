/**
 * What a deleted segment leaves: its memberships (in its members' partitions, found through the
 * segment's index) and its snapshot, removed by a job a page at a time. Idempotent: each page is
 * read afresh, so a chunk that runs twice finds less to delete.
 */
import type * as z from 'zod/mini';
import { type ChunkOptions, chunkedJob, cursorInMessage, type MessageCursor } from '../jobs/chunked';
import { enqueue } from '../jobs/registry';
import type { Deps } from '../ports';
import { cleanupSegmentJobMessage } from './messages';
import { deleteKeys, membershipKeyPage, snapshotKeyPage } from './repository';

type CleanupMessage = z.infer<typeof cleanupSegmentJobMessage.schema>;

export async function requestSegmentCleanup(deps: Pick<Deps, 'queue'>, projectId: string, segmentId: string) {
  await enqueue(deps, cleanupSegmentJobMessage, { projectId, segmentId });
}

export function cleanupChunks(options: ChunkOptions = {}) {
  return chunkedJob(cleanupSegmentJobMessage, {
    budget: options,
    ...cursorInMessage<CleanupMessage, z.input<typeof cleanupSegmentJobMessage.schema>>(),
    async process(deps: Pick<Deps, 'store'>, position: MessageCursor, m: CleanupMessage) {
      const limit = options.chunkSize ?? 100;
      const members = await membershipKeyPage(deps, m.projectId, m.segmentId, limit);
      await deleteKeys(deps, members.keys);
      const snapshot = await snapshotKeyPage(deps, m.projectId, m.segmentId, limit);
      await deleteKeys(deps, snapshot.keys);
      const done = !members.hasMore && !snapshot.hasMore;
      return { next: position, items: members.keys.length + snapshot.keys.length, done };
    },
  });
}
