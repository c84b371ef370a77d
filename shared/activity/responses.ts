/** The success answers of the activity and analytics routes (see shared/http/answers.ts). */
import * as z from 'zod/mini';
import { cursorPageOf, id, instant } from '../http/answers';

export const activityFeedAnswer = cursorPageOf(
  z.object({
    id,
    type: z.string(),
    timestamp: instant,
    contactId: id,
    contactEmail: z.nullable(z.string()),
    metadata: z.record(z.string(), z.unknown()),
  }),
);

export const activityStatsAnswer = z.object({
  totalEvents: z.number(),
  totalEmailsSent: z.number(),
  totalEmailsDelivered: z.number(),
  totalEmailsOpened: z.number().register(z.globalRegistry, {
    description: 'Emails opened at least once (each email counts once however often it is opened)',
  }),
  totalEmailsClicked: z.number().register(z.globalRegistry, {
    description: 'Emails with at least one click (each email counts once)',
  }),
  totalEmailsBounced: z.number(),
  totalEmailsComplained: z.number(),
  totalWorkflowsStarted: z.number(),
  totalOpens: z.number().register(z.globalRegistry, {
    description: "Sesame's extension: every open, repeated opens of one email included",
  }),
  totalClicks: z.number().register(z.globalRegistry, {
    description: "Sesame's extension: every click, repeated clicks of one email included",
  }),
  openRate: z.number().register(z.globalRegistry, {
    description: 'totalEmailsOpened as a percentage of totalEmailsSent (two decimals, 0 to 100)',
  }),
  clickRate: z.number().register(z.globalRegistry, {
    description: 'totalEmailsClicked as a percentage of totalEmailsSent (two decimals, 0 to 100)',
  }),
});

export const recentCountAnswer = z.object({ count: z.number(), minutes: z.number() });
export const activityTypesAnswer = z.object({ types: z.array(z.string()) });

export const upcomingAnswer = z.object({
  activities: z.array(
    z.union([
      z.object({
        type: z.literal('campaign.scheduled'),
        at: instant,
        campaignId: id,
        executionId: z.null(),
        /** The campaign's name. */
        name: z.string(),
      }),
      z.object({
        /** A WAITING workflow execution, `at` when its wait ends (a DELAY's end, a timeout). */
        type: z.literal('workflow.waiting'),
        at: instant,
        workflowId: id,
        executionId: id,
        /** The workflow's name. */
        name: z.string(),
      }),
    ]),
  ),
});

export const timeseriesAnswer = z.object({
  series: z.array(
    z.object({
      /** The bucket: a day (`2026-01-31`) or an hour (`2026-01-31T12:00:00.000Z`). */
      date: z.string(),
      sent: z.number(),
      delivered: z.number(),
      opened: z.number(),
      clicked: z.number(),
      bounced: z.number(),
      complained: z.number(),
    }),
  ),
});

const campaignFigures = z.object({
  id,
  name: z.string(),
  sentCount: z.number(),
  openedCount: z.number(),
  clickedCount: z.number(),
  openRate: z.number(),
  clickRate: z.number(),
});

export const topCampaignsAnswer = z.object({ campaigns: z.array(campaignFigures) });
export const campaignBreakdownAnswer = z.object({
  campaigns: z.array(z.extend(campaignFigures, { status: z.string() })),
});
export const topEventsAnswer = z.object({
  events: z.array(z.object({ name: z.string(), count: z.number() })),
});
