/** The job that turns a received email into an `email.received` event, and the normalizer of SES's notifications. */
import { defineJob, type Normalizer } from '../jobs/registry';
import { inboundNormalizer, inboundReceivedJobMessage } from './messages';
import { receiveInboundMail } from './receive';

export const inboundReceivedJob = defineJob({
  ...inboundReceivedJobMessage,
  run: async (deps, m) => {
    await receiveInboundMail(deps, m);
  },
});

export const jobs = [inboundReceivedJob];

export const normalizers: readonly Normalizer[] = [inboundNormalizer];
