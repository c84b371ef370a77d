/** The authenticator interface (see ./index.ts). */
import type { RouteAuth } from '../../manifest';

/**
 * Route kinds whose caller acts for a project (every kind but `none` and `session`, whose caller
 * is a signed-in user: shared/http/auth/session.ts).
 */
export type AuthKind = Exclude<RouteAuth, 'none' | 'session'>;

/** What an authenticator may look at: the request as the stack has read it. */
export interface AuthInput {
  /** Header values by lower-cased name. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** Cookies as API Gateway's payload 2.0 lists them (`name=value`). */
  readonly cookies: readonly string[];
  /** The client's address as API Gateway saw it. */
  readonly sourceIp: string;
  /** The body's bytes, for schemes that sign them (webhooks). */
  readonly rawBody: Buffer | undefined;
}

/** Who is calling, as an authenticator established it. */
export interface Principal {
  /** The kind of the route that admitted the caller (for API keys: the kind of key shown). */
  readonly auth: AuthKind;
  /** The project the request acts for; its rate limit is counted. */
  readonly projectId: string;
  /** The signed-in member, when a session (rather than a key) admitted the caller. */
  readonly userId?: string;
}

export interface Authenticator {
  /** The caller of a request, or a thrown `AppError` (never a partial answer). */
  authenticate(input: AuthInput): Promise<Principal>;
}

export type Authenticators = { readonly [K in AuthKind]: Authenticator };
