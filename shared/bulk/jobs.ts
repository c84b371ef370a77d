/** Background job of bulk operations (idempotent; see service.ts). */
import * as z from 'zod';
import { defineJob } from '../jobs/registry';
import { BULK_JOB, type BulkWorkerOptions, runBulk } from './service';

export function bulkJobs(options: BulkWorkerOptions = {}) {
  return [
    defineJob({
      type: BULK_JOB,
      schema: z.object({ type: z.literal(BULK_JOB), projectId: z.string().min(1), jobId: z.string().min(1) }),
      run: (deps, m, meta) => runBulk(deps, m.projectId, m.jobId, options, meta.receiveCount),
    }),
  ];
}
