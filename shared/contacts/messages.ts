/**
 * The messages of the contacts domain's jobs (`jobs.ts`): what the jobs worker routes and checks at
 * its cold start, and what the contacts service, `deleteField` and the import, bulk, strip and wipe
 * jobs enqueue. The runs (`purge.ts`, `fields.ts`, `recount.ts`) load on their first message.
 */
import * as z from 'zod/mini';
import { defineJobMessage, enqueue } from '../jobs/registry';
import type { Deps } from '../ports';
import '../zod-locale';

export const PURGE_CONTACT_JOB = 'contact.purge';

/** The purge's message (enqueued by the contacts service): which contact. */
export const purgeContactJobMessage = defineJobMessage({
  type: PURGE_CONTACT_JOB,
  schema: z.object({
    type: z.literal(PURGE_CONTACT_JOB),
    projectId: z.string().check(z.minLength(1)),
    contactId: z.string().check(z.minLength(1)),
  }),
});

export const STRIP_FIELD_JOB = 'field.strip';

/** The strip's message (enqueued by `deleteField`); continuations carry a cursor. */
export const stripFieldJobMessage = defineJobMessage({
  type: STRIP_FIELD_JOB,
  schema: z.object({
    type: z.literal(STRIP_FIELD_JOB),
    projectId: z.string().check(z.minLength(1)),
    path: z.string().check(z.minLength(1)),
    /** Where the previous message stopped in the project's contacts (oldest first). */
    cursor: z.optional(z.string().check(z.minLength(1))),
  }),
});

export const RECOUNT_JOB = 'contacts.recount';
export const RECOUNT_SCAN_JOB = 'contacts.recount.scan';

/** Starts a recount of a project's counters; `attempt` counts the recounts a conflict asked for. */
export const recountJobMessage = defineJobMessage({
  type: RECOUNT_JOB,
  schema: z.object({
    type: z.literal(RECOUNT_JOB),
    projectId: z.string().check(z.minLength(1)),
    attempt: z.optional(z.number().check(z.int(), z.gte(0))),
  }),
});

/** Goes on with a recount run (its state is the run item). */
export const recountScanJobMessage = defineJobMessage({
  type: RECOUNT_SCAN_JOB,
  schema: z.object({
    type: z.literal(RECOUNT_SCAN_JOB),
    projectId: z.string().check(z.minLength(1)),
    runId: z.string().check(z.minLength(1)),
  }),
});

/** Queues a recount of the project's counters (recount.ts). */
export async function requestRecount(
  deps: Pick<Deps, 'queue'>,
  projectId: string,
  options: { readonly attempt?: number; readonly delaySeconds?: number } = {},
): Promise<void> {
  await enqueue(
    deps,
    recountJobMessage,
    { projectId, ...(options.attempt ? { attempt: options.attempt } : {}) },
    options.delaySeconds ? { delaySeconds: options.delaySeconds } : {},
  );
}
