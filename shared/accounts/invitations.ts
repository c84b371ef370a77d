/**
 * Invitations to a project (docs/accounts.md, "Members and invitations"): what `POST
 * /projects/{id}/members` sends to an address that has no account, and the two ways to take it up.
 *
 * - The invitation is an item of the project (`keys.invitation`: one per address, so a new one
 *   replaces a pending one, and the older token stops working) holding the role, the inviter's
 *   address, the expiry and the SHA-256 of the token: never the token itself.
 * - The token is a signed JWT of its own purpose (`invite`, tokens.ts) naming the project and the
 *   address, valid 7 days, mailed from the system sender like verification mails.
 * - Taking it up deletes the item on the condition that it still holds this token's hash and has
 *   not expired, so it works once even when two requests race; a token for another address is
 *   refused before anything is used up.
 * - `POST /auth/signup` with `invitation` works even where signup is closed: the new user joins
 *   the invited project with the role, gets no project of their own, and their address counts as
 *   verified (the token reached it). `POST /auth/accept-invitation` does the same for a signed-in
 *   user whose address it was sent to.
 */
import { createHash } from 'node:crypto';
import { AppError, conflict, forbidden } from '../errors';
import { getProject } from '../projects/repository';
import type { Item } from '../store/store';
import { keys } from '../table';
import { sendAccountMail } from './mail';
import { joinProject } from './owners';
import { hashPassword } from './passwords';
import {
  findUserByEmail,
  getProjectMember,
  getUser,
  putNewUser,
  type Role,
  type UserRecord,
  updateUser,
} from './repository';
import { type AccountDeps, publicUser, startSession } from './service';
import { signToken, verifyToken } from './tokens';

export const INVITATION_TTL_SECONDS = 7 * 24 * 3600;

const invalidInvitation = () =>
  new AppError(
    400,
    'INVALID_INVITATION',
    'The invitation is invalid, expired, replaced by a newer one or already used',
    { suggestion: 'Ask a project OWNER or ADMIN to invite you again' },
  );
const emailMismatch = () =>
  forbidden('INVITATION_EMAIL_MISMATCH', 'The invitation was sent to another email address');
const emailTaken = () =>
  conflict(
    'EMAIL_ALREADY_REGISTERED',
    'An account with this email already exists: log in and accept the invitation',
  );

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const epochSeconds = (at: Date) => Math.floor(at.getTime() / 1000);

/** Stores an invitation (replacing a pending one to the address) and mails its token. */
export async function invite(
  deps: AccountDeps,
  input: {
    readonly projectId: string;
    readonly projectName: string;
    readonly email: string;
    readonly role: Role;
    readonly inviterEmail: string | null;
  },
): Promise<{ invited: string; role: Role; expiresAt: string }> {
  const now = deps.clock.now();
  const expiresAt = epochSeconds(now) + INVITATION_TTL_SECONDS;
  const token = await signToken(
    deps.config,
    'invite',
    { sub: input.projectId, jti: deps.ids.uuid(), data: { email: input.email } },
    now,
    INVITATION_TTL_SECONDS,
  );
  await deps.store.write({
    put: {
      ...keys.invitation(input.projectId, input.email),
      projectId: input.projectId,
      email: input.email,
      role: input.role,
      invitedBy: input.inviterEmail,
      createdAt: now.toISOString(),
      tokenHash: hashToken(token),
      expiresAt,
    },
  });
  const days = INVITATION_TTL_SECONDS / 86400;
  // The subject is fixed: the project's name (user input) goes in the body only.
  await sendAccountMail(deps, {
    to: input.email,
    subject: 'You are invited to a Sesame project',
    paragraphs: [
      `${input.inviterEmail ?? 'A member'} invited you to the Sesame project "${input.projectName}" as ${input.role}.`,
      'Without a Sesame account, sign up with the token below (POST /auth/signup with {"email": ..., "password": ..., "invitation": ...}), even where signup is otherwise closed. With an account for this address, log in and accept it (POST /auth/accept-invitation with {"token": ...}).',
      `Token: ${token}`,
      `It works once, within ${days} days, for this address only. If you did not expect it, ignore this mail.`,
    ],
  });
  return { invited: input.email, role: input.role, expiresAt: new Date(expiresAt * 1000).toISOString() };
}

/** Drops the pending invitation to the address, if any. */
export async function deleteInvitation(deps: AccountDeps, projectId: string, email: string): Promise<void> {
  await deps.store.write({ delete: keys.invitation(projectId, email) });
}

interface OpenInvitation {
  readonly projectId: string;
  readonly email: string;
  readonly role: Role;
  readonly item: Item;
}

/** The pending invitation `token` is for, if it is for `email`: nothing is used up yet. */
async function openInvitation(deps: AccountDeps, token: string, email: string): Promise<OpenInvitation> {
  const now = deps.clock.now();
  const claims = await verifyToken(deps.config, 'invite', token, now);
  const invited = claims?.data?.email;
  if (!claims || typeof invited !== 'string') throw invalidInvitation();
  if (invited !== email.toLowerCase()) throw emailMismatch();
  const item = await deps.store.get(keys.invitation(claims.sub, invited), { consistent: true });
  if (!item || item.tokenHash !== hashToken(token) || Number(item.expiresAt) <= epochSeconds(now))
    throw invalidInvitation();
  return { projectId: claims.sub, email: invited, role: item.role as Role, item };
}

/** Uses the invitation up: true for the one request that deletes it while it is live. */
async function useInvitation(deps: AccountDeps, invitation: OpenInvitation): Promise<boolean> {
  return deps.store.writeIf({
    delete: keys.invitation(invitation.projectId, invitation.email),
    if: 'tokenHash = :hash AND expiresAt > :now',
    values: { ':hash': invitation.item.tokenHash, ':now': epochSeconds(deps.clock.now()) },
  });
}

/** `POST /auth/signup` with `invitation`: a new user who joins the invited project (any signup setting). */
export async function signupWithInvitation(
  deps: AccountDeps,
  input: { readonly email: string; readonly password: string; readonly invitation: string },
) {
  const invitation = await openInvitation(deps, input.invitation, input.email);
  const project = await getProject(deps, invitation.projectId);
  if (!project) throw invalidInvitation();
  if (await findUserByEmail(deps, input.email)) throw emailTaken();
  const passwordHash = await hashPassword(input.password);
  const now = deps.clock.now().toISOString();
  const user: UserRecord = {
    id: deps.ids.uuid(),
    email: input.email,
    passwordHash,
    emailVerified: true,
    createdAt: now,
    lastLoginAt: now,
  };
  // Taken meanwhile: the invitation stays for that account to accept.
  if (!(await putNewUser(deps, user))) throw emailTaken();
  // The membership first, the invitation used up last: a crash in between leaves the invitation
  // live for the new account to accept (POST /auth/accept-invitation), never lost.
  await joinProject(deps, { projectId: project.id, userId: user.id, role: invitation.role }, user.email);
  await useInvitation(deps, invitation);
  return {
    user: publicUser(user),
    project: { id: project.id, name: project.name, role: invitation.role },
    sessionToken: await startSession(deps, user.id),
  };
}

/** `POST /auth/accept-invitation` `{token}`: the signed-in user joins the invited project. */
export async function acceptInvitation(deps: AccountDeps, userId: string, token: string) {
  const user = await getUser(deps, userId);
  if (!user) throw new AppError(401, 'UNAUTHORIZED', 'The account no longer exists');
  const invitation = await openInvitation(deps, token, user.email);
  const project = await getProject(deps, invitation.projectId);
  if (!project) throw invalidInvitation();
  // The membership first, the invitation used up last, so that a crash in between loses nothing:
  // the retry finds the membership, uses the invitation up and answers as the first try would.
  const joined = await joinProject(
    deps,
    { projectId: project.id, userId, role: invitation.role },
    user.email,
  );
  const used = await useInvitation(deps, invitation);
  const member = joined ?? (used ? await getProjectMember(deps, project.id, userId) : undefined);
  // Joined by a request that used the invitation first (two accepts at once): this one is late.
  if (!member) throw invalidInvitation();
  // The token reached the address.
  if (!user.emailVerified) await updateUser(deps, userId, { emailVerified: true });
  return { project: { id: project.id, name: project.name, role: member.role } };
}
