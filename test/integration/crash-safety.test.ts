/**
 * A crash between two dependent writes must leave nothing that later reads mistake for valid
 * data, and the next write must repair it. Each test runs a use case on a store that "crashes"
 * (throws) at a chosen write, then checks the public API.
 */
import { describe, expect, it } from 'vitest';
import { parseDataPatch } from '../../shared/contacts/data';
import { deleteContact, patchContact, upsertContact } from '../../shared/contacts/service';
import type { Deps } from '../../shared/ports';
import { contactEventNames } from './helpers/contacts';
import { crashingAt, type StoreCall } from './helpers/faults';
import { useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

/** A put of the item whose sort key `sk` accepts. */
const put = (sk: (sk: string) => boolean) => (call: StoreCall) =>
  call.op === 'put' && call.key !== undefined && sk(call.key.sk);

async function visible(email: string) {
  const lookup = await rt.api('POST', '/contacts/lookup', { body: { emails: [email] } });
  const list = await rt.api('GET', `/contacts?search=${encodeURIComponent(email)}`);
  return { found: lookup.body.found as { id: string }[], listed: list.body.total as number };
}

describe('crash between dependent writes', () => {
  it('create: claim written, contact not -> invisible, and the next upsert completes it', async () => {
    const email = 'crash-create@example.org';
    const deps = crashingAt(
      rt.deps,
      put((sk) => sk === '#CONTACT'),
    );
    await expect(
      upsertContact(
        deps,
        rt.projectId,
        { email, patch: parseDataPatch({ a: 1 }), source: 'api' },
        { defaultSubscribed: true },
      ),
    ).rejects.toThrow('simulated crash');
    expect(await visible(email)).toEqual({ found: [], listed: 0 });
    const res = await rt.api('POST', '/contacts', { body: { email, data: { b: 2 } } });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ b: 2 });
    expect(await visible(email)).toMatchObject({ found: [{ id: res.body.id }], listed: 1 });
  });

  it('email change: new claim written, contact not -> the contact keeps its old email; retry succeeds', async () => {
    const created = await rt.api('POST', '/contacts', { body: { email: 'crash-move-a@example.org' } });
    const id = created.body.id as string;
    const target = 'crash-move-b@example.org';
    const deps = crashingAt(
      rt.deps,
      put((sk) => sk === '#CONTACT'),
    );
    await expect(patchContact(deps, rt.projectId, id, { email: target })).rejects.toThrow('simulated crash');
    expect((await rt.api('GET', `/contacts/${id}`)).body.email).toBe('crash-move-a@example.org');
    expect((await visible(target)).found).toEqual([]);
    expect((await visible('crash-move-a@example.org')).found).toEqual([expect.objectContaining({ id })]);
    const retry = await rt.api('PATCH', `/contacts/${id}`, { body: { email: target } });
    expect(retry.status).toBe(200);
    expect((await visible(target)).found).toEqual([expect.objectContaining({ id })]);
  });

  it('email change: contact written, old claim not removed -> the old email is free', async () => {
    const created = await rt.api('POST', '/contacts', { body: { email: 'crash-old-a@example.org' } });
    const id = created.body.id as string;
    const deps = crashingAt(rt.deps, (call) => call.op === 'delete' && call.key?.sk === '#EMAIL');
    await expect(
      patchContact(deps, rt.projectId, id, { email: 'crash-old-b@example.org' }),
    ).rejects.toThrow();
    expect((await visible('crash-old-a@example.org')).found).toEqual([]);
    const reuse = await rt.api('POST', '/contacts', { body: { email: 'crash-old-a@example.org' } });
    expect(reuse.status).toBe(201);
    expect(reuse.body.id).not.toBe(id);
    expect((await rt.api('GET', `/contacts/${id}`)).body.email).toBe('crash-old-b@example.org');
  });

  it('subscription change: contact written, event not -> the event is written by the next update', async () => {
    const created = await rt.api('POST', '/contacts', { body: { email: 'crash-event@example.org' } });
    const id = created.body.id as string;
    const deps = crashingAt(
      rt.deps,
      put((sk) => sk.startsWith('EV#')),
    );
    await expect(patchContact(deps, rt.projectId, id, { subscribed: false })).rejects.toThrow(
      'simulated crash',
    );
    expect((await rt.api('GET', `/contacts/${id}`)).body.subscribed).toBe(false);
    await rt.api('PATCH', `/contacts/${id}`, { body: { data: { touched: true } } });
    const events = await contactEventNames(rt, id);
    expect(events).toEqual(['contact.unsubscribed']);
  });

  it('delete: tombstone written, purge not queued -> gone for readers; the email is reusable', async () => {
    const created = await rt.api('POST', '/contacts', { body: { email: 'crash-delete@example.org' } });
    const id = created.body.id as string;
    const deps: Deps = {
      ...rt.deps,
      queue: { send: () => Promise.reject(new Error('simulated crash')) },
    };
    await expect(deleteContact(deps, rt.projectId, id)).rejects.toThrow('simulated crash');
    expect((await rt.api('GET', `/contacts/${id}`)).status).toBe(404);
    expect(await visible('crash-delete@example.org')).toEqual({ found: [], listed: 0 });
    const again = await rt.api('POST', '/contacts', { body: { email: 'crash-delete@example.org' } });
    expect(again.status).toBe(201);
    await rt.drain();
    expect((await rt.api('GET', `/contacts/${again.body.id}`)).status).toBe(200);
  });
});
