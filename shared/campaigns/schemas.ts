/** Input schemas of the campaign endpoints; handlers, tests and docs reuse them. */
import * as z from 'zod/mini';
import { parseCondition } from '../conditions/parse';
import type { Condition } from '../conditions/schema';
import { emailSchema } from '../contacts/email';
import { badRequest } from '../errors';
import { offsetPageQuery, parse } from '../http/validation';
import {
  displayNameSchema,
  MAX_DESCRIPTION_CHARS,
  MAX_NAME_CHARS,
  MAX_TEMPLATE_BODY_BYTES,
  subjectSchema,
  type TemplateType,
  templateTypeSchema,
} from '../templates/schemas';

export const CAMPAIGN_STATUSES = ['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const AUDIENCE_TYPES = ['ALL', 'SEGMENT', 'FILTERED'] as const;
export type AudienceType = (typeof AUDIENCE_TYPES)[number];

/** The campaign's name and description have the template's bounds. */
export { MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS };
/** A campaign is one DynamoDB item, as a template is: the body gets most of its 400 KB. */
export const MAX_CAMPAIGN_BODY_BYTES = MAX_TEMPLATE_BODY_BYTES;

const name = z
  .string()
  .check(z.trim(), z.minLength(1, { message: 'name must not be empty' }), z.maxLength(MAX_NAME_CHARS));
const description = z.string().check(z.maxLength(MAX_DESCRIPTION_CHARS));
const body = z.string().check(
  z.minLength(1, { message: 'body must not be empty' }),
  z.refine((s) => Buffer.byteLength(s) <= MAX_CAMPAIGN_BODY_BYTES, {
    message: `body must be at most ${MAX_CAMPAIGN_BODY_BYTES} bytes`,
  }),
);

/** The body of `POST /campaigns` and `PUT /campaigns/{id}` as far as zod checks it. */
export const campaignShape = z.object({
  name,
  description: z.nullish(description),
  subject: subjectSchema,
  body,
  from: emailSchema,
  fromName: z.nullish(displayNameSchema),
  replyTo: z.nullish(emailSchema),
  type: z._default(templateTypeSchema, 'MARKETING'),
  audienceType: z.enum(AUDIENCE_TYPES),
  segmentId: z.nullish(z.uuid({ message: 'segmentId must be a UUID' })),
  // Checked by the condition engine below, with the path of each offending filter.
  audienceCondition: z.nullish(z.unknown()),
});

/** A campaign's definition: what create and replace store. */
export interface CampaignInput {
  readonly name: string;
  readonly description: string | null;
  readonly subject: string;
  readonly body: string;
  readonly from: string;
  readonly fromName: string | null;
  readonly replyTo: string | null;
  readonly type: TemplateType;
  readonly audienceType: AudienceType;
  /** Set for SEGMENT audiences only. */
  readonly segmentId: string | null;
  /** Set for FILTERED audiences only: the parsed condition tree. */
  readonly audienceCondition: Condition | null;
}

/**
 * The body of `POST /campaigns` (and of `PUT`, which replaces the whole definition): a field
 * zod refuses is a 422 naming it; then a SEGMENT audience without `segmentId`
 * or a FILTERED one without `audienceCondition` is a 400; the condition is parsed by the
 * condition engine (422 naming the path of each offending filter, under `audienceCondition`).
 * The audience fields of the other types are ignored (stored as null). Read-only fields
 * (`status`, `scheduledFor`, counters) are ignored too.
 */
export function parseCampaignInput(raw: unknown): CampaignInput {
  const input = parse(campaignShape, raw ?? {});
  if (input.audienceType === 'SEGMENT' && !input.segmentId)
    throw badRequest('segmentId is required when audienceType is SEGMENT');
  if (input.audienceType === 'FILTERED' && (input.audienceCondition ?? null) === null)
    throw badRequest('audienceCondition is required when audienceType is FILTERED');
  return {
    name: input.name,
    description: input.description ?? null,
    subject: input.subject,
    body: input.body,
    from: input.from,
    fromName: input.fromName ?? null,
    replyTo: input.replyTo ?? null,
    type: input.type,
    audienceType: input.audienceType,
    segmentId: input.audienceType === 'SEGMENT' ? (input.segmentId ?? null) : null,
    audienceCondition:
      input.audienceType === 'FILTERED' ? parseCondition(input.audienceCondition, 'audienceCondition') : null,
  };
}

export const campaignIdSchema = z.object({ id: z.uuid({ message: 'Campaign id must be a UUID' }) });

/**
 * `POST /campaigns/{id}/send`: `scheduledFor` absent or null sends now; anything else is read
 * the way a JavaScript date parser reads it (`new Date(value)`: an ISO string, a date string, a
 * number of milliseconds). A value it cannot read is a 400, so is a time in the past.
 */
export function parseSendInput(raw: unknown): { scheduledFor: Date | null } {
  const body =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const value = body.scheduledFor;
  if (value === undefined || value === null) return { scheduledFor: null };
  const at = typeof value === 'string' || typeof value === 'number' ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime()))
    throw badRequest('scheduledFor is not a date', { scheduledFor: value as unknown });
  return { scheduledFor: at };
}

/** What `POST /campaigns/{id}/send` reads (for the API reference; `parseSendInput` applies it). */
export const sendCampaignBodySchema = z.object({
  scheduledFor: z.nullish(
    z.union([z.string(), z.number()]).register(z.globalRegistry, {
      description: 'When to send: absent or null sends now; a date string or epoch milliseconds schedules it',
    }),
  ),
});

export const testSendSchema = z.object({ email: emailSchema });

export const CAMPAIGN_SORTS = ['name', 'createdAt', 'updatedAt'] as const;
export type CampaignSort = (typeof CAMPAIGN_SORTS)[number];

/** `GET /campaigns`: the templates list's query, with `status` (any case) instead of `type`. */
export const listCampaignsQuerySchema = z.object({
  ...offsetPageQuery,
  status: z.optional(z.string()),
  search: z.optional(z.string().check(z.trim(), z.maxLength(200))),
  // Unknown sort or direction values fall back to the defaults, as for templates.
  sort: z.pipe(
    z.optional(z.string()),
    z.transform(
      (s): CampaignSort => (CAMPAIGN_SORTS.includes(s as CampaignSort) ? (s as CampaignSort) : 'createdAt'),
    ),
  ),
  dir: z.pipe(
    z.optional(z.string()),
    z.transform((d): 'asc' | 'desc' => (d === 'asc' ? 'asc' : 'desc')),
  ),
});

export interface ListCampaignsQuery {
  readonly page: number;
  readonly pageSize: number;
  readonly status?: CampaignStatus;
  readonly search?: string;
  readonly sort: CampaignSort;
  readonly dir: 'asc' | 'desc';
}

/** The list's query; a `status` that is none of the five (any case) is a 400. */
export function parseListQuery(raw: unknown): ListCampaignsQuery {
  const q = parse(listCampaignsQuerySchema, raw);
  const status = q.status === undefined || q.status === '' ? undefined : q.status.toUpperCase();
  if (status !== undefined && !CAMPAIGN_STATUSES.includes(status as CampaignStatus))
    throw badRequest(`status must be one of ${CAMPAIGN_STATUSES.join(', ')}`, { status: q.status });
  return {
    page: q.page,
    pageSize: q.pageSize,
    ...(status ? { status: status as CampaignStatus } : {}),
    ...(q.search ? { search: q.search } : {}),
    sort: q.sort,
    dir: q.dir,
  };
}

/**
 * `POST /audiences`: a condition tree to count (the shape of a segment's `condition` or a
 * FILTERED campaign's `audienceCondition`), and the content type whose rules apply (MARKETING by
 * default: unsubscribed contacts are left out; TRANSACTIONAL includes them).
 */
export const audienceCountBodySchema = z.object({
  // Checked by the condition engine (`parseAudienceCountInput`), with the path of each offending filter.
  condition: z.nullish(
    z.unknown().register(z.globalRegistry, {
      description:
        'A condition tree, as a segment or a FILTERED campaign holds one (docs/conditions.md); required',
    }),
  ),
  type: z._default(templateTypeSchema, 'MARKETING'),
});

export interface AudienceCountInput {
  readonly condition: Condition;
  readonly type: TemplateType;
}

/** The body of `POST /audiences`: a missing condition is a 400, a bad one a 422 naming its path. */
export function parseAudienceCountInput(raw: unknown): AudienceCountInput {
  const input = parse(audienceCountBodySchema, raw ?? {});
  if ((input.condition ?? null) === null) throw badRequest('condition is required');
  return { condition: parseCondition(input.condition, 'condition'), type: input.type };
}

export const audienceIdSchema = z.object({ id: z.uuid({ message: 'Audience count id must be a UUID' }) });
