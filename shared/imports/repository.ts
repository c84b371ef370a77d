/**
 * Import jobs: one item per job holding status, counts and the checkpoint, plus one item per
 * chunk that had row errors. Only this module knows their keys.
 *
 * The checkpoint (`nextRow`, `nextOffset`) and the counts change in one conditional update per
 * chunk, so a chunk's counts are added exactly once however often the chunk runs: a second
 * runner of the same chunk finds the checkpoint moved and stops.
 */
import { failJobItem, type JobStatus } from '../jobs/repository';
import type { Deps } from '../ports';
import type { StoreDeps } from '../store/store';
import { keys } from '../table';

export type ImportStatus = JobStatus;

export interface RowError {
  readonly row: number;
  readonly email: string;
  readonly reason: string;
}

export interface ImportJob {
  readonly jobId: string;
  readonly projectId: string;
  readonly status: ImportStatus;
  /** Content-Type of the stored upload (it carries the multipart boundary). */
  readonly contentType: string;
  /** Blob key of the stored upload. */
  readonly uploadKey: string;
  readonly totalRows: number;
  readonly processedRows: number;
  readonly imported: number;
  readonly updated: number;
  readonly skipped: number;
  /** Checkpoint: spreadsheet row number and byte offset (in the CSV file) of the next record. */
  readonly nextRow: number;
  readonly nextOffset: number;
  readonly createdAt: string;
  readonly completedAt: string | null;
  /** Why a failed job failed (a job-level problem, such as a missing email column). */
  readonly error?: { readonly code: string; readonly message: string };
}

/** Jobs and their errors are kept this long, then removed by the table's TTL. */
export const IMPORT_RETENTION_DAYS = 30;
/** Row errors returned with a job at most (`skipped` counts them all). */
export const MAX_REPORTED_ERRORS = 1000;

const expiresAt = (createdAt: string) =>
  Math.floor(Date.parse(createdAt) / 1000) + IMPORT_RETENTION_DAYS * 24 * 3600;

export async function createImportJob(
  deps: StoreDeps,
  input: { projectId: string; jobId: string; contentType: string; uploadKey: string; createdAt: string },
): Promise<void> {
  const job: ImportJob = {
    jobId: input.jobId,
    projectId: input.projectId,
    status: 'queued',
    contentType: input.contentType,
    uploadKey: input.uploadKey,
    totalRows: 0,
    processedRows: 0,
    imported: 0,
    updated: 0,
    skipped: 0,
    nextRow: 0,
    nextOffset: 0,
    createdAt: input.createdAt,
    completedAt: null,
  };
  await deps.store.write({
    put: {
      ...keys.importJob(input.projectId, input.jobId),
      entity: 'importJob',
      ...job,
      expiresAt: expiresAt(input.createdAt),
    },
    if: 'attribute_not_exists(pk)',
  });
}

export async function getImportJob(
  deps: StoreDeps & Pick<Deps, 'clock'>,
  projectId: string,
  jobId: string,
): Promise<ImportJob | undefined> {
  const item = await deps.store.get(keys.importJob(projectId, jobId), { consistent: true });
  if (!item || Number(item.expiresAt) * 1000 < deps.clock.now().getTime()) return undefined;
  return {
    jobId: String(item.jobId),
    projectId: String(item.projectId),
    status: item.status as ImportStatus,
    contentType: String(item.contentType),
    uploadKey: String(item.uploadKey),
    totalRows: Number(item.totalRows),
    processedRows: Number(item.processedRows),
    imported: Number(item.imported),
    updated: Number(item.updated),
    skipped: Number(item.skipped),
    nextRow: Number(item.nextRow),
    nextOffset: Number(item.nextOffset),
    createdAt: String(item.createdAt),
    completedAt: typeof item.completedAt === 'string' ? item.completedAt : null,
    ...(item.error ? { error: item.error as ImportJob['error'] } : {}),
  };
}

/** queued -> processing, with the row count and the checkpoint after the header; false if already started. */
export async function startImportJob(
  deps: StoreDeps,
  job: ImportJob,
  start: { totalRows: number; nextRow: number; nextOffset: number },
): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.importJob(job.projectId, job.jobId),
    expression: 'SET #status = :processing, totalRows = :total, nextRow = :row, nextOffset = :offset',
    if: '#status = :queued',
    names: { '#status': 'status' },
    values: {
      ':processing': 'processing',
      ':queued': 'queued',
      ':total': start.totalRows,
      ':row': start.nextRow,
      ':offset': start.nextOffset,
    },
  });
}

export interface ChunkResult {
  /** Checkpoint the chunk started at (the condition). */
  readonly fromRow: number;
  readonly nextRow: number;
  readonly nextOffset: number;
  readonly processed: number;
  readonly imported: number;
  readonly updated: number;
  readonly skipped: number;
  /** The file is finished: the job completes with this chunk. */
  readonly done: boolean;
  readonly at: string;
}

/** Adds a chunk's counts and moves the checkpoint, once; false when another runner did it first. */
export async function commitImportChunk(
  deps: StoreDeps,
  job: ImportJob,
  chunk: ChunkResult,
): Promise<boolean> {
  return deps.store.writeIf({
    update: keys.importJob(job.projectId, job.jobId),
    expression:
      'SET nextRow = :next, nextOffset = :offset, #status = :status, completedAt = :completedAt ' +
      'ADD processedRows :processed, imported :imported, updated :updated, skipped :skipped',
    if: '#status = :processing AND nextRow = :from',
    names: { '#status': 'status' },
    values: {
      ':next': chunk.nextRow,
      ':offset': chunk.nextOffset,
      ':status': chunk.done ? 'completed' : 'processing',
      ':completedAt': chunk.done ? chunk.at : null,
      ':processing': 'processing',
      ':from': chunk.fromRow,
      ':processed': chunk.processed,
      ':imported': chunk.imported,
      ':updated': chunk.updated,
      ':skipped': chunk.skipped,
    },
  });
}

/** Ends a job that cannot go on; a job that already ended keeps its end. */
export async function failImportJob(
  deps: StoreDeps,
  job: Pick<ImportJob, 'projectId' | 'jobId'>,
  error: { code: string; message: string },
  at: string,
): Promise<void> {
  await failJobItem(deps, keys.importJob(job.projectId, job.jobId), error, at);
}

/**
 * Ends a job that never started (still `queued`) with `error`; false when it had started or
 * ended meanwhile, which the condition leaves untouched.
 */
export function failQueuedImportJob(
  deps: StoreDeps,
  job: Pick<ImportJob, 'projectId' | 'jobId'>,
  error: { code: string; message: string },
  at: string,
): Promise<boolean> {
  return failJobItem(deps, keys.importJob(job.projectId, job.jobId), error, at, ['queued']);
}

/** Stores the row errors of the chunk starting at `firstRow`; rewriting the same chunk is harmless. */
export async function putRowErrors(
  deps: StoreDeps,
  job: ImportJob,
  firstRow: number,
  errors: readonly RowError[],
): Promise<void> {
  if (errors.length === 0) return;
  await deps.store.write({
    put: {
      ...keys.importErrors(job.projectId, job.jobId, firstRow),
      entity: 'importErrors',
      errors,
      expiresAt: expiresAt(job.createdAt),
    },
  });
}

/** The first `limit` row errors, in row order. */
export async function listRowErrors(
  deps: StoreDeps,
  job: ImportJob,
  limit = MAX_REPORTED_ERRORS,
): Promise<RowError[]> {
  const out: RowError[] = [];
  const query = {
    partition: keys.importJob(job.projectId, job.jobId).pk,
    sort: { beginsWith: keys.importErrorsPrefix },
  };
  let cursor: string | undefined;
  do {
    const page = await deps.store.query(query, { cursor });
    for (const item of page.items) out.push(...(item.errors as RowError[]));
    cursor = page.cursor;
  } while (cursor && out.length < limit);
  return out.slice(0, limit);
}

/** The public shape of an import job (docs/imports.md, "Import job"). */
export function presentImportJob(job: ImportJob, errors: readonly RowError[]) {
  return {
    jobId: job.jobId,
    status: job.status,
    totalRows: job.totalRows,
    processedRows: job.processedRows,
    imported: job.imported,
    updated: job.updated,
    skipped: job.skipped,
    errors,
    createdAt: job.createdAt,
    completedAt: job.completedAt,
    ...(job.error ? { error: job.error } : {}),
  };
}
