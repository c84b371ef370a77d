/**
 * The event seam end to end: every path that records an event (track, a subscription flipped by
 * PATCH, by a bulk job, by the one-click unsubscribe page, or written again from the contact's
 * outbox, `email.sent` / `email.failed` from /v1/send) reaches a listener registered for its name
 * exactly once, through one `events.dispatch` message on the jobs queue; nothing is enqueued for
 * an event no listener wants; and a crash between the dispatch and the event's write loses
 * neither.
 *
 * The runtime's route groups and jobs worker get the test's listener registry through their deps
 * (`deps.listeners`), as a composition root would hand them one; the service's own catalog has no
 * listeners yet.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createHandler as contactsGroup } from '../../functions/http/contacts';
import { createHandler as eventsGroup } from '../../functions/http/events';
import { createHandler as publicGroup } from '../../functions/http/public';
import { createHandler as trackGroup } from '../../functions/http/track';
import { createHandler as jobsWorker } from '../../functions/queues/jobs';
import { PermanentSendError } from '../../shared/adapters/aws/send-errors';
import { importContacts } from '../../shared/contacts/batch';
import { parseDataPatch } from '../../shared/contacts/data';
import { patchContact } from '../../shared/contacts/service';
import { DISPATCH_EVENT_JOB, type DispatchEventMessage } from '../../shared/events/emit';
import { defineListener, ListenerRegistry } from '../../shared/events/registry';
import type { EventRecord } from '../../shared/events/repository';
import { TALLY_JOB } from '../../shared/events/tally';
import type { Deps, QueueMessage, QueuePort } from '../../shared/ports';
import { parseSendRequest } from '../../shared/sending/schemas';
import { sendEmails } from '../../shared/sending/service';
import { signToken } from '../../shared/subscriptions/links';
import { trackEvent } from '../../shared/tracking/service';
import { createContact, listContactEvents, uniqueEmail } from './helpers/contacts';
import { settleEventCounts } from './helpers/events';
import { StoreFaults } from './helpers/faults';
import { type Json, useLocalRuntime } from './helpers/local';

/** What the test listener was handed, in order. */
const heard: { event: EventRecord; messageId: string }[] = [];
/**
 * Every message put on a queue by the handlers and use cases under test, but the event tally's:
 * every event write arms it (once a second per project), and it counts events, it calls no one.
 */
const sent: QueueMessage[] = [];

const listeners = new ListenerRegistry([
  defineListener({
    name: 'test.recorder',
    events: ['signup', 'contact.*', 'email.*'],
    handle: async (_deps, event, meta) => {
      heard.push({ event, messageId: meta.messageId });
    },
  }),
]);

const recording = (queue: QueuePort): QueuePort => ({
  send: async (name, message, options) => {
    if (message.type !== TALLY_JOB) sent.push(message);
    await queue.send(name, message, options);
  },
});

/** `deps` as a composition root with listeners would hand them to a function. */
const withListeners = <D extends Pick<Deps, 'queue'>>(deps: D) => ({
  ...deps,
  listeners,
  queue: recording(deps.queue),
});

const rt = useLocalRuntime({
  handlers: {
    http: {
      public: (deps: Deps) => publicGroup(withListeners(deps)),
      track: (deps: Deps) => trackGroup(withListeners(deps)),
      contacts: (deps: Deps) => contactsGroup(withListeners(deps)),
      events: (deps: Deps) => eventsGroup(withListeners(deps)),
    },
    queues: { jobs: (deps: Deps) => jobsWorker(withListeners(deps)) },
  },
});

const from = () => `hello@${rt.senderDomain}`;

const dispatches = () =>
  sent.filter((m): m is DispatchEventMessage => m.type === DISPATCH_EVENT_JOB).map((m) => m.event);

/** How often the listener got the event `id`, and how many dispatch messages carried it. */
function deliveries(id: string) {
  return {
    heard: heard.filter((h) => h.event.id === id).length,
    dispatched: dispatches().filter((e) => e.id === id).length,
  };
}

/** Events the listener heard about a contact, by name, in order. */
const heardFor = (contactId: string) =>
  heard.filter((h) => h.event.contactId === contactId).map((h) => h.event.name);

beforeEach(async () => {
  await rt.drain();
  heard.length = 0;
  sent.length = 0;
});

describe('every emitting path reaches a matching listener once, through the queue', () => {
  it('POST /v1/track and POST /events/track', async () => {
    const email = uniqueEmail('track');
    const res = await rt.api('POST', '/v1/track', {
      key: rt.publicKey,
      body: { email, event: 'signup', data: { plan: 'pro' } },
    });
    expect(res.status, res.text).toBe(200);
    const alias = await rt.api('POST', '/events/track', { body: { email, event: 'signup' } });
    expect(alias.status, alias.text).toBe(200);
    await rt.drain();
    for (const id of [res.body.data.event, alias.body.data.event])
      expect(deliveries(id), id).toEqual({ heard: 1, dispatched: 1 });
    const [first] = heard;
    expect(first!.event).toMatchObject({ name: 'signup', email, data: { plan: 'pro' } });
    expect(first!.messageId).toEqual(expect.any(String));
    expect((await listContactEvents(rt, res.body.data.contact)).map((e) => e.id).sort()).toEqual(
      [res.body.data.event, alias.body.data.event].sort(),
    );
  });

  it('PATCH /contacts/{id} flipping the subscription, both ways', async () => {
    const id = await createContact(rt, uniqueEmail('patch'));
    for (const subscribed of [false, true]) {
      const res = await rt.api('PATCH', `/contacts/${id}`, { body: { subscribed } });
      expect(res.status, res.text).toBe(200);
    }
    await rt.drain();
    expect(heardFor(id)).toEqual(['contact.unsubscribed', 'contact.subscribed']);
    for (const h of heard) expect(deliveries(h.event.id)).toEqual({ heard: 1, dispatched: 1 });
    expect((await listContactEvents(rt, id)).map((e) => e.name).sort()).toEqual([
      'contact.subscribed',
      'contact.unsubscribed',
    ]);
  });

  it('the outbox: the next update writes the pending event again without dispatching it twice', async () => {
    const id = await createContact(rt, uniqueEmail('outbox'));
    expect((await rt.api('PATCH', `/contacts/${id}`, { body: { subscribed: false } })).status).toBe(200);
    await rt.drain();
    sent.length = 0;
    // The contact item still carries the event as pending; this write replays it.
    expect((await rt.api('PATCH', `/contacts/${id}`, { body: { data: { touched: 1 } } })).status).toBe(200);
    await rt.drain();
    expect(sent).toEqual([]);
    expect(heardFor(id)).toEqual(['contact.unsubscribed']);
    expect(await listContactEvents(rt, id)).toHaveLength(1);
  });

  it('the outbox: an event whose dispatch never left is emitted whole by the next update', async () => {
    const id = await createContact(rt, uniqueEmail('outbox-lost'));
    // The contact is written with its pending event; then the queue refuses the dispatch.
    const down = {
      ...withListeners(rt.deps),
      queue: { send: () => Promise.reject(new Error('simulated crash')) },
    };
    await expect(patchContact(down, rt.projectId, id, { subscribed: false })).rejects.toThrow(
      'simulated crash',
    );
    expect((await rt.api('GET', `/contacts/${id}`)).body.subscribed).toBe(false);
    expect(await listContactEvents(rt, id)).toEqual([]);

    expect((await rt.api('PATCH', `/contacts/${id}`, { body: { data: { touched: 1 } } })).status).toBe(200);
    await rt.drain();
    expect(heardFor(id)).toEqual(['contact.unsubscribed']);
    expect(deliveries(heard[0]!.event.id)).toEqual({ heard: 1, dispatched: 1 });
    expect((await listContactEvents(rt, id)).map((e) => e.name)).toEqual(['contact.unsubscribed']);
  });

  it('the outbox written again by an import chunk: dispatched once, if it never was', async () => {
    const email = uniqueEmail('outbox-import');
    const id = await createContact(rt, email);
    const down = {
      ...withListeners(rt.deps),
      queue: { send: () => Promise.reject(new Error('simulated crash')) },
    };
    await expect(patchContact(down, rt.projectId, id, { subscribed: false })).rejects.toThrow(
      'simulated crash',
    );
    const rows = [{ row: 2, email, patch: parseDataPatch({ plan: 'pro' }) }];
    const results = await importContacts(withListeners(rt.deps), rt.projectId, 'import-outbox', rows);
    expect(results.get(2)).toEqual({ outcome: 'updated' });
    await rt.drain();
    expect(heardFor(id)).toEqual(['contact.unsubscribed']);
    expect(deliveries(heard[0]!.event.id)).toEqual({ heard: 1, dispatched: 1 });
    expect((await listContactEvents(rt, id)).map((e) => e.name)).toEqual(['contact.unsubscribed']);
  });

  it('bulk-unsubscribe and bulk-subscribe, for the contacts they change', async () => {
    const on = await createContact(rt, uniqueEmail('bulk-on'), true);
    const off = await createContact(rt, uniqueEmail('bulk-off'), false);
    for (const op of ['unsubscribe', 'subscribe']) {
      const res = await rt.api('POST', `/contacts/bulk-${op}`, { body: { contactIds: [on, off] } });
      expect(res.status, res.text).toBe(202);
      await rt.drain();
    }
    // `on` went off and back on; `off` was already off, then came on.
    expect(heardFor(on)).toEqual(['contact.unsubscribed', 'contact.subscribed']);
    expect(heardFor(off)).toEqual(['contact.subscribed']);
    for (const h of heard) expect(deliveries(h.event.id)).toEqual({ heard: 1, dispatched: 1 });
  });

  it('the one-click unsubscribe of a subscription link', async () => {
    const id = await createContact(rt, uniqueEmail('one-click'));
    const secret = await rt.deps.config.linkSigningSecret();
    const token = signToken(secret!, { projectId: rt.projectId, contactId: id, action: 'unsubscribe' });
    const res = await rt.api('POST', `/v1/subscription/${token}`, {
      key: null,
      raw: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status, res.text).toBe(200);
    await rt.drain();
    expect(heardFor(id)).toEqual(['contact.unsubscribed']);
    expect(heard[0]!.event.data).toEqual({ source: 'one_click_unsubscribe' });
  });

  it('POST /v1/send: email.sent per recipient sent, email.failed per recipient refused', async () => {
    const ok = uniqueEmail('send-ok');
    const bad = uniqueEmail('send-bad');
    const sink = rt.mailSink;
    const original = sink.sendRaw.bind(sink);
    sink.sendRaw = async (email) => {
      if (email.to.includes(bad)) throw new PermanentSendError('MESSAGE_REJECTED', 'Rejected');
      return original(email);
    };
    let res: Json;
    try {
      res = await rt.api('POST', '/v1/send', {
        body: { to: [ok, bad], from: from(), subject: 's', body: 'b' },
      });
    } finally {
      sink.sendRaw = original;
    }
    expect(res.status, res.text).toBe(200);
    await rt.drain();
    const [sentTo, failedTo] = res.body.data.emails as Json[];
    // Then the mail sink's Delivery, as SES would report it.
    expect(heardFor(sentTo.contact.id)).toEqual(['email.sent', 'email.delivered']);
    expect(heardFor(failedTo.contact.id)).toEqual(['email.failed']);
    expect(heard.map((h) => h.event.data.emailId).sort()).toEqual(
      [sentTo.email, failedTo.email, sentTo.email].sort(),
    );
    for (const h of heard) expect(deliveries(h.event.id)).toEqual({ heard: 1, dispatched: 1 });
  });
});

describe('no listener, no message', () => {
  it('an event no pattern matches, and a contact update that flips nothing, enqueue nothing', async () => {
    const email = uniqueEmail('quiet');
    const res = await rt.api('POST', '/v1/track', {
      key: rt.publicKey,
      body: { email, event: 'page.viewed' },
    });
    expect(res.status, res.text).toBe(200);
    const id = res.body.data.contact;
    expect((await rt.api('PATCH', `/contacts/${id}`, { body: { data: { plan: 'pro' } } })).status).toBe(200);
    await rt.drain();
    expect(sent).toEqual([]);
    expect(heard).toEqual([]);
    expect((await listContactEvents(rt, id)).map((e) => e.name)).toEqual(['page.viewed']);
  });
});

describe('a crash between the dispatch and the event write', () => {
  const faults = new StoreFaults();
  const crashAtEventWrite = () =>
    faults.failAt((call) => call.op === 'put' && call.key !== undefined && call.key.sk.startsWith('EV#'));

  it('loses no tracked event: the dispatch job stores it and the listener hears it once', async () => {
    crashAtEventWrite();
    const deps = faults.inject(withListeners(rt.deps));
    const email = uniqueEmail('crash-track');
    await expect(
      trackEvent(deps, rt.projectId, { email, event: 'signup', patch: parseDataPatch({ a: 1 }) }),
    ).rejects.toThrow('simulated crash');
    expect(faults.fired).toBe(true);
    await rt.drain();
    expect(heard).toHaveLength(1);
    const { event } = heard[0]!;
    expect(deliveries(event.id)).toEqual({ heard: 1, dispatched: 1 });
    expect((await listContactEvents(rt, event.contactId)).map((e) => e.id)).toEqual([event.id]);
    // Counted once: the job's write is the only one.
    await settleEventCounts(rt);
    const names = await rt.api('GET', '/events/names');
    const stored = await rt.api('GET', '/events', { query: { name: 'signup', limit: 100 } });
    expect(names.body.names.find((n: Json) => n.name === 'signup')?.count).toBe(stored.body.data.length);
  });

  it('loses no email.sent: the mail went out, the job stores its event', async () => {
    crashAtEventWrite();
    const deps = faults.inject(withListeners(rt.deps));
    const to = uniqueEmail('crash-send');
    const input = parseSendRequest({ to, from: from(), subject: 's', body: 'b' });
    await expect(sendEmails(deps, rt.projectId, input)).rejects.toThrow('simulated crash');
    expect(faults.fired).toBe(true);
    await rt.drain();
    expect(await rt.mailSink.list().then((all) => all.filter((m) => m.to.includes(to)))).toHaveLength(1);
    // email.sent, then the mail sink's Delivery, as SES would report it.
    expect(heard.map((h) => h.event.name)).toEqual(['email.sent', 'email.delivered']);
    const { event } = heard[0]!;
    expect(deliveries(event.id)).toEqual({ heard: 1, dispatched: 1 });
    expect((await listContactEvents(rt, event.contactId)).map((e) => e.name).sort()).toEqual([
      'email.delivered',
      'email.sent',
    ]);
  });

  it('loses no subscription event, and the outbox replay does not dispatch it again', async () => {
    const id = await createContact(rt, uniqueEmail('crash-sub'));
    crashAtEventWrite();
    const deps = faults.inject(withListeners(rt.deps));
    await expect(patchContact(deps, rt.projectId, id, { subscribed: false })).rejects.toThrow(
      'simulated crash',
    );
    expect(faults.fired).toBe(true);
    await rt.drain();
    expect(heardFor(id)).toEqual(['contact.unsubscribed']);
    expect((await listContactEvents(rt, id)).map((e) => e.name)).toEqual(['contact.unsubscribed']);

    sent.length = 0;
    expect((await rt.api('PATCH', `/contacts/${id}`, { body: { data: { touched: 1 } } })).status).toBe(200);
    await rt.drain();
    expect(sent).toEqual([]);
    expect(heardFor(id)).toEqual(['contact.unsubscribed']);
    expect(await listContactEvents(rt, id)).toHaveLength(1);
  });
});
