/**
 * The messages of the segment build and cleanup jobs: what the jobs worker routes and checks at its
 * cold start; the jobs themselves (`build.ts`, `cleanup.ts`) load on their first message.
 */
import * as z from 'zod/mini';
import { defineJobMessage } from '../jobs/registry';
import '../zod-locale';

export const BUILD_SEGMENT_JOB = 'segments.build';

export const buildSegmentJobMessage = defineJobMessage({
  type: BUILD_SEGMENT_JOB,
  schema: z.object({
    type: z.literal(BUILD_SEGMENT_JOB),
    projectId: z.string().check(z.minLength(1)),
    segmentId: z.string().check(z.minLength(1)),
    /** The definition this build is for. */
    version: z.number().check(z.int(), z.gte(1)),
    /** 1: the first pass of a new definition, followed by pass 2; 2: the last pass. */
    pass: z.union([z.literal(1), z.literal(2)]),
    /** Where the previous message stopped in the project's contacts (oldest first). */
    cursor: z.optional(z.string().check(z.minLength(1))),
  }),
});

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
