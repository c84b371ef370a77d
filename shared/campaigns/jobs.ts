/**
 * Background work of campaigns: the fan-out of a send (`fanout.ts`, loaded on the first message),
 * started now or by its schedule; and the audience count (`count.ts`, loaded the same way).
 */
import { type ChunkOptions, defineLazyChunkedJob } from '../jobs/chunked';
import { defineJob } from '../jobs/registry';
import type { FanOutOptions } from './fanout';
import { audienceCountJobMessage, campaignSendJobMessage } from './messages';

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

/** The audience count job; tests pass smaller chunks and budgets. */
export function audienceCountJobs(options: ChunkOptions = {}) {
  return [
    defineLazyChunkedJob(audienceCountJobMessage, async () => (await import('./count')).countChunks(options)),
  ] as const;
}

export const jobs = [...campaignJobs(), ...audienceCountJobs()];
