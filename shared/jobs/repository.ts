/** Job items (import, bulk): their states, and the write that ends one as failed (the key is the job repository's). */
import type { Key, StoreDeps } from '../store/store';
import type { JobFailure } from './chunked';

/** The states of a job item; `completed` and `failed` are ends. */
export type JobStatus = 'queued' | 'processing' | 'completed' | 'failed';

/**
 * Ends a job that cannot go on with `error`, if it is in one of the states `from` (by default
 * any state but an end: a job that already ended keeps its end); false when it was not.
 */
export async function failJobItem(
  deps: StoreDeps,
  key: Key,
  error: JobFailure,
  at: string,
  from: readonly JobStatus[] = ['queued', 'processing'],
): Promise<boolean> {
  const states = Object.fromEntries(from.map((status, i) => [`:from${i}`, status]));
  return deps.store.writeIf({
    update: key,
    expression: 'SET #status = :failed, #error = :error, completedAt = :at',
    if: `#status IN (${Object.keys(states).join(', ')})`,
    names: { '#status': 'status', '#error': 'error' },
    values: { ':failed': 'failed', ':error': error, ':at': at, ...states },
  });
}
