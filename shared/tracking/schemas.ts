/** The `/v1/track` body (also `/events/track`); handlers, tests and docs reuse it. */
import * as z from 'zod/mini';
import { emailSchema } from '../contacts/email';
import { eventNameSchema } from '../events/names';

export const trackSchema = z.object({
  email: emailSchema,
  event: eventNameSchema,
  subscribed: z.optional(z.boolean()),
  /** Custom data: checked by `parseDataPatch`. */
  data: z.optional(z.unknown()),
});

export type TrackBody = z.infer<typeof trackSchema>;
