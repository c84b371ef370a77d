/**
 * At-least-once, shown: a runtime whose queue delivers every message once more after a worker
 * completes it (`redeliverEachMessage`, as SQS may), through every queued job a user can start:
 * import, bulk jobs, contact purge, field strip, event deletion and the event tally. The end
 * state must be what one delivery gives: nothing counted, created, mailed or lowered twice.
 */
import { describe, expect, it } from 'vitest';
import { fastTimings } from '../../shared/composition/local';
import { runBulk as bulkJob } from './helpers/bulk';
import { expectCountersExact } from './helpers/contact-stats';
import { uniqueEmail } from './helpers/contacts';
import { settleEventCounts } from './helpers/events';
import { importCsv } from './helpers/imports';
import { type Json, useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime({ timings: { ...fastTimings, redeliverEachMessage: true } });

const names = async () =>
  ((await rt.api('GET', '/events/names')).body.names as Json[]).map((n) => `${n.name}:${n.count}`).sort();

const runBulk = (op: string, contactIds: string[]) => bulkJob(rt, op, contactIds);

describe('every queue message delivered twice', () => {
  it('an import creates each contact once and counts each once', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => `imp${i}@redeliver.test,${i % 3 ? 'pro' : 'free'}`);
    const job = await importCsv(rt, `email,plan\n${rows.join('\n')}\n`);
    expect(job).toMatchObject({
      status: 'completed',
      totalRows: 30,
      processedRows: 30,
      imported: 30,
      updated: 0,
      skipped: 0,
      errors: [],
    });
    expect((await rt.api('GET', '/contacts', { query: { search: 'redeliver.test' } })).body.total).toBe(30);
    await expectCountersExact(rt, 'after an import delivered twice');
  });

  it('bulk jobs, purges and the field strip change and count each contact once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await rt.api('POST', '/contacts', {
        body: { email: uniqueEmail('rb'), subscribed: true, data: { tier: i } },
      });
      ids.push(res.body.id);
    }
    const off = await runBulk('unsubscribe', ids.slice(0, 2));
    expect(off).toMatchObject({ status: 'completed', succeeded: 2, failed: 0 });
    for (const id of ids.slice(0, 2)) {
      const events = (await rt.api('GET', `/events/contact/${id}`)).body.data.map((e: Json) => e.name);
      expect(events).toEqual(['contact.unsubscribed']);
    }
    const gone = await runBulk('delete', ids.slice(2));
    expect(gone).toMatchObject({ status: 'completed', succeeded: 2, failed: 0 });
    for (const id of ids.slice(2)) expect((await rt.api('GET', `/contacts/${id}`)).status).toBe(404);
    await expectCountersExact(rt, 'after bulk jobs and purges delivered twice');

    expect((await rt.api('DELETE', '/contacts/fields/data.tier')).status).toBeLessThan(300);
    await rt.drain({ timeoutMs: 30_000 });
    await expectCountersExact(rt, 'after a field strip delivered twice');
    const fields = (await rt.api('GET', '/contacts/fields')).body;
    expect(JSON.stringify(fields)).not.toContain('data.tier');
  });

  it('the event tally and event deletion count and lower each event once', async () => {
    const email = uniqueEmail('re');
    for (const name of ['viewed', 'viewed', 'bought', 'drop', 'drop']) {
      expect((await rt.api('POST', '/events/track', { body: { email, event: name } })).status).toBe(200);
    }
    await settleEventCounts(rt);
    const counted = await names();
    expect(counted).toEqual(expect.arrayContaining(['bought:1', 'drop:2', 'viewed:2']));
    expect((await rt.api('DELETE', '/events/drop')).status).toBe(202);
    await rt.drain();
    await settleEventCounts(rt);
    const after = await names();
    expect(after).toEqual(counted.filter((n) => !n.startsWith('drop:')));
  });
});
