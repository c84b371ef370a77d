/**
 * Authentication of HTTP routes. Each route names who may call it (`auth` in the manifest, a
 * `RouteAuth`); the HTTP stack looks up the authenticator of that kind and runs it once per
 * request, after the body is read and before the rate limit and the route. An authenticator
 * answers the caller's `Principal` or throws the `AppError` to answer (401, 403, 429).
 *
 * Adding a kind (a dashboard session cookie, a signed webhook) is: its name in `RouteAuth`
 * (shared/manifest.ts) with what it uses in `authUses`, a module here implementing
 * `Authenticator`, and its entry in `routeAuthenticators`; TypeScript refuses the build until all
 * three exist. Routes then name it in the manifest.
 */
import { SESSION_COOKIE } from '../../accounts/cookies';
import type { Deps } from '../../ports';
import { ApiKeyAuthenticator } from './api-key';
import { authenticateProjectSession } from './project-session';
import { cookieValue } from './session';
import type { Authenticator, Authenticators } from './types';

/**
 * The authenticators of one route-group instance. They share one API-key cache and one
 * failed-authentication count, as the routes of a Lambda instance do.
 *
 * Project routes (`secret`) take the project's secret key, or a signed-in member's session cookie
 * with `X-Project-Id` (docs/accounts.md): a request with an `Authorization` header is always judged
 * by its key; one with no such header and a session cookie, by the session.
 */
export function routeAuthenticators(deps: Deps): Authenticators {
  const apiKeys = new ApiKeyAuthenticator(deps);
  const secretKeys = apiKeys.forKind('secret');
  const secret: Authenticator = {
    authenticate: (input) =>
      input.headers.authorization === undefined && cookieValue(input.cookies, SESSION_COOKIE) !== undefined
        ? authenticateProjectSession(deps, apiKeys, input)
        : secretKeys.authenticate(input),
  };
  return { secret, public: apiKeys.forKind('public') };
}

export {
  ApiKeyAuthenticator,
  bearerToken,
  CACHE_TTL_MS,
  NEGATIVE_CACHE_TTL_MS,
  ProjectDisabledError,
} from './api-key';
export type { Authenticator, Authenticators, AuthInput, AuthKind, Principal } from './types';
