/**
 * Background work of campaigns: the fan-out of a send (`fanout.ts`, loaded on the first message),
 * started now or by its schedule.
 */
import { defineJob } from '../jobs/registry';
import type { FanOutOptions } from './fanout';
import { campaignSendJobMessage } from './messages';

/** The campaign jobs; tests pass smaller batches and budgets. */
export function campaignJobs(options: FanOutOptions = {}) {
  let chunks: ReturnType<typeof import('./fanout').fanOutChunks> | undefined;
  return [
    defineJob({
      ...campaignSendJobMessage,
      run: async (deps, m, meta) => {
        const { fanOutChunks, runFanOut, THROTTLED_DELAY_S } = await import('./fanout');
        chunks ??= fanOutChunks(options);
        await runFanOut(deps, chunks, m, meta, options.throttledDelaySeconds ?? THROTTLED_DELAY_S);
      },
    }),
  ] as const;
}

export const jobs = campaignJobs();
