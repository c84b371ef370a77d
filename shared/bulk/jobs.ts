/** Background job of bulk operations (idempotent; see service.ts). */
import { defineJob } from '../jobs/registry';
import { type BulkWorkerOptions, bulkJobMessage, runBulk } from './service';

/** The bulk job; tests pass smaller chunks and budgets. */
export function bulkJobs(options: BulkWorkerOptions = {}) {
  return [
    defineJob({
      ...bulkJobMessage,
      run: (deps, m, meta) => runBulk(deps, m.projectId, m.jobId, options, meta),
    }),
  ];
}

export const jobs = bulkJobs();
