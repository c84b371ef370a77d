/**
 * Background jobs of the contacts domain: purging a deleted contact, stripping a deleted field and
 * recounting the contact counters, all idempotent; the long ones are chunked jobs
 * (shared/jobs/chunked.ts). Their messages are declared with their runs (`purge.ts`, `fields.ts`,
 * `recount.ts`), which the contacts service, `deleteField` and the import, bulk and strip jobs
 * enqueue.
 */
import { type ChunkOptions, defineChunkedJob } from '../jobs/chunked';
import { stripChunks } from './fields';
import { purgeChunks } from './purge';
import { recountJob, recountScanChunks } from './recount';

export interface ContactJobsOptions {
  readonly purge?: ChunkOptions;
  readonly strip?: ChunkOptions;
  readonly recount?: ChunkOptions;
}

/** The contacts domain's jobs; tests pass smaller chunks and budgets. */
export function contactJobs(options: ContactJobsOptions = {}) {
  return [
    /** Removes a tombstoned contact with its events and email claim, a page of items a chunk. */
    defineChunkedJob(purgeChunks(options.purge)),
    /** Strips a deleted custom field's value from every contact of the project, a page a chunk. */
    defineChunkedJob(stripChunks(options.strip)),
    /** Starts a recount of the project's contact counters. */
    recountJob,
    /** Counts the project's live contacts, a page a chunk, and writes the counters over. */
    defineChunkedJob(recountScanChunks(options.recount)),
  ] as const;
}

export const jobs = contactJobs();
export const [purgeContactJob, stripFieldJob] = jobs;
