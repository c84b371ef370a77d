/** Input schemas of the events endpoints; handlers, tests and docs reuse them. */
import * as z from 'zod';
import { pageLimitQuery } from '../http/validation';
import { eventNameSchema } from './names';

export const listEventsQuerySchema = z.object({
  limit: pageLimitQuery,
  cursor: z.string().max(2048).optional(),
  name: eventNameSchema.optional(),
});

export const contactEventsQuerySchema = z.object({
  limit: pageLimitQuery,
  cursor: z.string().max(2048).optional(),
});

export const contactIdParamSchema = z.object({
  contactId: z.uuid({ message: 'Contact id must be a UUID' }),
});

export const eventNameParamSchema = z.object({ eventName: eventNameSchema });
