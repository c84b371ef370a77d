/**
 * Deleting and resetting a project (docs/accounts.md, "Deleting and resetting a project"): the
 * request's side. A request marks the project, queues a `projects.wipe` job (`wipe-job.ts`), and
 * answers; the job removes the data.
 *
 * The state of a wipe is the `wipe` map of the project item: `kind` (`delete` or `reset`), `runId`
 * (the run its messages belong to), `status` (`processing`, `completed`, `failed`), `requestedAt`,
 * `completedAt`, `error`, and the job's position (`cursor`, `page`, `deleted`). A new request
 * starts a new run: the messages of an earlier run find another `runId` and stop, so a delete
 * asked during a reset takes over, and a second reset starts again from the start.
 *
 * A delete also sets `deletedAt` on the project item, which makes the project not exist for every
 * reader at once (`getProject`, the project checks of background work), and deletes its API-key
 * items and its memberships before answering, so its keys answer 401 and it leaves its members'
 * project lists on the very next request. The item itself goes last, when the job has removed
 * everything else.
 */
import * as z from 'zod/mini';
import { defineJobMessage, enqueue } from '../jobs/registry';
import type { Deps } from '../ports';
import type { Item, Key, StoreDeps } from '../store/store';
import { keys } from '../table';
import type { ProjectKeys } from './repository';

export const WIPE_JOB = 'projects.wipe';

export type WipeKind = 'delete' | 'reset';
export type WipeStatus = 'processing' | 'completed' | 'failed';

/**
 * Seconds before a delete's job starts: every instance's project cache (a minute) has seen the
 * project gone by then, and messages queued just before the delete (an event tally armed for
 * 190 s, a workflow step) have run, so little is written behind the job's scan.
 */
export const DELETE_DELAY_S = 300;

export const wipeJobMessage = defineJobMessage({
  type: WIPE_JOB,
  schema: z.object({
    type: z.literal(WIPE_JOB),
    projectId: z.string().check(z.minLength(1)),
    /** The run this message belongs to: the project item's `wipe.runId`. */
    runId: z.string().check(z.minLength(1)),
  }),
});

export type WipeMessage = z.infer<typeof wipeJobMessage.schema>;

/** A wipe as the project item records it. */
export interface Wipe {
  readonly kind: WipeKind;
  readonly runId: string;
  readonly status: WipeStatus;
  readonly requestedAt: string;
  readonly completedAt: string | null;
  readonly error: string | null;
  /** Where the job's table scan goes on from ('' at the start). */
  readonly cursor: string;
  /** Scan pages done. */
  readonly page: number;
  /** Items deleted so far. */
  readonly deleted: number;
}

export function wipeOf(item: Item | undefined): Wipe | undefined {
  const w = item?.wipe as Record<string, unknown> | undefined;
  if (!w || typeof w.runId !== 'string') return undefined;
  return {
    kind: w.kind === 'delete' ? 'delete' : 'reset',
    runId: w.runId,
    status: (w.status as WipeStatus | undefined) ?? 'processing',
    requestedAt: String(w.requestedAt ?? ''),
    completedAt: (w.completedAt as string | null | undefined) ?? null,
    error: (w.error as string | null | undefined) ?? null,
    cursor: String(w.cursor ?? ''),
    page: Number(w.page ?? 0),
    deleted: Number(w.deleted ?? 0),
  };
}

/** The project item as stored, a project being deleted included (consistent). */
export function readProjectItem(deps: StoreDeps, projectId: string): Promise<Item | undefined> {
  return deps.store.get(keys.project(projectId), { consistent: true });
}

const freshWipe = (kind: WipeKind, runId: string, at: string): Wipe => ({
  kind,
  runId,
  status: 'processing',
  requestedAt: at,
  completedAt: null,
  error: null,
  cursor: '',
  page: 0,
  deleted: 0,
});

/**
 * Marks the project deleted and queues its wipe. A project already being deleted keeps its run
 * (a repeated request, after one that stopped before answering, queues the same run again: a
 * second message of a run is harmless). False when the project no longer exists.
 */
export async function startDeletion(
  deps: Pick<Deps, 'store' | 'queue' | 'clock' | 'ids'>,
  projectId: string,
): Promise<boolean> {
  const item = await readProjectItem(deps, projectId);
  if (!item) return false;
  const running = wipeOf(item);
  const now = deps.clock.now().toISOString();
  const wipe =
    item.deletedAt && running?.kind === 'delete' ? running : freshWipe('delete', deps.ids.uuid(), now);
  // Marked before the message is queued: a crash in between leaves a project gone from every
  // reader with no job, which the member's repeated request (the memberships go last) queues.
  const marked = await deps.store.writeIf({
    update: keys.project(projectId),
    expression: 'SET deletedAt = if_not_exists(deletedAt, :now), #wipe = :wipe',
    names: { '#wipe': 'wipe' },
    values: { ':now': now, ':wipe': wipe, ':run': wipe.runId },
    if: 'attribute_exists(pk) AND (attribute_not_exists(deletedAt) OR #wipe.runId = :run)',
  });
  if (!marked) return false;
  await enqueue(deps, wipeJobMessage, { projectId, runId: wipe.runId }, { delaySeconds: DELETE_DELAY_S });
  await revokeAccess(deps, projectId, item);
  return true;
}

/** Starts a reset of the project (a new run); undefined when the project is gone or being deleted. */
export async function startReset(
  deps: Pick<Deps, 'store' | 'queue' | 'clock' | 'ids'>,
  projectId: string,
): Promise<Wipe | undefined> {
  const wipe = freshWipe('reset', deps.ids.uuid(), deps.clock.now().toISOString());
  const marked = await deps.store.writeIf({
    update: keys.project(projectId),
    expression: 'SET #wipe = :wipe',
    names: { '#wipe': 'wipe' },
    values: { ':wipe': wipe },
    if: 'attribute_exists(pk) AND attribute_not_exists(deletedAt)',
  });
  if (!marked) return undefined;
  await enqueue(deps, wipeJobMessage, { projectId, runId: wipe.runId });
  return wipe;
}

/**
 * Takes every way in away from a project being deleted: its API-key items (its keys answer 401
 * from the next request on, on every instance, which reads keys on every request) and its
 * memberships, each user's side first (the project leaves their list; a session's
 * `X-Project-Id` reads the membership on every request). Repeatable: the job does it again.
 */
export async function revokeAccess(
  deps: StoreDeps,
  projectId: string,
  item: Item | undefined,
): Promise<void> {
  const held = item?.keys as ProjectKeys | undefined;
  const keyItems: Key[] = held ? [keys.apiKey(held.secretKeyHash), keys.apiKey(held.publicKeyHash)] : [];
  if (keyItems.length > 0) await deps.store.batchDelete(keyItems);
  const members: string[] = [];
  for await (const member of deps.store.queryAll({
    partition: keys.projectPartition(projectId),
    sort: { beginsWith: keys.member(projectId, '').sk },
    attributes: ['pk', 'sk'],
    consistent: true,
  }))
    members.push(String(member.sk).slice(keys.member(projectId, '').sk.length));
  await deps.store.batchDelete(members.map((userId) => keys.userProject(userId, projectId)));
  await deps.store.batchDelete(members.map((userId) => keys.member(projectId, userId)));
}
