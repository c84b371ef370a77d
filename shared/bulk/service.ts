/**
 * Bulk subscribe, unsubscribe and delete: accepted at once as a queued job, applied by the jobs
 * queue through the contacts service (so `contact.subscribed` / `contact.unsubscribed` are
 * emitted exactly when a flag really changes, and deletes take the usual tombstone + purge path).
 * Unknown ids, including other projects' ids, are reported per id as failures.
 *
 * Contact counters (shared/contacts/stats.ts): a chunk's changes are summed and applied once after
 * its contacts changed, before its checkpoint. A chunk that runs again after a crash finds its
 * contacts changed already and counts nothing for them, so the job's last chunk queues a recount
 * (shared/contacts/recount.ts), which sets the counters exactly.
 */
import type * as z from 'zod/mini';
import { mapLimit, readContactRecords } from '../contacts/batch';
import { StatsDelta } from '../contacts/contribution';
import { requestRecount } from '../contacts/messages';
import { deleteContact, findContact, patchContact } from '../contacts/service';
import { applyStatsDelta } from '../contacts/stats';
import { AppError, notFound } from '../errors';
import { type Chunk, type ChunkOptions, chunkedJob, MOVED_ON } from '../jobs/chunked';
import { enqueue } from '../jobs/registry';
import type { Deps } from '../ports';
import { disabledFailure, jobMayRun } from '../projects/state';
import { bulkJobMessage } from './messages';
import {
  type BulkFailure,
  type BulkJob,
  commitBulkChunk,
  createBulkJob,
  failBulkJob,
  getBulkJob,
  presentBulkJob,
  saveBulkPlan,
  startBulkJob,
} from './repository';
import type { BulkType } from './schemas';

type BulkMessage = z.infer<typeof bulkJobMessage.schema>;

export interface BulkWorkerOptions extends ChunkOptions {
  /** Ids per chunk (one plan and one commit each). @default 100 */
  readonly chunkSize?: number;
  /** Contacts changed in parallel. @default 10 */
  readonly concurrency?: number;
}

/** Creates the job (ids deduplicated, order kept) and queues it. */
/** `GET /contacts/bulk/{jobId}`: the job as the API shows it; 404 when the project has no such job. */
export async function getBulk(deps: Pick<Deps, 'store' | 'clock'>, projectId: string, jobId: string) {
  const job = await getBulkJob(deps, projectId, jobId);
  if (!job) throw notFound('Bulk job');
  return presentBulkJob(job);
}

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

/** A chunk of ids, with the results its checkpoint commits. */
interface BulkChunk extends Chunk<BulkJob> {
  readonly from: number;
  readonly succeeded: number;
  readonly failures: readonly BulkFailure[];
}

/**
 * The bulk job as a chunked job (shared/jobs/chunked.ts), resumed from the job's checkpoint. A
 * chunk runs in two recorded steps (repository.ts): its plan, then its results with the
 * checkpoint.
 */
export function bulkChunks(options: BulkWorkerOptions = {}) {
  const size = options.chunkSize ?? 100;
  return chunkedJob(bulkJobMessage, {
    budget: options,
    async load(deps: Deps, m: BulkMessage): Promise<BulkJob | undefined> {
      const job = await getBulkJob(deps, m.projectId, m.jobId);
      return job && (job.status === 'queued' || job.status === 'processing') ? job : undefined;
    },
    async start(deps, job): Promise<BulkJob | undefined> {
      // A disabled project's job fails (PROJECT_DISABLED); a deleted one's stops.
      if (!(await jobMayRun(deps, job.projectId))) return undefined;
      if (job.status !== 'queued') return job;
      return (await startBulkJob(deps, job)) ? { ...job, status: 'processing' } : undefined;
    },
    async process(deps, job): Promise<BulkChunk | typeof MOVED_ON> {
      const from = job.processed;
      const ids = job.contactIds.slice(from, from + size);
      let found: ReadonlySet<string>;
      if (job.plan && job.plan.from === from) {
        found = new Set(job.plan.found);
      } else {
        const live = await readContactRecords(deps, job.projectId, ids);
        const plan = ids.filter((id) => live.get(id) && !live.get(id)!.deletedAt);
        if (await saveBulkPlan(deps, job, from, plan)) {
          found = new Set(plan);
        } else {
          // Another runner saved this chunk's plan or moved on: follow the job, not this message.
          const latest = await getBulkJob(deps, job.projectId, job.jobId);
          if (latest?.status !== 'processing' || latest.processed !== from || latest.plan?.from !== from)
            return MOVED_ON;
          found = new Set(latest.plan.found);
        }
      }
      const counted = new StatsDelta();
      const outcomes = await mapLimit(ids, options.concurrency ?? 10, (id) =>
        found.has(id)
          ? apply(deps, job.projectId, job.type, id, counted)
          : Promise.resolve<Outcome>('not_found'),
      );
      if (!counted.isEmpty) await applyStatsDelta(deps, job.projectId, counted);
      const failures: BulkFailure[] = [];
      ids.forEach((contactId, i) => {
        if (outcomes[i] !== 'ok') failures.push({ contactId, reason: outcomes[i]! });
      });
      const next = from + ids.length;
      if (next >= job.contactIds.length) await requestRecount(deps, job.projectId);
      return {
        next: { ...job, processed: next, plan: undefined },
        items: ids.length,
        done: next >= job.contactIds.length,
        from,
        succeeded: ids.length - failures.length,
        failures,
      };
    },
    checkpoint: (deps, job, chunk) =>
      commitBulkChunk(deps, job, {
        from: chunk.from,
        next: chunk.next.processed,
        succeeded: chunk.succeeded,
        failures: chunk.failures,
        done: chunk.done,
        at: deps.clock.now().toISOString(),
      }),
    continuation: (m) => ({ projectId: m.projectId, jobId: m.jobId }),
    failure: {
      record: (deps, job, failure) => failBulkJob(deps, job, failure, deps.clock.now().toISOString()),
      fatal: disabledFailure,
      lastAttempt: {
        code: 'INTERNAL_ERROR',
        message: 'The job stopped after repeated failures; ids counted so far were applied',
      },
    },
  });
}

type Outcome = 'ok' | 'not_found';

/**
 * Applies one id the plan found, its counter changes summed into `counted`. Idempotent: running it
 * again changes nothing more.
 */
async function apply(
  deps: Deps,
  projectId: string,
  type: BulkJob['type'],
  contactId: string,
  counted: StatsDelta,
): Promise<Outcome> {
  try {
    if (type === 'delete') {
      await deleteContact(deps, projectId, contactId, { stats: counted });
      return 'ok';
    }
    const subscribed = type === 'subscribe';
    const current = await findContact(deps, projectId, contactId);
    if (!current) return 'not_found';
    // Already as asked: no write, no event.
    if (current.subscribed === subscribed) return 'ok';
    await patchContact(deps, projectId, contactId, { subscribed, source: 'bulk', stats: counted });
    return 'ok';
  } catch (error) {
    if (error instanceof AppError && error.statusCode === 404) {
      // A delete whose contact is gone (an earlier run of this chunk, or someone else) succeeded.
      return type === 'delete' ? 'ok' : 'not_found';
    }
    throw error;
  }
}
