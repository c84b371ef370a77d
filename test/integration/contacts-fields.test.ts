import { describe, expect, it } from 'vitest';
import { parseDataPatch } from '../../shared/contacts/data';
import { upsertContact } from '../../shared/contacts/service';
import { postContact, uniqueEmail } from './helpers/contacts';
import { type StoreCall, watchedDeps } from './helpers/faults';
import { useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

const upsert = (email: string, data: Record<string, unknown>) => postContact(rt, { email, data });

const fields = async () => {
  const res = await rt.api('GET', '/contacts/fields');
  expect(res.status).toBe(200);
  return res.body.fields as { field: string; type: string; isCustom: boolean; coverage: number }[];
};

describe('custom fields', () => {
  it('lists standard and custom fields with inferred types and coverage', async () => {
    expect(await fields()).toEqual([
      { field: 'email', type: 'string', isCustom: false, coverage: 0 },
      { field: 'subscribed', type: 'boolean', isCustom: false, coverage: 0 },
      { field: 'createdAt', type: 'date', isCustom: false, coverage: 0 },
      { field: 'updatedAt', type: 'date', isCustom: false, coverage: 0 },
    ]);
    await upsert('f1@fields.test', {
      age: 42,
      score: 3.14,
      vip: true,
      born: '1990-04-01',
      seen: '2024-05-01T10:20:30Z',
      us: '05/01/2024',
      plan: 'pro',
      profile: { tier: 'gold' },
    });
    await upsert('f2@fields.test', { age: 'forty', plan: 'free' });
    await upsert('f3@fields.test', { plan: 'pro' });
    await upsert('f4@fields.test', {});
    const list = await fields();
    const byName = Object.fromEntries(list.map((f) => [f.field, f]));
    expect(byName.email).toMatchObject({ isCustom: false, coverage: 1 });
    expect(byName['data.age']).toEqual({ field: 'data.age', type: 'number', isCustom: true, coverage: 0.5 });
    expect(byName['data.score']?.type).toBe('number');
    expect(byName['data.vip']?.type).toBe('boolean');
    expect(byName['data.born']?.type).toBe('date');
    expect(byName['data.seen']?.type).toBe('date');
    expect(byName['data.us']?.type).toBe('string');
    expect(byName['data.plan']).toMatchObject({ type: 'string', coverage: 0.75 });
    expect(byName['data.profile.tier']).toMatchObject({ type: 'string', coverage: 0.25 });
  });

  it('keeps the first inferred type but stores later values as sent', async () => {
    const c = await upsert('f5@fields.test', { age: 'unknown' });
    expect(c.data.age).toBe('unknown');
    const byName = Object.fromEntries((await fields()).map((f) => [f.field, f]));
    expect(byName['data.age']?.type).toBe('number');
  });

  it('lists distinct values, most frequent first', async () => {
    const res = await rt.api('GET', '/contacts/fields/data.plan/values');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ field: 'data.plan', values: ['pro', 'free'], count: 2, limit: 100 });
    const limited = await rt.api('GET', '/contacts/fields/plan/values?limit=1');
    expect(limited.body).toEqual({ field: 'data.plan', values: ['pro'], count: 2, limit: 1 });
    const nested = await rt.api('GET', `/contacts/fields/${encodeURIComponent('data.profile.tier')}/values`);
    expect(nested.body.values).toEqual(['gold']);
    expect((await rt.api('GET', '/contacts/fields/data.nothing/values')).status).toBe(404);
  });

  it('reports usage (none yet) and 404 for unknown fields', async () => {
    const res = await rt.api('GET', '/contacts/fields/data.plan/usage');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ field: 'data.plan', segments: [], campaigns: [], workflows: [] });
    expect((await rt.api('GET', '/contacts/fields/data.nothing/usage')).status).toBe(404);
  });

  it('deletes a field from every contact; a later value infers its type anew', async () => {
    const res = await rt.api('DELETE', '/contacts/fields/data.age');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ field: 'data.age', deleted: true });
    await rt.drain();
    expect((await fields()).map((f) => f.field)).not.toContain('data.age');
    const list = await rt.api('GET', '/contacts?limit=100');
    for (const c of list.body.data) expect(c.data).not.toHaveProperty('age');
    expect(list.body.data.find((c: { email: string }) => c.email === 'f1@fields.test').data.plan).toBe('pro');
    await upsert('f6@fields.test', { age: 'text now' });
    const byName = Object.fromEntries((await fields()).map((f) => [f.field, f]));
    expect(byName['data.age']?.type).toBe('string');
  });

  it('refuses to delete standard or unknown fields', async () => {
    expect((await rt.api('DELETE', '/contacts/fields/email')).status).toBe(400);
    expect((await rt.api('DELETE', '/contacts/fields/data.never')).status).toBe(404);
  });
});

describe('recording field types', () => {
  it('an instance that does not remember a field reads its type instead of a write that fails', async () => {
    await postContact(rt, { email: uniqueEmail('ft'), data: { known: 1 } });
    // A store of its own is a fresh instance: it remembers no field.
    const calls: StoreCall[] = [];
    const deps = watchedDeps(rt.deps, { before: (call) => void calls.push(call) });
    const upsert = (data: Record<string, unknown>) =>
      upsertContact(
        deps,
        rt.projectId,
        { email: uniqueEmail('ft'), patch: parseDataPatch(data), source: 'api' },
        { defaultSubscribed: true },
      );
    await upsert({ known: 2, fresh: 'x' });
    const fieldPuts = calls.filter((c) => c.op === 'put' && c.key?.sk.startsWith('FIELD#'));
    expect(fieldPuts.map((c) => c.key?.sk)).toEqual(['FIELD#fresh']);
    expect(calls.filter((c) => c.op === 'batchGet')).toHaveLength(1);
    // Remembered now: the next write of both reads and writes no field type.
    calls.length = 0;
    await upsert({ known: 3, fresh: 'y' });
    expect(calls.filter((c) => c.op === 'batchGet' || c.key?.sk.startsWith('FIELD#'))).toEqual([]);
  });
});
