/** The success answers of the segment routes (see shared/http/answers.ts). */
import * as z from 'zod/mini';
import { rawConditionSchema } from '../conditions/schema';
import { contactAnswer } from '../contacts/responses';
import { id, instant, nullableInstant, offsetPageOf } from '../http/answers';
import { SEGMENT_TYPES } from './schemas';

export const segmentAnswer = z.object({
  id,
  projectId: id,
  name: z.string(),
  slug: z.string(),
  description: z.nullable(z.string()),
  type: z.enum(SEGMENT_TYPES),
  condition: z.nullable(rawConditionSchema),
  trackMembership: z.boolean(),
  memberCount: z.number(),
  builtAt: nullableInstant,
  lastComputedAt: nullableInstant,
  createdAt: instant,
  updatedAt: instant,
});

export const segmentListAnswer = z.array(segmentAnswer);
export const segmentMembersAnswer = offsetPageOf(contactAnswer);
export const segmentComputeAnswer = z.object({
  added: z.number(),
  removed: z.number(),
  memberCount: z.number(),
});
export const segmentRefreshAnswer = z.object({ memberCount: z.number() });
export const membersAddedAnswer = z.object({
  added: z.number(),
  created: z.number(),
  notFound: z.array(z.string()),
});
export const membersRemovedAnswer = z.object({ removed: z.number(), notFound: z.array(z.string()) });

// Named once in the API reference's components, and referred to from every answer that holds one.
z.globalRegistry.add(segmentAnswer, { id: 'Segment' });
