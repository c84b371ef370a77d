import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PermanentSendError } from '../../../shared/adapters/aws/send-errors';
import { MailSink } from '../../../shared/adapters/local/mail-sink';
import { sesEventsFor, simulatorOutcome } from '../../../shared/adapters/local/ses-events';
import { silent, tempDir } from './helpers';

const mime = (to = 'ann@example.org') =>
  new TextEncoder().encode(
    [
      'From: Sesame Test <hello@example.com>',
      `To: ${to}`,
      `Subject: =?UTF-8?B?${Buffer.from('Hello 👋').toString('base64')}?=`,
      'Message-ID: <abc@example.com>',
      'List-Unsubscribe: <https://example.com/u/1>',
      'X-Custom: one',
      'MIME-Version: 1.0',
      'Content-Type: multipart/alternative; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      'Hi Ann =E2=80=94 welcome',
      '--b1',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<p>Hi <b>Ann</b></p>',
      '--b1--',
      '',
    ].join('\r\n'),
  );

describe('MailSink', () => {
  it('keeps each message and exposes its parsed subject, bodies and headers', async () => {
    const sink = new MailSink({ logger: silent });
    const { messageId } = await sink.sendRaw({
      from: 'hello@example.com',
      to: ['ann@example.org'],
      raw: mime(),
      tags: { emailId: 'e1' },
    });
    expect(messageId).toMatch(/^[0-9a-f]{16}-[0-9a-f-]{36}-000000$/);
    const [m] = await sink.list();
    expect(m).toMatchObject({
      id: messageId,
      from: 'hello@example.com',
      to: ['ann@example.org'],
      tags: { emailId: 'e1' },
      subject: 'Hello 👋',
      headers: { 'x-custom': 'one', 'list-unsubscribe': '<https://example.com/u/1>' },
    });
    expect(m!.html?.trim()).toBe('<p>Hi <b>Ann</b></p>');
    expect(m!.text?.trim()).toBe('Hi Ann — welcome');
    expect(new TextDecoder().decode(sink.raw(messageId))).toContain('Subject: =?UTF-8?B?');
    expect(await sink.get('unknown')).toBeUndefined();
  });

  it('lists newest first and tells listeners about each send', async () => {
    const sink = new MailSink({ logger: silent });
    const seen: string[] = [];
    sink.onSent((m) => {
      seen.push(m.to[0]!);
    });
    for (const to of ['a@x.org', 'b@x.org'])
      await sink.sendRaw({ from: 'f@example.com', to: [to], raw: mime(to) });
    expect((await sink.list()).map((m) => m.to[0])).toEqual(['b@x.org', 'a@x.org']);
    expect(seen).toEqual(['a@x.org', 'b@x.org']);
  });

  it('refuses what SES refuses, with the typed error', async () => {
    const sink = new MailSink({ logger: silent });
    const to = Array.from({ length: 51 }, (_, i) => `r${i}@x.org`);
    await expect(sink.sendRaw({ from: 'f@example.com', to, raw: mime() })).rejects.toBeInstanceOf(
      PermanentSendError,
    );
    await expect(sink.sendRaw({ from: 'f@example.com', to: [], raw: mime() })).rejects.toBeInstanceOf(
      PermanentSendError,
    );
  });

  it('keeps a message it cannot parse, saying why', async () => {
    const sink = new MailSink({ logger: silent });
    const { messageId } = await sink.sendRaw({
      from: 'f@example.com',
      to: ['a@x.org'],
      raw: new Uint8Array(),
    });
    expect((await sink.get(messageId))?.id).toBe(messageId);
  });

  it('persists .eml files and an index in the data folder, and clears them', async () => {
    const dataDir = tempDir('sesame-mail-');
    const first = new MailSink({ dataDir, logger: silent });
    const { messageId } = await first.sendRaw({
      from: 'f@example.com',
      to: ['ann@example.org'],
      raw: mime(),
    });
    expect(readdirSync(join(dataDir, 'mail')).sort()).toEqual([`${messageId}.eml`, 'index.jsonl']);

    const second = new MailSink({ dataDir, logger: silent });
    const [m] = await second.list();
    expect(m).toMatchObject({ id: messageId, subject: 'Hello 👋', to: ['ann@example.org'] });
    second.clear();
    expect(await new MailSink({ dataDir, logger: silent }).list()).toEqual([]);
  });
});

describe('SES events for the mail sink', () => {
  it('scripts the mailbox simulator outcomes', () => {
    expect(simulatorOutcome('success@simulator.amazonses.com')).toBe('delivery');
    expect(simulatorOutcome('bounce+t1@simulator.amazonses.com')).toBe('bounce');
    expect(simulatorOutcome('Complaint@Simulator.AmazonSES.com')).toBe('complaint');
    expect(simulatorOutcome('suppressionlist@simulator.amazonses.com')).toBe('suppressed');
    expect(simulatorOutcome('bounce@example.org')).toBe('delivery');
  });

  it('publishes Send, then Delivery, Bounce and Complaint as SES would', async () => {
    const sink = new MailSink({ logger: silent });
    const to = ['ok@example.org', 'bounce@simulator.amazonses.com', 'complaint@simulator.amazonses.com'];
    const { messageId } = await sink.sendRaw({
      from: 'f@example.com',
      to,
      raw: mime(),
      tags: { emailId: 'e1' },
    });
    const events = sesEventsFor((await sink.get(messageId))!);
    expect(events.map((e) => e.eventType)).toEqual(['Send', 'Delivery', 'Bounce', 'Complaint']);
    expect(events[0]!.mail).toMatchObject({ messageId, source: 'f@example.com', tags: { emailId: ['e1'] } });
    const [, delivery, bounce, complaint] = events;
    expect(delivery).toMatchObject({
      delivery: { recipients: ['ok@example.org', 'complaint@simulator.amazonses.com'] },
    });
    expect(bounce).toMatchObject({
      bounce: {
        bounceType: 'Permanent',
        bounceSubType: 'General',
        bouncedRecipients: [{ emailAddress: to[1] }],
      },
    });
    expect(complaint).toMatchObject({ complaint: { complainedRecipients: [{ emailAddress: to[2] }] } });
  });
});
