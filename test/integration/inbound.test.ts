/**
 * Received mail through HTTP against the local runtime: `POST /_local/inbound` stores a raw
 * message as SES's receipt rule does on AWS and enqueues the `inbound.received` job, which records
 * `email.received` on the contact who sent it (read back with `GET /events/contact/{id}` and
 * `GET /activity`). SES's own notification, delivered raw to the jobs queue as the inbound topic
 * does on AWS, takes the same way. Mail nobody should get is dropped once, never retried into the
 * dead-letter queue.
 *
 * The seeded project's verified sender domain is `example.com`; mail to `inbound.example.com` (a
 * subdomain, as the deploy guide recommends for the MX record) reaches that project.
 */
import { describe, expect, it } from 'vitest';
import type { LocalInboundMail } from '../../shared/adapters/local/inbound-mail';
import type { QueueMessage } from '../../shared/ports';
import { createContact, listContactEvents, uniqueEmail } from './helpers/contacts';
import { enqueueAgain, postInbound, rawMessage, receivedNotification } from './helpers/inbound';
import { useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

const replyAddress = () => `reply@inbound.${rt.senderDomain}`;
const received = async (contactId: string) =>
  (await listContactEvents(rt, contactId)).filter((e) => e.name === 'email.received');
const jobDeadLetters = () => rt.queue.deadLetters('jobs');

describe('POST /_local/inbound', () => {
  it("records email.received on the sender's contact, shown by the events API and the activity feed", async () => {
    const email = uniqueEmail('inbound');
    const contactId = await createContact(rt, email);
    const raw = rawMessage({
      from: `Ann Lee <${email.toUpperCase()}>`,
      to: replyAddress(),
      subject: 'Re: Your order',
      text: `Thanks!\r\n\r\n${'more '.repeat(600)}`,
      inReplyTo: '<0100018e-sent@email.amazonses.com>',
      attachments: ['invoice.txt'],
    });
    const res = await postInbound(rt, raw);
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({
      key: `inbound/${res.body.messageId}`,
      messageId: expect.stringMatching(/^[a-z0-9]{40}$/),
      recipients: [replyAddress()],
      verdicts: { spam: 'PASS', virus: 'PASS', spf: 'PASS', dkim: 'PASS', dmarc: 'PASS' },
    });
    // Stored where the jobs worker reads, byte for byte.
    expect(Buffer.from((await rt.deps.inboundMail.get(res.body.key))!).toString()).toBe(raw);
    await rt.drain();

    const [event, ...more] = await received(contactId);
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      contactId,
      email,
      createdAt: res.body.receivedAt,
      data: {
        messageId: res.body.messageId,
        from: email,
        to: [replyAddress()],
        subject: 'Re: Your order',
        inReplyTo: '<0100018e-sent@email.amazonses.com>',
        attachments: 1,
        spamVerdict: 'PASS',
        virusVerdict: 'PASS',
      },
    });
    expect(event.data.text).toHaveLength(2000);
    expect(event.data.text.startsWith('Thanks!\n\nmore more')).toBe(true);

    const feed = await rt.api('GET', '/activity', { query: { types: 'email.received' } });
    expect(feed.status, feed.text).toBe(200);
    expect(feed.body.data.find((a: { id: string }) => a.id === event.id)).toMatchObject({
      type: 'email.received',
      contactId,
      contactEmail: email,
      timestamp: res.body.receivedAt,
      metadata: { messageId: res.body.messageId, subject: 'Re: Your order' },
    });
    expect(jobDeadLetters()).toEqual([]);
  });

  it('records one event when the same message is delivered twice', async () => {
    const email = uniqueEmail('twice');
    const contactId = await createContact(rt, email);
    const res = await postInbound(rt, rawMessage({ from: email, to: replyAddress(), text: 'Once' }));
    expect(res.status, res.text).toBe(202);
    await enqueueAgain(rt, res.body);
    await rt.drain();
    await enqueueAgain(rt, res.body);
    await rt.drain();
    expect(await received(contactId)).toHaveLength(1);
    expect(jobDeadLetters()).toEqual([]);
  });

  it('drops mail from an unknown sender, to a domain no project verified, or with a virus: no event, no dead letter', async () => {
    const email = uniqueEmail('dropped');
    const contactId = await createContact(rt, email);
    const stranger = await postInbound(rt, rawMessage({ from: uniqueEmail('stranger'), to: replyAddress() }));
    const nobodys = await postInbound(
      rt,
      rawMessage({ from: email, to: 'reply@unverified.test', text: 'x' }),
    );
    const infected = await postInbound(rt, rawMessage({ from: email, to: replyAddress(), text: 'x' }), {
      virus: 'FAIL',
    });
    for (const res of [stranger, nobodys, infected]) expect(res.status, res.text).toBe(202);
    expect(infected.body.verdicts.virus).toBe('FAIL');
    await rt.drain();
    expect(await received(contactId)).toEqual([]);
    expect(jobDeadLetters()).toEqual([]);
  });

  it('handles a message that is not MIME at all without failing the job', async () => {
    const garbage = new Uint8Array(64 * 1024).map((_, i) => (i * 7919 + 13) % 256);
    const res = await postInbound(rt, garbage, { to: replyAddress() });
    expect(res.status, res.text).toBe(202);
    const text = await postInbound(rt, 'hello, no headers here\r\n', { to: replyAddress() }, 'text/plain');
    expect(text.status, text.text).toBe(202);
    await rt.drain();
    expect(jobDeadLetters()).toEqual([]);
  });

  it('takes the recipients from ?to= and the verdicts from the query; refuses what SES would not take', async () => {
    const email = uniqueEmail('query');
    const contactId = await createContact(rt, email);
    const res = await postInbound(rt, rawMessage({ from: email, to: 'someone@else.test', text: 'Hi' }), {
      to: `${replyAddress()},sales@inbound.${rt.senderDomain}`,
      spam: 'gray',
    });
    expect(res.status, res.text).toBe(202);
    expect(res.body.recipients).toEqual([replyAddress(), `sales@inbound.${rt.senderDomain}`]);
    await rt.drain();
    const [event] = await received(contactId);
    expect(event?.data).toMatchObject({
      to: [replyAddress(), `sales@inbound.${rt.senderDomain}`],
      spamVerdict: 'GRAY',
    });

    const json = await rt.api('POST', '/_local/inbound', { key: null, body: { raw: 'x' } });
    expect(json.status).toBe(415);
    expect((await postInbound(rt, '')).status).toBe(422);
    expect((await postInbound(rt, 'Subject: nobody\r\n\r\nx')).status).toBe(422);
    expect((await postInbound(rt, 'Subject: nobody\r\n\r\nx', { to: '@,nobody' })).status).toBe(422);
    expect((await postInbound(rt, rawMessage({ from: email }), { virus: 'MAYBE' })).status).toBe(422);
    const huge = await postInbound(rt, new Uint8Array(10 * 1024 * 1024 + 1));
    expect(huge.status).toBe(413);
  });
});

describe("SES's Received notification on the jobs queue", () => {
  it('becomes the same job: the message stored under its key is recorded on the contact', async () => {
    const email = uniqueEmail('ses');
    const contactId = await createContact(rt, email);
    const notification = receivedNotification({
      messageId: `ses${Date.now().toString(36)}`,
      recipients: [replyAddress()],
      timestamp: rt.deps.clock.now().toISOString(),
    });
    const key = notification.receipt.action.objectKey;
    await (rt.deps.inboundMail as LocalInboundMail).put(
      key,
      new TextEncoder().encode(
        rawMessage({ from: email, to: replyAddress(), subject: 'Via SES', text: 'Hi' }),
      ),
    );
    // As the inbound topic delivers it (raw message delivery): the notification itself, no `type`.
    const deliver = () =>
      rt.queue.send('jobs', notification as unknown as QueueMessage, { typeAttribute: false });
    await deliver();
    await rt.drain();
    await deliver();
    await rt.drain();
    const events = await received(contactId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      createdAt: notification.receipt.timestamp,
      data: { messageId: notification.mail.messageId, subject: 'Via SES', spamVerdict: 'PASS' },
    });

    // The setup notification SES sends when the rule is created, and a notification whose object
    // has expired, are dropped.
    for (const messageId of ['AMAZON_SES_SETUP_NOTIFICATION', 'expired-message-id']) {
      await rt.queue.send(
        'jobs',
        receivedNotification({ messageId, recipients: [replyAddress()] }) as unknown as QueueMessage,
        { typeAttribute: false },
      );
    }
    await rt.drain();
    expect(jobDeadLetters()).toEqual([]);
  });
});
