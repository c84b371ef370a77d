/**
 * Stripe-webhook route group: `POST /webhooks/incoming/stripe`, Stripe's event deliveries, each
 * signature checked, claimed once by its event id and applied to the project's billing
 * (shared/billing/stripe-webhook.ts). The raw body is read whatever its content type: the
 * signature covers its exact bytes.
 */

import { stripeDeliveryAnswer } from '../../../shared/billing/responses';
import { receiveStripeDelivery } from '../../../shared/billing/stripe-webhook';
import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { stripeBilling } from '../../../shared/composition/aws-wiring/stripe';
import { lambdaEntry } from '../../../shared/http/lambda';
import { ok } from '../../../shared/http/response';
import { httpGroup, type OpenRouteImpl } from '../../../shared/http/stack';
import type { Deps } from '../../../shared/ports';

export const routes = (deps: Deps): OpenRouteImpl[] => [
  {
    method: 'POST',
    path: '/webhooks/incoming/stripe',
    responses: { 200: stripeDeliveryAnswer },
    auth: 'none',
    rawBody: {
      contentType: 'application/json',
      description: 'A Stripe event, checked against Stripe-Signature',
    },
    handler: async (req) => {
      const outcome = await receiveStripeDelivery(deps, {
        rawBody: req.rawBody,
        signature: req.headers['stripe-signature'],
      });
      return ok({ received: true, ...outcome });
    },
  },
];

export const createHandler = (deps: Deps) => httpGroup(deps, 'stripe-webhook', routes);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'stripe-webhook',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: { store: dynamoStore, billing: stripeBilling },
});
