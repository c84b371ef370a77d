/**
 * The project's owner counter: `owners` on the project item, which is what makes "the last OWNER
 * cannot leave, be removed or be demoted" hold when requests race. DynamoDB could check two items
 * in one transaction, but the local engine (dynalite) has no transactions, and the same code runs
 * on both; one item's conditional update is atomic on both.
 *
 * The invariant: 1 <= counter <= the project's OWNER memberships.
 * - Taking an OWNER away (demotion, removal, leaving) first decrements the counter on the condition
 *   `owners > 1` (refused: 409 LAST_OWNER), then changes the membership on the condition that it
 *   is still OWNER; when that fails (someone changed it meanwhile), the decrement is given back.
 * - Making an OWNER (promotion, adding, a project's creation, an accepted invitation) writes the
 *   membership first, then increments.
 * So two owners demoting each other at once cannot both pass: the second decrement finds 1. A
 * crash between the two writes leaves the counter below the memberships, never above: a later
 * demotion may then be refused that could have passed, never the other way round.
 *
 * A project whose item has no counter (made before it existed) gets one from a consistent Query of
 * its members, once, before anything changes an OWNER (the project's members: tens of items).
 */
import type { Deps } from '../ports';
import type { StoreDeps } from '../store/store';
import { keys } from '../table';
import { type ProjectMember, projectMembers, putNewMembership, type Role } from './repository';

/** Makes sure the project item has its counter (a no-op read when it has). */
export async function ensureOwnerCount(deps: StoreDeps, projectId: string): Promise<void> {
  const item = await deps.store.get(keys.project(projectId), { consistent: true });
  if (!item || typeof item.owners === 'number') return;
  const members = await projectMembers(deps, projectId, { consistent: true });
  // Lost to another request's count: that one stands (both counted before any change, see above).
  await deps.store.writeIf({
    update: keys.project(projectId),
    expression: 'SET #owners = :n',
    names: { '#owners': 'owners' },
    values: { ':n': members.filter((m) => m.role === 'OWNER').length },
    if: 'attribute_exists(pk) AND attribute_not_exists(#owners)',
  });
}

/** Counts the creator of a new project, its one OWNER (kept when the counter exists already). */
export async function countFirstOwner(deps: StoreDeps, projectId: string): Promise<void> {
  await deps.store.write({
    update: keys.project(projectId),
    expression: 'SET #owners = if_not_exists(#owners, :one)',
    names: { '#owners': 'owners' },
    values: { ':one': 1 },
  });
}

/** One more OWNER, after its membership was written (`ensureOwnerCount` first). */
export async function countOwner(deps: StoreDeps, projectId: string): Promise<void> {
  await deps.store.writeIf({
    update: keys.project(projectId),
    expression: 'ADD #owners :one',
    names: { '#owners': 'owners' },
    values: { ':one': 1 },
    if: 'attribute_exists(pk)',
  });
}

/**
 * One OWNER fewer, before its membership changes (`ensureOwnerCount` first): false when it is the
 * last one, and nothing changed.
 */
export async function releaseOwner(deps: StoreDeps, projectId: string): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.project(projectId),
    expression: 'SET #owners = #owners - :one',
    names: { '#owners': 'owners' },
    values: { ':one': 1 },
    if: '#owners > :one',
  });
}

/**
 * Makes the user a member with `role`, keeping the count: undefined (nothing written) when they
 * are a member already.
 */
export async function joinProject(
  deps: StoreDeps & Pick<Deps, 'clock'>,
  m: { readonly projectId: string; readonly userId: string; readonly role: Role },
  email: string,
): Promise<ProjectMember | undefined> {
  if (m.role === 'OWNER') await ensureOwnerCount(deps, m.projectId);
  const member: ProjectMember = { ...m, email, createdAt: deps.clock.now().toISOString() };
  if (!(await putNewMembership(deps, member, email))) return undefined;
  if (m.role === 'OWNER') await countOwner(deps, m.projectId);
  return member;
}
