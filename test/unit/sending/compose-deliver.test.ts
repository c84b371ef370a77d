/**
 * Compose and deliver on their own, as a campaign or a workflow step calls them: no HTTP, no
 * request retry budget, an in-memory store and queue, and a fake mailer. And the request-level
 * answer of `/v1/send` when nothing went out, which lives apart from both.
 */
import { describe, expect, it } from 'vitest';
import { PermanentSendError, RetryableSendError } from '../../../shared/adapters/aws/send-errors';
import { parseDataPatch } from '../../../shared/contacts/data';
import type { ContactRecord } from '../../../shared/contacts/repository';
import { DISPATCH_EVENT_JOB } from '../../../shared/events/emit';
import { defineListener, ListenerRegistry } from '../../../shared/events/registry';
import type { RawEmail } from '../../../shared/ports';
import { compileAll } from '../../../shared/rendering';
import { type ComposedEmail, composeEmail, type EmailContent } from '../../../shared/sending/compose';
import { deliverEmail, resumeEmail } from '../../../shared/sending/deliver';
import type { EmailIds, SentEmail } from '../../../shared/sending/outcomes';
import { getEmailRecord } from '../../../shared/sending/repository';
import { unsentError } from '../../../shared/sending/service';
import { keys } from '../../../shared/table';
import { type Memory, memory } from '../events/memory-store';

const PROJECT = 'p1';
const links = { secret: 's'.repeat(40), baseUrl: 'https://sesame.test' };

function content(
  over: { subjectSource?: string; bodySource?: string } & Omit<
    Partial<EmailContent>,
    'subject' | 'body'
  > = {},
): EmailContent {
  const [subject, body] = compileAll([
    { field: 'subject', source: over.subjectSource ?? 'Hi {{name ?? there}}', kind: 'text' },
    { field: 'body', source: over.bodySource ?? '<p>Hello {{name ?? there}}</p>', kind: 'html' },
  ]);
  return {
    templateId: null,
    type: 'TRANSACTIONAL',
    from: { email: 'news@example.com', name: 'News' },
    replyTo: null,
    bodyHasUnsubscribeLink: false,
    headers: {},
    attachments: [],
    links,
    ...over,
    subject: subject!,
    body: body!,
  };
}

const contact = (over: Partial<ContactRecord> = {}): ContactRecord => ({
  id: 'c1',
  email: 'Ann@example.org',
  emailLower: 'ann@example.org',
  subscribed: true,
  snoozedUntil: null,
  data: { name: 'Ann' },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  version: 1,
  ...over,
});

let seq = 0;
const newIds = (): EmailIds => {
  const n = String(++seq).padStart(12, '0');
  return {
    email: `00000000-0000-4000-8000-${n}`,
    sentEvent: `00000000-0000-4000-9000-${n}`,
    failedEvent: `00000000-0000-4000-a000-${n}`,
  };
};

/** A mailer that answers with `answer` per call (a message id, or an error to throw). */
function fakeMailer(...answers: (string | Error)[]) {
  const calls: RawEmail[] = [];
  return {
    calls,
    maxSendRate: async () => undefined,
    sendRaw: async (email: RawEmail) => {
      calls.push(email);
      const answer = answers[Math.min(calls.length, answers.length) - 1] ?? 'ses-1';
      if (answer instanceof Error) throw answer;
      return { messageId: answer };
    },
  };
}

function setup(
  mailer = fakeMailer('ses-1'),
  options: { listeners?: ListenerRegistry; now?: () => Date } = {},
) {
  const m = memory();
  const deps = {
    store: m.store,
    queue: m.queue,
    mailer,
    clock: { now: options.now ?? (() => new Date('2026-11-21T20:15:00.000Z')) },
    ...(options.listeners ? { listeners: options.listeners } : {}),
  };
  return { m, deps, mailer };
}

const eventsOf = (m: Memory) => m.itemsWhere('EV#').map((i) => ({ name: i.name, id: i.id, data: i.data }));
const quick = { attempts: 4, backoffMs: 1 };

async function composed(deps: ReturnType<typeof setup>['deps'], ids = newIds(), c = content()) {
  const out = await composeEmail(
    deps,
    PROJECT,
    c,
    { to: { email: 'ann@example.org' }, contact: contact() },
    ids,
  );
  expect(out.status).toBe('composed');
  return out as ComposedEmail;
}

describe('composeEmail', () => {
  it('renders the message for the contact, with request data over its data, and writes nothing', async () => {
    const { m, deps } = setup();
    const ids = newIds();
    const out = await composeEmail(
      deps,
      PROJECT,
      content({ bodySource: '<p>{{name}} is on {{plan}}</p>' }),
      {
        to: { email: 'ann@example.org', name: 'Ann Lee' },
        contact: contact(),
        data: parseDataPatch({ plan: 'pro' }),
      },
      ids,
    );
    expect(out).toMatchObject({
      status: 'composed',
      contact: { id: 'c1', email: 'Ann@example.org' },
      ids,
      record: {
        id: ids.email,
        projectId: PROJECT,
        contactId: 'c1',
        to: 'ann@example.org',
        from: 'news@example.com',
        fromName: 'News',
        subject: 'Hi Ann',
        status: 'SENDING',
        type: 'TRANSACTIONAL',
        createdAt: '2026-11-21T20:15:00.000Z',
      },
    });
    const raw = (out as ComposedEmail).raw.toString('utf8');
    expect(raw).toMatch(/^Subject: Hi Ann$/m);
    expect(raw).toMatch(/^To: "?Ann Lee"? <ann@example.org>$/m);
    expect(raw).toContain('Ann is on pro');
    expect(raw).not.toMatch(/^List-Unsubscribe:/m);
    expect(m.log).toEqual([]);
  });

  it('gives MARKETING content a footer link and list headers; sends TRANSACTIONAL to the unsubscribed', async () => {
    const { m, deps } = setup();
    const marketing = await composeEmail(
      deps,
      PROJECT,
      content({ type: 'MARKETING' }),
      { to: { email: 'ann@example.org' }, contact: contact() },
      newIds(),
    );
    const raw = (marketing as ComposedEmail).raw.toString('utf8');
    expect(raw).toMatch(/^List-Unsubscribe:\s+<https:\/\/sesame\.test\//m);
    expect(raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    expect(raw).toContain('Unsubscribe</a>');
    const transactional = await composeEmail(
      deps,
      PROJECT,
      content(),
      { to: { email: 'ann@example.org' }, contact: contact({ subscribed: false }) },
      newIds(),
    );
    expect(transactional.status).toBe('composed');
    expect(m.log).toEqual([]);
  });

  it('skips MARKETING and HEADLESS content for an unsubscribed contact, recording it SKIPPED', async () => {
    for (const type of ['MARKETING', 'HEADLESS'] as const) {
      const { m, deps } = setup();
      const ids = newIds();
      const out = await composeEmail(
        deps,
        PROJECT,
        content({ type }),
        { to: { email: 'ann@example.org' }, contact: contact({ subscribed: false }) },
        ids,
      );
      expect(out).toEqual({
        contact: { id: 'c1', email: 'Ann@example.org' },
        email: ids.email,
        status: 'skipped',
        reason: 'unsubscribed',
      });
      expect(await getEmailRecord(deps, PROJECT, ids.email)).toMatchObject({ status: 'SKIPPED', type });
      expect(eventsOf(m)).toEqual([]);
    }
  });

  it('records a render failure FAILED with its email.failed event', async () => {
    const { m, deps } = setup();
    const ids = newIds();
    const heavy = content({ bodySource: '<p>{% for i in (1..count) %}xxxxxxxxxx{% endfor %}</p>' });
    const out = await composeEmail(
      deps,
      PROJECT,
      heavy,
      { to: { email: 'ann@example.org' }, contact: contact({ data: { name: 'Ann', count: 100_000_000 } }) },
      ids,
    );
    expect(out).toMatchObject({ status: 'failed', reason: 'RENDER_ERROR', email: ids.email });
    expect(await getEmailRecord(deps, PROJECT, ids.email)).toMatchObject({
      status: 'FAILED',
      reason: 'RENDER_ERROR',
      subject: 'Hi Ann',
    });
    expect(eventsOf(m)).toEqual([
      {
        name: 'email.failed',
        id: ids.failedEvent,
        data: expect.objectContaining({ emailId: ids.email, reason: 'RENDER_ERROR', subject: 'Hi Ann' }),
      },
    ]);
  });
});

describe('deliverEmail', () => {
  it('writes the record before the provider call, then SENT with the message id and email.sent', async () => {
    const { m, deps, mailer } = setup(fakeMailer('ses-42'));
    const email = await composed(deps);
    const out = await deliverEmail(deps, email, quick);
    expect(out).toEqual({ contact: email.contact, email: email.record.id, status: 'sent' });
    expect(mailer.calls).toHaveLength(1);
    expect(mailer.calls[0]).toMatchObject({
      from: 'news@example.com',
      to: ['ann@example.org'],
      tags: { projectId: PROJECT, emailId: email.record.id },
    });
    expect(Buffer.from(mailer.calls[0]!.raw).equals(email.raw)).toBe(true);
    expect(m.log[0]).toEqual({ op: 'put', key: keys.emailMessage(PROJECT, email.record.id) });
    expect(await getEmailRecord(deps, PROJECT, email.record.id)).toMatchObject({
      status: 'SENT',
      messageId: 'ses-42',
      sentAt: '2026-11-21T20:15:00.000Z',
    });
    expect(eventsOf(m)).toEqual([
      {
        name: 'email.sent',
        id: email.ids.sentEvent,
        data: {
          emailId: email.record.id,
          messageId: 'ses-42',
          subject: 'Hi Ann',
          from: 'news@example.com',
          templateId: null,
        },
      },
    ]);
  });

  it('retries while the provider asks to, up to the policy’s attempts', async () => {
    const throttled = () => new RetryableSendError('RATE_EXCEEDED', 'Maximum sending rate exceeded.');
    const { deps, mailer } = setup(fakeMailer(throttled(), throttled(), 'ses-3'));
    expect((await deliverEmail(deps, await composed(deps), quick)).status).toBe('sent');
    expect(mailer.calls).toHaveLength(3);

    const always = setup(fakeMailer(throttled()));
    const email = await composed(always.deps);
    const out = await deliverEmail(always.deps, email, { attempts: 2, backoffMs: 1 });
    expect(out).toMatchObject({ status: 'failed', reason: 'RATE_EXCEEDED' });
    expect(always.mailer.calls).toHaveLength(2);
    expect(await getEmailRecord(always.deps, PROJECT, email.record.id)).toMatchObject({
      status: 'FAILED',
      reason: 'RATE_EXCEEDED',
    });
    expect(eventsOf(always.m).map((e) => [e.name, e.id])).toEqual([['email.failed', email.ids.failedEvent]]);
  });

  it('starts no retry past the policy’s deadline', async () => {
    let offset = 0;
    const start = Date.parse('2026-11-21T20:15:00.000Z');
    const mailer = {
      calls: 0,
      sendRaw: async () => {
        mailer.calls++;
        offset += 10_000;
        throw new RetryableSendError('SERVICE_ERROR', 'Try later');
      },
    };
    const { deps } = setup(mailer as never, { now: () => new Date(start + offset) });
    const out = await deliverEmail(deps, await composed(deps), {
      attempts: 10,
      backoffMs: 1,
      retryDeadline: start + 15_000,
    });
    expect(out).toMatchObject({ status: 'failed', reason: 'SERVICE_ERROR' });
    expect(mailer.calls).toBe(2);
  });

  it('does not retry a refusal, and names an unexpected error SEND_ERROR', async () => {
    const refused = setup(fakeMailer(new PermanentSendError('MESSAGE_REJECTED', 'Rejected')));
    expect(await deliverEmail(refused.deps, await composed(refused.deps), quick)).toMatchObject({
      status: 'failed',
      reason: 'MESSAGE_REJECTED',
      error: 'Rejected',
    });
    expect(refused.mailer.calls).toHaveLength(1);
    const broken = setup(fakeMailer(new Error('socket hang up')));
    expect(await deliverEmail(broken.deps, await composed(broken.deps), quick)).toMatchObject({
      status: 'failed',
      reason: 'SEND_ERROR',
    });
  });

  it('hands email.sent to a matching listener through one dispatch message', async () => {
    const listeners = new ListenerRegistry([
      defineListener({ name: 'activity', events: ['email.*'], handle: async () => {} }),
    ]);
    const { m, deps } = setup(fakeMailer('ses-1'), { listeners });
    const email = await composed(deps);
    await deliverEmail(deps, email, quick);
    // The dispatch, then the tally armed (both passes) to count the event (shared/events/tally.ts).
    expect(m.queue.sent).toEqual([
      {
        type: DISPATCH_EVENT_JOB,
        event: expect.objectContaining({ id: email.ids.sentEvent, name: 'email.sent' }),
        listeners: ['activity'],
      },
      { type: 'events.tally', projectId: 'p1' },
      { type: 'events.tally', projectId: 'p1' },
    ]);
  });
});

describe('resumeEmail', () => {
  it('answers what an earlier attempt settled, and undefined when the email must be sent', async () => {
    const { m, deps } = setup();
    expect(await resumeEmail(deps, PROJECT, newIds())).toBeUndefined();

    const sent = await composed(deps);
    await deliverEmail(deps, sent, quick);
    expect(await resumeEmail(deps, PROJECT, sent.ids)).toEqual({
      contact: { id: 'c1', email: 'ann@example.org' },
      email: sent.record.id,
      status: 'sent',
    });
    // Its email.sent event is the same one: not stored twice.
    expect(eventsOf(m).filter((e) => e.id === sent.ids.sentEvent)).toHaveLength(1);

    const failing = setup(fakeMailer(new PermanentSendError('MESSAGE_REJECTED', 'Rejected')));
    const failed = await composed(failing.deps);
    await deliverEmail(failing.deps, failed, quick);
    expect(await resumeEmail(failing.deps, PROJECT, failed.ids)).toBeUndefined();
  });

  it('answers unknown for an email whose provider call was in flight, and emits a lost email.sent', async () => {
    const hanging = setup({ calls: [], sendRaw: () => new Promise(() => {}) } as never);
    const inFlight = await composed(hanging.deps);
    void deliverEmail(hanging.deps, inFlight, quick);
    await new Promise((r) => setTimeout(r, 10));
    expect(await resumeEmail(hanging.deps, PROJECT, inFlight.ids)).toMatchObject({
      status: 'unknown',
      reason: 'OUTCOME_UNKNOWN',
    });

    // SENT, but the attempt stopped before its event: the resume emits it, once.
    const { m, deps } = setup();
    const email = await composed(deps);
    m.failNext('put', 'EV#');
    await expect(deliverEmail(deps, email, quick)).rejects.toThrow('simulated crash');
    expect(eventsOf(m)).toEqual([]);
    expect((await resumeEmail(deps, PROJECT, email.ids))?.status).toBe('sent');
    expect((await resumeEmail(deps, PROJECT, email.ids))?.status).toBe('sent');
    expect(eventsOf(m).map((e) => [e.name, e.id])).toEqual([['email.sent', email.ids.sentEvent]]);
  });
});

describe('what /v1/send answers when nothing went out', () => {
  const entry = (status: SentEmail['status'], reason?: string): SentEmail => ({
    contact: { id: 'c', email: 'a@example.org' },
    email: 'e',
    status,
    ...(reason ? { reason, error: `because ${reason}` } : {}),
  });

  it('succeeds when any recipient was sent, skipped or unknown', () => {
    expect(unsentError([entry('sent'), entry('failed', 'MESSAGE_REJECTED')])).toBeUndefined();
    expect(unsentError([entry('skipped', 'unsubscribed')])).toBeUndefined();
    expect(
      unsentError([entry('unknown', 'OUTCOME_UNKNOWN'), entry('failed', 'RENDER_ERROR')]),
    ).toBeUndefined();
  });

  it('is 422 for content failures, 503 for throttling only, 502 otherwise', () => {
    expect(
      unsentError([entry('failed', 'RENDER_ERROR'), entry('failed', 'MESSAGE_TOO_LARGE')]),
    ).toMatchObject({
      statusCode: 422,
      code: 'TEMPLATE_RENDER_ERROR',
    });
    expect(unsentError([entry('failed', 'MESSAGE_TOO_LARGE')])).toMatchObject({
      statusCode: 422,
      code: 'MESSAGE_TOO_LARGE',
    });
    expect(unsentError([entry('failed', 'RATE_EXCEEDED'), entry('failed', 'SERVICE_ERROR')])).toMatchObject({
      statusCode: 503,
      code: 'EMAIL_SEND_THROTTLED',
    });
    expect(
      unsentError([entry('failed', 'RATE_EXCEEDED'), entry('failed', 'MESSAGE_REJECTED')]),
    ).toMatchObject({
      statusCode: 502,
      code: 'EMAIL_SEND_FAILED',
    });
  });
});
