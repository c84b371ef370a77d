/**
 * `POST /webhooks/sns`: SNS HTTPS deliveries of the SES event topic (./deliveries.ts). Open in the
 * manifest, since SNS sends no key: each message's SNS signature stands in for one. The raw body
 * is read whatever its content type (SNS sends `text/plain; charset=UTF-8` unless its delivery
 * policy says otherwise), and 200 means SNS need not deliver the message again.
 */
import { ok } from '../http/response';
import type { OpenRouteImpl } from '../http/stack';
import type { Deps } from '../ports';
import { receiveSnsDelivery } from './deliveries';
import { snsDeliveryAnswer } from './responses';

export const snsWebhookRoutes = (deps: Deps): OpenRouteImpl[] => [
  {
    method: 'POST',
    path: '/webhooks/sns',
    responses: { 200: snsDeliveryAnswer },
    auth: 'none',
    rawBody: { contentType: 'text/plain', description: 'An SNS HTTPS message (JSON text)' },
    handler: async (req) => ok({ success: true, data: await receiveSnsDelivery(deps, req.rawBody) }),
  },
];
