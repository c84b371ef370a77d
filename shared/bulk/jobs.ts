/** Background job of bulk operations (idempotent; see service.ts). */
import { defineChunkedJob } from '../jobs/chunked';
import { type BulkWorkerOptions, bulkChunks } from './service';

/** The bulk job; tests pass smaller chunks and budgets. */
export function bulkJobs(options: BulkWorkerOptions = {}) {
  return [defineChunkedJob(bulkChunks(options))];
}

export const jobs = bulkJobs();
