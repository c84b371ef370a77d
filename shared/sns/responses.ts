/** The success answer of `POST /webhooks/sns` (see shared/http/answers.ts). */
import * as z from 'zod/mini';
import { enveloped } from '../http/answers';

export const snsDeliveryAnswer = enveloped(
  z.object({
    type: z.enum(['SubscriptionConfirmation', 'Notification', 'UnsubscribeConfirmation']),
    messageId: z.string(),
    action: z.enum(['enqueued', 'confirmed', 'ignored', 'none']),
  }),
);
