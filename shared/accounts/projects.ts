/**
 * A signed-in user's projects (docs/accounts.md): create, rename,
 * rotate the keys, and read the security summary and the setup state. Every use case starts from
 * the user's membership: a project the user is not a member of answers 404, as if it did not
 * exist; a member whose role may not do the thing gets 403 `FORBIDDEN`.
 */
import { readContactStats } from '../contacts/stats';
import { listDomains } from '../domains/repository';
import { AppError, conflict, forbidden, notFound } from '../errors';
import { isReservedEventName } from '../events/names';
import { anyEventNamed, listEventNames } from '../events/repository';
import {
  createProject,
  getProject,
  getProjectKeys,
  renameProject,
  rotateProjectKeys,
} from '../projects/repository';
import { keys } from '../table';
import { countFirstOwner } from './owners';
import {
  getMembership,
  getUser,
  type Membership,
  projectMembers,
  putMembership,
  type Role,
} from './repository';
import type { AccountDeps } from './service';

/** The user's membership of the project: 404 without one (or without the project), 403 for a role not in `roles`. */
export async function requireMember(
  deps: AccountDeps,
  userId: string,
  projectId: string,
  roles?: readonly Role[],
): Promise<Membership> {
  const membership = await getMembership(deps, projectId, userId, { consistent: true });
  if (!membership || !(await getProject(deps, projectId))) throw notFound('Project');
  if (roles && !roles.includes(membership.role))
    throw forbidden('FORBIDDEN', `Only ${roles.join(' or ')} members may do this`);
  return membership;
}

/** The roles that may change a project's settings. */
export const MANAGERS: readonly Role[] = ['OWNER', 'ADMIN'];

export async function createUserProject(deps: AccountDeps, userId: string, name: string) {
  const user = await getUser(deps, userId);
  if (!user) throw new AppError(401, 'UNAUTHORIZED', 'The account no longer exists');
  const { project, secretKey, publicKey } = await createProject(deps, { name });
  await putMembership(
    deps,
    { projectId: project.id, userId, role: 'OWNER', createdAt: project.createdAt },
    user.email,
  );
  await countFirstOwner(deps, project.id);
  return { project: { ...project, role: 'OWNER' as const }, keys: { secretKey, publicKey } };
}

export async function renameUserProject(deps: AccountDeps, userId: string, projectId: string, name: string) {
  const membership = await requireMember(deps, userId, projectId, MANAGERS);
  await renameProject(deps, projectId, name);
  const project = await getProject(deps, projectId);
  if (!project) throw notFound('Project');
  return { ...project, role: membership.role };
}

/** Both keys replaced; the old ones are refused from the next request on (every instance reads keys). */
export async function regenerateKeys(deps: AccountDeps, userId: string, projectId: string) {
  await requireMember(deps, userId, projectId, MANAGERS);
  const out = await rotateProjectKeys(deps, projectId);
  if (out === 'missing') throw notFound('Project');
  if (out === 'busy') throw conflict('KEYS_BUSY', 'The keys were being replaced at the same time; try again');
  return out;
}

/** `{keys: {secretKeyPrefix, publicKeyPrefix, rotatedAt}, members, lastLoginAt}` (the caller's last login). */
export async function projectSecurity(deps: AccountDeps, userId: string, projectId: string) {
  await requireMember(deps, userId, projectId);
  const [projectKeys, user] = await Promise.all([getProjectKeys(deps, projectId), getUser(deps, userId)]);
  const members = (await projectMembers(deps, projectId)).map(({ userId, email, role, createdAt }) => ({
    userId,
    email,
    role,
    createdAt,
  }));
  return {
    keys: {
      secretKeyPrefix: projectKeys?.secretKeyPrefix ?? null,
      publicKeyPrefix: projectKeys?.publicKeyPrefix ?? null,
      rotatedAt: projectKeys?.rotatedAt ?? null,
    },
    members,
    lastLoginAt: user?.lastLoginAt ?? null,
  };
}

/**
 * `GET /projects/{id}/setup-state`: what a new project has done yet. Each answer is one small read
 * (a counter, the project's domains, its template list's first item, one index entry, the event
 * names registry), none growing with the project's contacts or events.
 */
export async function setupState(deps: AccountDeps, userId: string, projectId: string) {
  await requireMember(deps, userId, projectId);
  const [stats, domains, templates, sent, names] = await Promise.all([
    readContactStats(deps, projectId),
    listDomains(deps, projectId),
    deps.store.query(
      { partition: keys.projectPartition(projectId), sort: { beginsWith: keys.templatePrefix } },
      { limit: 1 },
    ),
    anyEventNamed(deps, projectId, 'email.sent'),
    listEventNames(deps, projectId),
  ]);
  return {
    hasVerifiedDomain: domains.some((d) => d.status === 'VERIFIED'),
    hasTemplate: templates.items.length > 0,
    hasContact: stats.total > 0,
    hasSentEmail: sent,
    // A name is registered with the first event recorded under it (its count follows later).
    hasTrackedEvent: names.some((n) => !isReservedEventName(n.name)),
  };
}
