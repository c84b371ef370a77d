/**
 * The import job: reads a stored upload and applies it chunk by chunk, as a chunked job
 * (shared/jobs/chunked.ts): chunks of `chunkRows` rows until `budgetMs` has passed, then a
 * continuation message. The job item's checkpoint, not the message, says where to go on, so a
 * redelivered message (a worker that died mid-file) resumes at the first chunk not yet committed:
 * rows written before the crash are written again with the same result, and their counts, which
 * are committed with the checkpoint in one conditional update, are added once. The contact counters
 * (shared/contacts/stats.ts) get each chunk's changes in one update; the last chunk queues a
 * recount (shared/contacts/recount.ts) that sets them exactly, since a chunk run again after a
 * crash does not count the rows its first run wrote.
 */

import type * as z from 'zod/mini';
import { type ImportRow, importContacts } from '../contacts/batch';
import { parseDataPatch } from '../contacts/data';
import { requestRecount } from '../contacts/messages';
import { AppError } from '../errors';
import { type Chunk, type ChunkBudget, chunkedJob } from '../jobs/chunked';
import type { Deps } from '../ports';
import { disabledFailure, jobMayRun } from '../projects/state';
import {
  assertUtf8,
  type CsvLayout,
  ImportFileError,
  layoutOf,
  type RowOutcome,
  readRecords,
  readRow,
} from './csv';
import { importJobMessage } from './messages';
import { extractFilePart } from './multipart';
import {
  commitImportChunk,
  failImportJob,
  getImportJob,
  type ImportJob,
  putRowErrors,
  type RowError,
  startImportJob,
} from './repository';

type ImportMessage = z.infer<typeof importJobMessage.schema>;

export interface ImportWorkerOptions extends ChunkBudget {
  /** Rows per chunk: the unit of work committed with the checkpoint. @default 1000 */
  readonly chunkRows?: number;
  /** Parallel writes within a chunk. @default 25 */
  readonly concurrency?: number;
}

/** An import under way: its job as of the last checkpoint, its file and the file's columns. */
interface ImportRun {
  readonly job: ImportJob;
  readonly file: Uint8Array;
  readonly layout: CsvLayout;
}

/** A chunk of rows, with the counts its checkpoint adds. */
interface ImportChunk extends Chunk<ImportRun> {
  readonly counts: { processed: number; imported: number; updated: number; skipped: number };
}

/**
 * The import as a chunked job. A job that ended is left as it is (a failed one's stored body is
 * dropped); a file the import cannot use (`ImportFileError`) fails the job with its reason.
 */
export function importChunks(options: ImportWorkerOptions = {}) {
  return chunkedJob(importJobMessage, {
    budget: options,
    async load(deps: Deps, m: ImportMessage): Promise<ImportJob | undefined> {
      const job = await getImportJob(deps, m.projectId, m.jobId);
      if (!job) {
        // An object with no job: not written through the upload route (or long expired).
        const { projectId, jobId } = m;
        console.warn(
          JSON.stringify({ level: 'warn', message: 'No import job for the upload', projectId, jobId }),
        );
        return undefined;
      }
      if (job.status === 'completed') return undefined;
      if (job.status === 'failed') {
        // Ended already: a redelivered message, or an upload stored after its deadline check failed
        // the job (UPLOAD_NOT_RECEIVED). Nothing revives a failed job; its stored body is dropped.
        await deps.blobs.delete(job.uploadKey);
        return undefined;
      }
      return job;
    },
    async start(deps, job): Promise<ImportRun | undefined> {
      // A disabled project's import fails (PROJECT_DISABLED); a deleted one's stops.
      if (!(await jobMayRun(deps, job.projectId))) return undefined;
      const upload = await deps.blobs.get(job.uploadKey);
      if (!upload)
        throw new ImportFileError('UPLOAD_MISSING', 'The uploaded file is no longer stored; upload it again');
      const file = await extractFilePart(upload, job.contentType);
      let current = job;
      if (job.status === 'queued') {
        assertUtf8(file);
        const start = await scan(file);
        if (!(await startImportJob(deps, job, start))) return undefined;
        current = { ...job, status: 'processing', ...start };
      }
      return { job: current, file, layout: layoutOf((await headerOf(file)).cells) };
    },
    async process(deps, run): Promise<ImportChunk> {
      const { job } = run;
      const chunk = await readChunk(run.file, job.nextOffset, job.nextRow, options.chunkRows ?? 1000);
      const errors: RowError[] = [];
      const rows: ImportRow[] = [];
      for (const record of chunk.records) {
        const read = importRowOf(readRow(run.layout, record.cells, record.row));
        if ('error' in read) errors.push(read.error);
        else rows.push(read.row);
      }
      const results = await importContacts(deps, job.projectId, job.jobId, rows, {
        concurrency: options.concurrency,
      });
      let imported = 0;
      let updated = 0;
      for (const r of rows) {
        const result = results.get(r.row)!;
        if (result.outcome === 'error') errors.push({ row: r.row, email: r.email, reason: result.reason });
        else if (result.outcome === 'imported') imported++;
        else updated++;
      }
      errors.sort((a, b) => a.row - b.row);
      // Errors before the checkpoint: rewritten identically if the chunk runs again.
      await putRowErrors(deps, job, job.nextRow, errors);
      if (chunk.eof) await requestRecount(deps, job.projectId);
      return {
        next: { ...run, job: { ...job, nextRow: chunk.nextRow, nextOffset: chunk.nextOffset } },
        items: chunk.records.length,
        done: chunk.eof,
        counts: { processed: chunk.records.length, imported, updated, skipped: errors.length },
      };
    },
    checkpoint: (deps, run, chunk) =>
      commitImportChunk(deps, run.job, {
        fromRow: run.job.nextRow,
        nextRow: chunk.next.job.nextRow,
        nextOffset: chunk.next.job.nextOffset,
        ...chunk.counts,
        done: chunk.done,
        at: deps.clock.now().toISOString(),
      }),
    finish: (deps, run) => deps.blobs.delete(run.job.uploadKey),
    continuation: (m) => ({ projectId: m.projectId, jobId: m.jobId }),
    failure: {
      async record(deps, job, failure, cause) {
        await failImportJob(deps, job, failure, deps.clock.now().toISOString());
        // A file the import cannot use is dropped with its job. (After repeated failures it stays:
        // the storage may be what fails, and the error to report is the one that happened.)
        if (cause === 'fatal') await deps.blobs.delete(job.uploadKey);
      },
      fatal: (error) =>
        error instanceof ImportFileError
          ? { code: error.code, message: error.message }
          : disabledFailure(error),
      lastAttempt: {
        code: 'INTERNAL_ERROR',
        message: 'The import stopped after repeated failures; rows counted so far were applied',
      },
    },
  });
}

/**
 * A record's contact row, or its row error: `invalid_data` when its data breaks the data rules
 * (`parseDataPatch`'s validation error). Any other error is a bug, and fails the chunk.
 */
export function importRowOf(outcome: RowOutcome): { row: ImportRow } | { error: RowError } {
  const { row, email } = outcome;
  if (outcome.kind === 'error') return { error: { row, email, reason: outcome.reason } };
  try {
    return { row: { row, email, patch: parseDataPatch(outcome.data) } };
  } catch (error) {
    if (!(error instanceof AppError && error.code === 'VALIDATION_ERROR')) throw error;
    return { error: { row, email, reason: 'invalid_data' } };
  }
}

/** Finds the header, counts the data rows and checks the whole file parses, before any write. */
async function scan(file: Uint8Array): Promise<{ totalRows: number; nextRow: number; nextOffset: number }> {
  const header = await headerOf(file);
  layoutOf(header.cells);
  let totalRows = 0;
  for await (const record of readRecords(file, header.end)) if (!record.blank) totalRows++;
  return { totalRows, nextRow: header.row + 1, nextOffset: header.end };
}

/** The first non-blank record, with its row number. */
async function headerOf(file: Uint8Array): Promise<{ cells: string[]; end: number; row: number }> {
  let row = 0;
  for await (const record of readRecords(file)) {
    row++;
    if (!record.blank) return { cells: record.cells, end: record.end, row };
  }
  throw new ImportFileError(
    'EMPTY_FILE',
    'The file is empty: a header row with an "email" column is required',
  );
}

interface RecordChunk {
  readonly records: { readonly row: number; readonly cells: string[] }[];
  readonly nextRow: number;
  readonly nextOffset: number;
  readonly eof: boolean;
}

async function readChunk(
  file: Uint8Array,
  offset: number,
  firstRow: number,
  size: number,
): Promise<RecordChunk> {
  const records: RecordChunk['records'] = [];
  let row = firstRow;
  let nextOffset = offset;
  if (offset >= file.byteLength) return { records, nextRow: row, nextOffset, eof: true };
  for await (const record of readRecords(file, offset)) {
    if (!record.blank) records.push({ row, cells: record.cells });
    row++;
    nextOffset = record.end;
    if (records.length >= size)
      return { records, nextRow: row, nextOffset, eof: nextOffset >= file.byteLength };
  }
  return { records, nextRow: row, nextOffset: file.byteLength, eof: true };
}

export type { ImportJob };
