/**
 * Bulk jobs: one item per job with its ids, counts, failures and checkpoint (at most 1,000 ids,
 * so everything fits one item). Only this module knows the key.
 *
 * A chunk runs in two recorded steps: its plan (which ids exist, read before anything changes)
 * is saved on the job, then its results are committed with the checkpoint in one conditional
 * update. A chunk that runs again after a crash reuses the saved plan, so an id the first run
 * deleted (and the purge removed) still counts as a success, not as unknown.
 */
import { failJobItem, type JobStatus } from '../jobs/repository';
import type { Deps } from '../ports';
import type { StoreDeps } from '../store/store';
import { keys } from '../table';
import type { BulkType } from './schemas';

export type BulkStatus = JobStatus;

export interface BulkFailure {
  readonly contactId: string;
  readonly reason: string;
}

export interface BulkJob {
  readonly jobId: string;
  readonly projectId: string;
  readonly type: BulkType;
  readonly status: BulkStatus;
  readonly contactIds: readonly string[];
  readonly processed: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly errors: readonly BulkFailure[];
  /** The saved plan of the chunk starting at `processed`, if any. */
  readonly plan?: { readonly from: number; readonly found: readonly string[] };
  readonly createdAt: string;
  readonly completedAt: string | null;
  readonly error?: { readonly code: string; readonly message: string };
}

export const BULK_RETENTION_DAYS = 30;

export async function createBulkJob(
  deps: StoreDeps,
  input: {
    projectId: string;
    jobId: string;
    type: BulkType;
    contactIds: readonly string[];
    createdAt: string;
  },
): Promise<BulkJob> {
  const job: BulkJob = {
    jobId: input.jobId,
    projectId: input.projectId,
    type: input.type,
    status: 'queued',
    contactIds: input.contactIds,
    processed: 0,
    succeeded: 0,
    failed: 0,
    errors: [],
    createdAt: input.createdAt,
    completedAt: null,
  };
  await deps.store.write({
    put: {
      ...keys.bulkJob(input.projectId, input.jobId),
      entity: 'bulkJob',
      ...job,
      expiresAt: Math.floor(Date.parse(input.createdAt) / 1000) + BULK_RETENTION_DAYS * 24 * 3600,
    },
    if: 'attribute_not_exists(pk)',
  });
  return job;
}

export async function getBulkJob(
  deps: StoreDeps & Pick<Deps, 'clock'>,
  projectId: string,
  jobId: string,
): Promise<BulkJob | undefined> {
  const item = await deps.store.get(keys.bulkJob(projectId, jobId), { consistent: true });
  if (!item || Number(item.expiresAt) * 1000 < deps.clock.now().getTime()) return undefined;
  return {
    jobId: String(item.jobId),
    projectId: String(item.projectId),
    type: item.type as BulkType,
    status: item.status as BulkStatus,
    contactIds: item.contactIds as string[],
    processed: Number(item.processed),
    succeeded: Number(item.succeeded),
    failed: Number(item.failed),
    errors: (item.errors ?? []) as BulkFailure[],
    ...(item.plan ? { plan: item.plan as BulkJob['plan'] } : {}),
    createdAt: String(item.createdAt),
    completedAt: typeof item.completedAt === 'string' ? item.completedAt : null,
    ...(item.error ? { error: item.error as BulkJob['error'] } : {}),
  };
}

export async function startBulkJob(deps: StoreDeps, job: BulkJob): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.bulkJob(job.projectId, job.jobId),
    expression: 'SET #status = :processing',
    if: '#status = :queued',
    names: { '#status': 'status' },
    values: { ':processing': 'processing', ':queued': 'queued' },
  });
}

/** Saves the plan of the chunk at `from`, unless one is saved already; false if the job moved on. */
export async function saveBulkPlan(deps: StoreDeps, job: BulkJob, from: number, found: readonly string[]) {
  return deps.store.writeIf({
    update: keys.bulkJob(job.projectId, job.jobId),
    expression: 'SET #plan = :plan',
    if: '#status = :processing AND #processed = :from AND (attribute_not_exists(#plan) OR #plan.#from <> :from)',
    names: {
      '#status': 'status',
      '#plan': 'plan',
      '#from': 'from',
      '#processed': 'processed',
    },
    values: { ':plan': { from, found }, ':processing': 'processing', ':from': from },
  });
}

/** Adds a chunk's results and moves the checkpoint, once; false when another runner did it first. */
export async function commitBulkChunk(
  deps: StoreDeps,
  job: BulkJob,
  chunk: {
    from: number;
    next: number;
    succeeded: number;
    failures: readonly BulkFailure[];
    done: boolean;
    at: string;
  },
): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.bulkJob(job.projectId, job.jobId),
    expression:
      'SET #processed = :next, #errors = list_append(#errors, :failures), #status = :status, completedAt = :completedAt ' +
      'ADD #succeeded :succeeded, #failed :failed REMOVE #plan',
    if: '#status = :processing AND #processed = :from',
    names: {
      '#status': 'status',
      '#plan': 'plan',
      '#processed': 'processed',
      '#errors': 'errors',
      '#succeeded': 'succeeded',
      '#failed': 'failed',
    },
    values: {
      ':next': chunk.next,
      ':failures': chunk.failures,
      ':status': chunk.done ? 'completed' : 'processing',
      ':completedAt': chunk.done ? chunk.at : null,
      ':succeeded': chunk.succeeded,
      ':failed': chunk.failures.length,
      ':processing': 'processing',
      ':from': chunk.from,
    },
  });
}

/** Ends a job that cannot go on; a job that already ended keeps its end. */
export async function failBulkJob(
  deps: StoreDeps,
  job: Pick<BulkJob, 'projectId' | 'jobId'>,
  error: { code: string; message: string },
  at: string,
): Promise<void> {
  await failJobItem(deps, keys.bulkJob(job.projectId, job.jobId), error, at);
}

/** The public shape (docs/imports.md, "Bulk jobs"). */
export function presentBulkJob(job: BulkJob) {
  return {
    jobId: job.jobId,
    type: job.type,
    status: job.status,
    total: job.contactIds.length,
    processed: job.processed,
    succeeded: job.succeeded,
    failed: job.failed,
    errors: job.errors,
    createdAt: job.createdAt,
    completedAt: job.completedAt,
    ...(job.error ? { error: job.error } : {}),
  };
}
