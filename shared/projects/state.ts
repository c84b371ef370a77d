/**
 * Whether a project's background work may run (docs/accounts.md, "Disabled projects"): the one
 * project check of the scheduled and queued work that a disabled project must not do (a scheduled
 * campaign's start and its fan-out, workflow steps, periodic segment work, imports and bulk jobs),
 * and that a deleted project must drop.
 *
 * - `live`: the project exists and is enabled;
 * - `disabled`: by an operator or by billing (`disabledBy`), since `disabledAt`;
 * - `gone`: no project item, or one being deleted (`deletedAt`, shared/projects/wipe.ts).
 *
 * Answers are cached per instance for `PROJECT_STATE_TTL_MS`, as the API-key authenticator caches
 * projects (shared/http/auth/api-key.ts): a project disabled or enabled is seen by background work
 * within a minute, at the cost of one read per project per instance per minute.
 */
import type { Deps } from '../ports';
import type { StoreDeps } from '../store/store';
import { keys } from '../table';

export const PROJECT_STATE_TTL_MS = 60_000;
/** Entries at most; a full cache starts over. */
const MAX_ENTRIES = 1000;

export type ProjectStateName = 'live' | 'disabled' | 'gone';

export interface ProjectState {
  readonly state: ProjectStateName;
  /** When it was disabled (ISO), for a disabled project that recorded it. */
  readonly disabledAt?: string;
}

/** Project id -> its state and when it was read (epoch ms of the deps' clock). */
const cache = new Map<string, { at: number; value: ProjectState }>();

/** The project's state as stored now (no cache). */
export async function readProjectState(deps: StoreDeps, projectId: string): Promise<ProjectState> {
  const item = await deps.store.get(keys.project(projectId));
  if (!item || item.deletedAt) return { state: 'gone' };
  if (item.disabled === true)
    return {
      state: 'disabled',
      ...(typeof item.disabledAt === 'string' ? { disabledAt: item.disabledAt } : {}),
    };
  return { state: 'live' };
}

/** The project's state, from this instance's cache when read within the last minute. */
export async function projectState(
  deps: StoreDeps & Pick<Deps, 'clock'>,
  projectId: string,
): Promise<ProjectState> {
  const now = deps.clock.now().getTime();
  const hit = cache.get(projectId);
  if (hit && now - hit.at < PROJECT_STATE_TTL_MS && now >= hit.at) return hit.value;
  const value = await readProjectState(deps, projectId);
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(projectId, { at: now, value });
  return value;
}

/**
 * How long work held for a disabled project waits before it looks again (a one-off schedule named
 * after the work, so that duplicates of a message make one schedule): work resumes within this
 * long of the project being enabled again.
 */
export const HOLD_DELAY_S = 900;

/**
 * Work held this long past the project's `disabledAt` is given up (the workflow execution fails,
 * the fan-out is cancelled) rather than looked at every 15 minutes for ever: at most 672 messages
 * per held execution or campaign.
 */
export const MAX_HOLD_MS = 7 * 86_400_000;

/** Whether work held for a disabled project should be given up (see `MAX_HOLD_MS`). */
export function holdExpired(state: ProjectState, now: Date): boolean {
  if (state.state !== 'disabled' || !state.disabledAt) return false;
  return now.getTime() - Date.parse(state.disabledAt) > MAX_HOLD_MS;
}

export const PROJECT_DISABLED = 'PROJECT_DISABLED';

/** Thrown by a job item's chunk (an import, a bulk job) of a disabled project: the job fails with it. */
export class ProjectDisabledJobError extends Error {
  override readonly name = 'ProjectDisabledJobError';
  readonly code = PROJECT_DISABLED;
  constructor() {
    super('The project is disabled: the job was stopped; run it again once the project is enabled');
  }
}

/**
 * The project check of a job with a job item: true when it may go on, false when its project is
 * gone (nothing to record: its items are being deleted); throws `ProjectDisabledJobError` when it
 * is disabled, which the job records as its failure (a chunked job's `fatal`).
 */
export async function jobMayRun(deps: StoreDeps & Pick<Deps, 'clock'>, projectId: string): Promise<boolean> {
  const { state } = await projectState(deps, projectId);
  if (state === 'disabled') throw new ProjectDisabledJobError();
  return state === 'live';
}

/** A chunked job's `fatal` for `ProjectDisabledJobError`. */
export function disabledFailure(error: unknown): { code: string; message: string } | undefined {
  return error instanceof ProjectDisabledJobError ? { code: error.code, message: error.message } : undefined;
}
