/**
 * Track route group: `POST /v1/track`, the one endpoint for browsers (public key). A Lambda of its
 * own, so that a cold track loads none of what sending, verification and the subscription pages
 * need (rendering, MIME, the verification lists): its bundle holds the HTTP stack, the contact
 * upsert and the event, and the clients of the table and the queue.
 */
import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { sqsQueue } from '../../../shared/composition/aws-wiring/sqs';
import { lambdaEntry } from '../../../shared/http/lambda';
import { httpGroup } from '../../../shared/http/stack';
import type { Deps } from '../../../shared/ports';
import { trackRoutes } from '../../../shared/tracking/routes';

export const routes = trackRoutes;

export const createHandler = (deps: Deps) => httpGroup(deps, 'track', routes);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'track',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: { store: dynamoStore, queue: sqsQueue },
});
