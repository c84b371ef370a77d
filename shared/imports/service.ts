/** Import use cases on the request path (the upload itself is shared/imports/upload.ts). */
import { notFound } from '../errors';
import type { Deps } from '../ports';
import { getImportJob, listRowErrors, presentImportJob } from './repository';

/** An import job of the project with its first row errors; 404 for unknown or other projects' ids. */
export async function getImport(deps: Pick<Deps, 'store' | 'clock'>, projectId: string, jobId: string) {
  const job = await getImportJob(deps, projectId, jobId);
  if (!job) throw notFound('Import job');
  return presentImportJob(job, job.skipped > 0 ? await listRowErrors(deps, job) : []);
}
