/**
 * The job that turns a received email into an `email.received` event (`receive.ts`, loaded on the
 * first one), and the normalizer of SES's notifications.
 */
import { defineJob, type Normalizer } from '../jobs/registry';
import { inboundNormalizer, inboundReceivedJobMessage } from './messages';

export const inboundReceivedJob = defineJob({
  ...inboundReceivedJobMessage,
  run: async (deps, m) => {
    const { receiveInboundMail } = await import('./receive');
    await receiveInboundMail(deps, m);
  },
});

export const jobs = [inboundReceivedJob];

export const normalizers: readonly Normalizer[] = [inboundNormalizer];
