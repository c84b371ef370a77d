/**
 * Billing-stripe route group: a project's Stripe subscription for its members (session cookie):
 * checkout, the billing portal, the invoices. Parses, calls one use case, answers.
 */
import * as z from 'zod/mini';
import { invoicesAnswer, redirectUrlAnswer } from '../../../shared/accounts/responses';
import { projectIdParamSchema } from '../../../shared/accounts/schemas';
import { listBillingInvoices, openBillingPortal, startCheckout } from '../../../shared/billing/checkout';
import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { ssmLinkSigningSecret } from '../../../shared/composition/aws-wiring/ssm';
import { stripeBilling } from '../../../shared/composition/aws-wiring/stripe';
import { lambdaEntry } from '../../../shared/http/lambda';
import { ok } from '../../../shared/http/response';
import { type AnyRouteImpl, httpGroup, sessionRoute } from '../../../shared/http/stack';
import { parse } from '../../../shared/http/validation';
import type { Deps } from '../../../shared/ports';

/** `GET .../billing-invoices?limit=&startingAfter=`: a page of at most 100 (20 by default). */
export const invoicesQuerySchema = z.object({
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 20),
  startingAfter: z.optional(
    z.string().check(z.regex(/^[\w-]{1,255}$/, { message: 'startingAfter must be an invoice id' })),
  ),
});

export function routes(deps: Deps): AnyRouteImpl[] {
  return [
    sessionRoute({
      method: 'POST',
      path: '/users/@me/projects/{id}/checkout',
      responses: { 200: redirectUrlAnswer },
      params: projectIdParamSchema,
      handler: async (req) => ok(await startCheckout(deps, req.session.userId, req.params.id)),
    }),
    sessionRoute({
      method: 'POST',
      path: '/users/@me/projects/{id}/billing-portal',
      responses: { 200: redirectUrlAnswer },
      params: projectIdParamSchema,
      handler: async (req) => ok(await openBillingPortal(deps, req.session.userId, req.params.id)),
    }),
    sessionRoute({
      method: 'GET',
      path: '/users/@me/projects/{id}/billing-invoices',
      responses: { 200: invoicesAnswer },
      query: invoicesQuerySchema,
      params: projectIdParamSchema,
      handler: async (req) =>
        ok(
          await listBillingInvoices(
            deps,
            req.session.userId,
            req.params.id,
            parse(invoicesQuerySchema, req.query),
          ),
        ),
    }),
  ];
}

export const createHandler = (deps: Deps) => httpGroup(deps, 'billing-stripe', routes);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'billing-stripe',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: { store: dynamoStore, linkSigningSecret: ssmLinkSigningSecret, billing: stripeBilling },
});
