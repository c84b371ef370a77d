/** The success answer of the Stripe webhook (see shared/http/answers.ts). */
import * as z from 'zod/mini';

export const stripeDeliveryAnswer = z.object({
  received: z.literal(true),
  eventId: z.string(),
  type: z.string(),
  result: z.enum(['applied', 'unchanged', 'duplicate', 'ignored']),
});
