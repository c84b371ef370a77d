/**
 * What happens after the send, through HTTP against the local runtime: the mail sink publishes
 * what SES would (Send, then Delivery, Bounce or Complaint, with the mailbox simulator's
 * outcomes), `POST /_local/emails/{id}/open` and `/click` stand in for a recipient, and the jobs
 * queue applies each event once: the email record moves on, the `email.*` event is recorded, a
 * permanent bounce or a complaint suppresses the address and unsubscribes the contact, and every
 * send path skips a suppressed address with reason `suppressed`.
 */
import { describe, expect, it } from 'vitest';
import { applySesEvent } from '../../shared/email-events/apply';
import { SENDING_GRACE_MS } from '../../shared/email-events/repository';
import { keys } from '../../shared/table';
import { contactByEmail, contactEvents, uniqueEmail } from './helpers/contacts';
import { type Json, useLocalRuntime } from './helpers/local';
import { emailRecord } from './helpers/mime';

const rt = useLocalRuntime();
const from = () => 'hello@example.com';
const SIM = 'simulator.amazonses.com';

async function send(to: string, extra: Record<string, unknown> = {}): Promise<Json> {
  const res = await rt.api('POST', '/v1/send', {
    body: {
      to,
      from: from(),
      subject: 'Hi',
      body: '<p>Hello, <a href="https://example.org/a">a link</a></p>',
      subscribed: true,
      ...extra,
    },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.emails[0];
}

/** The sink's message of `emailId`. */
async function sinkMessage(emailId: string): Promise<Json> {
  const res = await rt.api('GET', '/_local/emails');
  const found = (res.body as Json[]).find((m) => m.tags.emailId === emailId);
  expect(found, `a sink message for ${emailId}`).toBeDefined();
  const one = await rt.api('GET', `/_local/emails/${found.id}`);
  expect(one.status).toBe(200);
  return one.body;
}

const names = async (contactId: string) => (await contactEvents(rt, contactId)).map((e) => e.name);

describe('SES events applied to the emails they are about', () => {
  it('delivers: the record becomes DELIVERED and email.delivered is recorded once', async () => {
    const to = uniqueEmail('deliver');
    const sent = await send(to);
    await rt.drain();
    const record = (await emailRecord(rt, sent.email)) as Json;
    expect(record).toMatchObject({ status: 'DELIVERED', deliveredAt: expect.any(String) });
    expect(record.appliedEvents).toBeDefined();
    const message = await sinkMessage(sent.email);
    expect(message.events.map((e: Json) => e.eventType)).toEqual(['Send', 'Delivery']);
    expect(await names(sent.contact.id)).toEqual(expect.arrayContaining(['email.sent', 'email.delivered']));
    const delivered = (await contactEvents(rt, sent.contact.id)).filter((e) => e.name === 'email.delivered');
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.data).toMatchObject({
      emailId: sent.email,
      subject: 'Hi',
      from: from(),
      first: true,
    });
    // The Send event found the record SENT already (the sender recorded it): no second email.sent.
    expect((await names(sent.contact.id)).filter((n) => n === 'email.sent')).toHaveLength(1);
  });

  it('applies each event once, however often it is delivered', async () => {
    const to = uniqueEmail('twice');
    const sent = await send(to);
    await rt.drain();
    const message = await sinkMessage(sent.email);
    const delivery = message.events.find((e: Json) => e.eventType === 'Delivery');
    const before = (await emailRecord(rt, sent.email)) as Json;
    expect(await applySesEvent(rt.deps, delivery)).toBe('applied-before');
    expect(await applySesEvent(rt.deps, delivery)).toBe('applied-before');
    const after = (await emailRecord(rt, sent.email)) as Json;
    expect(after.updatedAt).toBe(before.updatedAt);
    const delivered = (await names(sent.contact.id)).filter((n) => n === 'email.delivered');
    expect(delivered).toHaveLength(1);
  });

  it('counts opens and clicks, with the first time of each, from the local stand-ins', async () => {
    const to = uniqueEmail('engage');
    const sent = await send(to);
    await rt.drain();
    const message = await sinkMessage(sent.email);
    for (let i = 0; i < 2; i++) {
      const open = await rt.api('POST', `/_local/emails/${message.id}/open`);
      expect(open.status, open.text).toBe(202);
      await rt.runtime.clock.advance(1);
    }
    const click = await rt.api('POST', `/_local/emails/${message.id}/click`, {
      body: { link: 'https://example.org/a' },
    });
    expect(click.status, click.text).toBe(202);
    await rt.drain();
    const record = (await emailRecord(rt, sent.email)) as Json;
    expect(record).toMatchObject({ status: 'DELIVERED', opens: 2, clicks: 1 });
    expect(record.openedAt).toEqual(expect.any(String));
    expect(record.clickedAt).toEqual(expect.any(String));
    const events = await contactEvents(rt, sent.contact.id);
    const opened = events.filter((e) => e.name === 'email.opened');
    expect(opened).toHaveLength(2);
    expect(opened.map((e) => e.data.first)).toEqual([true, false]);
    const clicked = events.filter((e) => e.name === 'email.clicked');
    expect(clicked).toHaveLength(1);
    expect(clicked[0]!.data).toMatchObject({ link: 'https://example.org/a', first: true });
    // The inbox's Events tab lists the message's SES events and the email's recorded ones.
    const shown = await rt.api('GET', `/_local/mail/messages/${message.id}/events`, { key: null });
    expect(shown.body.ses.map((e: Json) => e.type)).toEqual(['Send', 'Delivery', 'Open', 'Open', 'Click']);
    expect(shown.body.ses[4].detail).toBe('https://example.org/a');
    expect(shown.body.email).toMatchObject({ status: 'DELIVERED', fields: { opens: 2, clicks: 1 } });
    // Every email.* event of this email on the contact, oldest first.
    const ofEmail = events.filter((e) => e.data.emailId === sent.email);
    expect(ofEmail.map((e) => e.name).sort()).toEqual([
      'email.clicked',
      'email.delivered',
      'email.opened',
      'email.opened',
      'email.sent',
    ]);
    expect(shown.body.events.map((e: Json) => e.name)).toEqual(ofEmail.map((e) => e.name));
    expect(shown.body.events.map((e: Json) => e.data)).toEqual(ofEmail.map((e) => e.data));
  });

  it('refuses a click without a link or with a link the message does not have, and unknown messages', async () => {
    const sent = await send(uniqueEmail('badclick'));
    const message = await sinkMessage(sent.email);
    expect((await rt.api('POST', `/_local/emails/${message.id}/click`, { body: {} })).status).toBe(422);
    expect(
      (await rt.api('POST', `/_local/emails/${message.id}/click`, { body: { link: 'https://evil.test/' } }))
        .status,
    ).toBe(422);
    expect((await rt.api('POST', '/_local/emails/nope/open')).status).toBe(404);
    await rt.drain();
  });

  it('suppresses a permanently bounced address, unsubscribes its contact, and skips it from then on', async () => {
    const to = `bounce+${Date.now().toString(36)}@${SIM}`;
    const sent = await send(to);
    await rt.drain();
    const record = (await emailRecord(rt, sent.email)) as Json;
    expect(record).toMatchObject({ status: 'BOUNCED', bouncedAt: expect.any(String) });
    const events = await contactEvents(rt, sent.contact.id);
    expect(events.find((e) => e.name === 'email.bounced')!.data).toMatchObject({
      bounceType: 'Permanent',
      bounceSubType: 'General',
    });
    expect(events.find((e) => e.name === 'contact.unsubscribed')!.data).toMatchObject({ source: 'bounce' });
    expect((await contactByEmail(rt, to))!.subscribed).toBe(false);
    const suppressed = await rt.deps.store.get(keys.suppression(rt.projectId, to));
    expect(suppressed).toMatchObject({ reason: 'bounce', emailId: sent.email });

    // Suppressed: skipped whatever the content, even TRANSACTIONAL and even when resubscribed.
    await rt.api('PATCH', `/contacts/${sent.contact.id}`, { body: { subscribed: true } });
    const before = (await rt.mails()).length;
    const again = await send(to);
    expect(again).toMatchObject({ status: 'skipped', reason: 'suppressed' });
    expect((await emailRecord(rt, again.email)) as Json).toMatchObject({
      status: 'SKIPPED',
      reason: 'suppressed',
    });
    await rt.drain();
    expect((await rt.mails()).length).toBe(before);
  });

  it('treats a complaint as a delivery, then suppresses and unsubscribes', async () => {
    const to = `complaint+${Date.now().toString(36)}@${SIM}`;
    const sent = await send(to);
    await rt.drain();
    expect((await emailRecord(rt, sent.email)) as Json).toMatchObject({
      status: 'COMPLAINED',
      deliveredAt: expect.any(String),
      complainedAt: expect.any(String),
    });
    const events = await names(sent.contact.id);
    expect(events).toEqual(
      expect.arrayContaining(['email.delivered', 'email.complained', 'contact.unsubscribed']),
    );
    expect(await rt.deps.store.get(keys.suppression(rt.projectId, to))).toMatchObject({
      reason: 'complaint',
    });
  });

  it('moves a status only forward: a Delivery after the Complaint leaves COMPLAINED', async () => {
    const to = `complaint+late${Date.now().toString(36)}@${SIM}`;
    const sent = await send(to);
    await rt.drain();
    const message = await sinkMessage(sent.email);
    const delivery = message.events.find((e: Json) => e.eventType === 'Delivery');
    const late = { ...delivery, delivery: { ...delivery.delivery, timestamp: new Date().toISOString() } };
    expect(await applySesEvent(rt.deps, late)).toBe('applied');
    expect((await emailRecord(rt, sent.email)) as Json).toMatchObject({ status: 'COMPLAINED' });
  });

  it('drops events of unknown emails and unreadable records with a log line, never a retry', async () => {
    const sent = await send(uniqueEmail('unknown'));
    await rt.drain();
    const message = await sinkMessage(sent.email);
    const delivery = message.events.find((e: Json) => e.eventType === 'Delivery');
    const stranger = {
      ...delivery,
      mail: { ...delivery.mail, tags: { ...delivery.mail.tags, emailId: ['no-such-email'] } },
    };
    expect(await applySesEvent(rt.deps, stranger)).toBe('unknown-email');
    const untagged = { ...delivery, mail: { ...delivery.mail, tags: {} } };
    expect(await applySesEvent(rt.deps, untagged)).toBe('untagged');
    expect(await applySesEvent(rt.deps, { eventType: 'Delivery', mail: {} })).toBe('malformed');
    expect(await applySesEvent(rt.deps, { ...delivery, eventType: 'Subscription' })).toBe('unhandled-type');
    // Through the queue: the job succeeds, nothing is dead-lettered.
    await rt.runtime.queue.send('jobs', { type: 'ses.event', event: stranger });
    await rt.drain();
    expect(rt.runtime.queue.deadLetters()).toEqual([]);
  });

  it('settles a recipient a crash left SENDING with its Send event, once the sender cannot be alive', async () => {
    const sent = await send(uniqueEmail('settle'));
    await rt.drain();
    const message = await sinkMessage(sent.email);
    const sendEvent = message.events.find((e: Json) => e.eventType === 'Send');
    // As if the sender had stopped between SES's answer and its own outcome write.
    const key = keys.emailMessage(rt.projectId, sent.email);
    const now = rt.deps.clock.now().toISOString();
    await rt.deps.store.write({
      update: key,
      expression: 'SET #s = :s, updatedAt = :now REMOVE messageId',
      names: { '#s': 'status' },
      values: { ':s': 'SENDING', ':now': now },
    });
    // Too soon: the sender may be alive; the event waits for the grace period, then settles it.
    expect(await applySesEvent(rt.deps, sendEvent)).toBe('deferred');
    expect((await emailRecord(rt, sent.email)) as Json).toMatchObject({ status: 'SENDING' });
    await rt.runtime.clock.advance(SENDING_GRACE_MS / 1000 + 1);
    await rt.drain({ timeoutMs: 20_000 });
    const record = (await emailRecord(rt, sent.email)) as Json;
    // Settled, with the status its Delivery (applied while it waited) implies.
    expect(record).toMatchObject({
      status: 'DELIVERED',
      messageId: message.id,
      settledBy: expect.any(String),
    });
    const sentEvents = (await names(sent.contact.id)).filter((n) => n === 'email.sent');
    expect(sentEvents).toHaveLength(2); // the sender's before the simulated crash, and the settle's
    // Each stands for its send in the month's usage when the event tally meets it (no cap here).
    const stored: Json[] = [];
    for await (const item of rt.deps.store.queryAll({
      partition: keys.contactPartition(rt.projectId, sent.contact.id),
      sort: { beginsWith: 'EV#' },
    }))
      if (item.name === 'email.sent') stored.push(item);
    expect(stored.map((e) => e.tallyUsage)).toEqual(['transactional', 'transactional']);
    expect(await applySesEvent(rt.deps, sendEvent)).toBe('applied-before');
  });
});
