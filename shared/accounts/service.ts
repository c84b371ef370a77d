/**
 * The account use cases: signup, login, logout, email verification and password reset, and the
 * signed-in user's own records (docs/accounts.md).
 *
 * - Passwords: scrypt (`passwords.ts`). An unknown email is checked against a decoy hash, so it
 *   takes as long as a wrong password and gets the same 401 INVALID_CREDENTIALS.
 * - Throttling: failed logins are counted per email address in a 15-minute window; from the fifth,
 *   every login of that address (right password or not) is 429 until the window ends. The HTTP
 *   stack's per-instance failure limit is per address of the client; this one holds across
 *   instances and clients, which is what stops a distributed guess at one account.
 * - Sessions: a JWT in the `sesame_session` cookie names the user and a session item; logout
 *   deletes the item, so the cookie is refused on the next request even if it was copied.
 * - Mailed tokens: JWTs of their own purpose with a single-use item each, deleted on use
 *   (conditionally, so two uses of one token cannot both succeed). Asking for one answers the same
 *   whether the address has an account or not.
 */
import { AppError, conflict, forbidden } from '../errors';
import type { Deps } from '../ports';
import { createProject, getProject } from '../projects/repository';
import { SESSION_TTL_SECONDS } from './cookies';
import { sendAccountMail } from './mail';
import { countFirstOwner } from './owners';
import { hashPassword, verifyDecoy, verifyPassword } from './passwords';
import {
  clearLoginFailures,
  consumeToken,
  countLoginFailure,
  deleteSession,
  deleteSessions,
  findUserByEmail,
  getUser,
  loginFailures,
  membershipsOf,
  putMembership,
  putNewUser,
  putSession,
  putToken,
  type UserRecord,
  updateUser,
} from './repository';
import { signToken, type TokenPurpose, verifyToken } from './tokens';

export type AccountDeps = Pick<Deps, 'store' | 'clock' | 'ids' | 'config' | 'mailer'>;

export const LOGIN_FAILURE_LIMIT = 5;
export const LOGIN_WINDOW_SECONDS = 15 * 60;
const VERIFY_TTL_SECONDS = 24 * 3600;
const RESET_TTL_SECONDS = 3600;

export interface PublicUser {
  readonly id: string;
  readonly email: string;
  readonly emailVerified: boolean;
}

export const publicUser = (u: UserRecord): PublicUser => ({
  id: u.id,
  email: u.email,
  emailVerified: u.emailVerified,
});

const invalidCredentials = () => new AppError(401, 'INVALID_CREDENTIALS', 'Invalid email or password');
const invalidToken = () =>
  new AppError(400, 'INVALID_TOKEN', 'The token is invalid, expired or already used');

/** A new session for the user: its cookie's JWT. */
export async function startSession(deps: AccountDeps, userId: string): Promise<string> {
  const now = deps.clock.now();
  const sessionId = deps.ids.uuid();
  await putSession(deps, userId, sessionId, now, new Date(now.getTime() + SESSION_TTL_SECONDS * 1000));
  return signToken(deps.config, 'session', { sub: userId, jti: sessionId }, now, SESSION_TTL_SECONDS);
}

/** `POST /auth/signup`: the user, a first project owned by them with its keys, and a session. */
export async function signup(deps: AccountDeps, input: { email: string; password: string }) {
  if (!deps.config.signupEnabled) throw forbidden('SIGNUP_DISABLED', 'Signup is disabled on this deployment');
  const now = deps.clock.now().toISOString();
  const user: UserRecord = {
    id: deps.ids.uuid(),
    email: input.email,
    passwordHash: await hashPassword(input.password),
    emailVerified: false,
    createdAt: now,
    lastLoginAt: now,
  };
  if (!(await putNewUser(deps, user)))
    throw conflict('EMAIL_ALREADY_REGISTERED', 'An account with this email already exists');
  const { project, secretKey, publicKey } = await createProject(deps, { name: 'My project' });
  await putMembership(
    deps,
    { projectId: project.id, userId: user.id, role: 'OWNER', createdAt: now },
    user.email,
  );
  await countFirstOwner(deps, project.id);
  await mailToken(deps, user, 'verify-email');
  return {
    user: publicUser(user),
    project: { id: project.id, name: project.name },
    keys: { secretKey, publicKey },
    sessionToken: await startSession(deps, user.id),
  };
}

/** `POST /auth/login`: the user and a new session; 401 for any wrong pair, 429 when throttled. */
export async function login(deps: AccountDeps, input: { email: string; password: string }) {
  const now = deps.clock.now();
  const failures = await loginFailures(deps, input.email, now);
  if (failures.count >= LOGIN_FAILURE_LIMIT) {
    const wait = Math.max(1, failures.until - Math.floor(now.getTime() / 1000));
    throw new AppError(
      429,
      'TOO_MANY_LOGIN_ATTEMPTS',
      'Too many failed logins for this email; try again later',
      {
        headers: { 'retry-after': String(wait) },
        suggestion: `Retry after ${wait} seconds`,
      },
    );
  }
  const user = await findUserByEmail(deps, input.email);
  const ok = user
    ? await verifyPassword(input.password, user.passwordHash)
    : await verifyDecoy(input.password);
  if (!user || !ok) {
    await countLoginFailure(deps, input.email, now, LOGIN_WINDOW_SECONDS);
    throw invalidCredentials();
  }
  if (failures.count > 0) await clearLoginFailures(deps, input.email);
  await updateUser(deps, user.id, { lastLoginAt: now.toISOString() });
  return { user: publicUser(user), sessionToken: await startSession(deps, user.id) };
}

/** `GET /auth/logout`: revokes the cookie's session, if it is one (the cookie is cleared anyway). */
export async function logout(deps: AccountDeps, sessionToken: string | undefined): Promise<void> {
  if (!sessionToken) return;
  const claims = await verifyToken(deps.config, 'session', sessionToken, deps.clock.now());
  if (claims) await deleteSession(deps, claims.sub, claims.jti);
}

/** Mails a one-time token of `purpose` to the user. */
async function mailToken(deps: AccountDeps, user: UserRecord, purpose: 'verify-email' | 'reset-password') {
  const now = deps.clock.now();
  const ttl = purpose === 'verify-email' ? VERIFY_TTL_SECONDS : RESET_TTL_SECONDS;
  const tokenId = deps.ids.uuid();
  await putToken(deps, user.id, tokenId, purpose, new Date(now.getTime() + ttl * 1000));
  const token = await signToken(deps.config, purpose, { sub: user.id, jti: tokenId }, now, ttl);
  const hours = ttl / 3600;
  await sendAccountMail(deps, {
    to: user.email,
    ...(purpose === 'verify-email'
      ? {
          subject: 'Verify your email for Sesame',
          paragraphs: [
            'Confirm this address for your Sesame account with the token below (POST /auth/verify-email with {"token": ...}).',
            `Token: ${token}`,
            `It works once, within ${hours} hours. If you did not sign up, ignore this mail.`,
          ],
        }
      : {
          subject: 'Reset your Sesame password',
          paragraphs: [
            'Choose a new password with the token below (POST /auth/reset-password with {"token": ..., "password": ...}).',
            `Token: ${token}`,
            `It works once, within ${hours} hour. If you did not ask for it, ignore this mail: your password is unchanged.`,
          ],
        }),
  });
}

/** `POST /auth/request-verification`: mails a new token to an unverified account; the same answer otherwise. */
export async function requestVerification(deps: AccountDeps, email: string): Promise<void> {
  const user = await findUserByEmail(deps, email);
  if (user && !user.emailVerified) await mailToken(deps, user, 'verify-email');
}

/** `POST /auth/request-password-reset`: mails a reset token when the account exists; the same answer otherwise. */
export async function requestPasswordReset(deps: AccountDeps, email: string): Promise<void> {
  const user = await findUserByEmail(deps, email);
  if (user) await mailToken(deps, user, 'reset-password');
}

/** The user of a valid token of `purpose`, which this call uses up. */
async function useToken(deps: AccountDeps, purpose: TokenPurpose, token: string): Promise<UserRecord> {
  const now = deps.clock.now();
  const claims = await verifyToken(deps.config, purpose, token, now);
  if (!claims || !(await consumeToken(deps, claims.sub, claims.jti, purpose, now))) throw invalidToken();
  const user = await getUser(deps, claims.sub);
  if (!user) throw invalidToken();
  return user;
}

/** `POST /auth/verify-email`. */
export async function verifyEmail(deps: AccountDeps, token: string): Promise<{ user: PublicUser }> {
  const user = await useToken(deps, 'verify-email', token);
  await updateUser(deps, user.id, { emailVerified: true });
  return { user: { ...publicUser(user), emailVerified: true } };
}

/** `POST /auth/reset-password`: the new password, and every session of the user ended. */
export async function resetPassword(deps: AccountDeps, token: string, password: string): Promise<void> {
  const user = await useToken(deps, 'reset-password', token);
  await updateUser(deps, user.id, { passwordHash: await hashPassword(password) });
  await deleteSessions(deps, user.id);
  await clearLoginFailures(deps, user.email);
}

/** `GET /users/@me`. */
export async function me(deps: AccountDeps, userId: string) {
  const user = await getUser(deps, userId);
  if (!user) throw new AppError(401, 'UNAUTHORIZED', 'The account no longer exists');
  return { id: user.id, email: user.email, emailVerified: user.emailVerified, createdAt: user.createdAt };
}

/** `GET /users/@me/projects`: the projects the user is a member of, with their role. */
export async function myProjects(deps: AccountDeps, userId: string) {
  const memberships = await membershipsOf(deps, userId);
  const out = [];
  for (const m of memberships) {
    const project = await getProject(deps, m.projectId);
    if (project)
      out.push({
        id: project.id,
        name: project.name,
        role: m.role,
        disabled: project.disabled,
        createdAt: project.createdAt,
      });
  }
  return out;
}
