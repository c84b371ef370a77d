/**
 * `GET /config`: what the deployment offers, for the dashboard, no key needed (docs/uploads.md).
 * Also answers unknown routes.
 */

import { configAnswer } from '../../../shared/config/responses';
import { lambdaEntry } from '../../../shared/http/lambda';
import { ok } from '../../../shared/http/response';
import { httpGroup, type OpenRouteImpl } from '../../../shared/http/stack';
import type { Deps } from '../../../shared/ports';
import { VERSION } from '../../../shared/version';

/**
 * Exactly the fields docs/uploads.md names, true to the deployment: Sesame has no OAuth sign-in and
 * no SMTP relay, billing follows the Stripe key, storage is image uploads (on AWS the images bucket
 * and its distribution are configured; locally always), `version` the package's.
 */
export function configBody(deps: Pick<Deps, 'config'>) {
  return {
    oauthProviders: [],
    signupEnabled: deps.config.signupEnabled,
    billing: { enabled: deps.config.billingEnabled },
    storage: { enabled: deps.config.storageEnabled },
    smtp: { enabled: false },
    version: VERSION,
  };
}

export const routes = (deps: Deps): OpenRouteImpl[] => [
  {
    method: 'GET',
    path: '/config',
    auth: 'none',
    responses: { 200: configAnswer },
    handler: async () => ok(configBody(deps)),
  },
];

export const createHandler = (deps: Deps) => httpGroup(deps, 'config', routes);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'config',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: {},
});
