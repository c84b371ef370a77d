/**
 * The message of the job that deletes the events of a name: what the jobs worker routes and checks
 * at its cold start; the deletion (`service.ts`) loads on the first message.
 */
import * as z from 'zod/mini';
import { defineJobMessage } from '../jobs/registry';
import '../zod-locale';

export const DELETE_EVENTS_JOB = 'events.deleteByName';

// A type (not an interface) so that it is a QueueMessage.
export type DeleteEventsMessage = {
  readonly type: typeof DELETE_EVENTS_JOB;
  readonly projectId: string;
  readonly name: string;
  /** Events recorded up to this instant are deleted; later ones (tracked meanwhile) stay. */
  readonly before: string;
  readonly jobId: string;
  /** Where the previous message of this job stopped. */
  readonly cursor?: string;
};

/** The deletion job's message, checked when it is enqueued and when it runs (`jobs.ts`). */
export const deleteEventsJobMessage = defineJobMessage<DeleteEventsMessage>({
  type: DELETE_EVENTS_JOB,
  schema: z.object({
    type: z.literal(DELETE_EVENTS_JOB),
    projectId: z.string().check(z.minLength(1)),
    name: z.string().check(z.minLength(1)),
    before: z.iso.datetime(),
    jobId: z.string().check(z.minLength(1)),
    cursor: z.optional(z.string().check(z.minLength(1))),
  }),
});
