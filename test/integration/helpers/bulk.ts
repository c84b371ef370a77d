import { expect } from 'vitest';
import type { Json } from './api';
import type { LocalTestRuntime } from './local';

/** Starts a bulk job (`POST /contacts/bulk-<op>`), waits for the queue and returns the job as polled. */
export async function runBulk(rt: LocalTestRuntime, op: string, contactIds: string[]): Promise<Json> {
  const res = await rt.api('POST', `/contacts/bulk-${op}`, { body: { contactIds } });
  expect(res.status).toBe(202);
  expect(res.body).toEqual({ jobId: expect.any(String), status: 'queued' });
  await rt.drain({ timeoutMs: 30_000 });
  const job = await rt.api('GET', `/contacts/bulk/${res.body.jobId}`);
  expect(job.status).toBe(200);
  return job.body;
}
