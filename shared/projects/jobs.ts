/**
 * Background work of projects: the wipe of a deleted or reset project (`wipe-job.ts`), a chunked
 * job (shared/jobs/chunked.ts) whose position is on the project item.
 */
import { defineLazyChunkedJob } from '../jobs/chunked';
import { wipeJobMessage } from './wipe';
import type { WipeOptions } from './wipe-job';

/** The projects domain's jobs; tests pass smaller pages and budgets. */
export function projectJobs(options: WipeOptions = {}) {
  return [
    defineLazyChunkedJob(wipeJobMessage, async () => (await import('./wipe-job')).wipeChunks(options)),
  ] as const;
}

export const jobs = projectJobs();
