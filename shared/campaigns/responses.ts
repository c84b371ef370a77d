/** The success answers of the campaign routes (see shared/http/answers.ts). */
import * as z from 'zod/mini';
import { rawConditionSchema } from '../conditions/schema';
import { enveloped, id, instant, nullableInstant, offsetPageOf } from '../http/answers';
import { templateContentFields } from '../templates/responses';
import { TEMPLATE_TYPES } from '../templates/schemas';
import { AUDIENCE_TYPES, CAMPAIGN_STATUSES } from './schemas';

/** What a campaign and its stats both count. */
const counters = {
  totalRecipients: z.number(),
  sentCount: z.number(),
  deliveredCount: z.number(),
  openedCount: z.number(),
  clickedCount: z.number(),
  bouncedCount: z.number(),
};

export const campaignAnswer = z.object({
  ...templateContentFields,
  status: z.enum(CAMPAIGN_STATUSES),
  audienceType: z.enum(AUDIENCE_TYPES),
  audienceCondition: z.nullable(rawConditionSchema),
  segmentId: z.nullable(id),
  scheduledFor: nullableInstant,
  ...counters,
  sentAt: nullableInstant,
  createdAt: instant,
  updatedAt: instant,
});

export const campaignListAnswer = offsetPageOf(campaignAnswer);
export const campaignEnvelopeAnswer = enveloped(campaignAnswer);

export const campaignStatsAnswer = enveloped(
  z.object({
    ...counters,
    unknownCount: z.number().register(z.globalRegistry, {
      description:
        "Sesame's extension: recipients whose send was cut by a crash between their claim and the provider's answer, counted in no other counter until the campaign settles them (their SES Send event, or a resend when SES provably never accepted them); 0 once every recipient is settled",
    }),
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

const count = (description: string) => z.number().register(z.globalRegistry, { description });

/** An audience count (`POST|GET /campaigns/{id}/audience`, `POST /audiences`, `GET /audiences/{id}`). */
export const audienceCountAnswer = z.object({
  id,
  campaignId: z.nullable(id),
  status: z.enum(['queued', 'processing', 'completed', 'failed']),
  type: z.enum(TEMPLATE_TYPES),
  audienceType: z.enum(AUDIENCE_TYPES),
  audienceCondition: z.nullable(rawConditionSchema),
  segmentId: z.nullable(id),
  count: count('Contacts a send at `computedAt` would mail (so far, until the status is completed)'),
  matched: count('Contacts of the audience before anyone is left out: `count` plus every `excluded`'),
  excluded: z.object({
    unsubscribed: count('Left out as unsubscribed (MARKETING and HEADLESS content; 0 for TRANSACTIONAL)'),
    suppressed: count("Left out as on the project's suppression list (any content type)"),
    snoozed: count('Left out as snoozed past `computedAt` (MARKETING and HEADLESS content)'),
  }),
  sample: z.array(z.object({ id, email: z.string() })).register(z.globalRegistry, {
    description: 'The first recipients (at most 10), in the order the send would reach them',
  }),
  computedAt: z.string().register(z.globalRegistry, {
    format: 'date-time',
    description:
      'The instant the audience is judged at: contacts created later are not in it; relative times and snoozes are judged at it',
  }),
  createdAt: instant,
  completedAt: nullableInstant,
  error: z.optional(z.object({ code: z.string(), message: z.string() })),
});

// Named once in the API reference's components, and referred to from every answer that holds one.
z.globalRegistry.add(campaignAnswer, { id: 'Campaign' });
z.globalRegistry.add(audienceCountAnswer, { id: 'AudienceCount' });
