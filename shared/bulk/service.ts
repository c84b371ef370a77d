/**
 * Bulk subscribe, unsubscribe and delete: accepted at once as a queued job, applied by the jobs
 * queue through the contacts service (so `contact.subscribed` / `contact.unsubscribed` are
 * emitted exactly when a flag really changes, and deletes take the usual tombstone + purge path).
 * Unknown ids, including other projects' ids, are reported per id as failures.
 */
import * as z from 'zod';
import { mapLimit, readContactRecords } from '../contacts/batch';
import { deleteContact, findContact, patchContact } from '../contacts/service';
import { AppError } from '../errors';
import { defineJobMessage, enqueue, type JobMeta } from '../jobs/registry';
import type { Deps } from '../ports';
import {
  type BulkFailure,
  type BulkJob,
  commitBulkChunk,
  createBulkJob,
  failBulkJob,
  getBulkJob,
  saveBulkPlan,
  startBulkJob,
} from './repository';
import type { BulkType } from './schemas';

export const BULK_JOB = 'bulk.run';

/** The message that starts a bulk job, and each continuation of it: which job to run or resume. */
export const bulkJobMessage = defineJobMessage({
  type: BULK_JOB,
  schema: z.object({ type: z.literal(BULK_JOB), projectId: z.string().min(1), jobId: z.string().min(1) }),
});

export interface BulkWorkerOptions {
  /** Ids per chunk (one plan and one commit each). @default 100 */
  readonly chunkSize?: number;
  /** Work per message before a continuation takes over. @default 20000 */
  readonly budgetMs?: number;
  /** Contacts changed in parallel. @default 10 */
  readonly concurrency?: number;
}

/** Creates the job (ids deduplicated, order kept) and queues it. */
export async function startBulk(
  deps: Deps,
  projectId: string,
  type: BulkType,
  contactIds: readonly string[],
) {
  const job = await createBulkJob(deps, {
    projectId,
    jobId: deps.ids.uuid(),
    type,
    contactIds: [...new Set(contactIds)],
    createdAt: deps.clock.now().toISOString(),
  });
  await enqueue(deps, bulkJobMessage, { projectId, jobId: job.jobId });
  return { jobId: job.jobId, status: job.status };
}

/**
 * Runs (or resumes, from the job's checkpoint) one bulk job for one message. On the message's
 * last attempt (`attempt`, the worker's `meta`) a failure also fails the job.
 */
export async function runBulk(
  deps: Deps,
  projectId: string,
  jobId: string,
  options: BulkWorkerOptions = {},
  attempt: Pick<JobMeta, 'lastAttempt'> = { lastAttempt: false },
): Promise<void> {
  const started = performance.now();
  const found0 = await getBulkJob(deps, projectId, jobId);
  if (!found0 || found0.status === 'completed' || found0.status === 'failed') return;
  let job: BulkJob = found0;
  try {
    if (job.status === 'queued') {
      if (!(await startBulkJob(deps, job))) return;
      job = { ...job, status: 'processing' };
    }
    const size = options.chunkSize ?? 100;
    for (;;) {
      const from: number = job.processed;
      const ids: string[] = job.contactIds.slice(from, from + size);
      let found: ReadonlySet<string>;
      if (job.plan && job.plan.from === from) {
        found = new Set(job.plan.found);
      } else {
        const live = await readContactRecords(deps, projectId, ids);
        const plan = ids.filter((id) => live.get(id) && !live.get(id)!.deletedAt);
        if (!(await saveBulkPlan(deps, job, from, plan))) {
          // Another runner saved this chunk's plan or moved on: follow the job, not this message.
          const latest = await getBulkJob(deps, projectId, jobId);
          if (latest?.status !== 'processing' || latest.processed !== from || latest.plan?.from !== from)
            return;
          job = latest;
          continue;
        }
        found = new Set(plan);
      }
      const outcomes = await mapLimit(ids, options.concurrency ?? 10, (id) =>
        found.has(id) ? apply(deps, projectId, job.type, id) : Promise.resolve<Outcome>('not_found'),
      );
      const failures: BulkFailure[] = [];
      ids.forEach((contactId, i) => {
        if (outcomes[i] !== 'ok') failures.push({ contactId, reason: outcomes[i]! });
      });
      const next: number = from + ids.length;
      const done = next >= job.contactIds.length;
      const committed = await commitBulkChunk(deps, job, {
        from,
        next,
        succeeded: ids.length - failures.length,
        failures,
        done,
        at: deps.clock.now().toISOString(),
      });
      if (!committed || done) return;
      job = { ...job, processed: next, plan: undefined };
      if (performance.now() - started > (options.budgetMs ?? 20_000)) {
        await enqueue(deps, bulkJobMessage, { projectId, jobId });
        return;
      }
    }
  } catch (error) {
    if (attempt.lastAttempt) {
      await failBulkJob(
        deps,
        job,
        {
          code: 'INTERNAL_ERROR',
          message: 'The job stopped after repeated failures; ids counted so far were applied',
        },
        deps.clock.now().toISOString(),
      );
    }
    throw error;
  }
}

type Outcome = 'ok' | 'not_found';

/** Applies one id the plan found. Idempotent: running it again changes nothing more. */
async function apply(
  deps: Deps,
  projectId: string,
  type: BulkJob['type'],
  contactId: string,
): Promise<Outcome> {
  try {
    if (type === 'delete') {
      await deleteContact(deps, projectId, contactId);
      return 'ok';
    }
    const subscribed = type === 'subscribe';
    const current = await findContact(deps, projectId, contactId);
    if (!current) return 'not_found';
    // Already as asked: no write, no event.
    if (current.subscribed === subscribed) return 'ok';
    await patchContact(deps, projectId, contactId, { subscribed, source: 'bulk' });
    return 'ok';
  } catch (error) {
    if (error instanceof AppError && error.statusCode === 404) {
      // A delete whose contact is gone (an earlier run of this chunk, or someone else) succeeded.
      return type === 'delete' ? 'ok' : 'not_found';
    }
    throw error;
  }
}
