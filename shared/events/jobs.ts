/** Background jobs of the events domain. Idempotent: a redelivered message deletes nothing twice. */
import { defineJob } from '../jobs/registry';
import { deleteEventsJobMessage, runEventDeletion } from './service';

/** Deletes the events of a name recorded up to the request, a bounded share per message. */
export const deleteEventsJob = defineJob({
  ...deleteEventsJobMessage,
  run: async (deps, m) => {
    await runEventDeletion(deps, m);
  },
});

export const jobs = [deleteEventsJob];
