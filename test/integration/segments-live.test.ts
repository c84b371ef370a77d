/**
 * Dynamic segments see a definition change at once, on every instance, through HTTP: the
 * project's definitions version (read by every contact write) replaces the minute-long cache, so
 * a contact written right after its segment is created or edited, on another instance that had
 * loaded the old definitions, is a member (or not) as soon as its write answers: no clock
 * advance, no wait for the build's second pass.
 */
import { describe, expect, it } from 'vitest';
import { seedVerifiedDomain } from '../../shared/domains/repository';
import { createProject } from '../../shared/projects/repository';
import {
  type ApiOptions,
  type ApiResponse,
  type Json,
  type LocalTestInstance,
  useLocalRuntime,
} from './helpers/local';

const rt = useLocalRuntime();

const plan = (value: string) => ({
  logic: 'AND',
  groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value }] }],
});

async function project(other: LocalTestInstance) {
  const p = await createProject(rt.deps, { name: 'live segments' });
  const as =
    (call: LocalTestInstance['api']): Api =>
    (method, path, options = {}) =>
      call(method, path, { key: p.secretKey, ...options });
  return { here: as(rt.api.bind(rt)), there: as(other.api.bind(other)) };
}

type Api = (method: string, path: string, options?: ApiOptions) => Promise<ApiResponse>;

const members = async (api: Api, id: string) => {
  const res = await api('GET', `/segments/${id}/contacts?pageSize=100`);
  expect(res.status, res.text).toBe(200);
  return (res.body.data as Json[]).map((c) => c.email).sort();
};

describe('a definition change is seen by the next contact write of every instance', () => {
  it('a contact created right after its segment, on another instance, is a member at once', async () => {
    const other = await rt.startAnotherInstance();
    try {
      const { here, there } = await project(other);
      // The other instance writes first: it loads the project's definitions (none yet).
      expect(
        (await there('POST', '/contacts', { body: { email: 'early@live.test', data: { plan: 'free' } } }))
          .status,
      ).toBe(201);

      const created = await here('POST', '/segments', { body: { name: 'Pro', condition: plan('pro') } });
      expect(created.status, created.text).toBe(201);
      const id: string = created.body.id;
      const res = await there('POST', '/contacts', {
        body: { email: 'pro@live.test', data: { plan: 'pro' } },
      });
      expect(res.status, res.text).toBe(201);
      // Read before any queued work (the build) has run.
      expect(await members(there, id)).toEqual(['pro@live.test']);
      expect((await there('GET', `/segments/${id}`)).body.memberCount).toBe(1);

      // An edit is seen at once too: the next write on the other instance follows the new condition.
      const edited = await here('PATCH', `/segments/${id}`, { body: { condition: plan('team') } });
      expect(edited.status, edited.text).toBe(200);
      const moved = await there('POST', '/contacts', {
        body: { email: 'pro@live.test', data: { plan: 'team' } },
      });
      expect(moved.status, moved.text).toBeLessThan(300);
      const joined = await there('POST', '/contacts', {
        body: { email: 'team@live.test', data: { plan: 'team' } },
      });
      expect(joined.status, joined.text).toBe(201);
      expect(await members(there, id)).toEqual(['pro@live.test', 'team@live.test']);

      // And a delete: a later write evaluates no deleted segment (nothing is added to it).
      expect((await here('DELETE', `/segments/${id}`)).status).toBe(200);
      const after = await there('POST', '/contacts', {
        body: { email: 'late@live.test', data: { plan: 'team' } },
      });
      expect(after.status, after.text).toBe(201);
      await rt.drain();
      const gone = await there('GET', `/segments/${id}`);
      expect(gone.status).toBe(404);
    } finally {
      await other.stop();
    }
  });

  it('the build then finds what the writes did, counted once', async () => {
    const other = await rt.startAnotherInstance();
    try {
      const { here, there } = await project(other);
      for (const email of ['a@live.test', 'b@live.test'])
        expect((await here('POST', '/contacts', { body: { email, data: { plan: 'pro' } } })).status).toBe(
          201,
        );
      const created = await here('POST', '/segments', { body: { name: 'Pro', condition: plan('pro') } });
      const id: string = created.body.id;
      expect(
        (await there('POST', '/contacts', { body: { email: 'c@live.test', data: { plan: 'pro' } } })).status,
      ).toBe(201);
      await rt.drain();
      expect(await members(here, id)).toEqual(['a@live.test', 'b@live.test', 'c@live.test']);
      expect((await here('GET', `/segments/${id}`)).body).toMatchObject({ memberCount: 3 });
    } finally {
      await other.stop();
    }
  });
});

describe('segments on events and email activity follow each event', () => {
  const on = (field: string, operator: string) => ({
    logic: 'AND',
    groups: [{ filters: [{ field, operator }] }],
  });

  it('a contact enters or leaves as its event is recorded, without the periodic job', async () => {
    const p = await createProject(rt.deps, { name: 'event segments' });
    const api: Api = (method, path, options = {}) => rt.api(method, path, { key: p.secretKey, ...options });
    await seedVerifiedDomain(rt.deps, p.project.id, 'evseg.test');
    for (const email of ['x@evseg.test', 'y@evseg.test'])
      expect((await api('POST', '/contacts', { body: { email } })).status).toBe(201);
    const make = async (name: string, condition: Json) => {
      const res = await api('POST', '/segments', { body: { name, condition } });
      expect(res.status, res.text).toBe(201);
      return res.body.id as string;
    };
    const buyers = await make('Buyers', on('event.purchased', 'triggered'));
    const never = await make('Never bought', on('event.purchased', 'notTriggered'));
    const mailed = await make('Mailed', on('email.sent', 'triggered'));
    await rt.drain();
    const count = async (id: string) => (await api('GET', `/segments/${id}`)).body.memberCount;
    expect([await count(buyers), await count(never), await count(mailed)]).toEqual([0, 2, 0]);

    // Twice: the second event changes nothing more.
    for (let i = 0; i < 2; i++) {
      const res = await api('POST', '/events/track', { body: { email: 'x@evseg.test', event: 'purchased' } });
      expect(res.status, res.text).toBe(200);
    }
    const sent = await api('POST', '/v1/send', {
      body: { from: 'hi@evseg.test', to: 'y@evseg.test', subject: 'Hi', body: '<p>Hi</p>' },
    });
    expect(sent.status, sent.text).toBe(200);
    // Only the queue's work: the clock does not move and the periodic job does not run.
    await rt.drain();
    expect(await members(api, buyers)).toEqual(['x@evseg.test']);
    expect(await members(api, never)).toEqual(['y@evseg.test']);
    expect(await members(api, mailed)).toEqual(['y@evseg.test']);
    expect([await count(buyers), await count(never), await count(mailed)]).toEqual([1, 1, 1]);
  });
});
