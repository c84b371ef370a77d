/**
 * The `projects.wipe` job: removes a deleted project's items, or a reset project's data
 * (docs/accounts.md, "Deleting and resetting a project"; the request's side is `wipe.ts`).
 *
 * Finding the items. Every item of a project has a key starting with `P#<pid>` (shared/table.ts),
 * but not every entity can be listed from the project: an email record (`P#<pid>#MSG#<eid>`), an
 * import or bulk job, an idempotency key are reached by id only. So the job reads the whole table
 * with a Scan filtered on `pk = P#<pid> OR begins_with(pk, P#<pid>#)`, a page (`scanLimit` items
 * read) per chunk, and deletes what the page holds of the project. This is background work of a
 * rare operation, never a request path (only the jobs worker may scan: manifest use `table:scan`).
 * Cost: the Scan reads, and is billed for, the whole table once per wipe, whatever share of it is
 * the project's: 0.5 read unit per 4 KB read, about 130,000 read units (some $0.03 on demand) per
 * GB of table; plus one write unit per item deleted.
 *
 * What a delete removes besides the project's own keys (the items that point at the project from
 * outside its prefix): each API-key item and each member's side of the membership (also done by
 * the request), each sender domain's name claim, and the SES identity behind it when Sesame
 * created it (as `DELETE /domains/{id}` does), and the Stripe customer's claim. Index entries
 * (pending domains, periodic segments, the contacts, events, members and executions indexes) are
 * attributes of the items, so they go with them.
 *
 * What a reset removes: in the project's own partition, the definitions (segments and their slugs,
 * campaigns, workflows and their interest, templates, custom field types); every other partition
 * of the project (contacts, their events, claims and memberships, events' counters and activity
 * counts, email records, campaign runs, executions, segment snapshots, import and bulk jobs,
 * idempotency keys), except the suppression list (bounces and complaints protect the account's
 * sending reputation), the month's send counts (the caps' consumption, with the sends the event
 * tally had yet to count added as their events go) and the rate-limit windows (and the tally's
 * position).
 * The project item, members, keys, domains and billing stay, and so does the segment definitions
 * version, moved on when segments are removed (shared/segments/evaluation.ts). The contact counters are recounted
 * afterwards (`contacts.recount`), so totals match whatever contacts were written while it ran.
 *
 * Schedules: a SCHEDULED campaign's schedule and an execution's delay or wait timeout schedule are
 * deleted when the scan meets their item (and scheduled campaigns at the start). A schedule or
 * delayed message that fires anyway finds no campaign, execution or project and does nothing.
 *
 * Idempotent and resumable: the position (the scan's cursor and page number) is on the project
 * item, written after each page on condition that it is still the page the chunk read
 * (shared/jobs/chunked.ts): a message delivered twice, or redelivered after a crash between two
 * pages, reads the page again from the last position written, deletes again (deleting what is
 * gone is no error; the side effects above are repeatable), and only one of two runners of a page
 * moves on. Once the scan is done, the project's fixed partitions (definitions, counters,
 * activity) are read again and cleared of what was written behind the scan; then a delete removes
 * the project item, and a reset records its end.
 */
import { campaignScheduleName } from '../campaigns/messages';
import { requestRecount } from '../contacts/messages';
import { releaseClaim } from '../domains/repository';
import { deleteEvents } from '../events/repository';
import { type ChunkBudget, chunkedJob, type JobFailure } from '../jobs/chunked';
import type { Deps } from '../ports';
import { bumpSegmentsVersion } from '../segments/evaluation';
import type { Item, Key } from '../store/store';
import { keys } from '../table';
import {
  readProjectItem,
  revokeAccess,
  type Wipe,
  type WipeKind,
  type WipeMessage,
  wipeJobMessage,
  wipeOf,
} from './wipe';

export interface WipeOptions extends ChunkBudget {
  /** Items a Scan request reads (before the filter). @default SCAN_LIMIT */
  readonly scanLimit?: number;
}

/** Items one Scan request reads: well under its 1 MB page for items of a few hundred bytes. */
export const SCAN_LIMIT = 1000;

/** The state of a run: the project's `wipe` as last checkpointed. */
interface WipeState extends Wipe {
  readonly projectId: string;
}

interface WipeChunk {
  readonly next: WipeState;
  readonly items: number;
  readonly done: boolean;
}

const WIPE_FAILED: JobFailure = {
  code: 'WIPE_FAILED',
  message: 'The wipe message kept failing and was dead-lettered; redrive it to resume where it stopped',
};

/** The chunked job (shared/jobs/chunked.ts); tests pass smaller pages and budgets. */
export function wipeChunks(options: WipeOptions = {}) {
  const scanLimit = options.scanLimit ?? SCAN_LIMIT;
  return chunkedJob(wipeJobMessage, {
    budget: options,
    async load(deps: Deps, m: WipeMessage): Promise<WipeState | undefined> {
      const wipe = wipeOf(await readProjectItem(deps, m.projectId));
      // No project (a delete finished), another run (superseded), or a run that ended.
      if (!wipe || wipe.runId !== m.runId || wipe.status !== 'processing') return undefined;
      return { ...wipe, projectId: m.projectId };
    },
    async start(deps: Deps, state: WipeState): Promise<WipeState> {
      if (state.page === 0) await cancelCampaignSchedules(deps, state.projectId);
      return state;
    },
    async process(deps: Deps, state: WipeState): Promise<WipeChunk> {
      const pid = state.projectId;
      const page = await deps.store.scan(
        {
          filter: 'pk = :project OR begins_with(pk, :inside)',
          values: { ':project': keys.projectPartition(pid), ':inside': `${keys.projectPartition(pid)}#` },
        },
        { limit: scanLimit, ...(state.cursor ? { cursor: state.cursor } : {}) },
      );
      const removed = await removeItems(deps, state.kind, pid, page.items);
      return {
        next: { ...state, cursor: page.cursor, page: state.page + 1, deleted: state.deleted + removed },
        items: 1,
        done: page.cursor === '',
      };
    },
    checkpoint: (deps: Deps, state: WipeState, chunk: WipeChunk) =>
      deps.store.writeIf({
        update: keys.project(state.projectId),
        expression: 'SET #w.#cursor = :cursor, #w.#page = :next, #w.#deleted = :deleted',
        names: { '#w': 'wipe', '#cursor': 'cursor', '#page': 'page', '#deleted': 'deleted', '#run': 'runId' },
        values: {
          ':cursor': chunk.next.cursor,
          ':next': chunk.next.page,
          ':deleted': chunk.next.deleted,
          ':page': state.page,
          ':run': state.runId,
        },
        if: '#w.#run = :run AND #w.#page = :page',
      }),
    finish: (deps: Deps, state: WipeState) => finishWipe(deps, state),
    continuation: (m: WipeMessage) => ({ projectId: m.projectId, runId: m.runId }),
    failure: {
      async record(deps: Deps, state: WipeState, failure: JobFailure) {
        await deps.store.writeIf({
          update: keys.project(state.projectId),
          expression: 'SET #w.#error = :error',
          names: { '#w': 'wipe', '#error': 'error', '#run': 'runId' },
          values: { ':error': failure.message, ':run': state.runId },
          if: '#w.#run = :run',
        });
        console.error(
          JSON.stringify({
            level: 'error',
            message: 'Project wipe failed',
            code: failure.code,
            error: failure.message,
            projectId: state.projectId,
          }),
        );
      },
      lastAttempt: WIPE_FAILED,
    },
  });
}

/**
 * After the scan: the fixed partitions cleared again (a counter or definition written behind the
 * scan), then the end. A delete takes access away again (a key or member added while it ran) and
 * removes the project item; a reset queues the recount of the contact counters, then records its
 * end (in that order: a crash in between recounts twice, never not at all).
 */
async function finishWipe(deps: Deps, state: WipeState): Promise<void> {
  const pid = state.projectId;
  for (const partition of fixedPartitions(pid)) {
    const found: Item[] = [];
    for await (const item of deps.store.queryAll({ partition, consistent: true })) found.push(item);
    await removeItems(deps, state.kind, pid, found);
  }
  const run = { names: { '#w': 'wipe', '#run': 'runId' }, values: { ':run': state.runId } };
  if (state.kind === 'delete') {
    await revokeAccess(deps, pid, await readProjectItem(deps, pid));
    await deps.store.writeIf({ delete: keys.project(pid), if: '#w.#run = :run', ...run });
    log('Project deleted', { projectId: pid, deleted: state.deleted, pages: state.page });
    return;
  }
  await requestRecount(deps, pid);
  const now = deps.clock.now().toISOString();
  await deps.store.writeIf({
    update: keys.project(pid),
    expression: 'SET #w.#status = :completed, #w.#completedAt = :now',
    names: { ...run.names, '#status': 'status', '#completedAt': 'completedAt' },
    values: { ...run.values, ':completed': 'completed', ':now': now },
    if: '#w.#run = :run',
  });
  log('Project reset', { projectId: pid, deleted: state.deleted, pages: state.page });
}

/** The partitions every project has at fixed keys (its definitions, counters and activity). */
function fixedPartitions(pid: string): string[] {
  return [
    keys.projectPartition(pid),
    keys.contactStatsPartition(pid),
    keys.eventNamesPartition(pid),
    keys.eventHoursPartition(pid),
    keys.eventDaysPartition(pid),
    keys.eventMinutesPartition(pid),
    keys.eventTally(pid).pk,
    keys.suppressionPartition(pid),
    keys.billingUsage(pid, '').pk,
  ];
}

/** Sort-key prefixes of the project partition's items that a reset removes (definitions). */
function resetDefinitionPrefixes(pid: string): string[] {
  return [
    keys.definitionPrefixes.segment,
    keys.definitionPrefixes.campaign,
    keys.definitionPrefixes.workflow,
    keys.segmentSlug(pid, '').sk,
    keys.workflowInterest(pid).sk,
    keys.templatePrefix,
    keys.fieldPrefix,
  ];
}

/**
 * Partitions of the project that a reset keeps (exact, or by prefix for the rate windows). The
 * event tally's position stays too: events written after the reset come after it, and the send
 * usage of those before is counted (`removeItems`) against it.
 */
function resetKeeps(pid: string, pk: string): boolean {
  const rateWindows = keys.rateWindow(pid, 0).pk.slice(0, -1);
  return (
    pk === keys.suppressionPartition(pid) ||
    pk === keys.billingUsage(pid, '').pk ||
    pk === keys.eventTally(pid).pk ||
    pk.startsWith(rateWindows)
  );
}

/** Whether a wipe of `kind` removes the project's `item`. The project item goes last (`finishWipe`). */
export function wipes(kind: WipeKind, pid: string, item: Item): boolean {
  const pk = String(item.pk);
  const sk = String(item.sk);
  const main = keys.projectPartition(pid);
  if (pk === main && sk === keys.project(pid).sk) return false;
  if (pk !== main && !pk.startsWith(`${main}#`)) return false;
  if (kind === 'delete') return true;
  if (pk === main) return resetDefinitionPrefixes(pid).some((prefix) => sk.startsWith(prefix));
  return !resetKeeps(pid, pk);
}

/** Removes what a wipe of `kind` removes of `items` (all the project's), their outside parts first. */
async function removeItems(deps: Deps, kind: WipeKind, pid: string, items: readonly Item[]): Promise<number> {
  const doomed = items.filter((item) => wipes(kind, pid, item));
  for (const item of doomed) await releaseOutside(deps, kind, pid, item);
  const keyOf = (item: Item): Key => ({ pk: String(item.pk), sk: String(item.sk) });
  // A reset keeps the month's send usage: the `email.sent` events of sends counted by the event
  // tally go through the events module, which counts those the tally has not met yet.
  const sent = (item: Item) => kind === 'reset' && item.entity === 'event' && item.tallyUsage !== undefined;
  await deleteEvents(deps, pid, doomed.filter(sent).map(keyOf));
  await deps.store.batchDelete(doomed.filter((item) => !sent(item)).map(keyOf));
  // A reset that removed segments moves the definitions version on (which it keeps: versions
  // never go back), so that no instance's next contact write evaluates a removed segment.
  const main = keys.projectPartition(pid);
  const segment = (item: Item) =>
    String(item.pk) === main && String(item.sk).startsWith(keys.definitionPrefixes.segment);
  if (kind === 'reset' && doomed.some(segment)) await bumpSegmentsVersion(deps, pid);
  return doomed.length;
}

/**
 * What points at `item` from outside the project's prefix, or runs for it later, undone before the
 * item goes (so a crash in between finds the item again and does it again): its schedule, and for
 * a delete the domain's claim and SES identity, the member's side of the membership, the Stripe
 * customer's claim.
 */
async function releaseOutside(deps: Deps, kind: WipeKind, pid: string, item: Item): Promise<void> {
  const pk = String(item.pk);
  const sk = String(item.sk);
  const main = keys.projectPartition(pid);
  if (pk === main && sk.startsWith(keys.definitionPrefixes.campaign)) {
    if (item.status === 'SCHEDULED' && typeof item.scheduleToken === 'string')
      await deps.scheduler.cancel(
        campaignScheduleName(sk.slice(keys.definitionPrefixes.campaign.length), item.scheduleToken),
      );
    return;
  }
  if (pk.startsWith(`${main}#WFX#`) && sk.startsWith('X#')) {
    const schedule = (item.wait as { schedule?: unknown } | null | undefined)?.schedule;
    if (typeof schedule === 'string') await deps.scheduler.cancel(schedule);
    return;
  }
  if (kind !== 'delete' || pk !== main) return;
  if (sk.startsWith(keys.domainPrefix)) {
    const name = sk.slice(keys.domainPrefix.length);
    // As DELETE /domains/{id}: an identity the account had before is left alone.
    if (item.ownsIdentity === true) await deps.emailIdentities.deleteDomainIdentity(name);
    await releaseClaim(deps, name, pid);
  } else if (sk.startsWith(keys.member(pid, '').sk)) {
    await deps.store.write({ delete: keys.userProject(sk.slice(keys.member(pid, '').sk.length), pid) });
  } else if (sk === keys.billingStripe(pid).sk && typeof item.customerId === 'string') {
    await deps.store.writeIf({
      delete: keys.stripeCustomer(item.customerId),
      if: 'projectId = :pid',
      values: { ':pid': pid },
    });
  }
}

/** The schedules of the project's SCHEDULED campaigns (one query of its partition). */
async function cancelCampaignSchedules(deps: Deps, pid: string): Promise<void> {
  for await (const item of deps.store.queryAll({
    partition: keys.projectPartition(pid),
    sort: { beginsWith: keys.definitionPrefixes.campaign },
  }))
    await releaseOutside(deps, 'reset', pid, item);
}

function log(message: string, fields: Record<string, unknown>) {
  console.log(JSON.stringify({ level: 'info', message, ...fields }));
}
