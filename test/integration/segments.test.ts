/**
 * Segments through HTTP against the local runtime: the endpoints and their error cases, dynamic
 * membership kept as data (built on create, following contact writes, deletes and imports,
 * re-evaluated by the periodic job for event-based and time-relative conditions), static members,
 * compute with entry and exit events, refresh, delete with its 409s, and the usage reports.
 */
import { describe, expect, it } from 'vitest';
import { createProject } from '../../shared/projects/repository';
import { DEFINITIONS_TTL_MS } from '../../shared/segments/evaluation';
import { keys } from '../../shared/table';
import { type ApiOptions, type Json, useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

const plan = (value: string) => ({
  logic: 'AND',
  groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value }] }],
});

/** A fresh project, so counts and lists start empty. */
async function fresh(name = 'segments') {
  const p = await createProject(rt.deps, { name });
  const api = (method: string, path: string, options: ApiOptions = {}) =>
    rt.api(method, path, { key: p.secretKey, ...options });
  const contact = async (email: string, data: Json = {}, extra: Json = {}) => {
    const res = await api('POST', '/contacts', { body: { email, data, ...extra } });
    expect(res.status, res.text).toBeLessThan(300);
    return res.body as Json;
  };
  const segment = async (body: Json) => {
    const res = await api('POST', '/segments', { body });
    expect(res.status, res.text).toBe(201);
    return res.body as Json;
  };
  const get = async (id: string) => (await api('GET', `/segments/${id}`)).body as Json;
  const members = async (id: string, query = '') => {
    const res = await api('GET', `/segments/${id}/contacts${query}`);
    expect(res.status, res.text).toBe(200);
    return res.body as Json;
  };
  const memberEmails = async (id: string) =>
    ((await members(id, '?pageSize=100')).data as Json[]).map((c) => c.email).sort();
  return { ...p, id: p.project.id, api, contact, segment, get, members, memberEmails };
}

/**
 * Lets membership catch up: waits for the queue (builds and their second pass), then moves the
 * clock past the instances' cached definitions so that later contact writes see new segments.
 */
async function settle() {
  await rt.drain();
  await rt.runtime.clock.advance(DEFINITIONS_TTL_MS / 1000 + 1);
  await rt.drain();
}

describe('POST /segments', () => {
  it('creates a dynamic segment with defaults and a slug', async () => {
    const p = await fresh();
    const res = await p.api('POST', '/segments', { body: { name: 'Pro Users!', condition: plan('pro') } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      projectId: p.id,
      name: 'Pro Users!',
      slug: 'pro-users',
      description: null,
      type: 'DYNAMIC',
      condition: plan('pro'),
      trackMembership: false,
      memberCount: 0,
    });
    expect(res.body.version).toBeUndefined();
    // The same name gets a slug of its own.
    const again = await p.segment({ name: 'pro users', condition: plan('pro') });
    expect(again.slug).toBe('pro-users-2');
  });

  it('creates a static segment, whose condition is ignored and null', async () => {
    const p = await fresh();
    const s = await p.segment({
      name: 'VIP',
      type: 'STATIC',
      condition: plan('x'),
      description: 'hand-picked',
    });
    expect(s).toMatchObject({ type: 'STATIC', condition: null, description: 'hand-picked' });
    const s2 = await p.segment({ name: 'VIP2', type: 'STATIC' });
    expect(s2.condition).toBeNull();
  });

  it.each([
    ['name missing', { condition: plan('pro') }, 'name is required'],
    ['name empty', { name: '', condition: plan('pro') }, 'name is required'],
    ['condition missing on a dynamic segment', { name: 'x' }, 'condition is required for a DYNAMIC segment'],
    [
      'condition null',
      { name: 'x', type: 'DYNAMIC', condition: null },
      'condition is required for a DYNAMIC segment',
    ],
    ['condition not an object', { name: 'x', condition: 'data.plan = pro' }, 'condition must be an object'],
    ['condition an array', { name: 'x', condition: [] }, 'condition must be an object'],
  ])('answers the flat 400 when %s', async (_case, body, error) => {
    const p = await fresh();
    const res = await p.api('POST', '/segments', { body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error });
    expect((await p.api('GET', '/segments')).body).toEqual([]);
  });

  it('answers 422 over the limits and for a bad condition, naming the path', async () => {
    const p = await fresh();
    const long = await p.api('POST', '/segments', {
      body: { name: 'n'.repeat(101), description: 'd'.repeat(501), condition: plan('pro') },
    });
    expect(long.status).toBe(422);
    expect(long.body.error.errors.map((e: Json) => e.field).sort()).toEqual(['description', 'name']);
    const ok = await p.api('POST', '/segments', {
      body: { name: 'n'.repeat(100), description: 'd'.repeat(500), condition: plan('pro') },
    });
    expect(ok.status).toBe(201);
    const bad = await p.api('POST', '/segments', {
      body: {
        name: 'x',
        condition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'data.plan', operator: 'near', value: 1 }] }],
        },
      },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors[0].field).toBe('condition.groups.0.filters.0.operator');
    const type = await p.api('POST', '/segments', {
      body: { name: 'x', type: 'SMART', condition: plan('a') },
    });
    expect(type.status).toBe(422);
    const unknownRef = await p.api('POST', '/segments', {
      body: {
        name: 'x',
        condition: {
          logic: 'AND',
          groups: [{ filters: [{ field: `segment.${UNKNOWN}`, operator: 'memberOfSegment' }] }],
        },
      },
    });
    expect(unknownRef.status).toBe(422);
    expect(unknownRef.body.error.errors[0].code).toBe('unknown_segment');
    expect((await p.api('GET', '/segments')).body).toHaveLength(1);
  });

  it('needs a secret key', async () => {
    expect((await rt.api('POST', '/segments', { key: null, body: { name: 'x' } })).status).toBe(401);
    expect((await rt.api('GET', '/segments', { key: rt.publicKey })).status).toBe(401);
  });
});

describe('GET, PATCH and DELETE /segments/{id}', () => {
  it('lists all segments, newest first, and gets one', async () => {
    const p = await fresh();
    const a = await p.segment({ name: 'A', condition: plan('a') });
    const b = await p.segment({ name: 'B', type: 'STATIC' });
    const list = await p.api('GET', '/segments');
    expect(list.status).toBe(200);
    expect(list.body.map((s: Json) => s.id)).toEqual([b.id, a.id]);
    expect(await p.get(a.id)).toMatchObject({ id: a.id, name: 'A', memberCount: 0 });
  });

  it('answers 404 for an unknown or foreign id and 422 for a non-UUID', async () => {
    const p = await fresh();
    const other = await fresh('other');
    const s = await other.segment({ name: 'theirs', condition: plan('a') });
    for (const [method, suffix] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['GET', '/contacts'],
      ['POST', '/compute'],
      ['POST', '/refresh'],
    ] as const) {
      for (const id of [UNKNOWN, s.id]) {
        const res = await p.api(method, `/segments/${id}${suffix}`, method === 'GET' ? {} : { body: {} });
        expect(res.status, `${method} ${suffix}`).toBe(404);
      }
      expect(
        (await p.api(method, `/segments/nope${suffix}`, method === 'GET' ? {} : { body: {} })).status,
      ).toBe(422);
    }
    expect((await p.api('POST', `/segments/${s.id}/members`, { body: { emails: ['a@x.org'] } })).status).toBe(
      404,
    );
    expect((await other.get(s.id)).name).toBe('theirs');
  });

  it('patches name, description and trackMembership, keeping the slug', async () => {
    const p = await fresh();
    const s = await p.segment({ name: 'Trial', condition: plan('trial') });
    const res = await p.api('PATCH', `/segments/${s.id}`, {
      body: { name: 'Trialists', description: 'on trial', trackMembership: true },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Trialists',
      slug: 'trial',
      description: 'on trial',
      trackMembership: true,
    });
    const cleared = await p.api('PATCH', `/segments/${s.id}`, { body: { description: null } });
    expect(cleared.body.description).toBeNull();
    const bad = await p.api('PATCH', `/segments/${s.id}`, { body: { name: '' } });
    expect(bad.status).toBe(422);
    const badCondition = await p.api('PATCH', `/segments/${s.id}`, {
      body: { condition: { logic: 'XOR', groups: [] } },
    });
    expect(badCondition.status).toBe(422);
    expect((await p.get(s.id)).name).toBe('Trialists');
  });

  it('refuses a condition on a static segment and a cycle between segments', async () => {
    const p = await fresh();
    const st = await p.segment({ name: 'S', type: 'STATIC' });
    expect((await p.api('PATCH', `/segments/${st.id}`, { body: { condition: plan('a') } })).status).toBe(400);
    const a = await p.segment({ name: 'A', condition: plan('a') });
    const refA = {
      logic: 'AND',
      groups: [{ filters: [{ field: `segment.${a.id}`, operator: 'memberOfSegment' }] }],
    };
    const b = await p.segment({ name: 'B', condition: refA });
    const refB = {
      logic: 'AND',
      groups: [{ filters: [{ field: `segment.${b.id}`, operator: 'memberOfSegment' }] }],
    };
    const cycle = await p.api('PATCH', `/segments/${a.id}`, { body: { condition: refB } });
    expect(cycle.status).toBe(422);
    expect(cycle.body.error.errors[0].code).toBe('segment_cycle');
    // A referenced segment cannot be deleted.
    const del = await p.api('DELETE', `/segments/${a.id}`);
    expect(del.status).toBe(409);
    expect(del.body.error.details.segments).toEqual([{ id: b.id, name: 'B' }]);
  });

  it('refuses to delete a segment a SCHEDULED or SENDING campaign sends to, and deletes it otherwise', async () => {
    const p = await fresh();
    const s = await p.segment({ name: 'Audience', condition: plan('pro') });
    await p.contact('pro1@seg.test', { plan: 'pro' });
    await settle();
    for (const status of ['SCHEDULED', 'SENDING']) {
      await rt.deps.store.write({
        put: { pk: `P#${p.id}`, sk: 'CAMPAIGN#c1', id: 'c1', name: 'Launch', status, segmentId: s.id },
      });
      const res = await p.api('DELETE', `/segments/${s.id}`);
      expect(res.status).toBe(409);
      expect(res.body.error.details.campaigns).toEqual([{ id: 'c1', name: 'Launch', status }]);
    }
    await rt.deps.store.write({
      put: { pk: `P#${p.id}`, sk: 'CAMPAIGN#c1', id: 'c1', name: 'Launch', status: 'SENT', segmentId: s.id },
    });
    const res = await p.api('DELETE', `/segments/${s.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: s.id, deleted: true });
    expect((await p.api('GET', `/segments/${s.id}`)).status).toBe(404);
    await rt.drain();
    const left = await rt.deps.store.count({
      index: 'segmentMembers',
      partition: keys.segmentMembersIndex(p.id, s.id),
    });
    expect(left).toBe(0);
    // Its slug is free again.
    expect((await p.segment({ name: 'Audience', condition: plan('pro') })).slug).toBe('audience');
  });
});

describe('dynamic membership', () => {
  it('is built over existing contacts, follows contact writes and deletes, and pages', async () => {
    const p = await fresh();
    for (let i = 0; i < 5; i++) await p.contact(`pro${i}@seg.test`, { plan: 'pro' });
    await p.contact('free@seg.test', { plan: 'free' });
    const s = await p.segment({ name: 'Pro', condition: plan('pro') });
    await settle();
    expect((await p.get(s.id)).memberCount).toBe(5);
    expect(await p.memberEmails(s.id)).toEqual([0, 1, 2, 3, 4].map((i) => `pro${i}@seg.test`));

    // A contact write moves membership at once, and only when it changes.
    const free = (await p.api('POST', '/contacts/lookup', { body: { emails: ['free@seg.test'] } })).body
      .found[0];
    await p.api('PATCH', `/contacts/${free.id}`, { body: { data: { plan: 'pro' } } });
    expect((await p.get(s.id)).memberCount).toBe(6);
    const pro0 = (await p.api('POST', '/contacts/lookup', { body: { emails: ['pro0@seg.test'] } })).body
      .found[0];
    await p.api('PATCH', `/contacts/${pro0.id}`, { body: { data: { plan: 'free' } } });
    await p.api('PATCH', `/contacts/${pro0.id}`, { body: { data: { other: 1 } } });
    expect((await p.get(s.id)).memberCount).toBe(5);
    expect(await p.memberEmails(s.id)).not.toContain('pro0@seg.test');
    // /v1/track and /v1/send-style upserts go the same way.
    const tracked = await rt.api('POST', '/v1/track', {
      key: p.publicKey,
      body: { email: 'new@seg.test', event: 'signup', data: { plan: 'pro' } },
    });
    expect(tracked.status).toBe(200);
    expect((await p.get(s.id)).memberCount).toBe(6);
    // A deleted contact leaves.
    await p.api('DELETE', `/contacts/${free.id}`);
    expect((await p.get(s.id)).memberCount).toBe(5);
    expect(await p.memberEmails(s.id)).not.toContain('free@seg.test');

    // Pages: page and pageSize, total and totalPages from the count; pageSize clamped to 100.
    const page2 = await p.members(s.id, '?page=2&pageSize=2');
    expect(page2).toMatchObject({ page: 2, pageSize: 2, total: 5, totalPages: 3 });
    expect(page2.data).toHaveLength(2);
    const all = await p.members(s.id, '?pageSize=100');
    expect(page2.data.map((c: Json) => c.id)).toEqual(all.data.slice(2, 4).map((c: Json) => c.id));
    expect((await p.members(s.id, '?page=4&pageSize=2')).data).toEqual([]);
    expect((await p.members(s.id, '?pageSize=500')).pageSize).toBe(100);
    const bad = await p.api('GET', `/segments/${s.id}/contacts?page=0`);
    expect(bad.status).toBe(422);
  });

  it('follows imports and bulk jobs', async () => {
    const p = await fresh();
    const s = await p.segment({ name: 'Gold', condition: plan('gold') });
    await settle();
    const { upload } = await import('./helpers/imports');
    const csv = ['email,plan', 'g1@imp.test,gold', 'g2@imp.test,gold', 's1@imp.test,silver'].join('\n');
    const res = await upload({ api: p.api }, csv, { key: p.secretKey });
    expect(res.status).toBe(202);
    await rt.drain();
    expect((await p.get(s.id)).memberCount).toBe(2);
    const ids = (
      await p.api('POST', '/contacts/lookup', { body: { emails: ['g1@imp.test'] } })
    ).body.found.map((c: Json) => c.id);
    expect((await p.api('POST', '/contacts/bulk-delete', { body: { contactIds: ids } })).status).toBe(202);
    await rt.drain();
    expect((await p.get(s.id)).memberCount).toBe(1);
    expect(await p.memberEmails(s.id)).toEqual(['g2@imp.test']);
  });

  it('builds again when the condition changes', async () => {
    const p = await fresh();
    await p.contact('a@re.test', { plan: 'a' });
    await p.contact('b@re.test', { plan: 'b' });
    const s = await p.segment({ name: 'Plan', condition: plan('a') });
    await settle();
    expect(await p.memberEmails(s.id)).toEqual(['a@re.test']);
    const res = await p.api('PATCH', `/segments/${s.id}`, { body: { condition: plan('b') } });
    expect(res.status).toBe(200);
    await settle();
    expect(await p.memberEmails(s.id)).toEqual(['b@re.test']);
    expect((await p.get(s.id)).memberCount).toBe(1);
  });

  it('re-evaluates event-based and time-relative segments in the periodic job', async () => {
    const p = await fresh();
    await p.contact('old@drift.test');
    await p.contact('evt@drift.test');
    const recent = await p.segment({
      name: 'Recent',
      condition: {
        logic: 'AND',
        groups: [{ filters: [{ field: 'createdAt', operator: 'within', value: 1, unit: 'days' }] }],
      },
    });
    const signedUp = await p.segment({
      name: 'Signed up',
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'event.signup', operator: 'triggered' }] }] },
    });
    await settle();
    expect((await p.get(recent.id)).memberCount).toBe(2);
    expect((await p.get(signedUp.id)).memberCount).toBe(0);
    await rt.api('POST', '/v1/track', {
      key: p.publicKey,
      body: { email: 'evt@drift.test', event: 'signup' },
    });
    await rt.runtime.clock.advance(2 * 24 * 3600);
    await rt.scheduler.runRecurring('segments-periodic');
    await rt.drain();
    expect((await p.get(recent.id)).memberCount).toBe(0);
    expect(await p.memberEmails(signedUp.id)).toEqual(['evt@drift.test']);
  });
});

describe('static members', () => {
  it('adds by email (creating missing contacts when asked) and removes', async () => {
    const p = await fresh();
    await p.contact('known@st.test');
    const s = await p.segment({ name: 'Hand-picked', type: 'STATIC' });
    const add = await p.api('POST', `/segments/${s.id}/members`, {
      body: { emails: ['Known@st.test', 'missing@st.test'] },
    });
    expect(add.status).toBe(200);
    expect(add.body).toEqual({ added: 1, created: 0, notFound: ['missing@st.test'] });
    const create = await p.api('POST', `/segments/${s.id}/members`, {
      body: { emails: ['known@st.test', 'missing@st.test'], createMissing: true, subscribed: false },
    });
    expect(create.body).toEqual({ added: 1, created: 1, notFound: [] });
    const created = (await p.api('POST', '/contacts/lookup', { body: { emails: ['missing@st.test'] } })).body
      .found[0];
    expect(created.subscribed).toBe(false);
    expect((await p.get(s.id)).memberCount).toBe(2);
    expect(await p.memberEmails(s.id)).toEqual(['known@st.test', 'missing@st.test']);

    const remove = await p.api('DELETE', `/segments/${s.id}/members`, {
      body: { emails: ['known@st.test', 'nobody@st.test'] },
    });
    expect(remove.body).toEqual({ removed: 1, notFound: ['nobody@st.test'] });
    expect((await p.get(s.id)).memberCount).toBe(1);
  });

  it('refuses members calls on a dynamic segment and bad bodies', async () => {
    const p = await fresh();
    const d = await p.segment({ name: 'D', condition: plan('a') });
    expect(
      (await p.api('POST', `/segments/${d.id}/members`, { body: { emails: ['a@b.test'] } })).status,
    ).toBe(400);
    expect(
      (await p.api('DELETE', `/segments/${d.id}/members`, { body: { emails: ['a@b.test'] } })).status,
    ).toBe(400);
    const s = await p.segment({ name: 'S', type: 'STATIC' });
    for (const body of [
      {},
      { emails: [] },
      { emails: ['not-an-email'] },
      { emails: Array(1001).fill('a@b.test') },
    ]) {
      expect((await p.api('POST', `/segments/${s.id}/members`, { body })).status).toBe(422);
    }
    expect((await p.api('POST', `/segments/${s.id}/compute`)).status).toBe(400);
  });
});

describe('compute and refresh', () => {
  it('fires entry and exit events for a tracked segment as memberships change, each once', async () => {
    const p = await fresh();
    await p.contact('c1@cmp.test', { plan: 'pro' });
    const c2 = await p.contact('c2@cmp.test', { plan: 'pro' });
    const s = await p.segment({ name: 'Power users', condition: plan('pro'), trackMembership: true });
    const events = async (kind: 'entry' | 'exit') =>
      ((await p.api('GET', `/events?name=segment.power-users.${kind}`)).body.data as Json[])
        .map((e) => e.contactId)
        .sort();
    // The build announces who it finds; a compute then finds nothing left to announce.
    await settle();
    expect(await events('entry')).toHaveLength(2);
    const first = await p.api('POST', `/segments/${s.id}/compute`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ added: 0, removed: 0, memberCount: 2 });

    // A contact write announces its change as it is written, before any compute.
    await p.api('PATCH', `/contacts/${c2.id}`, { body: { data: { plan: 'free' } } });
    await rt.drain();
    expect(await events('exit')).toEqual([c2.id]);
    const third = await p.api('POST', `/segments/${s.id}/compute`);
    expect(third.body).toEqual({ added: 0, removed: 0, memberCount: 1 });
    const c3 = await p.contact('c3@cmp.test', { plan: 'pro' });
    await p.api('PATCH', `/contacts/${c2.id}`, { body: { data: { plan: 'pro' } } });
    await rt.drain();
    expect(await events('entry')).toHaveLength(4);
    expect(await events('entry')).toEqual(expect.arrayContaining([c2.id, c3.id]));
    const exits = await p.api('GET', '/events?name=segment.power-users.exit');
    expect(exits.body.data[0].data).toMatchObject({ segmentId: s.id });

    // What a write did not get to announce (its process stopped after the membership), compute does.
    await rt.deps.store.write({ delete: keys.segmentSnapshot(p.id, s.id, c3.id) });
    const repaired = await p.api('POST', `/segments/${s.id}/compute`);
    expect(repaired.body).toEqual({ added: 1, removed: 0, memberCount: 3 });
    expect(await events('entry')).toHaveLength(5);
    expect((await p.api('POST', `/segments/${s.id}/compute`)).body).toEqual({
      added: 0,
      removed: 0,
      memberCount: 3,
    });
  });

  it('stores the set but fires nothing for an untracked segment; refresh only counts', async () => {
    const p = await fresh();
    await p.contact('u1@cmp.test', { plan: 'pro' });
    const s = await p.segment({ name: 'Quiet', condition: plan('pro') });
    await settle();
    expect((await p.api('POST', `/segments/${s.id}/compute`)).body).toEqual({
      added: 1,
      removed: 0,
      memberCount: 1,
    });
    expect((await p.api('GET', '/events?name=segment.quiet.entry')).body.data).toEqual([]);
    // A wrong count is set right by refresh, which writes nothing else.
    await rt.deps.store.write({
      update: keys.segment(p.id, s.id),
      expression: 'SET memberCount = :n',
      values: { ':n': 42 },
    });
    const res = await p.api('POST', `/segments/${s.id}/refresh`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ memberCount: 1 });
    expect((await p.get(s.id)).memberCount).toBe(1);
  });

  it('computes tracked segments on the periodic schedule', async () => {
    const p = await fresh();
    await p.contact('sched@cmp.test', { plan: 'pro' });
    const s = await p.segment({ name: 'Scheduled', condition: plan('pro'), trackMembership: true });
    await settle();
    await rt.scheduler.runRecurring('segments-periodic');
    await rt.drain();
    expect((await p.api('GET', '/events?name=segment.scheduled.entry')).body.data).toHaveLength(1);
    expect((await p.get(s.id)).lastComputedAt).not.toBeNull();
  });
});

describe('usage reports', () => {
  it('list the segments whose conditions use a field or an event', async () => {
    const p = await fresh();
    await p.contact('usage@use.test', { plan: 'pro' });
    const byField = await p.segment({ name: 'By field', condition: plan('pro') });
    const byEvent = await p.segment({
      name: 'By event',
      condition: { logic: 'AND', groups: [{ filters: [{ field: 'event.upgrade', operator: 'triggered' }] }] },
    });
    const fields = await p.api('GET', '/contacts/fields/plan/usage');
    expect(fields.status).toBe(200);
    expect(fields.body.segments).toEqual([{ id: byField.id, name: 'By field' }]);
    const events = await p.api('GET', '/events/upgrade/usage');
    expect(events.status).toBe(200);
    expect(events.body.segments).toEqual([{ id: byEvent.id, name: 'By event' }]);
  });
});

describe('segments and campaigns together', () => {
  it('a scheduled campaign keeps its segment; usage reports list campaigns by field and event', async () => {
    const { campaignBody, campaignProject, createCampaign } = await import('./helpers/campaigns');
    const p = await campaignProject(rt, 'seg');
    const segment = (await p.api('POST', '/segments', { body: { name: 'Pro', condition: plan('pro') } }))
      .body;
    const campaign = await createCampaign(
      p,
      campaignBody(p.from, { name: 'To pros', audienceType: 'SEGMENT', segmentId: segment.id }),
    );
    const later = new Date(rt.deps.clock.now().getTime() + 3_600_000).toISOString();
    const scheduled = await p.api('POST', `/campaigns/${campaign.id}/send`, {
      body: { scheduledFor: later },
    });
    expect(scheduled.status, scheduled.text).toBe(200);
    const refused = await p.api('DELETE', `/segments/${segment.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.details.campaigns).toEqual([
      { id: campaign.id, name: 'To pros', status: 'SCHEDULED' },
    ]);
    expect((await p.api('POST', `/campaigns/${campaign.id}/cancel`)).status).toBe(200);
    expect((await p.api('DELETE', `/segments/${segment.id}`)).status).toBe(200);

    const filtered = await createCampaign(
      p,
      campaignBody(p.from, {
        name: 'Upgraders',
        audienceType: 'FILTERED',
        audienceCondition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'event.upgrade', operator: 'triggered' }] }],
        },
      }),
    );
    const events = await p.api('GET', '/events/upgrade/usage');
    expect(events.body.campaigns).toEqual([{ id: filtered.id, name: 'Upgraders' }]);
  });
});
