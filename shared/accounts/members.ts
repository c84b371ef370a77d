/**
 * A project's members (docs/accounts.md, "Members and invitations"): list, add (or invite), change
 * a role, remove or leave.
 *
 * - Any member reads the list; OWNER and ADMIN manage it; only an OWNER makes owners, or changes
 *   or removes one; anyone may leave. A non-member gets 404 for the project, as for every project
 *   route, and an unknown member 404 too.
 * - The last OWNER cannot leave, be removed or be demoted (409 LAST_OWNER), also when requests
 *   race: the owner counter (`owners.ts`) is decremented first, conditionally.
 * - Every change of a membership is conditional on the role it was read with: a change that lost
 *   a race is read again and decided again (a few times, then 409 MEMBERS_BUSY).
 */
import { AppError, conflict, forbidden, notFound } from '../errors';
import { getProject } from '../projects/repository';
import { deleteInvitation, invite } from './invitations';
import { countOwner, ensureOwnerCount, joinProject, releaseOwner } from './owners';
import { MANAGERS, requireMember } from './projects';
import {
  changeMemberRole,
  deleteMembership,
  deleteUserSide,
  findUserByEmail,
  getProjectMember,
  getUser,
  type ProjectMember,
  projectMembers,
  putUserSide,
  type Role,
} from './repository';
import type { AccountDeps } from './service';

/** A member as the routes answer it. */
export interface MemberView {
  readonly userId: string;
  readonly email: string;
  readonly role: Role;
  readonly createdAt: string;
}

const view = (m: ProjectMember): MemberView => ({
  userId: m.userId,
  email: m.email,
  role: m.role,
  createdAt: m.createdAt,
});

/** Attempts of a change that keeps losing races before 409 MEMBERS_BUSY. */
const ATTEMPTS = 3;

const lastOwner = (message: string) =>
  new AppError(409, 'LAST_OWNER', message, { suggestion: 'Make another member OWNER first' });
const busy = () => conflict('MEMBERS_BUSY', 'The member was being changed at the same time; try again');
const onlyOwners = (what: string) => forbidden('FORBIDDEN', `Only OWNER members may ${what}`);
const memberNotFound = () => notFound('Member');

/** `GET /projects/{id}/members`: oldest first. */
export async function listMembers(
  deps: AccountDeps,
  userId: string,
  projectId: string,
): Promise<MemberView[]> {
  await requireMember(deps, userId, projectId);
  const members = await projectMembers(deps, projectId, { consistent: true });
  return members
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.email.localeCompare(b.email))
    .map(view);
}

export type AddMemberResult =
  | { readonly added: MemberView }
  | { readonly invited: { readonly invited: string; readonly role: Role; readonly expiresAt: string } };

/**
 * `POST /projects/{id}/members` `{email, role}`: a user with that email becomes a member at once
 * (201); anyone else is mailed an invitation (202), which replaces a pending one to the address.
 * A deployment without a system sender (SYSTEM_FROM) cannot mail one, and its token would reach
 * nobody: 409 INVITATIONS_NOT_MAILED, and nothing is stored.
 */
export async function addMember(
  deps: AccountDeps,
  userId: string,
  projectId: string,
  input: { readonly email: string; readonly role: Role },
): Promise<AddMemberResult> {
  const caller = await requireMember(deps, userId, projectId, MANAGERS);
  if (input.role === 'OWNER' && caller.role !== 'OWNER') throw onlyOwners('make owners');
  const [user, inviter, project] = await Promise.all([
    findUserByEmail(deps, input.email),
    getUser(deps, userId),
    getProject(deps, projectId),
  ]);
  if (!project) throw notFound('Project');
  if (!user && !deps.config.systemFrom)
    throw new AppError(
      409,
      'INVITATIONS_NOT_MAILED',
      'No user has this email, and this deployment sends no account mail (SYSTEM_FROM is not set): an invitation would reach nobody',
      {
        suggestion:
          "Set the deployment's system sender (the systemFrom context value), or add the person once they have an account",
      },
    );
  if (!user)
    return {
      invited: await invite(deps, {
        projectId,
        projectName: project.name,
        email: input.email,
        role: input.role,
        inviterEmail: inviter?.email ?? null,
      }),
    };
  const member = await joinProject(deps, { projectId, userId: user.id, role: input.role }, user.email);
  if (!member) throw conflict('ALREADY_MEMBER', 'This user is a member of the project already');
  // An invitation sent before the address had an account is moot now.
  await deleteInvitation(deps, projectId, user.email);
  return { added: view(member) };
}

/** `PATCH /projects/{id}/members/{userId}` `{role}`. */
export async function changeRole(
  deps: AccountDeps,
  userId: string,
  projectId: string,
  memberId: string,
  role: Role,
): Promise<MemberView> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const caller = await requireMember(deps, userId, projectId, MANAGERS);
    const target = await getProjectMember(deps, projectId, memberId);
    if (!target) throw memberNotFound();
    if ((target.role === 'OWNER' || role === 'OWNER') && caller.role !== 'OWNER')
      throw onlyOwners(role === 'OWNER' ? 'make owners' : 'change an OWNER');
    if (target.role === role) {
      // Nothing to change; the user's side is written again, which finishes a change that stopped
      // between the two sides.
      await putUserSide(deps, target);
      return view(target);
    }
    const demoting = target.role === 'OWNER';
    if (demoting || role === 'OWNER') await ensureOwnerCount(deps, projectId);
    if (demoting && !(await releaseOwner(deps, projectId)))
      throw lastOwner('The last OWNER of a project cannot be demoted');
    if (!(await changeMemberRole(deps, projectId, memberId, target.role, role))) {
      if (demoting) await countOwner(deps, projectId);
      continue;
    }
    const changed = { ...target, role };
    await putUserSide(deps, changed);
    if (role === 'OWNER') await countOwner(deps, projectId);
    return view(changed);
  }
  throw busy();
}

/**
 * `DELETE /projects/{id}/members/{userId}`: OWNER and ADMIN remove others (an OWNER only by an
 * OWNER), anyone removes themself. The member's session is refused on the project from the next
 * request on (the project's side of the membership goes first).
 */
export async function removeMember(
  deps: AccountDeps,
  userId: string,
  projectId: string,
  memberId: string,
): Promise<void> {
  const self = memberId === userId;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const caller = await requireMember(deps, userId, projectId, self ? undefined : MANAGERS);
    const target = await getProjectMember(deps, projectId, memberId);
    if (!target) {
      // A removal that stopped between the two sides left the user's side: it goes now.
      await deleteUserSide(deps, memberId, projectId);
      throw memberNotFound();
    }
    if (!self && target.role === 'OWNER' && caller.role !== 'OWNER') throw onlyOwners('remove an OWNER');
    const owner = target.role === 'OWNER';
    if (owner) {
      await ensureOwnerCount(deps, projectId);
      if (!(await releaseOwner(deps, projectId)))
        throw lastOwner(
          self
            ? 'The last OWNER cannot leave the project (delete it instead, or make another member OWNER)'
            : 'The last OWNER of a project cannot be removed',
        );
    }
    if (await deleteMembership(deps, projectId, memberId, target.role)) {
      // An invitation to the address that an accept left live (it stopped after joining) must not
      // let the removed user back in.
      await deleteInvitation(deps, projectId, target.email);
      return;
    }
    if (owner) await countOwner(deps, projectId);
  }
  throw busy();
}
