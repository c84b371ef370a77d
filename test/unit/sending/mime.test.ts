import PostalMime from 'postal-mime';
import { describe, expect, it } from 'vitest';
import { buildMime } from '../../../shared/sending/mime';
import { withFooter } from '../../../shared/sending/service';

describe('buildMime', () => {
  it('builds multipart/alternative with encoded names, list headers and custom headers', async () => {
    const raw = await buildMime({
      from: { email: 'news@example.com', name: 'Café Team' },
      to: { email: 'ann@example.org', name: 'Ann' },
      replyTo: 'help@example.com',
      subject: 'Déjà vu',
      html: '<p>Hi</p>',
      text: 'Hi',
      date: new Date('2026-01-02T03:04:05Z'),
      headers: { 'X-Ref': 'r1' },
      listUnsubscribeUrl: 'https://api.example.com/v1/subscription/tok',
    });
    const source = raw.toString('utf8');
    expect(source).toMatch(/^Subject: =\?UTF-8\?/m);
    expect(source).not.toMatch(/X-Mailer/i);
    const email = await PostalMime.parse(raw);
    expect(email.subject).toBe('Déjà vu');
    expect(email.from).toEqual({ name: 'Café Team', address: 'news@example.com' });
    expect(email.to).toEqual([{ name: 'Ann', address: 'ann@example.org' }]);
    expect(email.date).toBe('2026-01-02T03:04:05.000Z');
    const header = (name: string) => email.headers.find((h) => h.key === name)?.value;
    expect(header('list-unsubscribe')).toBe('<https://api.example.com/v1/subscription/tok>');
    expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(header('x-ref')).toBe('r1');
    expect(header('reply-to')).toBe('help@example.com');
    expect(header('content-type')).toMatch(/^multipart\/alternative/);
    expect(email.text?.trim()).toBe('Hi');
  });

  it('puts inline images in multipart/related and files in multipart/mixed', async () => {
    const raw = await buildMime({
      from: { email: 'a@example.com' },
      to: { email: 'b@example.org' },
      subject: 's',
      html: '<img src="cid:pic">',
      text: '',
      date: new Date(),
      attachments: [
        {
          filename: 'pic.png',
          content: Buffer.from([1, 2, 3]),
          contentType: 'image/png',
          contentId: 'pic',
          disposition: 'inline',
        },
        {
          filename: 'doc.pdf',
          content: Buffer.from('pdf'),
          contentType: 'application/pdf',
          disposition: 'attachment',
        },
      ],
    });
    const source = raw.toString('utf8');
    expect(source).toMatch(/multipart\/mixed/);
    expect(source).toMatch(/multipart\/related/);
    const email = await PostalMime.parse(raw);
    expect(
      email.attachments.map((a) => [a.filename, a.mimeType, a.disposition, a.contentId ?? null]),
    ).toEqual([
      ['pic.png', 'image/png', 'inline', '<pic>'],
      ['doc.pdf', 'application/pdf', 'attachment', null],
    ]);
  });
});

describe('withFooter', () => {
  it('inserts the unsubscribe link before </body>, or appends it', () => {
    expect(withFooter('<html><body><p>x</p></BODY></html>', 'https://u/1?a=1&b="2"')).toMatch(
      /^<html><body><p>x<\/p><p [^>]+>.*<a href="https:\/\/u\/1\?a=1&amp;b=&quot;2&quot;">Unsubscribe<\/a><\/p><\/BODY><\/html>$/,
    );
    expect(withFooter('<p>x</p>', 'https://u')).toMatch(/^<p>x<\/p><p .*<\/p>$/);
  });
});
