/**
 * Background jobs of the contacts domain. Both are idempotent. The contacts service and
 * `fields.ts` enqueue them from here; the runs below reach `purge.ts` and `fields.ts` only when
 * called, so `fields.ts` importing this module back is safe.
 */
import * as z from 'zod';
import { defineJob } from '../jobs/registry';
import { stripField } from './fields';
import { purgeContact } from './purge';

/** Removes a tombstoned contact with its events and email claim. */
export const purgeContactJob = defineJob({
  type: 'contact.purge',
  schema: z.object({
    type: z.literal('contact.purge'),
    projectId: z.string().min(1),
    contactId: z.string().min(1),
  }),
  run: async (deps, m) => {
    await purgeContact(deps, m.projectId, m.contactId);
  },
});

/** Strips a deleted custom field's value from every contact of the project. */
export const stripFieldJob = defineJob({
  type: 'field.strip',
  schema: z.object({
    type: z.literal('field.strip'),
    projectId: z.string().min(1),
    path: z.string().min(1),
  }),
  run: async (deps, m) => {
    await stripField(deps, m.projectId, m.path);
  },
});

export const jobs = [purgeContactJob, stripFieldJob];
