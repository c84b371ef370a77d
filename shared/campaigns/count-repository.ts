/**
 * Audience counts (`count.ts`): one item per count with the audience it counts (a copy of the
 * campaign's, or a condition tree's), its position in that audience, its counts so far and its
 * sample. A campaign keeps its latest count at a fixed key beside its run (a new count replaces
 * it, under a new `runId`); a tree's count has an id of its own. Only this module knows the keys.
 *
 * Each chunk's results are added with the move of its position in one update conditional on the
 * count's `runId` and `chunk`, so a chunk that runs twice (a redelivered message, a runner that died
 * before its checkpoint) is counted once, and the messages of a replaced count stop.
 */
import type { Condition } from '../conditions';
import type { JobStatus } from '../jobs/repository';
import type { Item, Key, StoreDeps } from '../store/store';
import { keys } from '../table';
import type { TemplateType } from '../templates/schemas';
import type { AudienceType } from './schemas';

/** Recipients a count keeps as its sample, in audience order. */
export const SAMPLE_SIZE = 10;
/** How long a count is kept (DynamoDB's TTL deletes it later; reads filter it out). */
export const COUNT_RETENTION_DAYS = 7;

/** Which count: a campaign's latest, or a condition tree's by id. */
export type CountRef =
  | { readonly projectId: string; readonly campaignId: string }
  | { readonly projectId: string; readonly countId: string };

export interface LeftOutCounts {
  readonly unsubscribed: number;
  readonly suppressed: number;
  readonly snoozed: number;
}

export interface AudienceCountRecord {
  /** The count's id: the campaign's id for a campaign's count, its own for a tree's. */
  readonly id: string;
  readonly projectId: string;
  readonly campaignId: string | null;
  /** This count's token: the messages of a count replaced since carry another and stop. */
  readonly runId: string;
  /** The audience counted (the campaign's as it was when the count started). */
  readonly type: TemplateType;
  readonly audienceType: AudienceType;
  readonly audienceCondition: Condition | null;
  readonly segmentId: string | null;
  readonly status: JobStatus;
  /** The instant the audience is judged at: contacts created later, snoozes and relative times. */
  readonly at: string;
  /** Where the next chunk starts in the audience ('' at the start), and its number. */
  readonly position: string;
  readonly chunk: number;
  /** Candidates read so far (recipients or not). */
  readonly examined: number;
  /** Contacts the campaign would mail. */
  readonly count: number;
  readonly excluded: LeftOutCounts;
  readonly sample: readonly { readonly id: string; readonly email: string }[];
  readonly createdAt: string;
  readonly completedAt: string | null;
  readonly error?: { readonly code: string; readonly message: string };
}

const keyOf = (ref: CountRef): Key =>
  'campaignId' in ref
    ? keys.campaignAudienceCount(ref.projectId, ref.campaignId)
    : keys.treeAudienceCount(ref.projectId, ref.countId);

export const refOf = (count: Pick<AudienceCountRecord, 'projectId' | 'campaignId' | 'id'>): CountRef =>
  count.campaignId
    ? { projectId: count.projectId, campaignId: count.campaignId }
    : { projectId: count.projectId, countId: count.id };

/** Stores a new count (queued), replacing a campaign's previous one. */
export async function putCount(deps: StoreDeps, count: AudienceCountRecord): Promise<void> {
  await deps.store.write({
    put: {
      ...keyOf(refOf(count)),
      entity: 'audienceCount',
      ...count,
      expiresAt: Math.floor(Date.parse(count.createdAt) / 1000) + COUNT_RETENTION_DAYS * 24 * 3600,
    },
  });
}

export async function getCount(
  deps: StoreDeps,
  ref: CountRef,
  now: Date,
  options: { readonly consistent?: boolean } = {},
): Promise<AudienceCountRecord | undefined> {
  const item = await deps.store.get(keyOf(ref), options);
  return item ? countFromItem(item, now) : undefined;
}

/** The count an item holds, unless it has expired (TTL deletes it eventually). */
export function countFromItem(item: Item, now: Date): AudienceCountRecord | undefined {
  if (Number(item.expiresAt) * 1000 < now.getTime()) return undefined;
  const excluded = (item.excluded ?? {}) as Partial<LeftOutCounts>;
  return {
    id: String(item.id),
    projectId: String(item.projectId),
    campaignId: typeof item.campaignId === 'string' ? item.campaignId : null,
    runId: String(item.runId),
    type: item.type as TemplateType,
    audienceType: item.audienceType as AudienceType,
    audienceCondition: (item.audienceCondition ?? null) as Condition | null,
    segmentId: typeof item.segmentId === 'string' ? item.segmentId : null,
    status: item.status as JobStatus,
    at: String(item.at),
    position: String(item.position ?? ''),
    chunk: Number(item.chunk),
    examined: Number(item.examined),
    count: Number(item.count),
    excluded: {
      unsubscribed: Number(excluded.unsubscribed ?? 0),
      suppressed: Number(excluded.suppressed ?? 0),
      snoozed: Number(excluded.snoozed ?? 0),
    },
    sample: (item.sample ?? []) as AudienceCountRecord['sample'],
    createdAt: String(item.createdAt),
    completedAt: typeof item.completedAt === 'string' ? item.completedAt : null,
    ...(item.error ? { error: item.error as AudienceCountRecord['error'] } : {}),
  };
}

/** Moves a queued count to processing; false when it is not this run's or not queued. */
export async function startCount(deps: StoreDeps, count: AudienceCountRecord): Promise<boolean> {
  return deps.store.writeIf({
    update: keyOf(refOf(count)),
    expression: 'SET #status = :processing',
    if: '#status = :queued AND runId = :run',
    names: { '#status': 'status' },
    values: { ':processing': 'processing', ':queued': 'queued', ':run': count.runId },
  });
}

/** What one chunk adds to a count. */
export interface CountChunk {
  readonly next: string;
  readonly examined: number;
  readonly count: number;
  readonly excluded: LeftOutCounts;
  /** The whole sample after the chunk (at most `SAMPLE_SIZE`). */
  readonly sample: AudienceCountRecord['sample'];
  readonly done: boolean;
  readonly at: string;
}

/** Adds a chunk's counts and moves the position, once; false when another runner did it first. */
export async function commitCountChunk(
  deps: StoreDeps,
  count: AudienceCountRecord,
  chunk: CountChunk,
): Promise<boolean> {
  return deps.store.writeIf({
    update: keyOf(refOf(count)),
    expression:
      'SET #position = :next, #chunk = :nextChunk, #sample = :sample, #status = :status, completedAt = :completedAt ' +
      'ADD #examined :examined, #count :count, #excluded.#unsubscribed :unsubscribed, ' +
      '#excluded.#suppressed :suppressed, #excluded.#snoozed :snoozed',
    if: '#status = :processing AND runId = :run AND #chunk = :chunk',
    names: {
      '#position': 'position',
      '#chunk': 'chunk',
      '#sample': 'sample',
      '#status': 'status',
      '#examined': 'examined',
      '#count': 'count',
      '#excluded': 'excluded',
      '#unsubscribed': 'unsubscribed',
      '#suppressed': 'suppressed',
      '#snoozed': 'snoozed',
    },
    values: {
      ':next': chunk.next,
      ':nextChunk': count.chunk + 1,
      ':sample': chunk.sample,
      ':status': chunk.done ? 'completed' : 'processing',
      ':completedAt': chunk.done ? chunk.at : null,
      ':examined': chunk.examined,
      ':count': chunk.count,
      ':unsubscribed': chunk.excluded.unsubscribed,
      ':suppressed': chunk.excluded.suppressed,
      ':snoozed': chunk.excluded.snoozed,
      ':processing': 'processing',
      ':run': count.runId,
      ':chunk': count.chunk,
    },
  });
}

/** Ends a count that cannot go on (its message dead-lettered); an ended or replaced one is kept. */
export async function failCount(
  deps: StoreDeps,
  count: AudienceCountRecord,
  error: { code: string; message: string },
  at: string,
): Promise<void> {
  await deps.store.writeIf({
    update: keyOf(refOf(count)),
    expression: 'SET #status = :failed, #error = :error, completedAt = :at',
    if: '#status IN (:queued, :processing) AND runId = :run',
    names: { '#status': 'status', '#error': 'error' },
    values: {
      ':failed': 'failed',
      ':error': error,
      ':at': at,
      ':queued': 'queued',
      ':processing': 'processing',
      ':run': count.runId,
    },
  });
}
