/** Background jobs of the contacts domain. Both are idempotent. */
import * as z from 'zod';
import { defineJob } from '../jobs/registry';
import { stripField } from './fields';
import { purgeContact } from './purge';

export const contactJobs = [
  defineJob({
    type: 'contact.purge',
    schema: z.object({
      type: z.literal('contact.purge'),
      projectId: z.string().min(1),
      contactId: z.string().min(1),
    }),
    run: async (deps, m) => {
      await purgeContact(deps, m.projectId, m.contactId);
    },
  }),
  defineJob({
    type: 'field.strip',
    schema: z.object({
      type: z.literal('field.strip'),
      projectId: z.string().min(1),
      path: z.string().min(1),
    }),
    run: async (deps, m) => {
      await stripField(deps, m.projectId, m.path);
    },
  }),
];
