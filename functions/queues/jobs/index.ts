/**
 * The jobs queue worker: every background job of the service, dispatched by message `type`.
 * Add a domain's jobs (and any normalizer for foreign message shapes) to the lists below.
 */
import { bulkJobs } from '../../../shared/bulk/jobs';
import { contactJobs } from '../../../shared/contacts/jobs';
import { eventJobs } from '../../../shared/events/jobs';
import { lambdaEntry } from '../../../shared/http/lambda';
import { importJobs, s3UploadNormalizer, uploadDeadlineJobs } from '../../../shared/imports/jobs';
import { type JobDef, jobsWorker, type Normalizer } from '../../../shared/jobs/registry';
import type { Deps } from '../../../shared/ports';

export const jobs: readonly JobDef[] = [
  ...contactJobs,
  ...eventJobs,
  ...importJobs(),
  ...uploadDeadlineJobs,
  ...bulkJobs(),
] as readonly JobDef[];

// The upload bucket's "object created" notifications start imports.
export const normalizers: readonly Normalizer[] = [s3UploadNormalizer];

export const createHandler = (deps: Deps) => jobsWorker(deps, jobs, normalizers);

export const handler = lambdaEntry(createHandler);
