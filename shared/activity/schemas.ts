/** Query schemas of the activity and analytics endpoints (`routes.ts`). */
import * as z from 'zod/mini';
import { boundedIntQuery, uuidId } from '../http/validation';
import { ACTIVITY_TYPES } from './metrics';

/** A date query parameter: anything `Date` parses (an ISO date or date-time). */
const dateQuery = (field: string) =>
  z.optional(
    z.pipe(
      z.string().check(z.refine((s) => !Number.isNaN(Date.parse(s)), { message: `${field} is not a date` })),
      z.transform((s) => new Date(s)),
    ),
  );

/** `types`: a comma-separated list of activity types. */
const typesQuery = z.optional(
  z.pipe(
    z.string(),
    z.transform((s) =>
      s
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== ''),
    ),
  ),
);

export const feedQuerySchema = z.object({
  // Default 50; larger values are clamped to 100, as other cursor lists do.
  limit: z.pipe(
    z.optional(boundedIntQuery('limit', 50, Number.MAX_SAFE_INTEGER)),
    z.transform((n) => Math.min(n ?? 50, 100)),
  ),
  cursor: z.optional(z.string().check(z.maxLength(2048))),
  types: typesQuery,
  contactId: z.optional(uuidId('contactId must be a UUID')),
  startDate: dateQuery('startDate'),
  endDate: dateQuery('endDate'),
});

/** The activity types of `types` that do not exist (a 400 names them). */
export const unknownTypes = (types: readonly string[] | undefined) =>
  (types ?? []).filter((t) => !ACTIVITY_TYPES.includes(t));

export const statsQuerySchema = z.object({ days: boundedIntQuery('days', 30, 365) });
export const recentQuerySchema = z.object({ minutes: boundedIntQuery('minutes', 60, 1440) });
export const upcomingQuerySchema = z.object({
  limit: boundedIntQuery('limit', 20, 100),
  daysAhead: boundedIntQuery('daysAhead', 30, 90),
});

export const timeseriesQuerySchema = z.object({
  startDate: dateQuery('startDate'),
  endDate: dateQuery('endDate'),
  granularity: z._default(z.enum(['hour', 'day'], { message: 'granularity must be hour or day' }), 'day'),
});

export const topCampaignsQuerySchema = z.object({
  metric: z._default(
    z.enum(['sent', 'opened', 'clicked'], { message: 'metric must be sent, opened or clicked' }),
    'sent',
  ),
  limit: boundedIntQuery('limit', 10, 100),
});

export const topEventsQuerySchema = z.object({ limit: boundedIntQuery('limit', 10, 100) });
