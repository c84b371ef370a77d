/**
 * Building a dynamic segment's membership over every contact of the project: the job that runs
 * when a segment is created or its condition changes, and again for segments whose membership
 * drifts without contact writes (event-based and time-relative conditions) when the periodic job
 * visits them. A page of contacts a chunk, oldest first, the position in the message.
 *
 * Each build is for one version of the segment's definition and stops when the segment has moved
 * on (a newer build runs) or is gone. Writes are the membership differences only (conditional, so
 * a chunk that runs twice counts once), with one count update per chunk. A build of a new
 * definition runs twice: the second pass starts once every instance's cached definitions have
 * expired, so a contact written meanwhile under the old definition is evaluated again. The last
 * pass counts the members exactly and marks the segment built.
 */
import type * as z from 'zod/mini';
import { listContactPage } from '../contacts/repository';
import { type ChunkOptions, chunkedJob, cursorInMessage, type MessageCursor } from '../jobs/chunked';
import { enqueue } from '../jobs/registry';
import type { Deps } from '../ports';
import {
  DEFINITIONS_TTL_MS,
  fieldTypesOf,
  type LiveSegment,
  liveSegment,
  needsPeriodicWork,
  readFacts,
} from './evaluation';
import { applyEvaluation } from './membership';
import { buildSegmentJobMessage } from './messages';
import {
  addMemberCounts,
  countMembers,
  getSegmentRecord,
  markSegment,
  membersAmong,
  type SegmentRecord,
  setPeriodic,
} from './repository';

export type BuildDeps = Pick<Deps, 'store' | 'clock' | 'queue'>;

/**
 * Seconds between a new definition's two passes: past every write that evaluated with the
 * definitions before (they are read per write, by version, and kept at most `DEFINITIONS_TTL_MS`).
 */
export const SECOND_PASS_DELAY_S = Math.ceil(DEFINITIONS_TTL_MS / 1000) + 5;

type BuildMessage = z.infer<typeof buildSegmentJobMessage.schema>;

/**
 * Queues a build of the segment's current definition: both passes for a new definition, or the
 * last pass alone (a re-evaluation of a definition built before), after `delaySeconds`.
 */
export async function requestBuild(
  deps: BuildDeps,
  segment: SegmentRecord,
  options: { pass?: 1 | 2; delaySeconds?: number } = {},
) {
  await enqueue(
    deps,
    buildSegmentJobMessage,
    {
      projectId: segment.projectId,
      segmentId: segment.id,
      version: segment.version,
      pass: options.pass ?? 1,
    },
    options.delaySeconds ? { delaySeconds: options.delaySeconds } : {},
  );
}

/** The segment this build is for, or undefined when it has moved on or is gone. */
async function current(deps: BuildDeps, m: BuildMessage): Promise<SegmentRecord | undefined> {
  const segment = await getSegmentRecord(deps, m.projectId, m.segmentId, { consistent: true });
  if (!segment || segment.version !== m.version || segment.type !== 'DYNAMIC' || !segment.condition)
    return undefined;
  return segment;
}

export function buildChunks(options: ChunkOptions = {}) {
  return chunkedJob(buildSegmentJobMessage, {
    budget: options,
    ...cursorInMessage<BuildMessage, z.input<typeof buildSegmentJobMessage.schema>>(),
    async process(deps: BuildDeps & Pick<Deps, 'ids'>, { cursor }: MessageCursor, m: BuildMessage) {
      const segment = await current(deps, m);
      if (!segment) return { next: { cursor }, items: 0, done: true };
      const live = liveSegment(segment);
      const page = await listContactPage(deps, m.projectId, {
        order: 'createdAt',
        dir: 'asc',
        limit: options.chunkSize ?? 100,
        cursor,
      });
      const fieldTypes = await fieldTypesOf(deps, m.projectId);
      const stored = live.needsSegments
        ? undefined
        : await membersAmong(
            deps,
            m.projectId,
            segment.id,
            page.records.map((c) => c.id),
          );
      const deltas = new Map<string, number>();
      for (const contact of page.records) {
        await evaluateOne(deps, m.projectId, live, contact, fieldTypes, stored, deltas);
      }
      await addMemberCounts(deps, m.projectId, deltas);
      if (!page.hasMore) await finishPass(deps, segment, m.pass);
      return { next: { cursor: page.cursor || undefined }, items: page.records.length, done: !page.hasMore };
    },
  });
}

async function evaluateOne(
  deps: BuildDeps & Pick<Deps, 'ids'>,
  projectId: string,
  segment: LiveSegment,
  contact: Parameters<typeof applyEvaluation>[2],
  fieldTypes: Awaited<ReturnType<typeof fieldTypesOf>>,
  storedAmongPage: ReadonlySet<string> | undefined,
  deltas: Map<string, number>,
) {
  const facts = await readFacts(deps, projectId, contact.id, [segment]);
  // The contact's memberships: read in full when the condition needs them, else just this one.
  const memberships = facts.memberships ?? new Set(storedAmongPage?.has(contact.id) ? [segment.id] : []);
  await applyEvaluation(
    deps,
    projectId,
    contact,
    [segment],
    { fieldTypes },
    memberships,
    deltas,
    facts.activity,
  );
}

/** The end of a pass: the first queues the second; the last counts members and marks the build. */
async function finishPass(deps: BuildDeps, segment: SegmentRecord, pass: 1 | 2) {
  if (pass === 1) {
    await requestBuild(deps, segment, { pass: 2, delaySeconds: SECOND_PASS_DELAY_S });
    return;
  }
  const memberCount = await countMembers(deps, segment.projectId, segment.id);
  const builtAt = deps.clock.now().toISOString();
  await markSegment(deps, segment.projectId, segment.id, { memberCount, builtAt }, segment.version);
  // Built: only drifting or tracked segments stay on the periodic job's list.
  if (!needsPeriodicWork({ ...segment, builtAt }))
    await setPeriodic(deps, segment.projectId, segment.id, false, segment.version);
}
