/** Background jobs of the events domain. Idempotent: a redelivered message deletes nothing twice. */
import * as z from 'zod';
import { defineJob } from '../jobs/registry';
import { DELETE_EVENTS_JOB, type DeleteEventsMessage, runEventDeletion } from './service';

export const eventJobs = [
  defineJob<DeleteEventsMessage>({
    type: DELETE_EVENTS_JOB,
    schema: z.object({
      type: z.literal(DELETE_EVENTS_JOB),
      projectId: z.string().min(1),
      name: z.string().min(1),
      before: z.iso.datetime(),
      jobId: z.string().min(1),
      cursor: z.string().min(1).optional(),
    }),
    run: async (deps, m) => {
      await runEventDeletion(deps, m);
    },
  }),
];
