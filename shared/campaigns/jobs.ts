/** Background work of campaigns: the fan-out of a send (`fanout.ts`), started now or by its schedule. */
import { defineJob } from '../jobs/registry';
import { type FanOutOptions, fanOutChunks, runFanOut, THROTTLED_DELAY_S } from './fanout';
import { campaignSendJobMessage } from './messages';

/** The campaign jobs; tests pass smaller batches and budgets. */
export function campaignJobs(options: FanOutOptions = {}) {
  const chunks = fanOutChunks(options);
  return [
    defineJob({
      ...campaignSendJobMessage,
      run: (deps, m, meta) =>
        runFanOut(deps, chunks, m, meta, options.throttledDelaySeconds ?? THROTTLED_DELAY_S),
    }),
  ] as const;
}

export const jobs = campaignJobs();
