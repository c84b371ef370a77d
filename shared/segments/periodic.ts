/**
 * The periodic segment job (manifest schedule `segments-periodic`, every 15 minutes): visits every
 * segment on the sparse periodic list, across projects, and queues its work:
 * - a membership that was never built (its build lost to a crash, or still running): the build
 *   again, once the segment has been unbuilt for longer than a build's first pass may take;
 * - a condition that drifts without contact writes (events, email activity, relative time): one
 *   re-evaluation pass over the project's contacts;
 * - a tracked segment: a compute, which fires its entry and exit events.
 * The visit itself reads the list and each segment (one read each); the work is on the jobs queue.
 * Segments of a disabled project are skipped until it is enabled again.
 */
import { needsFacts, usesRelativeTime } from '../conditions';
import { enqueue } from '../jobs/registry';
import type { Deps } from '../ports';
import { projectState } from '../projects/state';
import { requestBuild } from './build';
import { computeSegmentJobMessage } from './jobs';
import { getSegmentRecord, periodicSegments } from './repository';

/** How long a segment may stay unbuilt before the periodic job starts its build again. */
export const UNBUILT_GRACE_MS = 10 * 60_000;

export interface PeriodicSummary {
  readonly visited: number;
  readonly builds: number;
  readonly computes: number;
}

export async function runPeriodicSegments(
  deps: Pick<Deps, 'store' | 'queue' | 'clock'>,
): Promise<PeriodicSummary> {
  let visited = 0;
  let builds = 0;
  let computes = 0;
  const now = deps.clock.now().getTime();
  for await (const ref of periodicSegments(deps)) {
    // A disabled project's segments wait until it is enabled again (a deleted one's are on their
    // way out): one project read per project per instance and minute (shared/projects/state.ts).
    if ((await projectState(deps, ref.projectId)).state !== 'live') continue;
    const segment = await getSegmentRecord(deps, ref.projectId, ref.segmentId);
    if (segment?.type !== 'DYNAMIC' || !segment.condition) continue;
    visited++;
    if (!segment.builtAt) {
      if (now - Date.parse(segment.updatedAt) >= UNBUILT_GRACE_MS) {
        await requestBuild(deps, segment);
        builds++;
      }
      continue;
    }
    const facts = needsFacts(segment.condition);
    if (facts.events || facts.emails || usesRelativeTime(segment.condition)) {
      await requestBuild(deps, segment, { pass: 2 });
      builds++;
    }
    if (segment.trackMembership) {
      await enqueue(deps, computeSegmentJobMessage, { projectId: ref.projectId, segmentId: ref.segmentId });
      computes++;
    }
  }
  return { visited, builds, computes };
}
