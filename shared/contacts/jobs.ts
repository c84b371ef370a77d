/**
 * Background jobs of the contacts domain: purging a deleted contact, stripping a deleted field and
 * recounting the contact counters, all idempotent; the long ones are chunked jobs
 * (shared/jobs/chunked.ts). Their messages are declared in `messages.ts`, which the contacts
 * service, `deleteField` and the import, bulk, strip and wipe jobs enqueue; each run (`purge.ts`,
 * `fields.ts`, `recount.ts`) loads on its job's first message, so that the jobs worker's cold start
 * carries none of them.
 */
import { type ChunkOptions, defineLazyChunkedJob } from '../jobs/chunked';
import { defineJob } from '../jobs/registry';
import {
  purgeContactJobMessage,
  recountJobMessage,
  recountScanJobMessage,
  stripFieldJobMessage,
} from './messages';

export interface ContactJobsOptions {
  readonly purge?: ChunkOptions;
  readonly strip?: ChunkOptions;
  readonly recount?: ChunkOptions;
}

/** The contacts domain's jobs; tests pass smaller chunks and budgets. */
export function contactJobs(options: ContactJobsOptions = {}) {
  return [
    /** Removes a tombstoned contact with its events and email claim, a page of items a chunk. */
    defineLazyChunkedJob(purgeContactJobMessage, async () =>
      (await import('./purge')).purgeChunks(options.purge),
    ),
    /** Strips a deleted custom field's value from every contact of the project, a page a chunk. */
    defineLazyChunkedJob(stripFieldJobMessage, async () =>
      (await import('./fields')).stripChunks(options.strip),
    ),
    /** Starts a recount of the project's contact counters. */
    defineJob({
      ...recountJobMessage,
      run: async (deps, m) => (await import('./recount')).startRecount(deps, m),
    }),
    /** Counts the project's live contacts, a page a chunk, and writes the counters over. */
    defineLazyChunkedJob(recountScanJobMessage, async () =>
      (await import('./recount')).recountScanChunks(options.recount),
    ),
  ] as const;
}

export const jobs = contactJobs();
