/** The success answers of the event routes and of `/v1/track` (see shared/http/answers.ts). */
import * as z from 'zod/mini';
import { customData, enveloped, id, instant, namedRef } from '../http/answers';

export const eventAnswer = z.object({
  id,
  name: z.string(),
  contactId: id,
  /** The contact's email when the event was written, if it was known then. */
  email: z.optional(z.string()),
  data: customData,
  createdAt: instant,
});

export const eventListAnswer = z.object({
  data: z.array(eventAnswer),
  /** Empty when there is no next page. */
  cursor: z.string(),
  hasMore: z.boolean(),
  total: z.number(),
});

export const eventNamesAnswer = z.object({
  names: z.array(
    z.object({ name: z.string(), count: z.number(), firstSeenAt: instant, lastSeenAt: instant }),
  ),
});

export const eventStatsAnswer = z.object({
  total: z.number(),
  uniqueNames: z.number(),
  last24Hours: z.number(),
  last7Days: z.number(),
  last30Days: z.number(),
  topEvents: z.array(z.object({ name: z.string(), count: z.number() })),
  daily: z.array(z.object({ date: z.string(), count: z.number() })),
});

export const eventUsageAnswer = z.object({
  event: z.string(),
  segments: z.array(namedRef),
  campaigns: z.array(namedRef),
  workflows: z.array(namedRef),
});

export const eventDeletionAnswer = z.object({ jobId: id, name: z.string(), status: z.literal('queued') });

/** `POST /v1/track` and `POST /events/track`: the contact and the event written. */
export const trackAnswer = enveloped(z.object({ contact: id, event: id, timestamp: instant }));

// Named once in the API reference's components, and referred to from every answer that holds one.
z.globalRegistry.add(eventAnswer, { id: 'Event' });
