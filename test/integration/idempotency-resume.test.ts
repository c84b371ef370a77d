/**
 * Idempotency-Key records (hash, not body; bounded response), the lease of an abandoned claim,
 * resuming a `/v1/send` that died part way, and render failures answered as the caller's 422.
 * A recipient whose provider call never returns stands for a process killed mid-send: its
 * request stays in flight with its claim, as a dead Lambda's would (test/crash kills real
 * processes).
 */
import { describe, expect, it } from 'vitest';
import { derivedUuid } from '../../shared/http/idempotency';
import { getIdempotencyRecord } from '../../shared/http/repository';
import type { AuthedRequest } from '../../shared/http/stack';
import type { RawEmail } from '../../shared/ports';
import { trackHandler } from '../../shared/tracking/routes';
import { uniqueEmail } from './helpers/contacts';
import { crashingAt } from './helpers/faults';
import { useLocalRuntime } from './helpers/local';
import { waitUntil } from './helpers/wait';

let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
const rt = useLocalRuntime({ clock });

const from = () => `hello@${rt.senderDomain}`;
const LEASE_SECONDS = 29;

/** Makes the provider call for `address` hang forever; returns how often it was attempted. */
function hangOn(address: string) {
  const sink = rt.mailSink;
  const original = sink.sendRaw.bind(sink);
  const attempts = { count: 0 };
  sink.sendRaw = (email: RawEmail) => {
    if (email.to.includes(address)) {
      attempts.count++;
      return new Promise(() => {});
    }
    return original(email);
  };
  return { attempts, restore: () => (sink.sendRaw = original) };
}

/** Waiting for a send to reach its hanging recipient: every 25 ms, 200 times at most. */
const POLL = { intervalMs: 25, maxTries: 200 };

describe('Idempotency-Key records', () => {
  it('keep a hash of the body, not the body: a /v1/track with a 1 MB extra field is fine', async () => {
    const key = `big-track-${Date.now()}`;
    const body = { email: uniqueEmail('bigtrack'), event: 'signup', junk: 'x'.repeat(1024 * 1024) };
    const first = await rt.api('POST', '/v1/track', {
      key: rt.publicKey,
      body,
      headers: { 'idempotency-key': key },
    });
    expect(first.status, first.text.slice(0, 300)).toBe(200);
    const again = await rt.api('POST', '/v1/track', {
      key: rt.publicKey,
      body,
      headers: { 'idempotency-key': key },
    });
    expect(again.status).toBe(409);
    const details = again.body.error.details;
    expect(details.originalRequest).toEqual({
      method: 'POST',
      path: '/v1/track',
      bodySha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(JSON.stringify(details)).not.toContain('xxxx');
    // The first response comes back with the reuse, so a client that timed out learns the outcome.
    expect(details.originalStatusCode).toBe(200);
    expect(details.response).toEqual(first.body);
  });

  it('are not claimed by a body that fails validation, however large', async () => {
    const key = `bad-send-${Date.now()}`;
    const to = uniqueEmail('bigbad');
    // Over the custom-data limit and, remembered whole, far over DynamoDB's 400 KB item limit.
    const data = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [
        `k${i}`,
        Object.fromEntries(Array.from({ length: 50 }, (_, j) => [`n${j}`, 'y'.repeat(600)])),
      ]),
    );
    const bad = await rt.api('POST', '/v1/send', {
      body: { to, from: from(), subject: 's', body: 'b', data },
      headers: { 'idempotency-key': key },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    const record = await getIdempotencyRecord(rt.deps, {
      projectId: rt.projectId,
      scope: 'POST /v1/send',
      key,
    });
    expect(record).toBeUndefined();
    const good = await rt.api('POST', '/v1/send', {
      body: { to, from: from(), subject: 's', body: 'b' },
      headers: { 'idempotency-key': key },
    });
    expect(good.status).toBe(200);
    expect(await rt.mails({ to })).toHaveLength(1);
  });

  it('answer a reuse after a 2xx with the first response (the email ids)', async () => {
    const key = `ids-${Date.now()}`;
    const to = [uniqueEmail('ids-a'), uniqueEmail('ids-b')];
    const body = { to, from: from(), subject: 's', body: 'b' };
    const first = await rt.api('POST', '/v1/send', { body, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(200);
    // Another serialization of the same request (key order) is the same request.
    const reordered = { body: 'b', subject: 's', from: from(), to };
    const again = await rt.api('POST', '/v1/send', { body: reordered, headers: { 'idempotency-key': key } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(again.body.error.details.response.data.emails.map((e: { email: string }) => e.email)).toEqual(
      first.body.data.emails.map((e: { email: string }) => e.email),
    );
    for (const address of to) expect(await rt.mails({ to: address })).toHaveLength(1);
  });
});

describe('a /v1/send that died part way', () => {
  it('blocks its key for the lease only, then resumes: no recipient mailed twice, the in-flight one unknown', async () => {
    const key = `resume-${Date.now()}`;
    const to = Array.from({ length: 8 }, (_, i) => uniqueEmail(`resume${i}`));
    const body = { to, from: from(), subject: 'Hi {{n ?? 0}}', body: '<p>Hello</p>' };
    const hang = hangOn(to[3]!);
    // The first attempt sends three, then "dies" inside the provider call for the fourth.
    const dead = fetch(`${rt.url}/v1/send`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${rt.secretKey}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      body: JSON.stringify(body),
    }).catch(() => undefined);
    await waitUntil('the fourth recipient', () => hang.attempts.count === 1, POLL);
    for (const address of to.slice(0, 3)) expect(await rt.mails({ to: address })).toHaveLength(1);

    // While its lease lives, a retry is told the key is in use.
    const early = await rt.api('POST', '/v1/send', { body, headers: { 'idempotency-key': key } });
    expect(early.status).toBe(409);
    expect(early.body.error.details.originalStatusCode).toBeNull();

    // Once the lease (the function's timeout) has passed, the same request resumes.
    offsetMs += (LEASE_SECONDS + 1) * 1000;
    hang.restore();
    const retry = await rt.api('POST', '/v1/send', { body, headers: { 'idempotency-key': key } });
    expect(retry.status, retry.text).toBe(200);
    const emails = retry.body.data.emails as {
      email: string;
      status: string;
      reason?: string;
      contact: { email: string };
    }[];
    expect(emails.map((e) => e.contact.email)).toEqual(to);
    expect(emails.map((e) => e.status)).toEqual([
      'sent',
      'sent',
      'sent',
      'unknown',
      'sent',
      'sent',
      'sent',
      'sent',
    ]);
    expect(emails[3]!.reason).toBe('OUTCOME_UNKNOWN');
    expect(new Set(emails.map((e) => e.email)).size).toBe(8);
    for (const [i, address] of to.entries())
      expect(await rt.mails({ to: address })).toHaveLength(i === 3 ? 0 : 1);

    // The first three keep the ids the dead attempt gave them (their email.sent events exist once).
    const events = await rt.api('GET', '/events', { query: { name: 'email.sent', limit: 100 } });
    for (const e of emails.filter((x) => x.status === 'sent')) {
      const mine = events.body.data.filter(
        (ev: { data?: { emailId?: string } }) => ev.data?.emailId === e.email,
      );
      expect(mine.length, `email.sent of ${e.email}`).toBe(1);
    }

    // Finished now: a further reuse answers 409 with the complete result.
    const after = await rt.api('POST', '/v1/send', { body, headers: { 'idempotency-key': key } });
    expect(after.status).toBe(409);
    expect(after.body.error.details.originalStatusCode).toBe(200);
    expect(after.body.error.details.response.data.emails).toEqual(retry.body.data.emails);
    void dead;
  });

  it('counts as released for another request once the lease has passed', async () => {
    const key = `other-${Date.now()}`;
    const a = uniqueEmail('other-a');
    const hang = hangOn(a);
    void fetch(`${rt.url}/v1/send`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${rt.secretKey}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      body: JSON.stringify({ to: a, from: from(), subject: 's', body: 'b' }),
    }).catch(() => undefined);
    await waitUntil('the hanging send', () => hang.attempts.count === 1, POLL);
    hang.restore();
    offsetMs += (LEASE_SECONDS + 1) * 1000;
    const b = uniqueEmail('other-b');
    const res = await rt.api('POST', '/v1/send', {
      body: { to: b, from: from(), subject: 's', body: 'b' },
      headers: { 'idempotency-key': key },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.emails[0].status).toBe('sent');
    expect(await rt.mails({ to: b })).toHaveLength(1);
  });

  it('derives record ids from the claim, stable per recipient', () => {
    expect(derivedUuid('c:email:0')).toBe(derivedUuid('c:email:0'));
    expect(derivedUuid('c:email:0')).not.toBe(derivedUuid('c:email:1'));
    expect(derivedUuid('x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('a /v1/track that died after its event was stored', () => {
  it('resumes into the same event: one event, not two', async () => {
    const key = `track-resume-${Date.now()}`;
    const event = `resumed_${Date.now()}`;
    const body = { email: uniqueEmail('track-resume'), event };
    // The first attempt stores its event, then dies before recording that it finished.
    const dying = trackHandler(
      crashingAt(
        rt.deps,
        (call) =>
          call.op === 'update' &&
          String(call.key?.pk).includes('#IDEM#') &&
          /:done/.test(call.expression ?? ''),
      ),
      '/v1/track',
      'public',
    );
    await expect(
      dying({
        projectId: rt.projectId,
        headers: { 'idempotency-key': key },
        body,
      } as unknown as AuthedRequest),
    ).rejects.toThrow('simulated crash');
    offsetMs += (LEASE_SECONDS + 1) * 1000;
    const retry = await rt.api('POST', '/v1/track', {
      key: rt.publicKey,
      body,
      headers: { 'idempotency-key': key },
    });
    expect(retry.status, retry.text).toBe(200);
    const events = await rt.api('GET', '/events', { query: { name: event } });
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0].id).toBe(retry.body.data.event);
  });
});

describe('render limits', () => {
  const heavy = '<p>{% for i in (1..count) %}xxxxxxxxxx{% endfor %}</p>';

  it('answer 422 TEMPLATE_RENDER_ERROR when no recipient could be sent, and free the key', async () => {
    const to = uniqueEmail('heavy');
    const key = `heavy-${Date.now()}`;
    const res = await rt.api('POST', '/v1/send', {
      body: { to, from: from(), subject: 's', body: heavy, data: { count: 100_000_000 } },
      headers: { 'idempotency-key': key },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.error.code).toBe('TEMPLATE_RENDER_ERROR');
    expect(res.body.error.details.emails[0]).toMatchObject({ status: 'failed', reason: 'RENDER_ERROR' });
    expect(await rt.mails({ to })).toHaveLength(0);
  });

  it('fail only that recipient when others went out', async () => {
    const big = uniqueEmail('heavy-big');
    const small = uniqueEmail('heavy-small');
    for (const [email, count] of [
      [big, 100_000_000],
      [small, 2],
    ] as const) {
      expect((await rt.api('POST', '/contacts', { body: { email, data: { count } } })).status).toBe(201);
    }
    const res = await rt.api('POST', '/v1/send', {
      body: { to: [big, small], from: from(), subject: 's', body: heavy },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.emails.map((e: { status: string }) => e.status)).toEqual(['failed', 'sent']);
    expect(res.body.data.emails[0].reason).toBe('RENDER_ERROR');
    expect(await rt.mails({ to: small })).toHaveLength(1);
  });
});
