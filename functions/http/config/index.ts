/** `GET /config`: feature flags for the dashboard, no key needed. Also answers unknown routes. */
import { lambdaEntry } from '../../../shared/http/lambda';
import { ok } from '../../../shared/http/response';
import { httpGroup } from '../../../shared/http/stack';
import type { Deps } from '../../../shared/ports';

export function configBody(deps: Pick<Deps, 'config'>) {
  return {
    oauthProviders: [],
    signupEnabled: deps.config.signupEnabled,
    billing: { enabled: deps.config.billingEnabled },
    storage: { enabled: deps.config.storageEnabled },
    smtp: { enabled: false },
  };
}

export const createHandler = (deps: Deps) =>
  httpGroup(deps, 'config', (scoped) => [
    { method: 'GET', path: '/config', auth: 'none', handler: async () => ok(configBody(scoped)) },
  ]);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'config',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: {},
});
