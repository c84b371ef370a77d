/**
 * Background work of segments: building a dynamic segment's membership (`build.ts`), removing
 * what a deleted segment leaves (`cleanup.ts`), computing a tracked segment on the periodic job's
 * behalf, and the periodic job's visit itself (`periodic.ts`). Each loads on its first message.
 */
import * as z from 'zod/mini';
import { type ChunkOptions, defineLazyChunkedJob } from '../jobs/chunked';
import { defineJob, defineJobMessage } from '../jobs/registry';
import { buildSegmentJobMessage, cleanupSegmentJobMessage } from './messages';

export const COMPUTE_SEGMENT_JOB = 'segments.compute';

export const computeSegmentJobMessage = defineJobMessage({
  type: COMPUTE_SEGMENT_JOB,
  schema: z.object({
    type: z.literal(COMPUTE_SEGMENT_JOB),
    projectId: z.string().check(z.minLength(1)),
    segmentId: z.string().check(z.minLength(1)),
  }),
});

/** Computes a tracked segment as `POST /segments/{id}/compute` does; a deleted one is skipped. */
export const computeSegmentJob = defineJob({
  ...computeSegmentJobMessage,
  run: async (deps, m) => {
    try {
      const { computeSegment } = await import('./service');
      await computeSegment(deps, m.projectId, m.segmentId);
    } catch (error) {
      if (error instanceof Error && 'statusCode' in error && error.statusCode === 404) return;
      throw error;
    }
  },
});

export interface SegmentJobsOptions {
  readonly build?: ChunkOptions;
  readonly cleanup?: ChunkOptions;
}

/** The segments domain's jobs; tests pass smaller chunks and budgets. */
export function segmentJobs(options: SegmentJobsOptions = {}) {
  return [
    defineLazyChunkedJob(buildSegmentJobMessage, async () =>
      (await import('./build')).buildChunks(options.build),
    ),
    defineLazyChunkedJob(cleanupSegmentJobMessage, async () =>
      (await import('./cleanup')).cleanupChunks(options.cleanup),
    ),
    computeSegmentJob,
  ] as const;
}

export const jobs = segmentJobs();
