/** Input schemas of the template endpoints; handlers, tests and docs reuse them. */
import * as z from 'zod';
import { emailSchema } from '../contacts/schemas';
import { flatBadRequest } from '../errors';
import { parse } from '../http/validation';
import { MAX_SUBJECT_CHARS } from '../rendering';

export const TEMPLATE_TYPES = ['TRANSACTIONAL', 'MARKETING', 'HEADLESS'] as const;
export const templateTypeSchema = z.enum(TEMPLATE_TYPES);
export type TemplateType = z.infer<typeof templateTypeSchema>;

export const MAX_NAME_CHARS = 200;
export const MAX_DESCRIPTION_CHARS = 2000;
/** A template is one DynamoDB item (400 KB at most); the body gets most of it. */
export const MAX_TEMPLATE_BODY_BYTES = 256 * 1024;

const NO_NEWLINE = /^[^\r\n]*$/;

const name = z.string().trim().min(1, { message: 'name must not be empty' }).max(MAX_NAME_CHARS);
const description = z.string().max(MAX_DESCRIPTION_CHARS);
export const subjectSchema = z
  .string()
  .min(1, { message: 'subject must not be empty' })
  .max(MAX_SUBJECT_CHARS)
  .regex(NO_NEWLINE, { message: 'subject must not contain newline characters' });
const body = z
  .string()
  .min(1, { message: 'body must not be empty' })
  .refine((s) => Buffer.byteLength(s) <= MAX_TEMPLATE_BODY_BYTES, {
    message: `body must be at most ${MAX_TEMPLATE_BODY_BYTES} bytes`,
  });
/** A display name that can never break a header line. */
export const displayNameSchema = z
  .string()
  .max(256)
  .regex(/^[^\r\n\0]*$/, { message: 'names must not contain line breaks' });

export const createTemplateSchema = z.object({
  name,
  description: description.nullish(),
  subject: subjectSchema,
  body,
  from: emailSchema,
  fromName: displayNameSchema.nullish(),
  replyTo: emailSchema.nullish(),
  type: templateTypeSchema.default('MARKETING'),
});
export type CreateTemplateInput = z.infer<typeof createTemplateSchema>;

/** Fields a create must carry (missing ones are the spec's flat 400, not a 422). */
export const REQUIRED_ON_CREATE = ['name', 'subject', 'body', 'from'] as const;

/**
 * The `POST /templates` body: a missing required field (absent, null or empty) is the spec's
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
  name: name.optional(),
  description: description.nullish(),
  subject: subjectSchema.optional(),
  body: body.optional(),
  from: emailSchema.optional(),
  fromName: displayNameSchema.nullish(),
  replyTo: emailSchema.nullish(),
  type: templateTypeSchema.optional(),
});
export type PatchTemplateInput = z.infer<typeof patchTemplateSchema>;

export const templateIdSchema = z.object({ id: z.uuid({ message: 'Template id must be a UUID' }) });

const positiveInt = (field: string) =>
  z
    .string()
    .regex(/^\d+$/, { message: `${field} must be a positive integer` })
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(1, { message: `${field} must be at least 1` }),
    );

export const TEMPLATE_SORTS = ['name', 'createdAt', 'updatedAt'] as const;
export type TemplateSort = (typeof TEMPLATE_SORTS)[number];

export const listTemplatesQuerySchema = z.object({
  page: positiveInt('page')
    .optional()
    .transform((n) => n ?? 1),
  // Larger page sizes are clamped to 100, as cursor lists do.
  pageSize: positiveInt('pageSize')
    .transform((n) => Math.min(n, 100))
    .optional()
    .transform((n) => n ?? 20),
  type: templateTypeSchema.optional(),
  search: z.string().trim().max(200).optional(),
  // Unknown sort or direction values fall back to the defaults (spec), they are not errors.
  sort: z
    .string()
    .optional()
    .transform(
      (s): TemplateSort => (TEMPLATE_SORTS.includes(s as TemplateSort) ? (s as TemplateSort) : 'createdAt'),
    ),
  dir: z
    .string()
    .optional()
    .transform((d): 'asc' | 'desc' => (d === 'asc' ? 'asc' : 'desc')),
});
export type ListTemplatesQuery = z.infer<typeof listTemplatesQuerySchema>;
