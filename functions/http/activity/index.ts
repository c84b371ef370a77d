/** Activity and analytics route group: the feed and the figures, read from counters and indexes. */

import {
  activityFeedAnswer,
  activityStatsAnswer,
  activityTypesAnswer,
  campaignBreakdownAnswer,
  recentCountAnswer,
  timeseriesAnswer,
  topCampaignsAnswer,
  topEventsAnswer,
  upcomingAnswer,
} from '../../../shared/activity/responses';
import {
  feedQuerySchema,
  recentQuerySchema,
  statsQuerySchema,
  timeseriesQuerySchema,
  topCampaignsQuerySchema,
  topEventsQuerySchema,
  unknownTypes,
  upcomingQuerySchema,
} from '../../../shared/activity/schemas';
import {
  activityStats,
  activityTypes,
  campaignBreakdown,
  listActivity,
  recentCount,
  timeseries,
  topCampaigns,
  topEvents,
  upcoming,
} from '../../../shared/activity/service';
import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { ssmLinkSigningSecret } from '../../../shared/composition/aws-wiring/ssm';
import { badRequest } from '../../../shared/errors';
import { lambdaEntry } from '../../../shared/http/lambda';
import { ok } from '../../../shared/http/response';
import { type AuthedRequest, httpGroup, type RouteDoc, type RouteImpl } from '../../../shared/http/stack';
import { parse } from '../../../shared/http/validation';
import type { Deps } from '../../../shared/ports';

const DAY_MS = 86_400_000;
/** The longest window of each granularity (a bucket per hour of a month, per day of a year). */
const MAX_WINDOW_MS = { hour: 31 * DAY_MS, day: 366 * DAY_MS } as const;

export function routes(deps: Deps): RouteImpl[] {
  const get = (
    path: string,
    handler: (req: AuthedRequest) => Promise<unknown>,
    doc: RouteDoc = {},
  ): RouteImpl => ({
    method: 'GET',
    path,
    ...doc,
    handler: async (req: AuthedRequest) => ok(await handler(req)),
  });
  return [
    get(
      '/activity',
      async (req) => {
        const q = parse(feedQuerySchema, req.query);
        const unknown = unknownTypes(q.types);
        if (unknown.length > 0)
          throw badRequest(`Unknown activity type: ${unknown.join(', ')}`, { types: unknown });
        return listActivity(deps, req.projectId, q);
      },
      { query: feedQuerySchema, responses: { 200: activityFeedAnswer } },
    ),
    get(
      '/activity/stats',
      async (req) => activityStats(deps, req.projectId, parse(statsQuerySchema, req.query).days),
      { query: statsQuerySchema, responses: { 200: activityStatsAnswer } },
    ),
    get(
      '/activity/recent-count',
      async (req) => recentCount(deps, req.projectId, parse(recentQuerySchema, req.query).minutes),
      { query: recentQuerySchema, responses: { 200: recentCountAnswer } },
    ),
    get('/activity/types', async (req) => activityTypes(deps, req.projectId), {
      responses: { 200: activityTypesAnswer },
    }),
    get(
      '/activity/upcoming',
      async (req) => upcoming(deps, req.projectId, parse(upcomingQuerySchema, req.query)),
      { query: upcomingQuerySchema, responses: { 200: upcomingAnswer } },
    ),
    get(
      '/analytics/timeseries',
      async (req) => {
        const q = parse(timeseriesQuerySchema, req.query);
        const end = q.endDate ?? deps.clock.now();
        const start = q.startDate ?? new Date(end.getTime() - 29 * DAY_MS);
        if (start > end) throw badRequest('startDate is after endDate', { startDate: start.toISOString() });
        if (end.getTime() - start.getTime() > MAX_WINDOW_MS[q.granularity])
          throw badRequest(
            `A ${q.granularity} series covers at most ${MAX_WINDOW_MS[q.granularity] / DAY_MS} days`,
            { granularity: q.granularity },
          );
        return timeseries(deps, req.projectId, { start, end, granularity: q.granularity });
      },
      { query: timeseriesQuerySchema, responses: { 200: timeseriesAnswer } },
    ),
    get(
      '/analytics/top-campaigns',
      async (req) => topCampaigns(deps, req.projectId, parse(topCampaignsQuerySchema, req.query)),
      { query: topCampaignsQuerySchema, responses: { 200: topCampaignsAnswer } },
    ),
    get('/analytics/campaign-stats', async (req) => campaignBreakdown(deps, req.projectId), {
      responses: { 200: campaignBreakdownAnswer },
    }),
    get(
      '/analytics/top-events',
      async (req) => topEvents(deps, req.projectId, parse(topEventsQuerySchema, req.query).limit),
      { query: topEventsQuerySchema, responses: { 200: topEventsAnswer } },
    ),
  ];
}

export const createHandler = (deps: Deps) => httpGroup(deps, 'activity', routes);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'activity',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: { store: dynamoStore, linkSigningSecret: ssmLinkSigningSecret },
});
