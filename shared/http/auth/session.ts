/**
 * The session authenticator of the user routes (`auth: 'session'`): the `sesame_session` cookie's
 * JWT, checked with the sessions' key (shared/accounts/tokens.ts), then its session item read with
 * a consistent read, so that a logout (which deletes it) is refused on the very next request.
 */
import { SESSION_COOKIE } from '../../accounts/cookies';
import { sessionIsLive } from '../../accounts/repository';
import { verifyToken } from '../../accounts/tokens';
import { AppError } from '../../errors';
import type { Deps } from '../../ports';
import type { AuthInput } from './types';

/** A signed-in user, as the session cookie shows. */
export interface SessionPrincipal {
  readonly userId: string;
  readonly sessionId: string;
}

export const notSignedIn = () => new AppError(401, 'UNAUTHORIZED', 'Sign in first: no valid session');

/** The value of cookie `name` among payload 2.0's `name=value` cookies. */
export function cookieValue(cookies: readonly string[], name: string): string | undefined {
  for (const cookie of cookies) {
    const at = cookie.indexOf('=');
    if (at > 0 && cookie.slice(0, at).trim() === name) return cookie.slice(at + 1).trim();
  }
  return undefined;
}

export async function authenticateSession(
  deps: Pick<Deps, 'store' | 'clock' | 'config'>,
  input: Pick<AuthInput, 'cookies'>,
): Promise<SessionPrincipal> {
  const token = cookieValue(input.cookies, SESSION_COOKIE);
  if (!token) throw notSignedIn();
  const now = deps.clock.now();
  const claims = await verifyToken(deps.config, 'session', token, now);
  if (!claims || !(await sessionIsLive(deps, claims.sub, claims.jti, now))) throw notSignedIn();
  return { userId: claims.sub, sessionId: claims.jti };
}
