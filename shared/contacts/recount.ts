/**
 * The recount: sets a project's contact counters (stats.ts) to exactly what its live contacts
 * count for, whatever deltas were lost or doubled before (a job's chunk that ran again after a
 * crash, a request that stopped between its contact write and its counter update).
 *
 * Safe against writers that change contacts meanwhile, without stopping them:
 *
 * 1. `contacts.recount` reads the `seq` of every counter item (each delta adds 1 to its item's
 *    `seq`), records them on a run item (`RECOUNT#<runId>`), and queues the scan a second later, so
 *    that every contact write that came before those deltas has reached the contacts index (which
 *    is eventually consistent) by the time the scan reads it.
 * 2. `contacts.recount.scan`, a chunked job (shared/jobs/chunked.ts), reads the live contacts a
 *    page a chunk, oldest first, and sums what they count for, checkpointing the position and
 *    the partial sums on the run item.
 * 3. Its last chunk writes each counter item over, on condition that its `seq` is still the one
 *    read in step 1: an item that a delta changed meanwhile may have been counted before or after
 *    that change, so it is left alone, and the whole recount runs again (a few times at most, each
 *    later than the one before).
 *
 * It is queued by the last chunk of every import, bulk and field-strip job, and by a request whose
 * counter update failed after its contact write. Its cost is a read of the project's contacts
 * index (about 0.06 RCU per contact of 500 bytes).
 */
import type * as z from 'zod/mini';
import { type ChunkOptions, chunkedJob } from '../jobs/chunked';
import { enqueue } from '../jobs/registry';
import type { Deps } from '../ports';
import { contributionOf, ValueSketch } from './contribution';
import { type recountJobMessage, recountScanJobMessage, requestRecount } from './messages';
import { listContactPage } from './repository';
import {
  createRecountRun,
  deleteRecountRun,
  getRecountRun,
  type RecountRun,
  readCounterSeqs,
  saveRecountRun,
  writeRecounted,
} from './stats';

/** Recounts of one request at most, when deltas keep coming in while they run. */
export const MAX_RECOUNT_ATTEMPTS = 5;
/** Wait between reading the counters' `seq`s and scanning the contacts index (seconds). */
const SETTLE_SECONDS = 1;

type ScanMessage = z.infer<typeof recountScanJobMessage.schema>;

/** Step 1 (`contacts.recount`): the counters' `seq`s on a new run item, and the scan queued. */
export async function startRecount(deps: Deps, m: z.infer<typeof recountJobMessage.schema>): Promise<void> {
  const seqs = await readCounterSeqs(deps, m.projectId);
  const run: RecountRun = {
    projectId: m.projectId,
    runId: deps.ids.uuid(),
    position: '',
    attempt: m.attempt ?? 0,
    seqs,
    total: 0,
    subscribed: 0,
    coverage: new Map(),
    values: new Map(),
  };
  await createRecountRun(deps, m.projectId, run, deps.clock.now());
  await enqueue(
    deps,
    recountScanJobMessage,
    { projectId: m.projectId, runId: run.runId },
    { delaySeconds: SETTLE_SECONDS },
  );
}

interface ScanChunk {
  readonly next: RecountRun;
  readonly items: number;
  readonly done: boolean;
}

/** Steps 2 and 3 as a chunked job: `chunkSize` contacts a chunk (1,000 by default). */
export function recountScanChunks(options: ChunkOptions = {}) {
  return chunkedJob(recountScanJobMessage, {
    budget: options,
    load: (deps: Deps, m: ScanMessage) => getRecountRun(deps, m.projectId, m.runId, deps.clock.now()),
    async process(deps, run, m): Promise<ScanChunk> {
      const page = await listContactPage(deps, m.projectId, {
        order: 'createdAt',
        dir: 'asc',
        limit: options.chunkSize ?? 1000,
        cursor: run.position || undefined,
      });
      let { total, subscribed } = run;
      const coverage = new Map(run.coverage);
      const values = new Map(
        [...run.values].map(([path, s]) => [path, new ValueSketch(new Map(s.counts), s.capped)]),
      );
      for (const record of page.records) {
        const c = contributionOf(record);
        if (!c.live) continue;
        total++;
        if (c.subscribed) subscribed++;
        for (const [path, key] of c.leaves) {
          coverage.set(path, (coverage.get(path) ?? 0) + 1);
          let sketch = values.get(path);
          if (!sketch) {
            sketch = new ValueSketch();
            values.set(path, sketch);
          }
          sketch.add(key);
        }
      }
      const next: RecountRun = { ...run, position: page.cursor, total, subscribed, coverage, values };
      const done = !page.hasMore;
      if (done) {
        const { conflicts } = await writeRecounted(deps, m.projectId, run.seqs, next);
        if (conflicts > 0 && run.attempt + 1 < MAX_RECOUNT_ATTEMPTS) {
          await requestRecount(deps, m.projectId, {
            attempt: run.attempt + 1,
            delaySeconds: 2 ** (run.attempt + 1),
          });
        } else if (conflicts > 0) {
          console.warn(
            JSON.stringify({
              level: 'warn',
              message: 'Contact counters changed under every recount; left as they are',
              projectId: m.projectId,
              conflicts,
            }),
          );
        }
      }
      return { next, items: page.records.length, done };
    },
    checkpoint: (deps, run, chunk) =>
      saveRecountRun(deps, run.projectId, run.position, chunk.next, deps.clock.now()),
    finish: (deps, run, m) => deleteRecountRun(deps, m.projectId, run.runId),
    continuation: (m) => ({ projectId: m.projectId, runId: m.runId }),
  });
}
