/** Input schemas of the contact endpoints; handlers, tests and docs reuse them. */
import * as z from 'zod/mini';
import { flatBadRequest } from '../errors';
import { pageLimitQuery, parse, uuidId } from '../http/validation';
import { emailSchema } from './email';

export const contactIdSchema = z.object({ id: uuidId('Contact id must be a UUID') });

/** Import and bulk job ids (a non-UUID path id is 422). */
export const jobIdSchema = z.object({ jobId: uuidId('Job id must be a UUID') });

/**
 * A custom field's path as the route names it (`/contacts/fields/{field}`); the service checks
 * it. Bounded here so an over-long one is refused before any read: no field path is longer than
 * `data.` and five keys of 100 characters.
 */
export const MAX_FIELD_PATH_CHARS = 512;
const tooLong = `field must be at most ${MAX_FIELD_PATH_CHARS} characters`;
const fieldPath = z.string().check(z.maxLength(MAX_FIELD_PATH_CHARS, { message: tooLong }));
export const fieldParamSchema = z.object({ field: fieldPath });

export const upsertContactSchema = z.object({
  email: emailSchema,
  subscribed: z.optional(z.boolean()),
  data: z.optional(z.unknown()),
});

/**
 * The `POST /contacts` body. A missing email (absent, null or empty, or no object at all) is the
 * flat 400 `{error: "email is required"}`; any other problem is a 422.
 */
export function parseUpsertContact(body: unknown): z.output<typeof upsertContactSchema> {
  const email = isObject(body) ? body.email : undefined;
  if (email === undefined || email === null || email === '') throw flatBadRequest('email is required');
  return parse(upsertContactSchema, body);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const patchContactSchema = z.object({
  email: z.optional(emailSchema),
  subscribed: z.optional(z.boolean()),
  snoozedUntil: z.optional(z.nullable(z.iso.datetime({ offset: true }))),
  data: z.optional(z.unknown()),
});

export const lookupSchema = z.object({
  emails: z
    .array(z.string().check(z.maxLength(254)))
    .check(z.maxLength(500, { message: 'At most 500 emails per lookup' })),
});

const booleanQuery = z.pipe(
  z.enum(['true', 'false']),
  z.transform((v) => v === 'true'),
);

export const listContactsQuerySchema = z.pipe(
  z.object({
    limit: pageLimitQuery,
    cursor: z.optional(z.string().check(z.maxLength(2048))),
    search: z.optional(z.string().check(z.trim(), z.maxLength(254))),
    subscribed: z.optional(booleanQuery),
    // Unknown values fall back to the defaults, they are not errors.
    sort: z.pipe(
      z.optional(z.string()),
      z.transform((s) => (s === 'email' ? 'email' : 'createdAt') as 'email' | 'createdAt'),
    ),
    dir: z.optional(z.string()),
  }),
  z.transform((q) => ({
    ...q,
    // An empty search is no search.
    search: q.search || undefined,
    // Newest first by creation, alphabetical by email, unless `dir` says otherwise.
    dir: (q.dir === 'asc' || q.dir === 'desc' ? q.dir : q.sort === 'email' ? 'asc' : 'desc') as
      | 'asc'
      | 'desc',
  })),
);

const fieldValuesLimit = z.pipe(
  z.pipe(
    z.string().check(z.regex(/^\d+$/, { message: 'limit must be a positive integer' })),
    z.transform(Number),
  ),
  z.number().check(z.int(), z.gte(1)),
);

export const fieldValuesQuerySchema = z.object({
  limit: z.pipe(
    z.optional(
      z.pipe(
        fieldValuesLimit,
        z.transform((n) => Math.min(n, 1000)),
      ),
    ),
    z.transform((n) => n ?? 100),
  ),
});
