/**
 * Deleting and resetting a signed-in user's project (docs/accounts.md, "Deleting and resetting a
 * project"): OWNER only, both. The requests mark the project and queue its wipe
 * (shared/projects/wipe.ts); the `projects.wipe` job does the rest (shared/projects/wipe-job.ts).
 */
import { getStripeBilling } from '../billing/subscription';
import { AppError, conflict, forbidden, notFound, validationError } from '../errors';
import type { Deps } from '../ports';
import { getProject } from '../projects/repository';
import { readProjectItem, startDeletion, startReset, wipeOf } from '../projects/wipe';
import { requireMember } from './projects';
import { getMembership, type Role } from './repository';

export type RemovalDeps = Pick<Deps, 'store' | 'queue' | 'clock' | 'ids' | 'config' | 'mailer'>;

const OWNER_ONLY: readonly Role[] = ['OWNER'];

/**
 * Stripe subscription statuses after which Stripe charges nothing more. A project whose
 * subscription is in any other state is not deleted: its customer would go on being charged for a
 * project that no longer exists (cancel it in the billing portal first).
 */
const ENDED_SUBSCRIPTIONS: ReadonlySet<string> = new Set(['canceled', 'incomplete_expired']);

/**
 * `DELETE /users/@me/projects/{id}`: 202 once the project is gone for everyone (its keys answer
 * 401, it leaves its members' lists); its data follows through the job. The membership is read
 * first, the project item as stored: a delete repeated after one that stopped before answering
 * (its member still there) finishes it.
 */
export async function deleteUserProject(deps: RemovalDeps, userId: string, projectId: string) {
  const membership = await getMembership(deps, projectId, userId, { consistent: true });
  const item = membership ? await readProjectItem(deps, projectId) : undefined;
  const running = wipeOf(item);
  if (!membership || !item || (item.deletedAt && running?.kind !== 'delete')) throw notFound('Project');
  if (membership.role !== 'OWNER') throw forbidden('FORBIDDEN', 'Only OWNER members may delete a project');
  if (!item.deletedAt) {
    const billing = await getStripeBilling(deps, projectId);
    if (billing.subscriptionId && !ENDED_SUBSCRIPTIONS.has(billing.subscriptionStatus ?? ''))
      throw conflict(
        'SUBSCRIPTION_ACTIVE',
        'The project has a Stripe subscription: cancel it in the billing portal before deleting the project',
        { subscriptionStatus: billing.subscriptionStatus ?? null },
      );
  }
  if (!(await startDeletion(deps, projectId))) throw notFound('Project');
  return { id: projectId, status: 'deleting' as const };
}

/**
 * `POST /users/@me/projects/{id}/reset` `{confirm}`: `confirm` must be the project's name, exactly
 * (422 otherwise, nothing changed). 202 with the reset's state; `GET` the same path follows it.
 */
export async function resetUserProject(
  deps: RemovalDeps,
  userId: string,
  projectId: string,
  confirm: string,
) {
  await requireMember(deps, userId, projectId, OWNER_ONLY);
  const project = await getProject(deps, projectId);
  if (!project) throw notFound('Project');
  if (confirm !== project.name)
    throw validationError(
      [{ field: 'confirm', message: 'confirm must be the project name, exactly', code: 'confirm_mismatch' }],
      'Type the project name in confirm to reset it',
    );
  const wipe = await startReset(deps, projectId);
  if (!wipe) throw notFound('Project');
  return presentReset(wipe);
}

/** `GET /users/@me/projects/{id}/reset`: the last reset of the project (any member). */
export async function projectResetState(deps: RemovalDeps, userId: string, projectId: string) {
  await requireMember(deps, userId, projectId);
  const wipe = wipeOf(await readProjectItem(deps, projectId));
  if (wipe?.kind !== 'reset') throw new AppError(404, 'NOT_FOUND', 'The project was never reset');
  return presentReset(wipe);
}

function presentReset(wipe: NonNullable<ReturnType<typeof wipeOf>>) {
  return {
    status: wipe.error && wipe.status === 'processing' ? ('failed' as const) : wipe.status,
    requestedAt: wipe.requestedAt,
    completedAt: wipe.completedAt,
    deleted: wipe.deleted,
    error: wipe.error,
  };
}
