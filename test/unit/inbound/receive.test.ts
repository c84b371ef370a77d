/**
 * Receiving one email on its own (shared/inbound): reading the raw message (postal-mime), finding
 * the project from the recipients' domains and the contact from the From address, and the
 * `email.received` event; what is dropped, and what it costs to drop it. An in-memory store,
 * queue and inbound bucket stand in for DynamoDB, SQS and S3.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ContactRecord, putClaim, putNewContact } from '../../../shared/contacts/repository';
import { type Domain, putDomain, receivingProject } from '../../../shared/domains/repository';
import { INBOUND_RECEIVED_JOB, type InboundReceivedMessage } from '../../../shared/inbound/messages';
import { cut, MAX_TEXT_CHARS, readInboundMessage } from '../../../shared/inbound/parse';
import { RECEIVED_EVENT, receiveInboundMail } from '../../../shared/inbound/receive';
import type { InboundMailPort } from '../../../shared/ports';
import { keys } from '../../../shared/table';
import { rawMessage } from '../../integration/helpers/inbound';
import { memory } from '../events/memory-store';

const bytes = (s: string) => new TextEncoder().encode(s);
const NOW = '2026-03-02T10:15:31.000Z';

describe('readInboundMessage', () => {
  it('reads the sender, subject, text, what it replies to and its attachments', async () => {
    const facts = await readInboundMessage(
      bytes(
        rawMessage({
          from: 'Ann Lee <Ann@Example.ORG>',
          subject: '=?UTF-8?B?UmU6IEjDqWxsbyDwn5GL?=',
          text: 'Thanks, see attached.\r\n\r\n> quoted',
          inReplyTo: '<0100018e-abc@email.amazonses.com>',
          attachments: ['a.txt', 'b.txt'],
        }),
      ),
    );
    expect(facts).toEqual({
      from: 'ann@example.org',
      subject: 'Re: Héllo 👋',
      text: 'Thanks, see attached.\n\n> quoted',
      inReplyTo: '<0100018e-abc@email.amazonses.com>',
      attachments: 2,
    });
  });

  it("takes an HTML-only message's text from its HTML, and keeps 2,000 characters of it", async () => {
    const html = await readInboundMessage(
      bytes(rawMessage({ from: 'ann@example.org', html: '<p>Hello <b>there</b></p><p>Second</p>' })),
    );
    expect(html).toMatchObject({
      text: 'Hello there\n\nSecond',
      subject: null,
      inReplyTo: null,
      attachments: 0,
    });
    const long = await readInboundMessage(
      bytes(rawMessage({ from: 'ann@example.org', text: 'x'.repeat(5000) })),
    );
    expect((long as { text: string }).text).toBe('x'.repeat(MAX_TEXT_CHARS));
  });

  it('reads anything without throwing: bytes that are not MIME are a message without a sender', async () => {
    const garbage = new Uint8Array(4096).map((_, i) => (i * 7919) % 256);
    expect(await readInboundMessage(garbage)).toMatchObject({ from: undefined });
    expect(await readInboundMessage(bytes('just some words\r\n'))).toMatchObject({ from: undefined });
    // A From that is a group, or not an address, names nobody.
    const group = await readInboundMessage(bytes(rawMessage({ from: 'Team: ;', text: 'x' })));
    expect(group).toMatchObject({ from: undefined });
  });

  it('never cuts a text inside a surrogate pair', () => {
    expect(cut(`${'a'.repeat(9)}👋`, 10)).toBe('a'.repeat(9));
    expect(cut('abc', 10)).toBe('abc');
  });
});

/** A project's sender domain, claimed deployment-wide, as `POST /domains` leaves it. */
async function seedDomain(m: ReturnType<typeof memory>, projectId: string, name: string, verified = true) {
  const domain: Domain = {
    id: `${projectId}-${name}`,
    projectId,
    domain: name,
    status: verified ? 'VERIFIED' : 'PENDING',
    verified,
    records: [],
    lastCheckedAt: null,
    verifiedAt: verified ? NOW : null,
    createdAt: NOW,
  };
  await putDomain(m, domain);
  await m.store.write({
    put: { ...keys.domainClaim(name), projectId, ownsIdentity: false, claimedAt: NOW },
  });
}

async function seedContact(m: ReturnType<typeof memory>, projectId: string, email: string, id: string) {
  const record: ContactRecord = {
    id,
    email,
    emailLower: email.toLowerCase(),
    subscribed: true,
    snoozedUntil: null,
    data: {},
    createdAt: NOW,
    updatedAt: NOW,
    version: 1,
  };
  await putClaim(m, projectId, email, id);
  await putNewContact(m, projectId, record);
}

describe('receivingProject', () => {
  it("is the project of the nearest verified sender domain: the recipient's domain or a parent", async () => {
    const m = memory();
    await seedDomain(m, 'p1', 'acme.io');
    await seedDomain(m, 'p2', 'eu.acme.io');
    expect(await receivingProject(m, 'inbound.acme.io')).toEqual({ projectId: 'p1', domain: 'acme.io' });
    expect(await receivingProject(m, 'ACME.io.')).toEqual({ projectId: 'p1', domain: 'acme.io' });
    expect(await receivingProject(m, 'reply.eu.acme.io')).toEqual({ projectId: 'p2', domain: 'eu.acme.io' });
    expect(await receivingProject(m, 'other.io')).toBeUndefined();
    // The top-level domain is never looked up.
    const gets = m.log.filter((s) => s.op === 'get').map((s) => ('key' in s ? s.key.pk : ''));
    expect(gets).not.toContain('DOMAIN#io');
  });

  it('never reaches a project that has not verified the nearest domain, and skips stale claims', async () => {
    const m = memory();
    await seedDomain(m, 'p1', 'acme.io');
    await seedDomain(m, 'p2', 'inbound.acme.io', false);
    expect(await receivingProject(m, 'inbound.acme.io')).toBeUndefined();
    // A claim whose project holds no such domain (a crashed add) is no claim.
    await m.store.write({
      put: { ...keys.domainClaim('shop.acme.io'), projectId: 'p3', ownsIdentity: false, claimedAt: NOW },
    });
    expect(await receivingProject(m, 'shop.acme.io')).toEqual({ projectId: 'p1', domain: 'acme.io' });
  });
});

describe('receiveInboundMail', () => {
  let m: ReturnType<typeof memory>;
  let stored: Map<string, Uint8Array>;
  let reads: string[];
  const inboundMail: InboundMailPort = {
    get: async (key) => {
      reads.push(key);
      return stored.get(key);
    },
  };
  const deps = () => ({ store: m.store, queue: m.queue, clock: { now: () => new Date(NOW) }, inboundMail });

  const message = (overrides: Partial<InboundReceivedMessage> = {}): InboundReceivedMessage => ({
    type: INBOUND_RECEIVED_JOB,
    key: 'inbound/msg-1',
    messageId: 'msg-1',
    receivedAt: '2026-03-02T10:15:30.123Z',
    recipients: ['reply@inbound.acme.io'],
    verdicts: { spam: 'PASS', virus: 'PASS', spf: 'PASS' },
    ...overrides,
  });
  const events = () => m.itemsWhere('EV#');

  afterEach(() => {
    vi.restoreAllMocks();
  });

  beforeEach(async () => {
    m = memory();
    stored = new Map();
    reads = [];
    vi.spyOn(console, 'info').mockImplementation(() => {});
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    await seedDomain(m, 'p1', 'acme.io');
    await seedContact(m, 'p1', 'Ann@Example.org', 'c1');
    stored.set(
      'inbound/msg-1',
      bytes(
        rawMessage({
          from: 'Ann <ann@example.org>',
          to: 'reply@inbound.acme.io',
          subject: 'Re: Hello',
          text: 'Yes please.',
          inReplyTo: '<sent-1@email.amazonses.com>',
          attachments: ['cv.txt'],
        }),
      ),
    );
  });

  it('records email.received on the sender contact, once however often it is delivered', async () => {
    expect(await receiveInboundMail(deps(), message())).toBe('received');
    expect(events()).toHaveLength(1);
    const [event] = events();
    expect(event).toMatchObject({
      name: RECEIVED_EVENT,
      projectId: 'p1',
      contactId: 'c1',
      email: 'Ann@Example.org',
      createdAt: '2026-03-02T10:15:30.123Z',
      data: {
        messageId: 'msg-1',
        from: 'ann@example.org',
        to: ['reply@inbound.acme.io'],
        subject: 'Re: Hello',
        text: 'Yes please.',
        inReplyTo: '<sent-1@email.amazonses.com>',
        attachments: 1,
        spamVerdict: 'PASS',
        virusVerdict: 'PASS',
      },
    });
    // A redelivery: the same event (id from SES's message id, time from SES's receipt).
    expect(await receiveInboundMail(deps(), message())).toBe('received');
    expect(events()).toEqual([event]);
  });

  it('drops a message with a virus, and the SES setup notification, without reading them', async () => {
    expect(await receiveInboundMail(deps(), message({ verdicts: { virus: 'FAIL' } }))).toBe('virus');
    expect(
      await receiveInboundMail(
        deps(),
        message({ messageId: 'AMAZON_SES_SETUP_NOTIFICATION', key: 'inbound/AMAZON_SES_SETUP_NOTIFICATION' }),
      ),
    ).toBe('setup-notification');
    expect(reads).toEqual([]);
    expect(events()).toEqual([]);
    expect(console.warn).toHaveBeenCalledWith(expect.stringContaining('virus'));
  });

  it('drops mail no project receives without reading it', async () => {
    const out = await receiveInboundMail(deps(), message({ recipients: ['someone@elsewhere.org', 'nope'] }));
    expect(out).toBe('no-project');
    expect(reads).toEqual([]);
    expect(events()).toEqual([]);
  });

  it('drops mail from someone who is not a contact, whose object is gone, or that names no sender', async () => {
    stored.set('inbound/stranger', bytes(rawMessage({ from: 'bob@example.org', text: 'Hi' })));
    expect(await receiveInboundMail(deps(), message({ key: 'inbound/stranger' }))).toBe('no-contact');
    expect(await receiveInboundMail(deps(), message({ key: 'inbound/expired' }))).toBe('missing-object');
    stored.set('inbound/anonymous', bytes(rawMessage({ text: 'Who am I' })));
    expect(await receiveInboundMail(deps(), message({ key: 'inbound/anonymous' }))).toBe('no-sender');
    stored.set(
      'inbound/garbage',
      new Uint8Array(2048).map((_, i) => (i * 31) % 256),
    );
    expect(await receiveInboundMail(deps(), message({ key: 'inbound/garbage' }))).toBe('no-sender');
    expect(events()).toEqual([]);
  });

  it('is received by each project whose domain a recipient is at, with its own recipients', async () => {
    await seedDomain(m, 'p2', 'other.io');
    await seedContact(m, 'p2', 'ann@example.org', 'c2');
    const out = await receiveInboundMail(
      deps(),
      message({ recipients: ['reply@inbound.acme.io', 'Sales@Other.io', 'x@nobody.net', 'sales@other.io'] }),
    );
    expect(out).toBe('received');
    const byProject = Object.fromEntries(events().map((e) => [e.projectId, e]));
    expect(Object.keys(byProject).sort()).toEqual(['p1', 'p2']);
    expect(byProject.p1).toMatchObject({ contactId: 'c1', data: { to: ['reply@inbound.acme.io'] } });
    expect(byProject.p2).toMatchObject({ contactId: 'c2', data: { to: ['sales@other.io'] } });
    expect(byProject.p1!.id).not.toBe(byProject.p2!.id);
    // One read of the message for both.
    expect(reads).toEqual(['inbound/msg-1']);
  });

  it('lets a failing read of the bucket fail the job, so that the queue retries it', async () => {
    const denied = Object.assign(new Error('Access Denied'), { name: 'AccessDenied' });
    const failing = { ...deps(), inboundMail: { get: () => Promise.reject(denied) } };
    await expect(receiveInboundMail(failing, message())).rejects.toBe(denied);
  });
});
