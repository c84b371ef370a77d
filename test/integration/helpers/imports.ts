/** Helpers for import tests: multipart bodies as a client sends them, and polling a job. */
import type { ApiClient, Json } from './api';
import type { LocalTestRuntime } from './local';

/** A multipart/form-data body with `csv` in the part `file` (as curl -F or a browser sends it). */
export async function multipart(
  csv: string | Uint8Array,
  options: { field?: string; filename?: string } = {},
): Promise<{ body: Uint8Array; contentType: string }> {
  const form = new FormData();
  const bytes = typeof csv === 'string' ? new TextEncoder().encode(csv) : csv;
  form.append(
    options.field ?? 'file',
    new Blob([bytes], { type: 'text/csv' }),
    options.filename ?? 'contacts.csv',
  );
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    body: new Uint8Array(await request.arrayBuffer()),
    contentType: request.headers.get('content-type')!,
  };
}

/** POSTs the file to /contacts/import; returns the raw response. */
export async function upload(
  rt: ApiClient,
  csv: string | Uint8Array,
  options: { key?: string | null; field?: string } = {},
) {
  const { body, contentType } = await multipart(csv, { field: options.field });
  return rt.api('POST', '/contacts/import', {
    raw: body,
    key: options.key,
    headers: { 'content-type': contentType },
  });
}

/** Uploads, waits for the queue, and returns the finished job. */
export async function importCsv(
  rt: LocalTestRuntime,
  csv: string | Uint8Array,
  timeoutMs = 60_000,
): Promise<Json> {
  const res = await upload(rt, csv);
  if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${res.text}`);
  await rt.drain({ timeoutMs });
  const job = await rt.api('GET', `/contacts/import/${res.body.jobId}`);
  return job.body;
}
