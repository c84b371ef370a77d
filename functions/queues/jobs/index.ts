/**
 * The jobs queue worker: every background job of the service, dispatched by message `type`. The
 * job list is derived from the domains' job modules (`shared/jobs/catalog.ts`); nothing is listed
 * here.
 */
import { lambdaEntry } from '../../../shared/http/lambda';
import { allJobs, allNormalizers } from '../../../shared/jobs/catalog';
import { type JobDef, jobsWorker, type Normalizer } from '../../../shared/jobs/registry';
import type { Deps } from '../../../shared/ports';

export const jobs: readonly JobDef[] = allJobs;

// For example the upload bucket's "object created" notifications, which start imports.
export const normalizers: readonly Normalizer[] = allNormalizers;

export const createHandler = (deps: Deps) => jobsWorker(deps, jobs, normalizers);

export const handler = lambdaEntry(createHandler);
