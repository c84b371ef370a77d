/** Input schemas of the events endpoints; handlers, tests and docs reuse them. */
import * as z from 'zod';
import { eventNameSchema } from './names';

const cursorLimit = z
  .string()
  .regex(/^\d+$/, { message: 'limit must be a positive integer' })
  .transform(Number)
  .pipe(z.number().int().min(1, { message: 'limit must be at least 1' }))
  // The spec clamps larger page sizes to 100 rather than refusing them.
  .transform((n) => Math.min(n, 100))
  .optional()
  .transform((n) => n ?? 20);

export const listEventsQuerySchema = z.object({
  limit: cursorLimit,
  cursor: z.string().max(2048).optional(),
  name: eventNameSchema.optional(),
});

export const contactEventsQuerySchema = z.object({
  limit: cursorLimit,
  cursor: z.string().max(2048).optional(),
});

export const contactIdParamSchema = z.object({
  contactId: z.uuid({ message: 'Contact id must be a UUID' }),
});

export const eventNameParamSchema = z.object({ eventName: eventNameSchema });
