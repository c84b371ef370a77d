/**
 * The fan-out's job message, declared apart from the fan-out (`fanout.ts`, bound in `jobs.ts`) so
 * that the route group that queues and schedules it does without the fan-out's code.
 */
import * as z from 'zod/mini';
import { defineJobMessage } from '../jobs/registry';

export const CAMPAIGN_SEND_JOB = 'campaign.send';

export const campaignSendJobMessage = defineJobMessage({
  type: CAMPAIGN_SEND_JOB,
  schema: z.object({
    type: z.literal(CAMPAIGN_SEND_JOB),
    projectId: z.string().check(z.minLength(1)),
    campaignId: z.string().check(z.minLength(1)),
    /** The send this message belongs to: the campaign's `runId` (or, scheduled, its `scheduleToken`). */
    runId: z.string().check(z.minLength(1)),
    /** What queued it: a send request (`now`) or the campaign's one-off schedule (`schedule`). */
    trigger: z.enum(['now', 'schedule']),
    /**
     * The lane of the fan-out this message runs (`fanout.ts`): lane 0 is the send's first
     * message; a large audience's other lanes are queued by lane 0 and send ranges beside it.
     */
    lane: z._default(z.number().check(z.int(), z.gte(0)), 0),
    /** Times it looked again for the send request that queued it (see `fanout.ts`, `load`). */
    waits: z._default(z.number().check(z.int(), z.gte(0)), 0),
    /**
     * This message settles some of the run's `unknown` recipients (`settle.ts`) instead of going
     * on with the fan-out: queued, delayed past the grace period, by the checkpoint that counted
     * them (`ids`, their contacts), for their claims made `before` it was queued.
     */
    settle: z.optional(
      z.object({
        ids: z.array(z.string().check(z.minLength(1))).check(z.minLength(1), z.maxLength(1000)),
        before: z.iso.datetime(),
      }),
    ),
  }),
});

export type CampaignSendMessage = z.output<typeof campaignSendJobMessage.schema>;

/** The one-off schedule of a scheduled send (a valid EventBridge Scheduler name: 58 characters). */
export const campaignScheduleName = (campaignId: string, token: string) => `campaign-${campaignId}-${token}`;

export const AUDIENCE_COUNT_JOB = 'audience.count';

/**
 * A message of an audience count (`count.ts`): a campaign's latest (`campaignId`) or a condition
 * tree's (`countId`), one of the two; its position is on the count's item.
 */
export const audienceCountJobMessage = defineJobMessage({
  type: AUDIENCE_COUNT_JOB,
  schema: z
    .object({
      type: z.literal(AUDIENCE_COUNT_JOB),
      projectId: z.string().check(z.minLength(1)),
      campaignId: z.optional(z.string().check(z.minLength(1))),
      countId: z.optional(z.string().check(z.minLength(1))),
      /** The count this message belongs to: a count replaced since has another. */
      runId: z.string().check(z.minLength(1)),
    })
    .check(
      z.refine((m) => (m.campaignId === undefined) !== (m.countId === undefined), {
        message: 'An audience count message names a campaignId or a countId',
      }),
    ),
});

export type AudienceCountMessage = z.output<typeof audienceCountJobMessage.schema>;
