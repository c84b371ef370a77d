/**
 * The local inbox's reading of messages (shared/local/inbox/message.ts) and the mail sink's
 * deletion of one message; the page itself is tested in Chromium (test/browser/inbox.test.ts).
 */
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { MailSink, type SinkMessage } from '../../../shared/adapters/local/mail-sink';
import { createGateway } from '../../../shared/local/gateway';
import {
  attachmentDisposition,
  framedHtml,
  matches,
  parseRaw,
  partsOf,
  safeContentType,
} from '../../../shared/local/inbox/message';
import { silent, tempDir } from './helpers';

const related = new TextEncoder().encode(
  [
    'From: News <news@example.com>',
    'To: ann@example.org',
    'Cc: Bob <bob@example.net>',
    'Subject: Monthly numbers',
    'MIME-Version: 1.0',
    'Content-Type: multipart/related; boundary="r"',
    '',
    '--r',
    'Content-Type: text/html; charset=utf-8',
    '',
    '<html><head><title>t</title></head><body><img src="cid:logo%40x"><img src="CID:Chart">' +
      '<img src="cid:missing"><p>Revenue grew</p></body></html>',
    '--r',
    'Content-Type: image/png',
    'Content-ID: <logo@x>',
    'Content-Disposition: inline',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('png-bytes').toString('base64'),
    '--r',
    'Content-Type: image/gif',
    'Content-ID: <chart>',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('gif-bytes').toString('base64'),
    '--r--',
    '',
  ].join('\r\n'),
);

describe('the inbox reading a message', () => {
  it('points each cid: reference at its part, leaves unknown ones, and opens links in a new tab', async () => {
    const email = await parseRaw(related);
    const html = framedHtml(email, (i) => `/parts/${i}`);
    expect(html).toContain('<head><base target="_blank"><title>');
    expect(html).toContain('<img src="/parts/0">'); // percent-encoded Content-ID (RFC 2392)
    expect(html).toContain('<img src="/parts/1">'); // scheme and id compared without case
    expect(html).toContain('<img src="cid:missing">');
    expect(partsOf(email)).toEqual([
      expect.objectContaining({ index: 0, contentType: 'image/png', contentId: 'logo@x', inline: true }),
      expect.objectContaining({ index: 1, filename: 'part-2.gif', contentId: 'chart', inline: true }),
    ]);
    expect(framedHtml({ ...email, html: '<p>no head</p>' }, () => '')).toBe(
      '<base target="_blank"><p>no head</p>',
    );
  });

  it('searches every word, in the sender, recipients, subject and text, or in the field named', async () => {
    const sink = new MailSink({ logger: silent });
    await sink.sendRaw({ from: 'news@example.com', to: ['ann@example.org'], raw: related });
    const [m] = (await sink.list()) as [SinkMessage];
    expect(matches(m, '')).toBe(true);
    expect(matches(m, 'REVENUE monthly')).toBe(true);
    expect(matches(m, 'revenue nope')).toBe(false);
    expect(matches(m, 'bob@example.net')).toBe(true); // Cc
    expect(matches(m, 'from:news to:ann subject:numbers')).toBe(true);
    expect(matches(m, 'from:ann')).toBe(false);
    expect(matches(m, 'subject:revenue')).toBe(false);
  });

  it('names a download safely: an ASCII fallback and the exact name in UTF-8', () => {
    expect(attachmentDisposition('report.pdf')).toBe(
      `attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`,
    );
    const hostile = attachmentDisposition('a"b\r\nX-Injected: 1/../ü (1).txt');
    expect(hostile).not.toMatch(/[\r\n]/);
    expect(hostile).toBe(
      `attachment; filename="a_bX-Injected_ 1_..__ (1).txt"; filename*=UTF-8''a%22bX-Injected%3A%201_.._%C3%BC%20%281%29.txt`,
    );
    expect(attachmentDisposition('\r\n')).toBe(
      `attachment; filename="attachment"; filename*=UTF-8''attachment`,
    );
  });

  it('serves a part as its own type only when that is a plain type/subtype', () => {
    expect(safeContentType('image/png')).toBe('image/png');
    expect(safeContentType('Text/Plain; charset=utf-8')).toBe('text/plain');
    expect(safeContentType('text/html\r\nX-Injected: 1')).toBe('application/octet-stream');
    expect(safeContentType('nonsense')).toBe('application/octet-stream');
  });
});

describe('MailSink.delete', () => {
  it('forgets one message, its file and its events, across a restart; others stay', async () => {
    const dataDir = tempDir();
    const sink = new MailSink({ dataDir, logger: silent });
    const raw = new TextEncoder().encode(
      'From: a@example.com\r\nTo: b@example.org\r\nSubject: s\r\n\r\nhi\r\n',
    );
    const one = await sink.sendRaw({ from: 'a@example.com', to: ['b@example.org'], raw });
    const two = await sink.sendRaw({ from: 'a@example.com', to: ['c@example.org'], raw });
    sink.recordEvent(one.messageId, { eventType: 'Send' });
    sink.recordEvent(two.messageId, { eventType: 'Send' });
    sink.recordEvent(two.messageId, { eventType: 'Delivery' });

    expect(sink.delete(one.messageId)).toBe(true);
    expect(sink.delete(one.messageId)).toBe(false);
    expect(await sink.get(one.messageId)).toBeUndefined();
    expect(sink.eventsOf(one.messageId)).toEqual([]);

    const reopened = new MailSink({ dataDir, logger: silent });
    expect((await reopened.list()).map((m) => m.id)).toEqual([two.messageId]);
    expect(reopened.raw(one.messageId)).toBeUndefined();
    expect(reopened.eventsOf(two.messageId).map((e) => e.eventType)).toEqual(['Send', 'Delivery']);
    expect(reopened.eventsOf(one.messageId)).toEqual([]);
  });
});

describe('the inbox API', () => {
  const start = async (sink: MailSink) => {
    const server = createGateway({
      manifest: { routeGroups: [{ name: 'none', handler: 'none', routes: [] }], fallbackGroup: 'none' },
      handlers: { none: async () => ({ statusCode: 404 }) },
      mailSink: sink,
      logger: silent,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  it('lists the newest summaries up to a limit, answers an unchanged list 304, and refuses a bad limit', async () => {
    const sink = new MailSink({ logger: silent });
    for (const subject of ['one', 'two', 'three']) {
      const raw = new TextEncoder().encode(
        `From: a@example.com\r\nTo: b@example.org\r\nSubject: ${subject}\r\n\r\nx\r\n`,
      );
      await sink.sendRaw({ from: 'a@example.com', to: ['b@example.org'], raw });
    }
    const base = await start(sink);
    const first = await fetch(`${base}/_local/mail/messages?limit=2`);
    const body = (await first.json()) as { messages: { subject: string }[]; matched: number; total: number };
    expect(body.messages.map((m) => m.subject)).toEqual(['three', 'two']);
    expect(body).toMatchObject({ matched: 3, total: 3 });
    const etag = first.headers.get('etag')!;
    const again = await fetch(`${base}/_local/mail/messages?limit=2`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const filtered = await fetch(`${base}/_local/mail/messages?limit=2&q=subject:one`, {
      headers: { 'if-none-match': etag },
    });
    expect(filtered.status).toBe(200);
    expect(((await filtered.json()) as { matched: number }).matched).toBe(1);
    for (const limit of ['0', '1001', 'abc', '1.5']) {
      const bad = await fetch(`${base}/_local/mail/messages?limit=${limit}`);
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ message: 'limit must be a whole number from 1 to 1000' });
    }
    expect((await fetch(`${base}/_local/mail/messages/nope`)).status).toBe(404);
    const id = (await sink.list())[0]!.id;
    expect((await fetch(`${base}/_local/mail/messages/${id}/parts/0`)).status).toBe(404);
    expect(await (await fetch(`${base}/_local/mail/messages/${id}/html`)).json()).toEqual({
      message: 'The message has no HTML body',
    });
    const events = (await (await fetch(`${base}/_local/mail/messages/${id}/events`)).json()) as object;
    expect(events).toEqual({ ses: [], email: { missing: 'untagged' }, events: [] });
  });
});
