/**
 * What a deleted segment leaves: its memberships (in its members' partitions, found through the
 * segment's index) and its snapshot, removed by a job a page at a time. Idempotent: each page is
 * read afresh, so a chunk that runs twice finds less to delete.
 */
import * as z from 'zod/mini';
import { type ChunkOptions, chunkedJob, cursorInMessage, type MessageCursor } from '../jobs/chunked';
import { defineJobMessage, enqueue } from '../jobs/registry';
import type { Deps } from '../ports';
import { deleteKeys, membershipKeyPage, snapshotKeyPage } from './repository';

export const CLEANUP_SEGMENT_JOB = 'segments.cleanup';

export const cleanupSegmentJobMessage = defineJobMessage({
  type: CLEANUP_SEGMENT_JOB,
  schema: z.object({
    type: z.literal(CLEANUP_SEGMENT_JOB),
    projectId: z.string().check(z.minLength(1)),
    segmentId: z.string().check(z.minLength(1)),
    /** Unused: each chunk reads the first page of what is left. */
    cursor: z.optional(z.string().check(z.minLength(1))),
  }),
});

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
