/**
 * `GET /config`: what the deployment offers, for the dashboard, no key needed (decisions.md,
 * "Uploads and configuration"). Also answers unknown routes.
 */
import { lambdaEntry } from '../../../shared/http/lambda';
import { ok } from '../../../shared/http/response';
import { httpGroup } from '../../../shared/http/stack';
import type { Deps } from '../../../shared/ports';
import { VERSION } from '../../../shared/version';

/**
 * Exactly the fields decisions.md names, true to the deployment: Sesame has no OAuth sign-in and
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
