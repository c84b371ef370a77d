/**
 * Bulk subscribe, unsubscribe and delete through HTTP against the local runtime: validation,
 * the queued job and its report, events only for real changes, unknown ids as failures, and a
 * worker that dies mid-job.
 */
import { describe, expect, it } from 'vitest';
import { jobs, normalizers } from '../../functions/queues/jobs';
import { bulkJobs } from '../../shared/bulk/jobs';
import { BULK_JOB } from '../../shared/bulk/messages';
import { jobsWorker } from '../../shared/jobs/registry';
import type { Deps } from '../../shared/ports';
import { runBulk as bulkJob } from './helpers/bulk';
import { expectCountersExact } from './helpers/contact-stats';
import { contactEventNames, createContact } from './helpers/contacts';
import { type StoreCall, StoreFaults } from './helpers/faults';
import { useLocalRuntime } from './helpers/local';

const faults = new StoreFaults('simulated worker crash');

const rt = useLocalRuntime({
  handlers: {
    queues: {
      // Small chunks, one message each, over a store that can fail one chosen write.
      jobs: (deps: Deps) => {
        const defs = [...jobs.filter((j) => j.type !== BULK_JOB), ...bulkJobs({ chunkSize: 3, budgetMs: 0 })];
        return jobsWorker(faults.inject(deps), defs, normalizers);
      },
    },
  },
});

const runBulk = (op: string, contactIds: string[]) => bulkJob(rt, op, contactIds);

const unknownId = '00000000-0000-4000-8000-0000000000aa';

describe('bulk endpoints: validation', () => {
  for (const op of ['subscribe', 'unsubscribe', 'delete']) {
    it(`POST /contacts/bulk-${op} takes 1 to 1,000 ids and refuses more with 422`, async () => {
      const many = Array.from({ length: 1001 }, (_, i) => `id-${i}`);
      const tooMany = await rt.api('POST', `/contacts/bulk-${op}`, { body: { contactIds: many } });
      expect(tooMany.status).toBe(422);
      expect(tooMany.body.error.code).toBe('VALIDATION_ERROR');
      expect(tooMany.body.error.errors[0]).toMatchObject({ field: 'contactIds', code: 'too_big' });
      for (const body of [{ contactIds: [] }, {}, { contactIds: 'abc' }, { contactIds: [1] }]) {
        const res = await rt.api('POST', `/contacts/bulk-${op}`, { body });
        expect(res.status).toBe(422);
      }
      const max = await rt.api('POST', `/contacts/bulk-${op}`, { body: { contactIds: many.slice(0, 1000) } });
      expect(max.status).toBe(202);
      await rt.drain({ timeoutMs: 60_000 });
      const job = (await rt.api('GET', `/contacts/bulk/${max.body.jobId}`)).body;
      expect(job).toMatchObject({
        status: 'completed',
        total: 1000,
        processed: 1000,
        succeeded: 0,
        failed: 1000,
      });
    }, 90_000);
  }

  it('answers 404 for an unknown bulk job', async () => {
    const res = await rt.api('GET', `/contacts/bulk/${unknownId}`);
    expect(res.status).toBe(404);
  });
});

describe('bulk jobs', () => {
  it('bulk-subscribe subscribes, emits contact.subscribed only for real changes, reports unknown ids', async () => {
    const off = await createContact(rt, 'off@bulk.test', false);
    const on = await createContact(rt, 'on@bulk.test', true);
    const job = await runBulk('subscribe', [off, on, unknownId, off, 'not-a-uuid']);
    expect(job).toEqual({
      jobId: expect.any(String),
      type: 'subscribe',
      status: 'completed',
      total: 4,
      processed: 4,
      succeeded: 2,
      failed: 2,
      errors: [
        { contactId: unknownId, reason: 'not_found' },
        { contactId: 'not-a-uuid', reason: 'not_found' },
      ],
      createdAt: expect.any(String),
      completedAt: expect.any(String),
    });
    expect((await rt.api('GET', `/contacts/${off}`)).body.subscribed).toBe(true);
    expect(await contactEventNames(rt, off)).toEqual(['contact.subscribed']);
    const events = await rt.api('GET', `/events/contact/${off}`);
    expect(events.body.data[0]).toMatchObject({ name: 'contact.subscribed', data: { source: 'bulk' } });
    expect(await contactEventNames(rt, on)).toEqual([]);
    // Again: nothing changes, nothing is emitted.
    const again = await runBulk('subscribe', [off, on]);
    expect(again).toMatchObject({ succeeded: 2, failed: 0 });
    expect(await contactEventNames(rt, off)).toEqual(['contact.subscribed']);
  });

  it('bulk-unsubscribe unsubscribes and emits contact.unsubscribed once', async () => {
    const a = await createContact(rt, 'u1@bulk.test', true);
    const b = await createContact(rt, 'u2@bulk.test', false);
    const job = await runBulk('unsubscribe', [a, b]);
    expect(job).toMatchObject({
      type: 'unsubscribe',
      status: 'completed',
      succeeded: 2,
      failed: 0,
      errors: [],
    });
    expect((await rt.api('GET', `/contacts/${a}`)).body.subscribed).toBe(false);
    expect(await contactEventNames(rt, a)).toEqual(['contact.unsubscribed']);
    expect(await contactEventNames(rt, b)).toEqual([]);
  });

  it('bulk-delete deletes through the contact delete path; unknown and foreign ids are failures', async () => {
    const a = await createContact(rt, 'd1@bulk.test', true);
    const b = await createContact(rt, 'd2@bulk.test', true);
    const keep = await createContact(rt, 'd3@bulk.test', true);
    const job = await runBulk('delete', [a, unknownId, b]);
    expect(job).toMatchObject({
      type: 'delete',
      status: 'completed',
      total: 3,
      succeeded: 2,
      failed: 1,
      errors: [{ contactId: unknownId, reason: 'not_found' }],
    });
    for (const id of [a, b]) expect((await rt.api('GET', `/contacts/${id}`)).status).toBe(404);
    expect((await rt.api('GET', `/contacts/${keep}`)).status).toBe(200);
    await expectCountersExact(rt, 'after bulk-delete');
    // The purge freed the emails: they can be created anew.
    expect((await rt.api('POST', '/contacts', { body: { email: 'd1@bulk.test' } })).status).toBe(201);
  });

  it('counts exactly once when the worker dies after applying a chunk, before its checkpoint', async () => {
    const ids = [
      await createContact(rt, 'c1@bulk.test', true),
      await createContact(rt, 'c2@bulk.test', true),
      await createContact(rt, 'c3@bulk.test', true),
      await createContact(rt, 'c4@bulk.test', true),
    ];
    // The chunk's commit: its results and the checkpoint, in one update of the job.
    const commit = (call: StoreCall) =>
      call.op === 'update' && String(call.expression).includes('list_append');
    faults.failAt(commit);
    const job = await runBulk('delete', [...ids, unknownId]);
    expect(faults.fired).toBe(true);
    expect(job).toMatchObject({ status: 'completed', total: 5, processed: 5, succeeded: 4, failed: 1 });
    expect(job.errors).toEqual([{ contactId: unknownId, reason: 'not_found' }]);

    const subs = [
      await createContact(rt, 's1@bulk.test', false),
      await createContact(rt, 's2@bulk.test', false),
      await createContact(rt, 's3@bulk.test', false),
    ];
    faults.failAt(commit);
    const sub = await runBulk('subscribe', subs);
    expect(sub).toMatchObject({ status: 'completed', succeeded: 3, failed: 0 });
    for (const id of subs) expect(await contactEventNames(rt, id)).toEqual(['contact.subscribed']);
    await expectCountersExact(rt, 'after bulk jobs that died before a checkpoint');
  });
});
