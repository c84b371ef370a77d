/**
 * Users, their sessions, one-time tokens, failed-login windows and memberships as stored (keys in
 * shared/table.ts). A user is two items, like a contact: the email claim (a conditional put, which
 * makes emails unique case-insensitively) and the user item, written in that order; a claim whose
 * user item is missing (a crash between the two) is taken over by the next signup of that email.
 */
import type { Item, StoreDeps } from '../store/store';
import { keys } from '../table';

export type Role = 'OWNER' | 'ADMIN' | 'MEMBER';

export interface UserRecord {
  readonly id: string;
  readonly email: string;
  readonly passwordHash: string;
  readonly emailVerified: boolean;
  readonly createdAt: string;
  readonly lastLoginAt: string | null;
}

const epochSeconds = (at: Date) => Math.floor(at.getTime() / 1000);

function userOf(item: Item): UserRecord {
  return {
    id: String(item.id),
    email: String(item.email),
    passwordHash: String(item.passwordHash),
    emailVerified: item.emailVerified === true,
    createdAt: String(item.createdAt),
    lastLoginAt: (item.lastLoginAt as string | undefined) ?? null,
  };
}

export async function getUser(deps: StoreDeps, userId: string): Promise<UserRecord | undefined> {
  const item = await deps.store.get(keys.user(userId), { consistent: true });
  return item ? userOf(item) : undefined;
}

export async function findUserByEmail(deps: StoreDeps, email: string): Promise<UserRecord | undefined> {
  const claim = await deps.store.get(keys.userEmail(email), { consistent: true });
  if (!claim) return undefined;
  const user = await getUser(deps, String(claim.userId));
  return user && user.email.toLowerCase() === email.toLowerCase() ? user : undefined;
}

/**
 * Claims `email` for `user.id` and writes the user: false when another user holds the email. A
 * claim left by a signup that stopped before its user item is taken over.
 */
export async function putNewUser(deps: StoreDeps, user: UserRecord): Promise<boolean> {
  const claim = keys.userEmail(user.email);
  let claimed = await deps.store.writeIf({
    put: { ...claim, userId: user.id, createdAt: user.createdAt },
    if: 'attribute_not_exists(pk)',
  });
  if (!claimed) {
    const held = await deps.store.get(claim, { consistent: true });
    const holder = held ? await getUser(deps, String(held.userId)) : undefined;
    if (holder) return false;
    claimed = await deps.store.writeIf({
      put: { ...claim, userId: user.id, createdAt: user.createdAt },
      if: 'userId = :held',
      values: { ':held': held?.userId ?? null },
    });
    if (!claimed) return false;
  }
  await deps.store.write({ put: { ...keys.user(user.id), ...user }, if: 'attribute_not_exists(pk)' });
  return true;
}

export async function updateUser(
  deps: StoreDeps,
  userId: string,
  change: Partial<Pick<UserRecord, 'passwordHash' | 'emailVerified' | 'lastLoginAt'>>,
): Promise<void> {
  const entries = Object.entries(change).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return;
  await deps.store.write({
    update: keys.user(userId),
    expression: `SET ${entries.map((_, i) => `#a${i} = :v${i}`).join(', ')}`,
    names: Object.fromEntries(entries.map(([k], i) => [`#a${i}`, k])),
    values: Object.fromEntries(entries.map(([, v], i) => [`:v${i}`, v])),
    if: 'attribute_exists(pk)',
  });
}

// Sessions ------------------------------------------------------------------------------------

export async function putSession(
  deps: StoreDeps,
  userId: string,
  sessionId: string,
  now: Date,
  expiresAt: Date,
): Promise<void> {
  await deps.store.write({
    put: {
      ...keys.userSession(userId, sessionId),
      createdAt: now.toISOString(),
      expiresAt: epochSeconds(expiresAt),
    },
  });
}

/** Whether the session exists and has not expired (DynamoDB deletes expired items only eventually). */
export async function sessionIsLive(deps: StoreDeps, userId: string, sessionId: string, now: Date) {
  const item = await deps.store.get(keys.userSession(userId, sessionId), { consistent: true });
  return item !== undefined && Number(item.expiresAt) > epochSeconds(now);
}

export async function deleteSession(deps: StoreDeps, userId: string, sessionId: string): Promise<void> {
  await deps.store.write({ delete: keys.userSession(userId, sessionId) });
}

/** Signs the user out everywhere (a password reset). */
export async function deleteSessions(deps: StoreDeps, userId: string): Promise<void> {
  const found: { pk: string; sk: string }[] = [];
  for await (const item of deps.store.queryAll({
    partition: keys.userPartition(userId),
    sort: { beginsWith: keys.userSessionPrefix },
    attributes: ['pk', 'sk'],
    consistent: true,
  }))
    found.push({ pk: String(item.pk), sk: String(item.sk) });
  await deps.store.batchDelete(found);
}

// One-time tokens -----------------------------------------------------------------------------

export async function putToken(
  deps: StoreDeps,
  userId: string,
  tokenId: string,
  purpose: string,
  expiresAt: Date,
): Promise<void> {
  await deps.store.write({
    put: { ...keys.userToken(userId, tokenId), purpose, expiresAt: epochSeconds(expiresAt) },
  });
}

/** Uses the token up: true only for the one call that deletes it while it is live. */
export async function consumeToken(
  deps: StoreDeps,
  userId: string,
  tokenId: string,
  purpose: string,
  now: Date,
): Promise<boolean> {
  return deps.store.writeIf({
    delete: keys.userToken(userId, tokenId),
    if: 'purpose = :purpose AND expiresAt > :now',
    values: { ':purpose': purpose, ':now': epochSeconds(now) },
  });
}

// Failed logins -------------------------------------------------------------------------------

export interface FailureWindow {
  readonly count: number;
  /** Epoch seconds when the window ends. */
  readonly until: number;
}

export async function loginFailures(deps: StoreDeps, email: string, now: Date): Promise<FailureWindow> {
  const item = await deps.store.get(keys.loginFailures(email), { consistent: true });
  if (!item || Number(item.expiresAt) <= epochSeconds(now)) return { count: 0, until: 0 };
  return { count: Number(item.count ?? 0), until: Number(item.expiresAt) };
}

/** Counts a failed login; a new window starts when the last one has ended. */
export async function countLoginFailure(deps: StoreDeps, email: string, now: Date, windowSeconds: number) {
  const t = epochSeconds(now);
  const restarted = await deps.store.writeIf({
    put: { ...keys.loginFailures(email), count: 1, expiresAt: t + windowSeconds },
    if: 'attribute_not_exists(pk) OR expiresAt <= :now',
    values: { ':now': t },
  });
  if (!restarted)
    await deps.store.write({
      update: keys.loginFailures(email),
      expression: 'ADD #count :one',
      names: { '#count': 'count' },
      values: { ':one': 1 },
    });
}

export async function clearLoginFailures(deps: StoreDeps, email: string): Promise<void> {
  await deps.store.write({ delete: keys.loginFailures(email) });
}

// Memberships ---------------------------------------------------------------------------------

export interface Membership {
  readonly projectId: string;
  readonly userId: string;
  readonly role: Role;
  readonly createdAt: string;
}

/** The user's side last: a project lists a member before the member lists the project. */
export async function putMembership(deps: StoreDeps, m: Membership, email: string): Promise<void> {
  await deps.store.write({ put: { ...keys.member(m.projectId, m.userId), ...m, email } });
  await deps.store.write({ put: { ...keys.userProject(m.userId, m.projectId), ...m } });
}

export async function getMembership(
  deps: StoreDeps,
  projectId: string,
  userId: string,
  options: { readonly consistent?: boolean } = {},
): Promise<Membership | undefined> {
  const item = await deps.store.get(keys.member(projectId, userId), options);
  if (!item) return undefined;
  return { projectId, userId, role: item.role as Role, createdAt: String(item.createdAt) };
}

/** The user's memberships, from the user's side (one query of the user's partition). */
export async function membershipsOf(deps: StoreDeps, userId: string): Promise<Membership[]> {
  const out: Membership[] = [];
  for await (const item of deps.store.queryAll({
    partition: keys.userPartition(userId),
    sort: { beginsWith: keys.userProjectPrefix },
  }))
    out.push({
      projectId: String(item.projectId),
      userId,
      role: item.role as Role,
      createdAt: String(item.createdAt),
    });
  return out;
}

/** A membership as the project lists it: with the member's email (stored on the project's side). */
export interface ProjectMember extends Membership {
  readonly email: string;
}

function projectMemberOf(item: Item): ProjectMember {
  return {
    projectId: String(item.projectId),
    userId: String(item.userId),
    email: String(item.email),
    role: item.role as Role,
    createdAt: String(item.createdAt),
  };
}

/** The project's members (one query of the project's MEMBER# items; invitations are not among them). */
export async function projectMembers(
  deps: StoreDeps,
  projectId: string,
  options: { readonly consistent?: boolean } = {},
): Promise<ProjectMember[]> {
  const out: ProjectMember[] = [];
  for await (const item of deps.store.queryAll({
    partition: keys.projectPartition(projectId),
    sort: { beginsWith: keys.memberPrefix },
    ...(options.consistent ? { consistent: true } : {}),
  }))
    out.push(projectMemberOf(item));
  return out;
}

/** The project's side of one membership, with the email (consistent). */
export async function getProjectMember(
  deps: StoreDeps,
  projectId: string,
  userId: string,
): Promise<ProjectMember | undefined> {
  const item = await deps.store.get(keys.member(projectId, userId), { consistent: true });
  return item ? projectMemberOf(item) : undefined;
}

/** Adds a member: false (nothing written) when the user is a member already. */
export async function putNewMembership(deps: StoreDeps, m: Membership, email: string): Promise<boolean> {
  const added = await deps.store.writeIf({
    put: { ...keys.member(m.projectId, m.userId), ...m, email },
    if: 'attribute_not_exists(pk)',
  });
  if (added) await putUserSide(deps, m);
  return added;
}

/** The user's side of a membership (their project list), as the project's side has it. */
export async function putUserSide(deps: StoreDeps, m: Membership): Promise<void> {
  const { projectId, userId, role, createdAt } = m;
  await deps.store.write({
    put: { ...keys.userProject(userId, projectId), projectId, userId, role, createdAt },
  });
}

/** The project's side changes role only if it still has `from`: false otherwise, nothing written. */
export async function changeMemberRole(
  deps: StoreDeps,
  projectId: string,
  userId: string,
  from: Role,
  to: Role,
): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.member(projectId, userId),
    expression: 'SET #role = :to',
    names: { '#role': 'role' },
    values: { ':to': to, ':from': from },
    if: '#role = :from',
  });
}

/**
 * Removes a membership whose role is still `role` (false otherwise, nothing deleted): the project's
 * side first, which is what admits the member (they are refused from the next request on), then
 * the user's side.
 */
export async function deleteMembership(
  deps: StoreDeps,
  projectId: string,
  userId: string,
  role: Role,
): Promise<boolean> {
  const deleted = await deps.store.writeIf({
    delete: keys.member(projectId, userId),
    if: '#role = :role',
    names: { '#role': 'role' },
    values: { ':role': role },
  });
  if (deleted) await deps.store.write({ delete: keys.userProject(userId, projectId) });
  return deleted;
}

/** The user's side of a membership alone (what a removal that stopped half-way left). */
export async function deleteUserSide(deps: StoreDeps, userId: string, projectId: string): Promise<void> {
  await deps.store.write({ delete: keys.userProject(userId, projectId) });
}
