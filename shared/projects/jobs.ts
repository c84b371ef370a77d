/**
 * Background work of projects: the wipe of a deleted or reset project (`wipe-job.ts`), a chunked
 * job (shared/jobs/chunked.ts) whose position is on the project item.
 */
import { defineChunkedJob } from '../jobs/chunked';
import { type WipeOptions, wipeChunks } from './wipe-job';

/** The projects domain's jobs; tests pass smaller pages and budgets. */
export function projectJobs(options: WipeOptions = {}) {
  return [defineChunkedJob(wipeChunks(options))] as const;
}

export const jobs = projectJobs();
