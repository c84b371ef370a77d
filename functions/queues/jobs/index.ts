/**
 * The jobs queue worker: every background job of the service, dispatched by message `type`.
 * Add a domain's jobs (and any normalizer for foreign message shapes) to the lists below.
 */
import { contactJobs } from '../../../shared/contacts/jobs';
import { lambdaEntry } from '../../../shared/http/lambda';
import { type JobDef, jobsWorker, type Normalizer } from '../../../shared/jobs/registry';
import type { Deps } from '../../../shared/ports';

export const jobs: readonly JobDef[] = [...contactJobs] as readonly JobDef[];

export const normalizers: readonly Normalizer[] = [];

export const createHandler = (deps: Deps) => jobsWorker(deps, jobs, normalizers);

export const handler = lambdaEntry(createHandler);
