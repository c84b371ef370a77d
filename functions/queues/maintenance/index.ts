/** Maintenance queue: purges deleted contacts and strips deleted fields. Every job is idempotent. */
import { z } from 'zod';
import { stripField } from '../../../shared/contacts/fields';
import { purgeContact } from '../../../shared/contacts/purge';
import { lambdaEntry } from '../../../shared/http/lambda';
import type { Deps } from '../../../shared/ports';
import { sqsWorker } from '../../../shared/queue/worker';

export const maintenanceMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('contact.purge'), projectId: z.string().min(1), contactId: z.string().min(1) }),
  z.object({ type: z.literal('field.strip'), projectId: z.string().min(1), path: z.string().min(1) }),
]);

export type MaintenanceMessage = z.infer<typeof maintenanceMessage>;

export async function runMaintenance(deps: Deps, message: MaintenanceMessage): Promise<void> {
  switch (message.type) {
    case 'contact.purge':
      await purgeContact(deps, message.projectId, message.contactId);
      return;
    case 'field.strip':
      await stripField(deps, message.projectId, message.path);
      return;
  }
}

export const createHandler = (deps: Deps) =>
  sqsWorker(maintenanceMessage, (message) => runMaintenance(deps, message));

export const handler = lambdaEntry(createHandler);
