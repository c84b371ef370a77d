/**
 * Background jobs of CSV imports, and the normalizer that turns the upload bucket's "object
 * created" notifications (S3 event messages on the jobs queue) into import jobs.
 */
import * as z from 'zod/mini';
import { defineLazyChunkedJob } from '../jobs/chunked';
import { defineJob, type Normalizer } from '../jobs/registry';
import { IMPORT_JOB, importJobMessage, parseUploadKey, uploadDeadlineJobMessage } from './messages';
import type { ImportWorkerOptions } from './worker';

/**
 * The import job; tests pass smaller chunks and budgets. The worker (CSV parsing, multipart) loads
 * on the first import message.
 */
export function importJobs(options: ImportWorkerOptions = {}) {
  return [
    defineLazyChunkedJob(importJobMessage, async () => (await import('./worker')).importChunks(options)),
  ];
}

/**
 * The deadline check of an accepted upload, put on the queue by the one-off schedule the upload
 * authorizer arranges (upload.ts): fails the job if its file never arrived.
 */
export const uploadDeadlineJob = defineJob({
  ...uploadDeadlineJobMessage,
  run: async (deps, m) => (await import('./upload')).checkUploadDeadline(deps, m.projectId, m.jobId),
});

const s3Event = z.object({
  Records: z.array(
    z.object({
      eventSource: z.literal('aws:s3'),
      eventName: z.string(),
      s3: z.object({ object: z.object({ key: z.string() }) }),
    }),
  ),
});

/**
 * S3 event notifications: each created upload becomes an `import.run` job; S3's test event (sent
 * when the notification is set up) and objects outside the upload layout become nothing.
 */
export const s3UploadNormalizer: Normalizer = (body) => {
  if (typeof body === 'object' && body !== null && (body as { Event?: unknown }).Event === 's3:TestEvent') {
    return [];
  }
  const parsed = s3Event.safeParse(body);
  if (!parsed.success) return undefined;
  return parsed.data.Records.flatMap((r) => {
    if (!r.eventName.startsWith('ObjectCreated:')) return [];
    // Keys in S3 events are URL-encoded, with '+' for spaces.
    const key = decodeURIComponent(r.s3.object.key.replace(/\+/g, ' '));
    const upload = parseUploadKey(key);
    return upload ? [{ type: IMPORT_JOB, projectId: upload.projectId, jobId: upload.jobId }] : [];
  });
};

export const jobs = [...importJobs(), uploadDeadlineJob];
export const normalizers: readonly Normalizer[] = [s3UploadNormalizer];
