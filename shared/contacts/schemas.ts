/** Input schemas of the contact endpoints; handlers, tests and docs reuse them. */
import * as z from 'zod';

export const emailSchema = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ message: 'Invalid email address' }));

export const contactIdSchema = z.object({ id: z.uuid({ message: 'Contact id must be a UUID' }) });

/** Import and bulk job ids (spec, Status codes: a non-UUID path id is 422). */
export const jobIdSchema = z.object({ jobId: z.uuid({ message: 'Job id must be a UUID' }) });

export const upsertContactSchema = z.object({
  email: emailSchema,
  subscribed: z.boolean().optional(),
  data: z.unknown().optional(),
});

export const patchContactSchema = z.object({
  email: emailSchema.optional(),
  subscribed: z.boolean().optional(),
  snoozedUntil: z.iso.datetime({ offset: true }).nullable().optional(),
  data: z.unknown().optional(),
});

export const lookupSchema = z.object({
  emails: z.array(z.string().max(254)).max(500, { message: 'At most 500 emails per lookup' }),
});

const booleanQuery = z.enum(['true', 'false']).transform((v) => v === 'true');

export const listContactsQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^\d+$/, { message: 'limit must be a positive integer' })
    .transform(Number)
    .pipe(z.number().int().min(1, { message: 'limit must be at least 1' }))
    .transform((n) => Math.min(n, 100))
    .optional()
    .transform((n) => n ?? 20),
  cursor: z.string().max(2048).optional(),
  search: z.string().trim().max(254).optional(),
  subscribed: booleanQuery.optional(),
  // Unknown values fall back to the defaults (spec), they are not errors.
  sort: z
    .string()
    .optional()
    .transform((s) => (s === 'email' ? 'email' : 'createdAt') as 'email' | 'createdAt'),
  dir: z.string().optional(),
});

export const fieldValuesQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^\d+$/, { message: 'limit must be a positive integer' })
    .transform(Number)
    .pipe(z.number().int().min(1))
    .transform((n) => Math.min(n, 1000))
    .optional()
    .transform((n) => n ?? 100),
});
