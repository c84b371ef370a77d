/**
 * The bulk job's message: what the jobs worker routes and checks at its cold start; the job
 * (`service.ts`) loads on its first message.
 */
import * as z from 'zod/mini';
import { defineJobMessage } from '../jobs/registry';
import '../zod-locale';

export const BULK_JOB = 'bulk.run';

/** The message that starts a bulk job, and each continuation of it: which job to run or resume. */
export const bulkJobMessage = defineJobMessage({
  type: BULK_JOB,
  schema: z.object({
    type: z.literal(BULK_JOB),
    projectId: z.string().check(z.minLength(1)),
    jobId: z.string().check(z.minLength(1)),
  }),
});
