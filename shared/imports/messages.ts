/**
 * The messages of the import jobs and where uploads are stored: what the jobs worker needs to
 * route and check them at its cold start, without the import worker (CSV parsing, multipart) or
 * the upload authorizer, which load on a job's first message.
 */
import * as z from 'zod/mini';
import { defineJobMessage } from '../jobs/registry';
import '../zod-locale';

/** Where uploads are stored: `imports/<projectId>/<jobId>` (the bucket expires `imports/` after days). */
export const UPLOAD_PREFIX = 'imports/';

export const uploadKey = (projectId: string, jobId: string) => `${UPLOAD_PREFIX}${projectId}/${jobId}`;

const UPLOAD_KEY = /^imports\/([A-Za-z0-9-]{1,64})\/([A-Za-z0-9-]{1,64})$/;

export function parseUploadKey(key: string): { projectId: string; jobId: string } | undefined {
  const m = UPLOAD_KEY.exec(key);
  return m ? { projectId: m[1]!, jobId: m[2]! } : undefined;
}

export const IMPORT_JOB = 'import.run';

/** The message that starts an import job, and each continuation of it: which job to run or resume. */
export const importJobMessage = defineJobMessage({
  type: IMPORT_JOB,
  schema: z.object({
    type: z.literal(IMPORT_JOB),
    projectId: z.string().check(z.minLength(1)),
    jobId: z.string().check(z.minLength(1)),
  }),
});

/**
 * The job that checks, once the upload's deadline has passed, that the body was stored: an
 * accepted upload whose body never reaches the bucket (the S3 write failed, the client went away)
 * would otherwise leave its job `queued` until it expires.
 */
export const IMPORT_DEADLINE_JOB = 'import.deadline';

/**
 * The deadline check's message, declared apart from the authorizer that schedules it (upload.ts) (jobs.ts binds
 * it to `checkUploadDeadline`), so that neither the authorizer's bundle nor the jobs worker's cold start loads the import worker.
 */
export const uploadDeadlineJobMessage = defineJobMessage({
  type: IMPORT_DEADLINE_JOB,
  schema: z.object({
    type: z.literal(IMPORT_DEADLINE_JOB),
    projectId: z.string().check(z.minLength(1)),
    jobId: z.string().check(z.minLength(1)),
  }),
});
