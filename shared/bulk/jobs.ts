/** Background job of bulk operations (idempotent; see service.ts). */
import { defineLazyChunkedJob } from '../jobs/chunked';
import { bulkJobMessage } from './messages';
import type { BulkWorkerOptions } from './service';

/** The bulk job; tests pass smaller chunks and budgets. */
export function bulkJobs(options: BulkWorkerOptions = {}) {
  return [defineLazyChunkedJob(bulkJobMessage, async () => (await import('./service')).bulkChunks(options))];
}

export const jobs = bulkJobs();
