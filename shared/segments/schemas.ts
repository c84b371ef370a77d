/** Input schemas of the segment endpoints; handlers, tests and docs reuse them. */
import * as z from 'zod/mini';
import { parseCondition } from '../conditions/parse';
import type { Condition } from '../conditions/schema';
import { rawConditionSchema } from '../conditions/schema';
import { emailSchema } from '../contacts/email';
import { flatBadRequest } from '../errors';
import { offsetPageQuery, parse, uuidId } from '../http/validation';

export const SEGMENT_TYPES = ['DYNAMIC', 'STATIC'] as const;
export type SegmentType = (typeof SEGMENT_TYPES)[number];

/** Limits of a segment's name and description. */
export const MAX_SEGMENT_NAME_CHARS = 100;
export const MAX_SEGMENT_DESCRIPTION_CHARS = 500;
/** Emails per static members call (as bulk operations). */
export const MAX_MEMBER_EMAILS = 1000;

const name = z.string().check(
  z.trim(),
  z.minLength(1, { message: 'name must not be empty' }),
  z.maxLength(MAX_SEGMENT_NAME_CHARS, {
    message: `name must be at most ${MAX_SEGMENT_NAME_CHARS} characters`,
  }),
);
const description = z.string().check(
  z.maxLength(MAX_SEGMENT_DESCRIPTION_CHARS, {
    message: `description must be at most ${MAX_SEGMENT_DESCRIPTION_CHARS} characters`,
  }),
);

export const createShape = z.object({
  name,
  description: z.nullish(description),
  type: z._default(z.enum(SEGMENT_TYPES), 'DYNAMIC'),
  trackMembership: z._default(z.boolean(), false),
});

export interface CreateSegmentInput {
  readonly name: string;
  readonly description: string | null;
  readonly type: SegmentType;
  /** Set for DYNAMIC segments; a STATIC segment's condition is ignored. */
  readonly condition: Condition | null;
  readonly trackMembership: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The `POST /segments` body. The flat 400 cases come first: a missing name, or on a
 * DYNAMIC segment a condition that is missing or not an object. Anything else is a 422 (the
 * condition's with the path of each offending filter).
 */
export function parseCreateSegment(raw: unknown): CreateSegmentInput {
  const body = isObject(raw) ? raw : {};
  if (body.name === undefined || body.name === null || body.name === '')
    throw flatBadRequest('name is required');
  const dynamic = body.type === undefined || body.type === null || body.type === 'DYNAMIC';
  if (dynamic && !isObject(body.condition))
    throw flatBadRequest(
      body.condition === undefined || body.condition === null
        ? 'condition is required for a DYNAMIC segment'
        : 'condition must be an object',
    );
  const input = parse(createShape, { ...body, condition: undefined });
  return {
    name: input.name,
    description: input.description ?? null,
    type: input.type,
    condition: input.type === 'DYNAMIC' ? parseCondition(body.condition, 'condition') : null,
    trackMembership: input.trackMembership,
  };
}

export const patchShape = z.object({
  name: z.optional(name),
  description: z.nullish(description),
  trackMembership: z.optional(z.boolean()),
});

export interface PatchSegmentInput {
  readonly name?: string;
  /** null clears it. */
  readonly description?: string | null;
  readonly condition?: Condition;
  readonly trackMembership?: boolean;
}

/** `PATCH /segments/{id}`: any subset of name, description, condition (dynamic only), trackMembership. */
export function parsePatchSegment(raw: unknown): PatchSegmentInput {
  const body = isObject(raw) ? raw : {};
  const input = parse(patchShape, { ...body, condition: undefined });
  return {
    ...(input.name === undefined ? {} : { name: input.name }),
    ...(input.description === undefined ? {} : { description: input.description }),
    ...(input.trackMembership === undefined ? {} : { trackMembership: input.trackMembership }),
    ...(body.condition === undefined ? {} : { condition: parseCondition(body.condition, 'condition') }),
  };
}

export const segmentIdSchema = z.object({ id: uuidId('Segment id must be a UUID') });

/** `GET /segments/{id}/contacts`: page and pageSize as every offset list (at most 100). */
export const membersPageQuerySchema = z.object(offsetPageQuery);
export type MembersPageQuery = z.output<typeof membersPageQuerySchema>;

const emails = z
  .array(emailSchema)
  .check(
    z.minLength(1, { message: 'emails must hold at least one address' }),
    z.maxLength(MAX_MEMBER_EMAILS, { message: `emails must hold at most ${MAX_MEMBER_EMAILS} addresses` }),
  );

export const addMembersSchema = z.object({
  emails,
  createMissing: z._default(z.boolean(), false),
  subscribed: z.optional(z.boolean()),
});
export type AddMembersInput = z.output<typeof addMembersSchema>;

export const removeMembersSchema = z.object({ emails });
export type RemoveMembersInput = z.output<typeof removeMembersSchema>;

/** The whole `POST /segments` body, for the API reference (`parseCreateSegment` applies it in parts). */
export const createSegmentBodySchema = z.extend(createShape, { condition: z.optional(rawConditionSchema) });

/** The whole `PATCH /segments/{id}` body, for the API reference. */
export const patchSegmentBodySchema = z.extend(patchShape, { condition: z.optional(rawConditionSchema) });
