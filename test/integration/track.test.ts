import { describe, expect, it } from 'vitest';
import { createProject } from '../../shared/projects/repository';
import { contactByEmail, listContactEvents, uniqueEmail } from './helpers/contacts';
import { type Json, useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

const track = (body: unknown, options: { key?: string | null; headers?: Record<string, string> } = {}) =>
  rt.api('POST', '/v1/track', {
    body,
    key: options.key === undefined ? rt.publicKey : options.key,
    headers: options.headers,
  });

describe('POST /v1/track', () => {
  it('records the event, creates the contact subscribed, and answers the Track result', async () => {
    const email = uniqueEmail('new');
    const before = Date.now();
    const res = await track({ email, event: 'signup', data: { plan: 'pro' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { contact: expect.any(String), event: expect.any(String), timestamp: expect.any(String) },
    });
    expect(Date.parse(res.body.data.timestamp)).toBeGreaterThanOrEqual(before - 1000);

    const contact = await contactByEmail(rt, email);
    expect(contact).toMatchObject({
      id: res.body.data.contact,
      email,
      subscribed: true,
      data: { plan: 'pro' },
    });
    const events = await listContactEvents(rt, contact.id);
    expect(events).toEqual([
      {
        id: res.body.data.event,
        name: 'signup',
        contactId: contact.id,
        email,
        data: { plan: 'pro' },
        createdAt: res.body.data.timestamp,
      },
    ]);
  });

  it('takes only the public key: a secret key, no key or an unknown key is 401 and records nothing', async () => {
    const email = uniqueEmail('auth');
    for (const key of [rt.secretKey, null, 'pk_unknown']) {
      const res = await track({ email, event: 'signup' }, { key });
      expect(res.status, String(key)).toBe(401);
      expect(res.body).toMatchObject({ success: false, error: { code: 'INVALID_API_KEY', statusCode: 401 } });
    }
    expect(await contactByEmail(rt, email)).toBeUndefined();
  });

  it('creates a new event record each time the same event is tracked without an Idempotency-Key', async () => {
    const email = uniqueEmail('twice');
    const first = await track({ email, event: 'viewed' });
    const second = await track({ email, event: 'viewed' });
    expect(second.status).toBe(200);
    expect(second.body.data.contact).toBe(first.body.data.contact);
    expect(second.body.data.event).not.toBe(first.body.data.event);
    const events = await listContactEvents(rt, first.body.data.contact);
    expect(events.map((e) => e.id).sort()).toEqual([first.body.data.event, second.body.data.event].sort());
  });

  it('answers 409 IDEMPOTENCY_KEY_REUSED for a reused key and records the event once', async () => {
    const email = uniqueEmail('idem');
    const key = `track-${email}`;
    const first = await track({ email, event: 'paid' }, { headers: { 'idempotency-key': key } });
    expect(first.status).toBe(200);
    const again = await track({ email, event: 'paid' }, { headers: { 'idempotency-key': key } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      details: {
        key,
        originalRequest: {
          method: 'POST',
          path: '/v1/track',
          bodySha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
        response: first.body,
        originalStatusCode: 200,
      },
    });
    expect(await listContactEvents(rt, first.body.data.contact)).toHaveLength(1);
    // Keys are scoped per endpoint: the dashboard alias may use the same one.
    const alias = await rt.api('POST', '/events/track', {
      body: { email, event: 'paid' },
      headers: { 'idempotency-key': key },
    });
    expect(alias.status).toBe(200);
    expect(await listContactEvents(rt, first.body.data.contact)).toHaveLength(2);
  });

  it('rejects an invalid Idempotency-Key with 400 and records nothing', async () => {
    const email = uniqueEmail('badkey');
    const res = await track({ email, event: 'x' }, { headers: { 'idempotency-key': 'x'.repeat(256) } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_IDEMPOTENCY_KEY');
    expect(await contactByEmail(rt, email)).toBeUndefined();
  });
});

describe('validation', () => {
  it.each([
    ['missing email', { event: 'signup' }, 'email', 'invalid_type'],
    ['invalid email', { email: 'not-an-email', event: 'signup' }, 'email', 'invalid_string'],
    ['missing event', { email: 'v@example.org' }, 'event', 'invalid_type'],
    ['empty event', { email: 'v@example.org', event: '   ' }, 'event', 'too_small'],
    ['event over 100 characters', { email: 'v@example.org', event: 'e'.repeat(101) }, 'event', 'too_big'],
    ['event not a string', { email: 'v@example.org', event: 42 }, 'event', 'invalid_type'],
    ['event with a control character', { email: 'v@example.org', event: 'a\nb' }, 'event', 'custom'],
    [
      'subscribed not a boolean',
      { email: 'v@example.org', event: 'e', subscribed: 'yes' },
      'subscribed',
      'invalid_type',
    ],
    ['data not an object', { email: 'v@example.org', event: 'e', data: [1] }, 'data', 'invalid_type'],
  ])('answers 422 for %s', async (_label, body, field, code) => {
    const res = await track(body);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.errors).toContainEqual(expect.objectContaining({ field, code }));
  });

  it('accepts an event of exactly 100 characters', async () => {
    const res = await track({ email: uniqueEmail('long'), event: 'e'.repeat(100) });
    expect(res.status).toBe(200);
  });

  it('answers 422 for a non-JSON-object body and 400 for malformed JSON', async () => {
    expect((await track('just a string')).status).toBe(422);
    const malformed = await rt.api('POST', '/v1/track', {
      key: rt.publicKey,
      raw: '{"email":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
  });

  it.each([
    'email.sent',
    'email.opened',
    'EMAIL.Clicked',
    'email.anything',
    'contact.subscribed',
    'Contact.Unsubscribed',
    'segment.vip.entry',
    'SEGMENT.vip-customers.EXIT',
    '  email.sent  ',
  ])('refuses the reserved name %j with 422 reserved_event and changes nothing', async (event) => {
    const email = uniqueEmail('reserved');
    const res = await track({ email, event, data: { plan: 'x' } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.errors).toEqual([
      expect.objectContaining({ field: 'event', code: 'reserved_event', received: event.trim() }),
    ]);
    expect(await contactByEmail(rt, email)).toBeUndefined();
  });

  it('reports a reserved name together with other problems', async () => {
    const res = await track({ email: 'nope', event: 'email.sent' });
    expect(res.status).toBe(422);
    const codes = res.body.error.errors.map((e: Json) => `${e.field}:${e.code}`);
    expect(codes).toEqual(expect.arrayContaining(['email:invalid_string', 'event:reserved_event']));
  });

  it.each(['email', 'emailed', 'contact.created', 'segment.vip', 'segment.entry', 'my.email.sent'])(
    'accepts %j, which only looks like a reserved name',
    async (event) => {
      const res = await track({ email: uniqueEmail('lookalike'), event });
      expect(res.status).toBe(200);
    },
  );

  it('refuses a data payload over 64 KB before claiming the Idempotency-Key', async () => {
    const email = uniqueEmail('huge');
    const removals = Object.fromEntries(
      Array.from({ length: 1500 }, (_, i) => [`${'k'.repeat(45)}${i}`, null]),
    );
    const key = `huge-${Date.now()}`;
    const res = await track({ email, event: 'big', data: removals }, { headers: { 'idempotency-key': key } });
    expect(res.status).toBe(422);
    expect(res.body.error.errors[0]).toMatchObject({ field: 'data', code: 'too_big' });
    expect(await contactByEmail(rt, email)).toBeUndefined();
    const retry = await track({ email, event: 'big' }, { headers: { 'idempotency-key': key } });
    expect(retry.status).toBe(200);
  });

  it('refuses event data over 32 KB with 422 and records nothing', async () => {
    const email = uniqueEmail('big');
    const res = await track({
      email,
      event: 'big',
      data: { blob: { value: 'x'.repeat(40_000), persistent: false } },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.errors[0]).toMatchObject({ field: 'data', code: 'too_big' });
    expect(await contactByEmail(rt, email)).toBeUndefined();
  });
});

describe('contact subscription and data', () => {
  it('creates a contact unsubscribed when subscribed is false', async () => {
    const email = uniqueEmail('unsub');
    await track({ email, event: 'signup', subscribed: false });
    expect((await contactByEmail(rt, email)).subscribed).toBe(false);
  });

  it('keeps an existing contact state unless subscribed is given; a flip emits contact.subscribed', async () => {
    const email = uniqueEmail('existing');
    const created = await rt.api('POST', '/contacts', { body: { email, subscribed: false } });
    const id = created.body.id;
    await track({ email, event: 'visit' });
    expect((await contactByEmail(rt, email)).subscribed).toBe(false);
    expect((await listContactEvents(rt, id)).map((e) => e.name)).toEqual(['visit']);

    await track({ email, event: 'optin', subscribed: true });
    expect((await contactByEmail(rt, email)).subscribed).toBe(true);
    const names = (await listContactEvents(rt, id)).map((e) => e.name);
    expect(names.sort()).toEqual(['contact.subscribed', 'optin', 'visit']);
    const sub = (await listContactEvents(rt, id)).find((e) => e.name === 'contact.subscribed');
    expect(sub.data).toEqual({ source: 'track' });

    await track({ email, event: 'optout', subscribed: false });
    expect((await listContactEvents(rt, id)).map((e) => e.name)).toContain('contact.unsubscribed');
  });

  it('patches data into the contact; non-persistent values go only into the event', async () => {
    const email = uniqueEmail('data');
    await rt.api('POST', '/contacts', { body: { email, data: { keep: 'me', drop: 'me', plan: 'free' } } });
    const res = await track({
      email,
      event: 'upgraded',
      data: { plan: 'pro', drop: null, coupon: { value: 'SAVE10', persistent: false }, empty: '' },
    });
    expect(res.status).toBe(200);
    const contact = await contactByEmail(rt, email);
    expect(contact.data).toEqual({ keep: 'me', plan: 'pro' });
    const [event] = (await listContactEvents(rt, contact.id)).filter((e) => e.name === 'upgraded');
    expect(event.data).toEqual({ plan: 'pro', coupon: 'SAVE10' });
  });

  it("keeps projects apart: a public key records into its own project's contacts", async () => {
    const other = await createProject(rt.deps, { name: 'track-other' });
    const email = uniqueEmail('iso');
    const res = await track({ email, event: 'signup' }, { key: other.publicKey });
    expect(res.status).toBe(200);
    expect(await contactByEmail(rt, email)).toBeUndefined();
    const theirs = await rt.api('GET', `/contacts/${res.body.data.contact}`, { key: other.secretKey });
    expect(theirs.status).toBe(200);
  });
});

describe('CORS (browsers calling /v1/track with the public key)', () => {
  const origin = 'https://shop.example.net';

  it('answers the preflight with 204 and the allowed method and headers, without a key', async () => {
    const res = await rt.api('OPTIONS', '/v1/track', {
      key: null,
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,idempotency-key',
      },
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'authorization,content-type,idempotency-key',
      'access-control-max-age': '86400',
    });
  });

  it('adds the CORS headers to the answer, success or error, so the page can read both', async () => {
    const okRes = await rt.api('POST', '/v1/track', {
      key: rt.publicKey,
      body: { email: uniqueEmail('cors'), event: 'signup' },
      headers: { origin },
    });
    expect(okRes.status).toBe(200);
    expect(okRes.headers['access-control-allow-origin']).toBe('*');
    expect(okRes.headers['access-control-expose-headers']).toBe(
      'x-request-id,ratelimit-limit,ratelimit-remaining,ratelimit-reset,retry-after',
    );
    const denied = await rt.api('POST', '/v1/track', {
      key: rt.secretKey,
      body: { email: uniqueEmail('cors'), event: 'signup' },
      headers: { origin },
    });
    expect(denied.status).toBe(401);
    expect(denied.headers['access-control-allow-origin']).toBe('*');
  });

  it('adds nothing to requests without an Origin (servers, curl)', async () => {
    const res = await track({ email: uniqueEmail('nocors'), event: 'signup' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('applies API-wide, as API Gateway does: a preflight to another path gets the same answer', async () => {
    const res = await rt.api('OPTIONS', '/contacts', {
      key: null,
      headers: { origin, 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-methods']).toBe('POST');
  });

  it('leaves a plain OPTIONS request (not a preflight) to the 404 envelope', async () => {
    const res = await rt.api('OPTIONS', '/v1/track', { key: null });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });
});
