/** The success answers of the contact routes (see shared/http/answers.ts). */
import * as z from 'zod/mini';
import { customData, id, instant, namedRef, nullableInstant } from '../http/answers';

export const contactAnswer = z.object({
  id,
  email: z.string(),
  subscribed: z.boolean(),
  snoozedUntil: nullableInstant,
  data: customData,
  createdAt: instant,
  updatedAt: instant,
});

export const contactListAnswer = z.object({
  data: z.array(contactAnswer),
  cursor: z.nullable(z.string()),
  hasMore: z.boolean(),
  total: z.number(),
});

export const lookupAnswer = z.object({
  found: z.array(z.object({ id, email: z.string(), subscribed: z.boolean() })),
  notFound: z.array(z.string()),
});

const fieldType = z.enum(['string', 'number', 'boolean', 'date', 'object', 'array']);

export const fieldsAnswer = z.object({
  fields: z.array(
    z.object({ field: z.string(), type: fieldType, isCustom: z.boolean(), coverage: z.number() }),
  ),
});

export const fieldValuesAnswer = z.object({
  field: z.string(),
  values: z.array(z.unknown()),
  count: z.number(),
  limit: z.number(),
});

export const fieldUsageAnswer = z.object({
  field: z.string(),
  segments: z.array(namedRef),
  campaigns: z.array(namedRef),
  workflows: z.array(namedRef),
});

export const fieldDeletedAnswer = z.object({ field: z.string(), deleted: z.literal(true) });

const jobStatus = z.enum(['queued', 'processing', 'completed', 'failed']);
/** Why a job failed as a whole (a disabled project, say). */
const jobError = z.optional(z.object({ code: z.string(), message: z.string() }));

export const importJobAnswer = z.object({
  jobId: id,
  status: jobStatus,
  totalRows: z.number(),
  processedRows: z.number(),
  imported: z.number(),
  updated: z.number(),
  skipped: z.number(),
  errors: z.array(z.object({ row: z.number(), email: z.string(), reason: z.string() })),
  createdAt: instant,
  completedAt: nullableInstant,
  error: jobError,
});

export const bulkJobAnswer = z.object({
  jobId: id,
  type: z.enum(['subscribe', 'unsubscribe', 'delete']),
  status: jobStatus,
  total: z.number(),
  processed: z.number(),
  succeeded: z.number(),
  failed: z.number(),
  errors: z.array(z.object({ contactId: z.string(), reason: z.string() })),
  createdAt: instant,
  completedAt: nullableInstant,
  error: jobError,
});

/** `POST /contacts`: the contact, and whether the call created it (201) or updated it (200). */
export const contactUpsertAnswer = z.extend(contactAnswer, {
  _meta: z.object({ isNew: z.boolean(), isUpdate: z.boolean() }),
});

// Named once in the API reference's components, and referred to from every answer that holds one.
z.globalRegistry.add(contactAnswer, { id: 'Contact' });
