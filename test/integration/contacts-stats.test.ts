/**
 * The contact counters (shared/contacts/stats.ts) through HTTP against the local runtime: after
 * every kind of change (create, update, patch, delete, import, bulk, field deletion) they hold
 * exactly what the live contacts count for, as stored and as GET /contacts, GET /contacts/fields
 * and the values endpoint answer; a change that changes nothing writes nothing; value counters
 * track at most 100 values per field; a recount sets counters that missed changes.
 */
import { describe, expect, it } from 'vitest';
import { parseDataPatch } from '../../shared/contacts/data';
import { requestRecount } from '../../shared/contacts/messages';
import { upsertContact } from '../../shared/contacts/service';
import { readContactStats } from '../../shared/contacts/stats';
import { expectCountersExact, seedContacts } from './helpers/contact-stats';
import { createContact, postContact, uniqueEmail } from './helpers/contacts';
import { watchedDeps } from './helpers/faults';
import { importCsv } from './helpers/imports';
import { useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

const patch = async (id: string, body: Record<string, unknown>) => {
  const res = await rt.api('PATCH', `/contacts/${id}`, { body });
  expect(res.status, res.text).toBe(200);
  return res.body;
};

const runBulk = async (op: string, contactIds: string[]) => {
  const res = await rt.api('POST', `/contacts/bulk-${op}`, { body: { contactIds } });
  expect(res.status, res.text).toBe(202);
  await rt.drain({ timeoutMs: 30_000 });
  const job = (await rt.api('GET', `/contacts/bulk/${res.body.jobId}`)).body;
  expect(job.status).toBe('completed');
  return job;
};

describe('contact counters', () => {
  it('start at zero', async () => {
    await expectCountersExact(rt, 'empty project');
    expect((await rt.api('GET', '/contacts')).body.total).toBe(0);
  });

  it('count creates, updates, patches and deletes exactly', async () => {
    const long = 'x'.repeat(200);
    const a = await postContact(
      rt,
      {
        email: uniqueEmail('st'),
        data: { plan: 'pro', seats: 3, profile: { tier: 'gold' }, tags: ['a', 'b'] },
      },
      { status: 201 },
    );
    const b = await postContact(
      rt,
      { email: uniqueEmail('st'), subscribed: false, data: { plan: 'free', bio: long } },
      { status: 201 },
    );
    const c = await postContact(rt, { email: uniqueEmail('st'), data: { plan: 'pro' } }, { status: 201 });
    await expectCountersExact(rt, 'after creates');

    // Upserts that change data, subscription and nested values.
    await postContact(rt, { email: a.email, data: { plan: 'team', profile: { tier: null, since: 2020 } } });
    await postContact(rt, { email: b.email, subscribed: true, data: { bio: null, seats: 1 } });
    await expectCountersExact(rt, 'after upserts');

    // Patches: data, subscription, snooze (counts nothing), email (counts nothing).
    await patch(c.id, { data: { plan: null, region: 'eu' }, subscribed: false });
    await patch(a.id, { snoozedUntil: '2030-01-01T00:00:00Z', email: uniqueEmail('moved') });
    await expectCountersExact(rt, 'after patches');

    // Deletes: once, and again (a tombstone counts nowhere, and the purge changes nothing).
    expect((await rt.api('DELETE', `/contacts/${b.id}`)).status).toBe(200);
    await rt.api('DELETE', `/contacts/${b.id}`);
    await rt.drain();
    await expectCountersExact(rt, 'after deletes and purge');
    expect((await rt.api('GET', `/contacts/${b.id}`)).status).toBe(404);
  });

  it('write nothing for an upsert that changes nothing, and only what changed otherwise', async () => {
    const email = uniqueEmail('same');
    await postContact(rt, { email, data: { plan: 'pro', profile: { tier: 'gold' } } }, { status: 201 });
    const writes: string[] = [];
    const deps = watchedDeps(rt.deps, {
      after: (call) => {
        if (call.op !== 'get' && call.op !== 'query' && call.key) writes.push(call.key.sk);
      },
    });
    const upsert = (data: unknown, subscribed?: boolean) =>
      upsertContact(
        deps,
        rt.projectId,
        { email, subscribed, patch: parseDataPatch(data), source: 'api' },
        { defaultSubscribed: true },
      );
    await upsert({ plan: 'pro', profile: { tier: 'gold' } }, true);
    expect(writes).toEqual([]);
    // A new value of a field every contact keeps: the value counter only, not the stats item.
    await upsert({ plan: 'team' });
    expect(writes).toEqual(['#CONTACT', 'VALUES#plan']);
    writes.length = 0;
    // A subscription change: the stats item only.
    await upsert(undefined, false);
    expect(writes.filter((sk) => sk !== '#CONTACT' && !sk.startsWith('EV#'))).toEqual(['#STATS']);
    await expectCountersExact(rt, 'after partial changes');
  });

  it('count an import', async () => {
    const existing = await postContact(rt, { email: uniqueEmail('imp'), data: { plan: 'free', keep: 1 } });
    const rows = [
      'email,plan,city',
      `${existing.email},pro,Paris`,
      'imp-new-1@stats.test,pro,Lyon',
      'imp-new-2@stats.test,,Nice',
      'IMP-NEW-1@stats.test,team,',
      'broken@,x,y',
    ];
    const job = await importCsv(rt, `${rows.join('\n')}\n`);
    expect(job).toMatchObject({ status: 'completed', imported: 2, updated: 2, skipped: 1 });
    await expectCountersExact(rt, 'after import');
    // The same file again changes nothing.
    await importCsv(rt, `${rows.join('\n')}\n`);
    await expectCountersExact(rt, 'after the same import again');
  });

  it('count bulk subscribe, unsubscribe and delete', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await createContact(rt, uniqueEmail('bulk'), i % 2 === 0));
    await runBulk('unsubscribe', ids);
    await expectCountersExact(rt, 'after bulk-unsubscribe');
    await runBulk('subscribe', ids.slice(0, 4));
    await expectCountersExact(rt, 'after bulk-subscribe');
    await runBulk('delete', [...ids.slice(2, 5), '00000000-0000-4000-8000-0000000000aa']);
    await expectCountersExact(rt, 'after bulk-delete');
  });

  it('count a deleted field out of every contact', async () => {
    for (let i = 0; i < 5; i++)
      await postContact(rt, {
        email: uniqueEmail('strip'),
        data: { doomed: i % 2 ? 'odd' : 'even', kept: i },
      });
    const res = await rt.api('DELETE', '/contacts/fields/data.doomed');
    expect(res.status).toBe(200);
    await rt.drain();
    const stats = await readContactStats(rt.deps, rt.projectId);
    expect(stats.coverage.get('doomed') ?? 0).toBe(0);
    await expectCountersExact(rt, 'after the field strip');
  });

  it('track at most 100 values of a field, most frequent first', async () => {
    // 110 distinct codes; three of them on several contacts.
    for (let i = 0; i < 110; i++) {
      const code = i < 9 ? `top${i % 3}` : `code${String(i).padStart(3, '0')}`;
      await postContact(rt, { email: uniqueEmail('cap'), data: { code } });
    }
    const res = await rt.api('GET', '/contacts/fields/data.code/values', { query: { limit: 5 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      field: 'data.code',
      values: ['top0', 'top1', 'top2', 'code009', 'code010'],
      count: 100,
      limit: 5,
    });
    const all = await rt.api('GET', '/contacts/fields/data.code/values', { query: { limit: 1000 } });
    expect(all.body.values).toHaveLength(100);
    // A recount keeps the most frequent as well.
    await requestRecount(rt.deps, rt.projectId);
    await rt.drain();
    const after = await rt.api('GET', '/contacts/fields/data.code/values', { query: { limit: 3 } });
    expect(after.body).toMatchObject({ values: ['top0', 'top1', 'top2'], count: 100 });
    await expectCountersExact(rt, 'with a capped field');
  });

  it('answer standard fields from the counters and the list', async () => {
    const subscribed = await rt.api('GET', '/contacts/fields/subscribed/values');
    const stats = await readContactStats(rt.deps, rt.projectId);
    const expected = [
      [true, stats.subscribed],
      [false, stats.total - stats.subscribed],
    ]
      .filter(([, n]) => Number(n) > 0)
      .sort((x, y) => Number(y[1]) - Number(x[1]))
      .map(([v]) => v);
    expect(subscribed.body).toEqual({
      field: 'subscribed',
      values: expected,
      count: expected.length,
      limit: 100,
    });
    const emails = await rt.api('GET', '/contacts/fields/email/values', { query: { limit: 3 } });
    const oldest = await rt.api('GET', '/contacts', { query: { limit: 3, dir: 'asc' } });
    expect(emails.body).toEqual({
      field: 'email',
      values: oldest.body.data.map((c: { email: string }) => c.email),
      count: stats.total,
      limit: 3,
    });
  });

  it('are set exactly by a recount, whatever they missed', async () => {
    await seedContacts(rt, 250, (i) => ({
      email: `seeded${i}@recount.test`,
      subscribed: i % 5 !== 0,
      data: { plan: i % 3 ? 'pro' : 'free', n: i, nested: { deep: i % 2 === 0 } },
    }));
    const before = await readContactStats(rt.deps, rt.projectId);
    await requestRecount(rt.deps, rt.projectId);
    await rt.drain();
    const after = await readContactStats(rt.deps, rt.projectId);
    expect(after.total).toBe(before.total + 250);
    await expectCountersExact(rt, 'after the recount');
  });
});
