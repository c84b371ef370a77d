/**
 * The import job: reads a stored upload and applies it chunk by chunk.
 *
 * One message does a bounded amount of work (chunks of `chunkRows` rows until `budgetMs` has
 * passed), then enqueues a continuation. The job item's checkpoint, not the message, says where
 * to go on, so a redelivered message (a worker that died mid-file) resumes at the first chunk not
 * yet committed: rows written before the crash are written again with the same result, and their
 * counts, which are committed with the checkpoint in one conditional update, are added once.
 */

import * as z from 'zod';
import { type ImportRow, importContacts } from '../contacts/batch';
import { parseDataPatch } from '../contacts/data';
import { defineJobMessage, enqueue, type JobMeta } from '../jobs/registry';
import type { Deps } from '../ports';
import { assertUtf8, ImportFileError, layoutOf, readRecords, readRow } from './csv';
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

export const IMPORT_JOB = 'import.run';

/** The message that starts an import job, and each continuation of it: which job to run or resume. */
export const importJobMessage = defineJobMessage({
  type: IMPORT_JOB,
  schema: z.object({
    type: z.literal(IMPORT_JOB),
    projectId: z.string().min(1),
    jobId: z.string().min(1),
  }),
});

export interface ImportWorkerOptions {
  /** Rows per chunk: the unit of work committed with the checkpoint. @default 1000 */
  readonly chunkRows?: number;
  /** Work per message before a continuation takes over. @default 20000 */
  readonly budgetMs?: number;
  /** Parallel writes within a chunk. @default 25 */
  readonly concurrency?: number;
}

/**
 * Runs (or resumes) one import job for one message. On the message's last attempt (`attempt`,
 * the worker's `meta`) a failure also fails the job, since the queue will not deliver it again.
 */
export async function runImport(
  deps: Deps,
  projectId: string,
  jobId: string,
  options: ImportWorkerOptions = {},
  attempt: Pick<JobMeta, 'lastAttempt'> = { lastAttempt: false },
): Promise<void> {
  const started = performance.now();
  let job = await getImportJob(deps, projectId, jobId);
  if (!job) {
    // An object with no job: not written through the upload route (or long expired).
    console.warn(
      JSON.stringify({ level: 'warn', message: 'No import job for the upload', projectId, jobId }),
    );
    return;
  }
  if (job.status === 'completed') return;
  if (job.status === 'failed') {
    // Ended already: a redelivered message, or an upload stored after its deadline check failed
    // the job (UPLOAD_NOT_RECEIVED). Nothing revives a failed job; its stored body is dropped.
    await deps.blobs.delete(job.uploadKey);
    return;
  }
  try {
    const upload = await deps.blobs.get(job.uploadKey);
    if (!upload)
      throw new ImportFileError('UPLOAD_MISSING', 'The uploaded file is no longer stored; upload it again');
    const file = await extractFilePart(upload, job.contentType);
    if (job.status === 'queued') {
      assertUtf8(file);
      const start = await scan(file);
      if (!(await startImportJob(deps, job, start))) return;
      job = { ...job, status: 'processing', ...start };
    }
    const layout = layoutOf((await headerOf(file)).cells);
    for (;;) {
      const chunk = await readChunk(file, job.nextOffset, job.nextRow, options.chunkRows ?? 1000);
      const errors: RowError[] = [];
      const rows: ImportRow[] = [];
      for (const record of chunk.records) {
        const outcome = readRow(layout, record.cells, record.row);
        if (outcome.kind === 'error') {
          errors.push({ row: outcome.row, email: outcome.email, reason: outcome.reason });
          continue;
        }
        try {
          rows.push({ row: outcome.row, email: outcome.email, patch: parseDataPatch(outcome.data) });
        } catch {
          errors.push({ row: outcome.row, email: outcome.email, reason: 'invalid_data' });
        }
      }
      const results = await importContacts(deps, projectId, jobId, rows, {
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
      const committed = await commitImportChunk(deps, job, {
        fromRow: job.nextRow,
        nextRow: chunk.nextRow,
        nextOffset: chunk.nextOffset,
        processed: chunk.records.length,
        imported,
        updated,
        skipped: errors.length,
        done: chunk.eof,
        at: deps.clock.now().toISOString(),
      });
      if (!committed) return; // another runner of this job moved on first
      job = { ...job, nextRow: chunk.nextRow, nextOffset: chunk.nextOffset };
      if (chunk.eof) {
        await deps.blobs.delete(job.uploadKey);
        return;
      }
      if (performance.now() - started > (options.budgetMs ?? 20_000)) {
        await enqueue(deps, importJobMessage, { projectId, jobId });
        return;
      }
    }
  } catch (error) {
    if (error instanceof ImportFileError) {
      await failImportJob(
        deps,
        job,
        { code: error.code, message: error.message },
        deps.clock.now().toISOString(),
      );
      await deps.blobs.delete(job.uploadKey);
      return;
    }
    if (attempt.lastAttempt) {
      // The queue will not deliver this again: say so on the job instead of leaving it processing.
      await failImportJob(
        deps,
        job,
        {
          code: 'INTERNAL_ERROR',
          message: 'The import stopped after repeated failures; rows counted so far were applied',
        },
        deps.clock.now().toISOString(),
      );
    }
    throw error;
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

interface Chunk {
  readonly records: { readonly row: number; readonly cells: string[] }[];
  readonly nextRow: number;
  readonly nextOffset: number;
  readonly eof: boolean;
}

async function readChunk(file: Uint8Array, offset: number, firstRow: number, size: number): Promise<Chunk> {
  const records: Chunk['records'] = [];
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
