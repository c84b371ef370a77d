/**
 * The header a request signed in with the session cookie must carry to change anything (any
 * value): a cross-site form cannot set a header, and a cross-site script cannot send one without
 * a CORS preflight, which allows no such header (shared/manifest.ts, `cors`). The dashboard
 * always sends it. A request with an Authorization header is judged by its key, which no browser
 * adds by itself, and needs none.
 */
import { SESSION_COOKIE } from '../accounts/cookies';
import { AppError } from '../errors';
import { cookieValue } from './auth/session';

export const CSRF_HEADER = 'x-requested-with';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a request must be refused for want of `CSRF_HEADER`: it changes something and carries
 * the session cookie, on a route that takes the session only (`session`) or without an
 * Authorization header (which would be judged instead). `headers` with lower-case names.
 */
export function csrfHeaderMissing(request: {
  readonly method: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly cookies: readonly string[];
  readonly session: boolean;
}): boolean {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return false;
  // Without the cookie there is nothing to forge: authentication answers (401 without a session).
  if (cookieValue(request.cookies, SESSION_COOKIE) === undefined) return false;
  const byCookie = request.session || request.headers.authorization === undefined;
  return byCookie && (request.headers[CSRF_HEADER] ?? '').trim() === '';
}

export const CSRF_MESSAGE = `A request signed in with the session cookie that changes something must carry the ${CSRF_HEADER} header`;

/** 403 `CSRF_HEADER_MISSING`. */
export const csrfRefusal = () => new AppError(403, 'CSRF_HEADER_MISSING', CSRF_MESSAGE);
