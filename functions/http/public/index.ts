/**
 * Public API route group (`/v1/*`): send, verify, and the public subscription pages (`/v1/track`
 * has a group of its own, functions/http/track). Each domain module exports its route
 * implementations; this file only composes them.
 */

import { systemDns } from '../../../shared/composition/aws-wiring/dns';
import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { sesMailer } from '../../../shared/composition/aws-wiring/ses-mailer';
import { sqsQueue } from '../../../shared/composition/aws-wiring/sqs';
import { ssmLinkSigningSecret } from '../../../shared/composition/aws-wiring/ssm';
import { lambdaEntry } from '../../../shared/http/lambda';
import { httpGroup, type RouteImpl } from '../../../shared/http/stack';
import type { Deps } from '../../../shared/ports';
import { subscriptionRoutes } from '../../../shared/subscriptions/routes';
import { subscriptionTokenParamSchema } from '../../../shared/subscriptions/schemas';

/**
 * Routes whose module is loaded on their first request: `/v1/send` (rendering, MIME) and
 * `/v1/verify` (the verification lists) are heavy, and a cold subscription page need not evaluate
 * them. Their method and path are known here; a test checks them against the loaded routes.
 */
export const lazyRoutes = {
  send: {
    method: 'POST',
    path: '/v1/send',
    load: async () => (await import('../../../shared/sending/routes')).sendRoutes,
  },
  verify: {
    method: 'POST',
    path: '/v1/verify',
    load: async () => (await import('../../../shared/verification/routes')).verifyRoutes,
  },
} as const;

function lazyRoute(deps: Deps, def: (typeof lazyRoutes)[keyof typeof lazyRoutes]): RouteImpl {
  let loaded: Promise<RouteImpl['handler']> | undefined;
  const route: { -readonly [K in keyof RouteImpl]: RouteImpl[K] } = {
    method: def.method,
    path: def.path,
    handler: async (req) => {
      loaded ??= load().catch((error: unknown) => {
        loaded = undefined;
        throw error;
      });
      return (await loaded)(req);
    },
  };
  const load = async () => {
    const routes = (await def.load())(deps);
    const found = routes.find((r) => r.method === def.method && r.path === def.path);
    if (!found) throw new Error(`The module of ${def.method} ${def.path} has no such route`);
    // What the loaded route documents (its body and answers) is this route's from now on, for the
    // schema checks of the stack (shared/http/schema-check.ts).
    const { handler: _, method: __, path: ___, ...doc } = found;
    Object.assign(route, doc);
    return found.handler;
  };
  return route;
}

/** The group's routes; `/v1/send` and `/v1/verify` stand in for `lazyRoutes`, loaded on first use. */
export const routes = (deps: Deps): RouteImpl[] => [
  lazyRoute(deps, lazyRoutes.verify),
  lazyRoute(deps, lazyRoutes.send),
  ...subscriptionRoutes(deps).map((r) => ({ ...r, params: subscriptionTokenParamSchema })),
];

export const createHandler = (deps: Deps) => httpGroup(deps, 'public', routes);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'public',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: {
    store: dynamoStore,
    queue: sqsQueue,
    mailer: sesMailer,
    dns: systemDns,
    linkSigningSecret: ssmLinkSigningSecret,
  },
});
