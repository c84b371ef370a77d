/**
 * Signed tokens of the accounts: the session cookie's JWT and the one-time tokens mailed for email
 * verification, password reset and invitations. Both are HS256 JWTs (jose), signed with keys
 * derived (HKDF-SHA256) from the deployment's link-signing secret under a label per use, so a
 * token of one kind never verifies as another and rotating that one secret signs everyone out.
 */
import { hkdfSync } from 'node:crypto';
import type { AppConfig } from '../config/env';

const ISSUER = 'sesame';

export type TokenPurpose = 'session' | 'verify-email' | 'reset-password' | 'invite';

const keys = new Map<string, Uint8Array>();

/**
 * jose, loaded on the first token signed or checked: every route group has the session
 * authenticator, and a request with an API key never needs it.
 */
const jose = () => import('jose');

async function keyFor(config: Pick<AppConfig, 'linkSigningSecret'>, purpose: TokenPurpose) {
  const secret = await config.linkSigningSecret();
  if (!secret) throw new Error('No link-signing secret is configured: accounts cannot sign tokens');
  const id = `${purpose}:${secret}`;
  let key = keys.get(id);
  if (!key) {
    key = new Uint8Array(hkdfSync('sha256', secret, 'sesame-accounts', `sesame:${purpose}`, 32));
    keys.set(id, key);
  }
  return key;
}

export interface TokenClaims {
  /** The user. */
  readonly sub: string;
  /** The token's id: a session's id, a one-time token's single-use record. */
  readonly jti: string;
  /** What else the token carries (an invitation's project and role). */
  readonly data?: Record<string, string>;
}

export async function signToken(
  config: Pick<AppConfig, 'linkSigningSecret'>,
  purpose: TokenPurpose,
  claims: TokenClaims,
  now: Date,
  ttlSeconds: number,
): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  const { SignJWT } = await jose();
  return new SignJWT({ pur: purpose, ...(claims.data ? { dat: claims.data } : {}) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setSubject(claims.sub)
    .setJti(claims.jti)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .sign(await keyFor(config, purpose));
}

/** The claims of a valid, unexpired token of `purpose`; undefined for anything else. */
export async function verifyToken(
  config: Pick<AppConfig, 'linkSigningSecret'>,
  purpose: TokenPurpose,
  token: string,
  now: Date,
): Promise<TokenClaims | undefined> {
  const { errors, jwtVerify } = await jose();
  try {
    const { payload } = await jwtVerify(token, await keyFor(config, purpose), {
      issuer: ISSUER,
      algorithms: ['HS256'],
      currentDate: now,
      requiredClaims: ['sub', 'jti', 'exp'],
    });
    if (payload.pur !== purpose || typeof payload.sub !== 'string' || typeof payload.jti !== 'string')
      return undefined;
    const data =
      payload.dat && typeof payload.dat === 'object' ? (payload.dat as Record<string, string>) : undefined;
    return { sub: payload.sub, jti: payload.jti, ...(data ? { data } : {}) };
  } catch (error) {
    if (error instanceof errors.JOSEError) return undefined;
    throw error;
  }
}
