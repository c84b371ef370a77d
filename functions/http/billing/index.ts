/**
 * Billing route group: a project's monthly send caps and the month's consumption, for its members
 * (session cookie). Parses, calls one use case, answers.
 */

import { billingLimitsAnswer, consumptionAnswer } from '../../../shared/accounts/responses';
import { projectIdParamSchema } from '../../../shared/accounts/schemas';
import { readConsumption, readLimits, replaceLimits } from '../../../shared/billing/limits';
import { billingLimitsSchema } from '../../../shared/billing/schemas';
import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { ssmLinkSigningSecret } from '../../../shared/composition/aws-wiring/ssm';
import { lambdaEntry } from '../../../shared/http/lambda';
import { ok } from '../../../shared/http/response';
import { type AnyRouteImpl, httpGroup, sessionRoute } from '../../../shared/http/stack';
import { parse } from '../../../shared/http/validation';
import type { Deps } from '../../../shared/ports';

export function routes(deps: Deps): AnyRouteImpl[] {
  return [
    sessionRoute({
      method: 'GET',
      path: '/users/@me/projects/{id}/billing-limits',
      responses: { 200: billingLimitsAnswer },
      params: projectIdParamSchema,
      handler: async (req) => ok(await readLimits(deps, req.session.userId, req.params.id)),
    }),
    sessionRoute({
      method: 'PUT',
      path: '/users/@me/projects/{id}/billing-limits',
      responses: { 200: billingLimitsAnswer },
      body: billingLimitsSchema,
      params: projectIdParamSchema,
      handler: async (req) =>
        ok(
          await replaceLimits(
            deps,
            req.session.userId,
            req.params.id,
            parse(billingLimitsSchema, req.body ?? {}),
          ),
        ),
    }),
    sessionRoute({
      method: 'GET',
      path: '/users/@me/projects/{id}/billing-consumption',
      responses: { 200: consumptionAnswer },
      params: projectIdParamSchema,
      handler: async (req) => ok(await readConsumption(deps, req.session.userId, req.params.id)),
    }),
  ];
}

export const createHandler = (deps: Deps) => httpGroup(deps, 'billing', routes);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'billing',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: { store: dynamoStore, linkSigningSecret: ssmLinkSigningSecret },
});
