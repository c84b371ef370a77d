import { describe, expect, it } from 'vitest';
import { DELETE_EVENTS_JOB, type DeleteEventsMessage } from '../../shared/events/messages';
import { type EventRecord, putEvent } from '../../shared/events/repository';
import { runEventDeletion } from '../../shared/events/service';
import { keys } from '../../shared/table';
import { uniqueEmail } from './helpers/contacts';
import { freshEventsProject, settleEventCounts } from './helpers/events';
import { type ApiOptions, type Json, useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

const freshProject = (name: string) => freshEventsProject(rt, name);

const settle = (projectId: string) => settleEventCounts(rt, projectId);

/** Writes an event straight to the store at a chosen time (for time windows and volume). */
async function seedEvent(projectId: string, contactId: string, name: string, createdAt: Date) {
  const event: EventRecord = {
    id: rt.deps.ids.uuid(),
    projectId,
    contactId,
    name,
    data: {},
    createdAt: createdAt.toISOString(),
  };
  // Recorded at its own time (as if tracked then): not a late write.
  await putEvent(rt.deps, event, createdAt);
  return event;
}

async function collect(
  api: (m: string, p: string, o?: ApiOptions) => Promise<Json>,
  path: string,
  query = {},
) {
  const pages: Json[] = [];
  let cursor: string | undefined;
  do {
    const res = await api('GET', path, { query: { ...query, cursor } });
    expect(res.status).toBe(200);
    pages.push(res.body);
    cursor = res.body.hasMore ? res.body.cursor : undefined;
  } while (cursor);
  return pages;
}

describe('POST /events/track', () => {
  it('is the secret-key alias of /v1/track: same body, same result', async () => {
    const p = await freshProject('alias');
    const email = uniqueEmail('alias');
    const res = await p.api('POST', '/events/track', {
      body: { email, event: 'signup', data: { plan: 'pro' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { contact: expect.any(String), event: expect.any(String), timestamp: expect.any(String) },
    });
    const contact = await p.api('GET', `/contacts/${res.body.data.contact}`);
    expect(contact.body).toMatchObject({ email, subscribed: true, data: { plan: 'pro' } });
    const reserved = await p.api('POST', '/events/track', { body: { email, event: 'email.sent' } });
    expect(reserved.status).toBe(422);
    expect(reserved.body.error.errors[0].code).toBe('reserved_event');
  });

  it('takes only the secret key', async () => {
    const p = await freshProject('alias-auth');
    const res = await rt.api('POST', '/events/track', {
      key: p.publicKey,
      body: { email: uniqueEmail('e'), event: 'signup' },
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
  });
});

describe('GET /events', () => {
  it('lists recent events newest first as a cursor list, total on the first page only', async () => {
    const p = await freshProject('list');
    const tracked: string[] = [];
    for (let i = 0; i < 5; i++) tracked.push((await p.track(uniqueEmail('l'), i % 2 ? 'odd' : 'even')).event);
    await settle(p.id);
    const first = await p.api('GET', '/events', { query: { limit: 2 } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ hasMore: true, total: 5 });
    expect(first.body.data).toHaveLength(2);
    expect(first.body.data[0]).toEqual({
      id: tracked[4],
      name: 'even',
      contactId: expect.any(String),
      email: expect.stringMatching(/@example\.org$/),
      data: {},
      createdAt: expect.any(String),
    });
    const pages = await collect(p.api, '/events', { limit: 2 });
    expect(pages.map((pg) => pg.total)).toEqual([5, 0, 0]);
    expect(pages.at(-1).hasMore).toBe(false);
    expect(pages.flatMap((pg) => pg.data.map((e: Json) => e.id))).toEqual([...tracked].reverse());
  });

  it('filters by name through the name index, with that name’s total', async () => {
    const p = await freshProject('by-name');
    for (let i = 0; i < 4; i++) await p.track(uniqueEmail('n'), i < 3 ? 'purchase' : 'refund');
    await settle(p.id);
    const res = await p.api('GET', '/events', { query: { name: 'purchase' } });
    expect(res.body.total).toBe(3);
    expect(res.body.data.map((e: Json) => e.name)).toEqual(['purchase', 'purchase', 'purchase']);
    const none = await p.api('GET', '/events', { query: { name: 'never' } });
    expect(none.body).toEqual({ data: [], cursor: '', hasMore: false, total: 0 });
  });

  it('defaults to 20 and clamps larger limits to 100', async () => {
    const p = await freshProject('clamp');
    const contact = (await p.track(uniqueEmail('c'), 'bulk')).contact;
    const base = rt.deps.clock.now().getTime() - 60_000;
    for (let i = 0; i < 110; i++) await seedEvent(p.id, contact, 'bulk', new Date(base + i));
    await settle(p.id);
    expect((await p.api('GET', '/events')).body.data).toHaveLength(20);
    const clamped = await p.api('GET', '/events', { query: { limit: 1000 } });
    expect(clamped.body.data).toHaveLength(100);
    expect(clamped.body).toMatchObject({ hasMore: true, total: 111 });
  });

  it.each([
    ['limit=0', { limit: 0 }, 422],
    ['limit=abc', { limit: 'abc' }, 422],
    ['a name over 100 characters', { name: 'n'.repeat(101) }, 422],
    ['a cursor that is not ours', { cursor: 'bm90LWEtY3Vyc29y' }, 400],
  ])('refuses %s', async (_label, query, status) => {
    const p = await freshProject('bad-query');
    expect((await p.api('GET', '/events', { query })).status).toBe(status);
  });

  it("never shows another project's events, even with its cursor", async () => {
    const a = await freshProject('iso-a');
    const b = await freshProject('iso-b');
    for (let i = 0; i < 3; i++) await a.track(uniqueEmail('iso'), 'secret-thing');
    expect((await b.api('GET', '/events')).body).toMatchObject({ data: [], total: 0 });
    const page = await a.api('GET', '/events', { query: { limit: 1 } });
    expect((await b.api('GET', '/events', { query: { cursor: page.body.cursor } })).status).toBe(400);
  });
});

describe('GET /events/contact/{contactId}', () => {
  it("lists one contact's events newest first, including subscription events", async () => {
    const p = await freshProject('contact');
    const email = uniqueEmail('one');
    const a = await p.track(email, 'first');
    await p.track(uniqueEmail('other'), 'elsewhere');
    await p.api('PATCH', `/contacts/${a.contact}`, { body: { subscribed: false } });
    await p.track(email, 'third');
    const res = await p.api('GET', `/events/contact/${a.contact}`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(3);
    expect(res.body.data.map((e: Json) => e.name)).toEqual(['third', 'contact.unsubscribed', 'first']);
    expect(res.body.data.every((e: Json) => e.contactId === a.contact)).toBe(true);
    const pages = await collect(p.api, `/events/contact/${a.contact}`, { limit: 1 });
    expect(pages.map((pg) => pg.data[0]?.name)).toEqual(['third', 'contact.unsubscribed', 'first']);
    expect(pages.map((pg) => pg.total)).toEqual([3, 0, 0]);
  });

  it('answers 404 for an unknown, deleted or foreign contact and 422 for a non-UUID id', async () => {
    const p = await freshProject('contact-404');
    const other = await freshProject('contact-404-other');
    const mine = await p.track(uniqueEmail('x'), 'e');
    expect((await p.api('GET', `/events/contact/${rt.deps.ids.uuid()}`)).status).toBe(404);
    expect((await other.api('GET', `/events/contact/${mine.contact}`)).status).toBe(404);
    const bad = await p.api('GET', '/events/contact/not-a-uuid');
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors[0]).toMatchObject({ field: 'contactId', code: 'invalid_string' });
    await p.api('DELETE', `/contacts/${mine.contact}`);
    expect((await p.api('GET', `/events/contact/${mine.contact}`)).status).toBe(404);
  });
});

describe('GET /events/names and /events/stats', () => {
  it('lists distinct names with counts, most frequent first', async () => {
    const p = await freshProject('names');
    const email = uniqueEmail('names');
    await p.track(email, 'viewed');
    await p.track(email, 'viewed');
    await p.track(email, 'bought');
    await p.api('POST', '/contacts', { body: { email: uniqueEmail('sub'), subscribed: false } });
    await settle(p.id);
    const res = await p.api('GET', '/events/names');
    expect(res.status).toBe(200);
    expect(res.body.names).toEqual([
      { name: 'viewed', count: 2, firstSeenAt: expect.any(String), lastSeenAt: expect.any(String) },
      { name: 'bought', count: 1, firstSeenAt: expect.any(String), lastSeenAt: expect.any(String) },
    ]);
    const created = await p.track(email, 'bought', undefined);
    await p.api('PATCH', `/contacts/${created.contact}`, { body: { subscribed: false } });
    await settle(p.id);
    const after = await p.api('GET', '/events/names');
    expect(after.body.names.map((n: Json) => `${n.name}:${n.count}`)).toEqual([
      'bought:2',
      'viewed:2',
      'contact.unsubscribed:1',
    ]);
  });

  it('aggregates totals, time windows, top events and a daily series from counters', async () => {
    const p = await freshProject('stats');
    const contact = (await p.track(uniqueEmail('s'), 'now')).contact;
    const now = rt.deps.clock.now().getTime();
    const hoursAgo = (h: number) => new Date(now - h * 3_600_000);
    await seedEvent(p.id, contact, 'recent', hoursAgo(2));
    await seedEvent(p.id, contact, 'recent', hoursAgo(30));
    await seedEvent(p.id, contact, 'older', hoursAgo(24 * 10));
    await seedEvent(p.id, contact, 'older', hoursAgo(24 * 40));
    await settle(p.id);
    const res = await p.api('GET', '/events/stats');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      total: 5,
      uniqueNames: 3,
      last24Hours: 2,
      last7Days: 3,
      last30Days: 4,
      topEvents: [
        { name: 'older', count: 2 },
        { name: 'recent', count: 2 },
        { name: 'now', count: 1 },
      ],
    });
    expect(res.body.daily).toHaveLength(30);
    expect(res.body.daily.at(-1).date).toBe(new Date(now).toISOString().slice(0, 10));
    expect(res.body.daily.reduce((s: number, d: Json) => s + d.count, 0)).toBe(4);
  });

  it('counts an event once even when it is written again (retries, pending events)', async () => {
    const p = await freshProject('once');
    const contact = (await p.track(uniqueEmail('o'), 'first')).contact;
    const event = await seedEvent(p.id, contact, 'retried', rt.deps.clock.now());
    expect(await putEvent(rt.deps, event, rt.deps.clock.now())).toBe(false);
    await settle(p.id);
    // Written again late (a replay minutes later): still stored and counted once.
    expect(await putEvent(rt.deps, event, rt.deps.clock.now())).toBe(false);
    await settle(p.id);
    const names = (await p.api('GET', '/events/names')).body.names;
    expect(names.find((n: Json) => n.name === 'retried').count).toBe(1);
    expect((await p.api('GET', '/events/stats')).body.total).toBe(2);
  });
});

describe('GET /events/{eventName}/usage', () => {
  const put = (projectId: string, sk: string, item: Record<string, unknown>) =>
    rt.deps.store.write({ put: { pk: keys.projectPartition(projectId), sk, ...item } });

  it('finds segments, campaign audiences and workflows referencing the name', async () => {
    const p = await freshProject('usage');
    const other = await freshProject('usage-other');
    const condition = (field: string) => ({
      logic: 'AND',
      groups: [{ filters: [{ field, operator: 'triggered' }] }],
    });
    await put(p.id, 'SEGMENT#s1', { id: 's1', name: 'Signed up', condition: condition('event.signup') });
    await put(p.id, 'SEGMENT#s2', { id: 's2', name: 'Other', condition: condition('event.signup.extra') });
    await put(p.id, 'CAMPAIGN#c1', {
      id: 'c1',
      name: 'Welcome',
      audienceCondition: condition('event.signup'),
    });
    await put(p.id, 'WORKFLOW#w1', {
      id: 'w1',
      name: 'Onboarding',
      triggerType: 'EVENT',
      triggerConfig: { eventName: 'signup' },
    });
    // A workflow whose steps are separate items: found through its WAIT_FOR_EVENT step.
    await put(p.id, 'WORKFLOW#w2', { id: 'w2', name: 'Nudge', triggerConfig: { eventName: 'visit' } });
    await put(p.id, 'WORKFLOW#w2#STEP#st1', {
      id: 'st1',
      type: 'WAIT_FOR_EVENT',
      config: { eventName: 'signup' },
    });
    await put(p.id, 'WORKFLOW#w3', { id: 'w3', name: 'Unrelated', triggerConfig: { eventName: 'signups' } });
    await put(other.id, 'SEGMENT#s9', { id: 's9', name: 'Foreign', condition: condition('event.signup') });

    const res = await p.api('GET', '/events/signup/usage');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      event: 'signup',
      segments: [{ id: 's1', name: 'Signed up' }],
      campaigns: [{ id: 'c1', name: 'Welcome' }],
      workflows: [
        { id: 'w1', name: 'Onboarding' },
        { id: 'w2', name: 'Nudge' },
      ],
    });
    const spaced = await p.api('GET', `/events/${encodeURIComponent('never seen')}/usage`);
    expect(spaced.body).toEqual({ event: 'never seen', segments: [], campaigns: [], workflows: [] });
  });
});

describe('DELETE /events/{eventName}', () => {
  it('answers 202 with a job id and deletes every event of the name in the background', async () => {
    const p = await freshProject('delete');
    const email = uniqueEmail('d');
    const kept = await p.track(email, 'keep');
    for (let i = 0; i < 3; i++) await p.track(i === 0 ? email : uniqueEmail('d'), 'drop');
    await p.api('PATCH', `/contacts/${kept.contact}`, { body: { subscribed: false } });

    const res = await p.api('DELETE', '/events/drop');
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ jobId: expect.any(String), name: 'drop', status: 'queued' });
    await rt.drain();
    await settle(p.id);

    expect((await p.api('GET', '/events', { query: { name: 'drop' } })).body).toMatchObject({
      data: [],
      total: 0,
    });
    const names = (await p.api('GET', '/events/names')).body.names.map((n: Json) => n.name);
    expect(names.sort()).toEqual(['contact.unsubscribed', 'keep']);
    const stats = (await p.api('GET', '/events/stats')).body;
    expect(stats).toMatchObject({ total: 2, last24Hours: 2 });
    const ofContact = (await p.api('GET', `/events/contact/${kept.contact}`)).body.data.map(
      (e: Json) => e.name,
    );
    expect(ofContact).toEqual(['contact.unsubscribed', 'keep']);
    expect((await p.api('DELETE', '/events/drop')).status).toBe(404);
  });

  it('lowers the counters by deleted events already counted, and never counts the others', async () => {
    const p = await freshProject('delete-counted');
    const email = uniqueEmail('dc');
    await p.track(email, 'drop');
    await p.track(email, 'keep');
    await settle(p.id);
    await p.track(email, 'drop');
    // One `drop` counted, one not yet: the deletion lowers by one, and the tally finds none left.
    expect((await p.api('DELETE', '/events/drop')).status).toBe(202);
    await rt.drain();
    await settle(p.id);
    const names = (await p.api('GET', '/events/names')).body.names;
    expect(names.map((n: Json) => `${n.name}:${n.count}`)).toEqual(['keep:1']);
    expect((await p.api('GET', '/events/stats')).body).toMatchObject({ total: 1, last24Hours: 1 });
  });

  it('works through many events in bounded messages, keeping events recorded after the request', async () => {
    const p = await freshProject('delete-many');
    const contact = (await p.track(uniqueEmail('m'), 'other')).contact;
    const start = Date.now() - 10 * 60_000;
    for (let i = 0; i < 250; i++) await seedEvent(p.id, contact, 'bulk', new Date(start + i * 1000));
    const cutoff = new Date(start + 300 * 1000).toISOString();
    const later = await seedEvent(p.id, contact, 'bulk', new Date(start + 400 * 1000));
    // Counted before the deletion (the tally's first pass may have run on before they were seeded).
    await settle(p.id);
    expect((await p.api('GET', '/events', { query: { name: 'bulk' } })).body.total).toBe(251);

    const message: DeleteEventsMessage = {
      type: DELETE_EVENTS_JOB,
      projectId: p.id,
      name: 'bulk',
      before: cutoff,
      jobId: 'job-1',
    };
    // A first message stops after its share and hands on; the queue worker does the rest.
    expect(await runEventDeletion(rt.deps, message, { perMessage: 100 })).toBe('continued');
    await rt.drain();
    const left = await p.api('GET', '/events', { query: { name: 'bulk' } });
    expect(left.body.data.map((e: Json) => e.id)).toEqual([later.id]);
    expect(left.body.total).toBe(1);

    // Redelivered: nothing left to delete, counters unchanged.
    await rt.queue.send('jobs', message);
    await rt.drain();
    await settle(p.id);
    const names = (await p.api('GET', '/events/names')).body.names;
    expect(names.map((n: Json) => `${n.name}:${n.count}`).sort()).toEqual(['bulk:1', 'other:1']);
    expect((await p.api('GET', '/events/stats')).body.last24Hours).toBe(2);
  });

  it('refuses reserved names with 422 reserved_event and unknown names with 404, changing nothing', async () => {
    const p = await freshProject('delete-refused');
    const created = await p.track(uniqueEmail('r'), 'x');
    await p.api('PATCH', `/contacts/${created.contact}`, { body: { subscribed: false } });
    const reserved = await p.api('DELETE', '/events/contact.unsubscribed');
    expect(reserved.status).toBe(422);
    expect(reserved.body.error.errors[0]).toMatchObject({ field: 'eventName', code: 'reserved_event' });
    expect((await p.api('DELETE', '/events/EMAIL.sent')).status).toBe(422);
    const unknown = await p.api('DELETE', '/events/nothing-like-this');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    await settle(p.id);
    expect((await p.api('GET', '/events/stats')).body.total).toBe(2);
  });

  it("cannot delete another project's events", async () => {
    const a = await freshProject('delete-a');
    const b = await freshProject('delete-b');
    await a.track(uniqueEmail('a'), 'shared-name');
    expect((await b.api('DELETE', '/events/shared-name')).status).toBe(404);
    await settle(a.id);
    expect((await a.api('GET', '/events', { query: { name: 'shared-name' } })).body.total).toBe(1);
  });
});
