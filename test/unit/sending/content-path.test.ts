import PostalMime from 'postal-mime';
import { describe, expect, it } from 'vitest';
import { compile, htmlToText, render } from '../../../shared/rendering';
import { deriveBody, deriveText, wrapLine } from '../../../shared/rendering/text-template';
import { type EmailContent, renderContent, withFooter } from '../../../shared/sending/compose';
import { buildMime, buildMimeLean, type MimeAttachment } from '../../../shared/sending/mime';

const long = 'word '.repeat(40).trim();
const corpus: string[] = [
  '<p>Hi {{name}},</p><p>Your code is {{code}}.</p>',
  `<html><body><h2>Title</h2><p>${long} {{name}} ${long}</p><p>{{code}} {{name}}</p></body></html>`,
  '<p>Héllo {{name}} — café 日本語 ✓ {{code}}</p>',
  '<p>Visit <a href="https://x.example/r?c={{code}}&amp;n=1">our shop</a> now, {{name}}.</p>',
  '<a href="{{url}}">https://same.example/</a> and <a href="{{url}}">{{name}}</a>',
  `<h1>Hi {{name}}</h1><ul><li>{{code}} item with a long line ${long}</li></ul>`,
  '{% if name %}<p>Hi {{name}}</p>{% endif %}<p>x</p>',
  '<p>{{name | upcase}} {{missing ?? dear customer}} {{snippet | raw}}</p>',
  `<table><tr><td>{{name}}</td><td>${long}</td></tr></table>`,
  `<p>Line one<br>{{name}}<br>${'x'.repeat(120)} {{code}}</p>`,
];
const recipients: Array<Record<string, unknown>> = [
  { name: 'Ann', code: 'C1', url: 'https://same.example/', snippet: 'plain' },
  { name: 'Zoë Ünïcode 日本', code: 'a&b<c>"d"', url: '#top', snippet: '<b>bold</b>' },
  { name: '', code: `${'long'.repeat(30)} ${long}`, url: 'mailto:a@b.c', snippet: '&nbsp;x' },
  { name: '  spaced\nname  ', code: 'C4', url: 'https://other.example/', snippet: 'y' },
  { name: 'https://same.example/', code: 'C5', url: 'https://same.example/', snippet: 'z' },
];

const contentOf = (body: string, type: EmailContent['type'] = 'TRANSACTIONAL'): EmailContent => ({
  templateId: null,
  type,
  from: { email: 'news@example.com', name: 'Café Team' },
  replyTo: 'help@example.com',
  subject: compile('s', 'text'),
  body: compile(body, 'html'),
  bodyHasUnsubscribeLink: false,
  headers: { 'X-Ref': 'r1 é' },
  attachments: [],
  links: {} as EmailContent['links'],
});

describe('derived text template', () => {
  it('wraps like html-to-text', () => {
    const line = `${long} ${'x'.repeat(90)} ${long}`;
    expect(wrapLine(line)).toBe(htmlToText(`<p>${line}</p>`));
  });

  it('gives the same HTML and text as the whole render and conversion, for every template and recipient', async () => {
    for (const source of corpus) {
      for (const footer of [undefined, 'https://api.example.com/v1/subscription/t?a=1&b=2']) {
        const content = contentOf(source);
        for (const vars of recipients) {
          const got = await renderContent(content, vars, footer);
          let html = await render(content.body, vars);
          if (footer) html = withFooter(html, footer);
          expect(got.html).toBe(html);
          expect(got.text).toBe(htmlToText(html));
        }
      }
    }
  });

  it('derives plain templates and refuses tags and uppercased headings', () => {
    const derivedOf = (s: string) => {
      const body = deriveBody(compile(s, 'html'));
      return body && deriveText(body);
    };
    expect(derivedOf(corpus[0]!)).toBeTruthy();
    expect(derivedOf(corpus[1]!)).toBeTruthy();
    expect(derivedOf(corpus[6]!)).toBeFalsy();
    expect(derivedOf('<h1>Hi {{name}}</h1>')).toBeFalsy();
  });
});

describe('buildMimeLean', () => {
  const attachments: MimeAttachment[] = [
    {
      filename: 'pic.png',
      content: Buffer.from([1, 2, 3]),
      contentType: 'image/png',
      contentId: 'pic',
      disposition: 'inline',
    },
    {
      filename: 'résumé ü.pdf',
      content: Buffer.alloc(5000, 7),
      contentType: 'application/pdf',
      disposition: 'attachment',
    },
  ];
  const cases = [
    {
      subject: 'Déjà vu '.repeat(20),
      html: '<p>日本語のテキスト</p>'.repeat(50),
      text: '日本語'.repeat(100),
      attachments,
    },
    {
      subject: 'Plain',
      html: `<p>${'a'.repeat(2000)}</p>\n<p>x =y</p>`,
      text: `${long}\n\nend `,
      attachments: [],
    },
    { subject: 'Only file', html: '<p>Zoë</p>', text: 'Zoë', attachments: attachments.slice(1) },
    { subject: 'Only inline', html: '<img src="cid:pic">', text: '', attachments: attachments.slice(0, 1) },
  ];
  it('parses to the same message as the composer', async () => {
    for (const c of cases) {
      const message = {
        from: { email: 'news@example.com', name: 'Café Team' },
        to: { email: 'ann@example.org', name: 'Ann O"Neil' },
        replyTo: 'help@example.com',
        date: new Date('2026-01-02T03:04:05Z'),
        headers: { 'X-Ref': 'r1', 'X-Campaign': 'c 2' },
        listUnsubscribeUrl: 'https://api.example.com/v1/subscription/tok',
        ...c,
      };
      const [a, b] = await Promise.all([
        PostalMime.parse(await buildMime(message)),
        PostalMime.parse(await buildMimeLean(message)),
      ]);
      expect(b.subject).toBe(a.subject);
      expect(b.text).toBe(a.text);
      expect(b.html).toBe(a.html);
      expect(b.from).toEqual(a.from);
      expect(b.to).toEqual(a.to);
      expect(b.date).toBe(a.date);
      const headers = (e: typeof a) =>
        e.headers
          .filter((h) =>
            [
              'x-ref',
              'x-campaign',
              'list-unsubscribe',
              'list-unsubscribe-post',
              'reply-to',
              'mime-version',
            ].includes(h.key),
          )
          .map((h) => [h.key, h.value]);
      expect(headers(b)).toEqual(headers(a));
      const files = (e: typeof a) =>
        e.attachments.map((x) => [
          x.filename,
          x.mimeType,
          x.disposition,
          x.contentId ?? null,
          Buffer.from(x.content as ArrayBuffer).toString('hex'),
        ]);
      expect(files(b)).toEqual(files(a));
      for (const line of (await buildMimeLean(message)).toString().split('\r\n'))
        expect(line.length).toBeLessThanOrEqual(998);
    }
  });
});
