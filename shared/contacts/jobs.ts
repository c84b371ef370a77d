/**
 * Background jobs of the contacts domain: purging a deleted contact and stripping a deleted field,
 * both chunked jobs (shared/jobs/chunked.ts) and idempotent. Their messages are declared with
 * their runs (`purge.ts`, `fields.ts`), which the contacts service and `deleteField` enqueue.
 */
import { type ChunkOptions, defineChunkedJob } from '../jobs/chunked';
import { stripChunks } from './fields';
import { purgeChunks } from './purge';

export interface ContactJobsOptions {
  readonly purge?: ChunkOptions;
  readonly strip?: ChunkOptions;
}

/** The contacts domain's jobs; tests pass smaller chunks and budgets. */
export function contactJobs(options: ContactJobsOptions = {}) {
  return [
    /** Removes a tombstoned contact with its events and email claim, a page of items a chunk. */
    defineChunkedJob(purgeChunks(options.purge)),
    /** Strips a deleted custom field's value from every contact of the project, a page a chunk. */
    defineChunkedJob(stripChunks(options.strip)),
  ] as const;
}

export const jobs = contactJobs();
export const [purgeContactJob, stripFieldJob] = jobs;
