/** The success answers of the campaign routes (see shared/http/answers.ts). */
import * as z from 'zod/mini';
import { rawConditionSchema } from '../conditions/schema';
import { enveloped, id, instant, nullableInstant, offsetPageOf } from '../http/answers';
import { templateTypeSchema } from '../templates/schemas';
import { AUDIENCE_TYPES, CAMPAIGN_STATUSES } from './schemas';

export const campaignAnswer = z.object({
  id,
  projectId: id,
  name: z.string(),
  description: z.nullable(z.string()),
  subject: z.string(),
  body: z.string(),
  from: z.string(),
  fromName: z.nullable(z.string()),
  replyTo: z.nullable(z.string()),
  type: templateTypeSchema,
  status: z.enum(CAMPAIGN_STATUSES),
  audienceType: z.enum(AUDIENCE_TYPES),
  audienceCondition: z.nullable(rawConditionSchema),
  segmentId: z.nullable(id),
  scheduledFor: nullableInstant,
  totalRecipients: z.number(),
  sentCount: z.number(),
  deliveredCount: z.number(),
  openedCount: z.number(),
  clickedCount: z.number(),
  bouncedCount: z.number(),
  sentAt: nullableInstant,
  createdAt: instant,
  updatedAt: instant,
});

export const campaignListAnswer = offsetPageOf(campaignAnswer);
export const campaignEnvelopeAnswer = enveloped(campaignAnswer);

export const campaignStatsAnswer = enveloped(
  z.object({
    totalRecipients: z.number(),
    sentCount: z.number(),
    deliveredCount: z.number(),
    openedCount: z.number(),
    clickedCount: z.number(),
    bouncedCount: z.number(),
    complainedCount: z.number(),
    unsubscribedCount: z.number(),
    openRate: z.number(),
    clickRate: z.number(),
    bounceRate: z.number(),
    deliveryRate: z.number(),
  }),
);

export const campaignTestAnswer = z.object({
  email: z.string(),
  subject: z.string(),
  messageId: z.string(),
  /** Whether the address is one of the project's contacts (whose data the test rendered with). */
  contact: z.boolean(),
});

/** `POST /campaigns/{id}/send`: the campaign, and what happens next. */
export const campaignSentAnswer = z.object({
  success: z.literal(true),
  data: campaignAnswer,
  message: z.string(),
});

// Named once in the API reference's components, and referred to from every answer that holds one.
z.globalRegistry.add(campaignAnswer, { id: 'Campaign' });
