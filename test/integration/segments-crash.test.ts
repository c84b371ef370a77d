/**
 * Segment membership under failures: every queue message delivered twice (builds, their second
 * pass, the periodic job's computes and the cleanup of a deleted segment end as one delivery
 * would), a contact write whose membership writes fail (as a process stopping between them
 * would leave it) repaired by the contact's next write, and a tracked segment's entry announced
 * once by the next compute when a write stopped before its announced set moved or after it.
 */
import { describe, expect, it } from 'vitest';
import { fastTimings } from '../../shared/composition/local';
import { emptyPatch } from '../../shared/contacts/data';
import { upsertContact } from '../../shared/contacts/service';
import { createProject } from '../../shared/projects/repository';
import { DEFINITIONS_TTL_MS } from '../../shared/segments/evaluation';
import { keys } from '../../shared/table';
import { crashingAt } from './helpers/faults';
import { type ApiOptions, type Json, useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime({
  timings: { ...fastTimings, redeliverEachMessage: true },
});

const plan = (value: string) => ({
  logic: 'AND',
  groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value }] }],
});

async function fresh(name: string) {
  const p = await createProject(rt.deps, { name });
  const api = (method: string, path: string, options: ApiOptions = {}) =>
    rt.api(method, path, { key: p.secretKey, ...options });
  const get = async (id: string) => (await api('GET', `/segments/${id}`)).body as Json;
  const members = async (id: string) =>
    ((await api('GET', `/segments/${id}/contacts?pageSize=100`)).body.data as Json[])
      .map((c) => c.email)
      .sort();
  return { ...p, id: p.project.id, api, get, members };
}

async function settle() {
  await rt.drain();
  await rt.runtime.clock.advance(DEFINITIONS_TTL_MS / 1000 + 1);
  await rt.drain();
}

describe('segments with every queue message delivered twice', () => {
  it('build, compute and cleanup end as one delivery would', async () => {
    const p = await fresh('seg-redeliver');
    for (let i = 0; i < 12; i++) {
      const res = await p.api('POST', '/contacts', {
        body: { email: `r${i}@seg-redeliver.test`, data: { plan: i % 3 === 0 ? 'free' : 'pro' } },
      });
      expect(res.status).toBe(201);
    }
    const created = await p.api('POST', '/segments', {
      body: { name: 'Pro', condition: plan('pro'), trackMembership: true },
    });
    const s = created.body as Json;
    await settle();
    expect((await p.get(s.id)).memberCount).toBe(8);
    expect(await p.members(s.id)).toHaveLength(8);

    await rt.scheduler.runRecurring('segments-periodic');
    await rt.drain();
    const entries = await p.api('GET', '/events', { query: { name: 'segment.pro.entry', limit: '100' } });
    expect(entries.body.data).toHaveLength(8);
    expect((await p.get(s.id)).memberCount).toBe(8);

    expect((await p.api('DELETE', `/segments/${s.id}`)).status).toBe(200);
    await rt.drain();
    const left = await rt.deps.store.count({
      index: 'segmentMembers',
      partition: keys.segmentMembersIndex(p.id, s.id),
    });
    expect(left).toBe(0);
  });
});

describe('a contact write whose membership writes fail', () => {
  it('leaves the contact written, and its next write repairs the membership', async () => {
    const p = await fresh('seg-fault');
    const s = (await p.api('POST', '/segments', { body: { name: 'Pro', condition: plan('pro') } }))
      .body as Json;
    await settle();
    const failing = crashingAt(rt.deps, (call) => call.op === 'put' && call.key?.sk === `SEG#${s.id}`);
    const { contact } = await upsertContact(
      failing,
      p.id,
      { email: 'f@seg-fault.test', patch: { ...emptyPatch(), set: { plan: 'pro' } }, source: 'api' },
      { defaultSubscribed: true },
    );
    expect((await p.api('GET', `/contacts/${contact.id}`)).body.data).toEqual({ plan: 'pro' });
    expect((await p.get(s.id)).memberCount).toBe(0);
    // The next write of the contact compares with what is stored, so it adds the membership.
    await p.api('PATCH', `/contacts/${contact.id}`, { body: { data: { seen: true } } });
    expect((await p.get(s.id)).memberCount).toBe(1);
    expect(await p.members(s.id)).toEqual(['f@seg-fault.test']);

    // A failed removal is repaired the same way.
    const failingDelete = crashingAt(
      rt.deps,
      (call) => call.op === 'delete' && call.key?.sk === `SEG#${s.id}`,
    );
    await upsertContact(
      failingDelete,
      p.id,
      { email: 'f@seg-fault.test', patch: { ...emptyPatch(), set: { plan: 'free' } }, source: 'api' },
      { defaultSubscribed: true },
    );
    expect((await p.get(s.id)).memberCount).toBe(1);
    await p.api('PATCH', `/contacts/${contact.id}`, { body: { data: { seen: false } } });
    expect((await p.get(s.id)).memberCount).toBe(0);
    expect(await p.members(s.id)).toEqual([]);
  });
});

describe('a tracked segment’s announcement interrupted', () => {
  const entries = async (p: Awaited<ReturnType<typeof fresh>>, slug: string) =>
    (
      (await p.api('GET', '/events', { query: { name: `segment.${slug}.entry`, limit: '100' } })).body
        .data as Json[]
    )
      .map((e) => e.contactId)
      .sort();
  const write = (deps: typeof rt.deps, projectId: string, email: string, plan: string) =>
    upsertContact(
      deps,
      projectId,
      { email, patch: { ...emptyPatch(), set: { plan } }, source: 'api' },
      { defaultSubscribed: true },
    );

  it('between the announced set’s move and its event: the next compute emits the pending event, once', async () => {
    const p = await fresh('seg-announce-event');
    const s = (
      await p.api('POST', '/segments', {
        body: { name: 'Pro', condition: plan('pro'), trackMembership: true },
      })
    ).body as Json;
    await settle();
    const failing = crashingAt(
      rt.deps,
      (call) =>
        call.op === 'put' &&
        call.key?.sk.startsWith(keys.contactEventPrefix) === true &&
        call.item?.name === 'segment.pro.entry',
    );
    const { contact } = await write(failing, p.id, 'e@seg-announce.test', 'pro');
    await rt.drain();
    expect((await p.get(s.id)).memberCount).toBe(1);
    expect(await entries(p, 'pro')).toEqual([]);
    const snapshot = await rt.deps.store.get(keys.segmentSnapshot(p.id, s.id, contact.id));
    expect(snapshot?.pending).toBeDefined();

    expect((await p.api('POST', `/segments/${s.id}/compute`)).body).toEqual({
      added: 0,
      removed: 0,
      memberCount: 1,
    });
    await rt.drain();
    expect(await entries(p, 'pro')).toEqual([contact.id]);
    // A later write that finds it announced, and another compute, announce nothing more.
    await p.api('PATCH', `/contacts/${contact.id}`, { body: { data: { seen: true } } });
    expect((await p.api('POST', `/segments/${s.id}/compute`)).body).toEqual({
      added: 0,
      removed: 0,
      memberCount: 1,
    });
    await rt.drain();
    expect(await entries(p, 'pro')).toEqual([contact.id]);
  });

  it('between the membership and the announced set’s move: the next compute announces it, once', async () => {
    const p = await fresh('seg-announce-move');
    const s = (
      await p.api('POST', '/segments', {
        body: { name: 'Pro', condition: plan('pro'), trackMembership: true },
      })
    ).body as Json;
    await settle();
    const failing = crashingAt(
      rt.deps,
      (call) => call.op === 'put' && call.key?.pk === keys.segmentSnapshotPartition(p.id, s.id),
    );
    const { contact } = await write(failing, p.id, 'm@seg-announce.test', 'pro');
    await rt.drain();
    expect((await p.get(s.id)).memberCount).toBe(1);
    expect(await entries(p, 'pro')).toEqual([]);
    expect((await p.api('POST', `/segments/${s.id}/compute`)).body).toEqual({
      added: 1,
      removed: 0,
      memberCount: 1,
    });
    await rt.drain();
    expect(await entries(p, 'pro')).toEqual([contact.id]);
    // The contact leaves: its exit is announced by the write, which finds the entry announced.
    await write(rt.deps, p.id, 'm@seg-announce.test', 'free');
    await rt.drain();
    const exits = await p.api('GET', '/events', { query: { name: 'segment.pro.exit' } });
    expect((exits.body.data as Json[]).map((e) => e.contactId)).toEqual([contact.id]);
  });
});
