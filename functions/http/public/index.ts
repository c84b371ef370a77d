/**
 * Public API route group (`/v1/*`): send, track, verify, and the public subscription pages.
 * Each domain module exports its route implementations; this file only composes them.
 */
import { lambdaEntry } from '../../../shared/http/lambda';
import { httpGroup } from '../../../shared/http/stack';
import type { Deps } from '../../../shared/ports';
import { sendRoutes } from '../../../shared/sending/routes';
import { subscriptionRoutes } from '../../../shared/subscriptions/routes';
import { subscriptionTokenParamSchema } from '../../../shared/subscriptions/schemas';
import { trackRoutes } from '../../../shared/tracking/routes';
import { verifyRoutes } from '../../../shared/verification/routes';

export const createHandler = (deps: Deps) =>
  httpGroup(deps, 'public', (scoped) => [
    ...trackRoutes(scoped),
    ...verifyRoutes(scoped),
    ...sendRoutes(scoped),
    ...subscriptionRoutes(scoped).map((r) => ({ ...r, params: subscriptionTokenParamSchema })),
  ]);

export const handler = lambdaEntry(createHandler);
