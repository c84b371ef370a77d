/** Background jobs of the events domain. Idempotent: a redelivered message deletes nothing twice. */
import { defineJob } from '../jobs/registry';
import { dispatchEventJobMessage, runDispatch } from './emit';
import { deleteEventsJobMessage } from './messages';
import { tallyJob } from './tally';

/** Deletes the events of a name recorded up to the request, a bounded share per message. */
export const deleteEventsJob = defineJob({
  ...deleteEventsJobMessage,
  run: async (deps, m) => {
    const { runEventDeletion } = await import('./service');
    await runEventDeletion(deps, m);
  },
});

/** Stores an emitted event (if its emitter stopped first) and calls the listeners it matched. */
export const dispatchEventJob = defineJob({
  ...dispatchEventJobMessage,
  run: async (deps, m, meta) => {
    await runDispatch(deps, m, meta);
  },
});

export const jobs = [deleteEventsJob, dispatchEventJob, tallyJob];
