/** The session cookie: a signed JWT, HttpOnly, Secure, SameSite=Lax, Path=/. */
export const SESSION_COOKIE = 'sesame_session';
/** Sessions last a week; logging in again starts a new one. */
export const SESSION_TTL_SECONDS = 7 * 24 * 3600;

const FLAGS = 'HttpOnly; Secure; SameSite=Lax; Path=/';

export const sessionCookie = (token: string) =>
  `${SESSION_COOKIE}=${token}; ${FLAGS}; Max-Age=${SESSION_TTL_SECONDS}`;

/** Clears the cookie in the browser (the session itself is revoked server-side). */
export const clearedSessionCookie = () => `${SESSION_COOKIE}=; ${FLAGS}; Max-Age=0`;
