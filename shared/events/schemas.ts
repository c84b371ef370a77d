/** Input schemas of the events endpoints; handlers, tests and docs reuse them. */
import * as z from 'zod/mini';
import { pageLimitQuery, uuidId } from '../http/validation';
import { eventNameSchema } from './names';

export const listEventsQuerySchema = z.object({
  limit: pageLimitQuery,
  cursor: z.optional(z.string().check(z.maxLength(2048))),
  name: z.optional(eventNameSchema),
});

export const contactEventsQuerySchema = z.object({
  limit: pageLimitQuery,
  cursor: z.optional(z.string().check(z.maxLength(2048))),
});

export const contactIdParamSchema = z.object({
  contactId: uuidId('Contact id must be a UUID'),
});

export const eventNameParamSchema = z.object({ eventName: eventNameSchema });
