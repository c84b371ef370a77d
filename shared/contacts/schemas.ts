/** Input schemas of the contact endpoints; handlers, tests and docs reuse them. */
import * as z from 'zod';
import { flatBadRequest } from '../errors';
import { pageLimitQuery, parse } from '../http/validation';

export const emailSchema = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ message: 'Invalid email address' }));

export const contactIdSchema = z.object({ id: z.uuid({ message: 'Contact id must be a UUID' }) });

/** Import and bulk job ids (spec, Status codes: a non-UUID path id is 422). */
export const jobIdSchema = z.object({ jobId: z.uuid({ message: 'Job id must be a UUID' }) });

/** A custom field's path as the route names it (`/contacts/fields/{field}`); the service checks it. */
export const fieldParamSchema = z.object({ field: z.string() });

export const upsertContactSchema = z.object({
  email: emailSchema,
  subscribed: z.boolean().optional(),
  data: z.unknown().optional(),
});

/**
 * The `POST /contacts` body. A missing email (absent, null or empty, or no object at all) is the
 * spec's flat 400 `{error: "email is required"}`; any other problem is a 422.
 */
export function parseUpsertContact(body: unknown): z.output<typeof upsertContactSchema> {
  const email = isObject(body) ? body.email : undefined;
  if (email === undefined || email === null || email === '') throw flatBadRequest('email is required');
  return parse(upsertContactSchema, body);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

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

export const listContactsQuerySchema = z
  .object({
    limit: pageLimitQuery,
    cursor: z.string().max(2048).optional(),
    search: z.string().trim().max(254).optional(),
    subscribed: booleanQuery.optional(),
    // Unknown values fall back to the defaults (spec), they are not errors.
    sort: z
      .string()
      .optional()
      .transform((s) => (s === 'email' ? 'email' : 'createdAt') as 'email' | 'createdAt'),
    dir: z.string().optional(),
  })
  .transform((q) => ({
    ...q,
    // An empty search is no search.
    search: q.search || undefined,
    // Newest first by creation, alphabetical by email, unless `dir` says otherwise.
    dir: (q.dir === 'asc' || q.dir === 'desc' ? q.dir : q.sort === 'email' ? 'asc' : 'desc') as
      | 'asc'
      | 'desc',
  }));

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
