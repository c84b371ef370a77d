import { TALLY_DELAY_S, tallyJobMessage } from '../../../shared/events/tally';
import { enqueue } from '../../../shared/jobs/registry';
import type { LocalTestRuntime } from './local';

/**
 * Lets a project's event counters catch up with its events (shared/events/tally.ts): moves the
 * clock past the tally's delay (which runs the tally its events armed, if it still waits), runs
 * one more tally for the project (the armed one may have run already, before its events settled:
 * tests shrink queue delays but not the clock), and waits for the queue.
 */
export async function settleEventCounts(rt: LocalTestRuntime, projectId = rt.projectId): Promise<void> {
  await rt.runtime.clock.advance(TALLY_DELAY_S);
  await enqueue(rt.deps, tallyJobMessage, { projectId });
  await rt.drain();
}
