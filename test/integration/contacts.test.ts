import { describe, expect, it } from 'vitest';
import { parseDataPatch } from '../../shared/contacts/data';
import { upsertContact } from '../../shared/contacts/service';
import { createProject } from '../../shared/projects/repository';
import { contactEventNames, postContact, uniqueEmail } from './helpers/contacts';
import { settleEventCounts } from './helpers/events';
import { watchedDeps } from './helpers/faults';
import { useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

describe('authentication', () => {
  it('answers 401 INVALID_API_KEY for a missing, unknown, malformed or public key', async () => {
    for (const key of [null, 'sk_unknown', 'Basic abc', rt.publicKey]) {
      const headers = key === null ? {} : { authorization: key.startsWith('Basic') ? key : `Bearer ${key}` };
      const res = await rt.api('GET', '/contacts', { key: null, headers });
      expect(res.status, String(key)).toBe(401);
      expect(res.body).toMatchObject({ success: false, error: { code: 'INVALID_API_KEY', statusCode: 401 } });
      expect(typeof res.body.error.requestId).toBe('string');
      expect(typeof res.body.timestamp).toBe('string');
    }
  });

  it('leaves GET /config open', async () => {
    const res = await rt.api('GET', '/config', { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ billing: { enabled: false } });
  });

  it("answers 404 for another project's contact", async () => {
    const other = await createProject(rt.deps, { name: 'other' });
    const mine = await postContact(rt, { email: uniqueEmail('iso') });
    const res = await rt.api('GET', `/contacts/${mine.id}`, { key: other.secretKey });
    expect(res.status).toBe(404);
    const patch = await rt.api('PATCH', `/contacts/${mine.id}`, {
      key: other.secretKey,
      body: { subscribed: false },
    });
    expect(patch.status).toBe(404);
    const del = await rt.api('DELETE', `/contacts/${mine.id}`, { key: other.secretKey });
    expect(del.status).toBe(404);
    const list = await rt.api('GET', '/contacts', { key: other.secretKey });
    expect(list.body.total).toBe(0);
    expect((await rt.api('GET', `/contacts/${mine.id}`)).status).toBe(200);
  });
});

describe('errors', () => {
  it('reuses and echoes X-Request-ID', async () => {
    const res = await rt.api('GET', '/contacts/not-a-uuid', { headers: { 'x-request-id': 'req-123' } });
    expect(res.status).toBe(422);
    expect(res.headers['x-request-id']).toBe('req-123');
    expect(res.body.error.requestId).toBe('req-123');
    expect(res.body.error.errors[0]).toMatchObject({ field: 'id', code: 'invalid_string' });
  });

  it('answers 400 for malformed JSON and 404 envelope for unknown routes', async () => {
    const bad = await rt.api('POST', '/contacts', {
      raw: '{"email":',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('BAD_REQUEST');
    const unknown = await rt.api('GET', '/nope/nothing');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, error: { statusCode: 404 } });
  });
});

describe('POST /contacts (upsert)', () => {
  it('creates with 201 and _meta.isNew, updates with 200 and _meta.isUpdate, case-insensitively', async () => {
    const email = uniqueEmail('Up');
    const first = await rt.api('POST', '/contacts', { body: { email, data: { plan: 'free' } } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      email,
      subscribed: true,
      data: { plan: 'free' },
      _meta: { isNew: true, isUpdate: false },
    });
    const second = await rt.api('POST', '/contacts', {
      body: { email: email.toUpperCase(), data: { seats: 3 } },
    });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      id: first.body.id,
      data: { plan: 'free', seats: 3 },
      _meta: { isNew: false, isUpdate: true },
    });
  });

  it('answers the flat 400 {error} when email is missing', async () => {
    for (const body of [{}, { email: '' }, { subscribed: true }]) {
      const res = await rt.api('POST', '/contacts', { body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining('email') });
    }
  });

  it('answers 422 with field details for invalid fields and stores nothing', async () => {
    const email = uniqueEmail('bad');
    const res = await rt.api('POST', '/contacts', { body: { email, subscribed: 'yes' } });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(res.body.error.errors).toContainEqual(
      expect.objectContaining({ field: 'subscribed', code: 'invalid_type', received: 'string' }),
    );
    const badEmail = await rt.api('POST', '/contacts', { body: { email: 'not-an-email' } });
    expect(badEmail.status).toBe(422);
    expect(badEmail.body.error.errors[0]).toMatchObject({ field: 'email', code: 'invalid_string' });
    const badData = await rt.api('POST', '/contacts', { body: { email, data: { 'a.b': 1 } } });
    expect(badData.status).toBe(422);
    expect(badData.body.error.errors[0]).toMatchObject({ field: 'data.a.b', code: 'invalid_key' });
    const lookup = await rt.api('POST', '/contacts/lookup', { body: { emails: [email] } });
    expect(lookup.body.notFound).toEqual([email]);
  });

  it('applies the custom data rules', async () => {
    const email = uniqueEmail('data');
    await postContact(rt, {
      email,
      data: {
        name: 'Ann',
        city: 'Oslo',
        profile: { tier: 'gold', since: 2020 },
        id: 'x',
        sesame_id: 'y',
        manageUrl: 'z',
      },
    });
    const updated = await postContact(rt, {
      email,
      data: {
        city: null,
        name: '',
        code: { value: '1234', persistent: false },
        profile: { tier: 'silver' },
        email: 'other@x.io',
        unsubscribeUrl: 'u',
      },
    });
    expect(updated.email).toBe(email);
    expect(updated.data).toEqual({ name: 'Ann', profile: { tier: 'silver', since: 2020 } });
  });

  it('creates exactly one contact from twenty parallel upserts of a new email', async () => {
    const email = uniqueEmail('race');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        rt.api('POST', '/contacts', { body: { email, data: { [`k${i}`]: i } } }),
      ),
    );
    expect(results.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const ids = new Set(results.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    const list = await rt.api('GET', `/contacts?search=${encodeURIComponent(email)}`);
    expect(list.body.total).toBe(1);
    // No update was lost either: every request's key is there.
    const contact = await rt.api('GET', `/contacts/${[...ids][0]}`);
    expect(Object.keys(contact.body.data).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `k${i}`).sort(),
    );
  });
});

describe('GET, PATCH, DELETE /contacts/{id}', () => {
  it('gets a contact, 404 for an unknown id and 422 for a non-UUID', async () => {
    const c = await postContact(rt, { email: uniqueEmail('get') });
    const res = await rt.api('GET', `/contacts/${c.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: c.id, email: c.email, subscribed: true, data: {} });
    expect(res.body._meta).toBeUndefined();
    expect((await rt.api('GET', '/contacts/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await rt.api('GET', '/contacts/123')).status).toBe(422);
  });

  it('patches email, subscription and data, and answers 409 for a taken email', async () => {
    const a = await postContact(rt, { email: uniqueEmail('pa'), data: { x: 1, y: 2 } });
    const b = await postContact(rt, { email: uniqueEmail('pb') });
    const newEmail = uniqueEmail('moved');
    const res = await rt.api('PATCH', `/contacts/${a.id}`, {
      body: { email: newEmail, subscribed: false, data: { x: null, z: 'new' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: a.id,
      email: newEmail,
      subscribed: false,
      data: { y: 2, z: 'new' },
      snoozedUntil: null,
    });
    // The old email is free again; the new one belongs to a.
    const lookup = await rt.api('POST', '/contacts/lookup', {
      body: { emails: [a.email, newEmail.toUpperCase()] },
    });
    expect(lookup.body.found).toEqual([{ id: a.id, email: newEmail, subscribed: false }]);
    expect(lookup.body.notFound).toEqual([a.email]);
    const taken = await rt.api('PATCH', `/contacts/${b.id}`, { body: { email: newEmail.toUpperCase() } });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('CONTACT_EMAIL_TAKEN');
    expect((await rt.api('GET', `/contacts/${b.id}`)).body.email).toBe(b.email);
    const again = await postContact(rt, { email: a.email });
    expect(again.id).not.toBe(a.id);
    expect(
      (await rt.api('PATCH', '/contacts/00000000-0000-4000-8000-000000000000', { body: {} })).status,
    ).toBe(404);
    expect((await rt.api('PATCH', `/contacts/${b.id}`, { body: { email: 'nope' } })).status).toBe(422);
  });

  it('emits contact.unsubscribed and contact.subscribed only when the flag changes', async () => {
    const c = await postContact(rt, { email: uniqueEmail('sub') });
    await rt.api('PATCH', `/contacts/${c.id}`, { body: { subscribed: true } });
    expect(await contactEventNames(rt, c.id)).toEqual([]);
    await rt.api('PATCH', `/contacts/${c.id}`, { body: { subscribed: false } });
    await postContact(rt, { email: c.email, subscribed: false });
    await postContact(rt, { email: c.email, subscribed: true });
    expect((await contactEventNames(rt, c.id)).sort()).toEqual([
      'contact.subscribed',
      'contact.unsubscribed',
    ]);
  });

  it('deletes a contact and what is keyed to it', async () => {
    const c = await postContact(rt, { email: uniqueEmail('del') });
    await rt.api('PATCH', `/contacts/${c.id}`, { body: { subscribed: false } });
    expect(await contactEventNames(rt, c.id)).toHaveLength(1);
    const unsubscribedCount = async () =>
      (await rt.api('GET', '/events/names')).body.names.find(
        (n: { name: string }) => n.name === 'contact.unsubscribed',
      )?.count ?? 0;
    // Counted first (the tally counts events off the request path), so the purge lowers the count.
    await settleEventCounts(rt);
    const before = await unsubscribedCount();
    const res = await rt.api('DELETE', `/contacts/${c.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: c.id, deleted: true });
    expect((await rt.api('GET', `/contacts/${c.id}`)).status).toBe(404);
    await rt.drain();
    expect(await contactEventNames(rt, c.id)).toEqual([]);
    expect(await unsubscribedCount()).toBe(before - 1);
    expect((await rt.api('DELETE', `/contacts/${c.id}`)).status).toBe(404);
    const fresh = await rt.api('POST', '/contacts', { body: { email: c.email } });
    expect(fresh.status).toBe(201);
    expect(fresh.body.id).not.toBe(c.id);
  });
});

describe('POST /contacts/lookup', () => {
  it('finds contacts case-insensitively and lists the rest', async () => {
    const c = await postContact(rt, { email: uniqueEmail('look'), subscribed: false });
    const res = await rt.api('POST', '/contacts/lookup', {
      body: { emails: [c.email.toUpperCase(), 'nobody@example.org'] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      found: [{ id: c.id, email: c.email, subscribed: false }],
      notFound: ['nobody@example.org'],
    });
  });

  it('refuses more than 500 emails with 422', async () => {
    const emails = Array.from({ length: 501 }, (_, i) => `x${i}@example.org`);
    const res = await rt.api('POST', '/contacts/lookup', { body: { emails } });
    expect(res.status).toBe(422);
    expect(res.body.error.errors[0]).toMatchObject({ field: 'emails', code: 'too_big' });
    const ok = await rt.api('POST', '/contacts/lookup', { body: { emails: emails.slice(0, 500) } });
    expect(ok.status).toBe(200);
    expect(ok.body.notFound).toHaveLength(500);
  });
});

describe('unchanged contacts', () => {
  it('are not rewritten when an upsert would store the same content, and are when it would not', async () => {
    const email = uniqueEmail('same');
    await postContact(rt, { email, data: { plan: 'pro', profile: { tier: 'gold' } } }, { status: 201 });
    const writes: string[] = [];
    const deps = watchedDeps(rt.deps, {
      after: (call) => {
        if (call.op !== 'get' && call.key?.sk) writes.push(String(call.key.sk));
      },
    });
    const upsert = (data: unknown, subscribed?: boolean) =>
      upsertContact(
        deps,
        rt.projectId,
        { email, subscribed, patch: parseDataPatch(data), source: 'api' },
        {
          defaultSubscribed: true,
        },
      );
    const same = await upsert({ plan: 'pro', profile: { tier: 'gold' } }, true);
    expect(same.isNew).toBe(false);
    expect(writes.filter((sk) => sk === '#CONTACT')).toEqual([]);
    await upsert({ plan: 'team' });
    expect(writes.filter((sk) => sk === '#CONTACT')).toHaveLength(1);
    await upsert(undefined, false);
    expect(writes.filter((sk) => sk === '#CONTACT')).toHaveLength(2);
    const stored = (await rt.api('GET', `/contacts/${same.contact.id}`)).body;
    expect(stored).toMatchObject({ subscribed: false, data: { plan: 'team', profile: { tier: 'gold' } } });
  });
});
