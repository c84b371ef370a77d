/** Events route group: parses and validates input, calls one use case, maps the result. */

import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { sqsQueue } from '../../../shared/composition/aws-wiring/sqs';
import { ssmLinkSigningSecret } from '../../../shared/composition/aws-wiring/ssm';
import {
  eventDeletionAnswer,
  eventListAnswer,
  eventNamesAnswer,
  eventStatsAnswer,
  eventUsageAnswer,
  trackAnswer,
} from '../../../shared/events/responses';
import {
  contactEventsQuerySchema,
  contactIdParamSchema,
  eventNameParamSchema,
  listEventsQuerySchema,
} from '../../../shared/events/schemas';
import {
  eventNames,
  eventStats,
  eventUsage,
  listContactEvents,
  listEvents,
  requestEventDeletion,
} from '../../../shared/events/service';
import { lambdaEntry } from '../../../shared/http/lambda';
import { json, ok } from '../../../shared/http/response';
import { httpGroup, type RouteImpl, route } from '../../../shared/http/stack';
import { parse } from '../../../shared/http/validation';
import type { Deps } from '../../../shared/ports';
import { trackHandler } from '../../../shared/tracking/routes';
import { trackSchema } from '../../../shared/tracking/schemas';

export function routes(deps: Deps): RouteImpl[] {
  return [
    // The dashboard's alias of /v1/track, with the secret key.
    {
      method: 'POST',
      path: '/events/track',
      responses: { 200: trackAnswer },
      body: trackSchema,
      handler: trackHandler(deps, '/events/track', 'events'),
    },
    {
      method: 'GET',
      path: '/events',
      responses: { 200: eventListAnswer },
      query: listEventsQuerySchema,
      handler: async (req) => {
        const q = parse(listEventsQuerySchema, req.query);
        return ok(await listEvents(deps, req.projectId, q));
      },
    },
    {
      method: 'GET',
      path: '/events/stats',
      responses: { 200: eventStatsAnswer },
      handler: async (req) => ok(await eventStats(deps, req.projectId)),
    },
    {
      method: 'GET',
      path: '/events/names',
      responses: { 200: eventNamesAnswer },
      handler: async (req) => ok(await eventNames(deps, req.projectId)),
    },
    // Before `/events/{eventName}/usage`: the router tries dynamic routes in order.
    route({
      method: 'GET',
      path: '/events/contact/{contactId}',
      responses: { 200: eventListAnswer },
      query: contactEventsQuerySchema,
      params: contactIdParamSchema,
      handler: async (req) => {
        const q = parse(contactEventsQuerySchema, req.query);
        return ok(await listContactEvents(deps, req.projectId, req.params.contactId, q));
      },
    }),
    route({
      method: 'GET',
      path: '/events/{eventName}/usage',
      responses: { 200: eventUsageAnswer },
      params: eventNameParamSchema,
      handler: async (req) => ok(await eventUsage(deps, req.projectId, req.params.eventName)),
    }),
    route({
      method: 'DELETE',
      path: '/events/{eventName}',
      responses: { 202: eventDeletionAnswer },
      params: eventNameParamSchema,
      // 202: the events go in the background (see requestEventDeletion).
      handler: async (req) =>
        json(202, await requestEventDeletion(deps, req.projectId, req.params.eventName)),
    }),
  ];
}

export const createHandler = (deps: Deps) => httpGroup(deps, 'events', routes);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'events',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: { store: dynamoStore, queue: sqsQueue, linkSigningSecret: ssmLinkSigningSecret },
});
