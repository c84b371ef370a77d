/** Input schemas of the template endpoints; handlers, tests and docs reuse them. */
import * as z from 'zod/mini';
import { emailSchema } from '../contacts/email';
import { flatBadRequest } from '../errors';
import { offsetPageQuery, parse, uuidId } from '../http/validation';
import { MAX_SUBJECT_CHARS } from '../rendering/limits';

export const TEMPLATE_TYPES = ['TRANSACTIONAL', 'MARKETING', 'HEADLESS'] as const;
export const templateTypeSchema = z.enum(TEMPLATE_TYPES);
export type TemplateType = z.infer<typeof templateTypeSchema>;

export const MAX_NAME_CHARS = 200;
export const MAX_DESCRIPTION_CHARS = 2000;
/** A template is one DynamoDB item (400 KB at most); the body gets most of it. */
export const MAX_TEMPLATE_BODY_BYTES = 256 * 1024;

const NO_NEWLINE = /^[^\r\n]*$/;

const name = z
  .string()
  .check(z.trim(), z.minLength(1, { message: 'name must not be empty' }), z.maxLength(MAX_NAME_CHARS));
const description = z.string().check(z.maxLength(MAX_DESCRIPTION_CHARS));
export const subjectSchema = z
  .string()
  .check(
    z.minLength(1, { message: 'subject must not be empty' }),
    z.maxLength(MAX_SUBJECT_CHARS),
    z.regex(NO_NEWLINE, { message: 'subject must not contain newline characters' }),
  );
const body = z.string().check(
  z.minLength(1, { message: 'body must not be empty' }),
  z.refine((s) => Buffer.byteLength(s) <= MAX_TEMPLATE_BODY_BYTES, {
    message: `body must be at most ${MAX_TEMPLATE_BODY_BYTES} bytes`,
  }),
);
/** A display name that can never break a header line. */
export const displayNameSchema = z
  .string()
  .check(z.maxLength(256), z.regex(/^[^\r\n\0]*$/, { message: 'names must not contain line breaks' }));

export const createTemplateSchema = z.object({
  name,
  description: z.nullish(description),
  subject: subjectSchema,
  body,
  from: emailSchema,
  fromName: z.nullish(displayNameSchema),
  replyTo: z.nullish(emailSchema),
  type: z._default(templateTypeSchema, 'MARKETING'),
});
export type CreateTemplateInput = z.infer<typeof createTemplateSchema>;

/** Fields a create must carry (missing ones are the flat 400, not a 422). */
export const REQUIRED_ON_CREATE = ['name', 'subject', 'body', 'from'] as const;

/**
 * The `POST /templates` body: a missing required field (absent, null or empty) is the
 * flat 400 naming them all; any other problem is a 422. A body that is no object counts as `{}`.
 */
export function parseCreateTemplate(raw: unknown): CreateTemplateInput {
  const body =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const missing = REQUIRED_ON_CREATE.filter(
    (f) => body[f] === undefined || body[f] === null || body[f] === '',
  );
  if (missing.length > 0)
    throw flatBadRequest(`${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} required`);
  return parse(createTemplateSchema, body);
}

/** PATCH: any subset; null clears an optional field. */
export const patchTemplateSchema = z.object({
  name: z.optional(name),
  description: z.nullish(description),
  subject: z.optional(subjectSchema),
  body: z.optional(body),
  from: z.optional(emailSchema),
  fromName: z.nullish(displayNameSchema),
  replyTo: z.nullish(emailSchema),
  type: z.optional(templateTypeSchema),
});
export type PatchTemplateInput = z.infer<typeof patchTemplateSchema>;

export const templateIdSchema = z.object({ id: uuidId('Template id must be a UUID') });

export const TEMPLATE_SORTS = ['name', 'createdAt', 'updatedAt'] as const;
export type TemplateSort = (typeof TEMPLATE_SORTS)[number];

export const listTemplatesQuerySchema = z.object({
  ...offsetPageQuery,
  type: z.optional(templateTypeSchema),
  search: z.optional(z.string().check(z.trim(), z.maxLength(200))),
  // Unknown sort or direction values fall back to the defaults, they are not errors.
  sort: z.pipe(
    z.optional(z.string()),
    z.transform(
      (s): TemplateSort => (TEMPLATE_SORTS.includes(s as TemplateSort) ? (s as TemplateSort) : 'createdAt'),
    ),
  ),
  dir: z.pipe(
    z.optional(z.string()),
    z.transform((d): 'asc' | 'desc' => (d === 'asc' ? 'asc' : 'desc')),
  ),
});
export type ListTemplatesQuery = z.infer<typeof listTemplatesQuerySchema>;
