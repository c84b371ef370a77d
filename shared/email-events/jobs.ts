/**
 * The job that applies SES events (`apply.ts`, loaded on the first one), and the normalizer of SES
 * events delivered raw to the queue.
 */
import { defineJob, type Normalizer } from '../jobs/registry';
import { sesEventJobMessage, sesEventNormalizer } from './messages';

export const sesEventJob = defineJob({
  ...sesEventJobMessage,
  run: async (deps, m, meta) => {
    const { applySesEvent } = await import('./apply');
    await applySesEvent(deps, m.event, { deferred: m.deferred === true, redelivered: meta.receiveCount > 1 });
  },
});

export const jobs = [sesEventJob];

export const normalizers: readonly Normalizer[] = [sesEventNormalizer];
