/**
 * Webhooks route group: `POST /webhooks/sns`, SNS HTTPS deliveries of the SES event topic, each
 * verified and queued as a `ses.event` job (shared/sns). A Lambda of its own: it holds the HTTP
 * stack, the signature check and the queue's client, and no table (the job deduplicates).
 */
import { httpsSnsEndpoints } from '../../../shared/composition/aws-wiring/sns-endpoints';
import { sqsQueue } from '../../../shared/composition/aws-wiring/sqs';
import { lambdaEntry } from '../../../shared/http/lambda';
import { httpGroup } from '../../../shared/http/stack';
import type { Deps } from '../../../shared/ports';
import { snsWebhookRoutes } from '../../../shared/sns/routes';

export const routes = snsWebhookRoutes;

export const createHandler = (deps: Deps) => httpGroup(deps, 'webhooks', routes);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'webhooks',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: { queue: sqsQueue, snsEndpoints: httpsSnsEndpoints },
});
