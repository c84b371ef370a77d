/**
 * URL attributes made safe after rendering (shared/rendering/urls.ts): a script URL that
 * rendering produced becomes about:blank, however it is spelled; safe and relative URLs, and the
 * template author's own literal text, stay as they are.
 */
import { describe, expect, it } from 'vitest';
import { compile, render } from '../../../shared/rendering';
import {
  isSafeUrl,
  literalUnsafeUrls,
  NEUTRAL_URL,
  neutralizeUrls,
  urlScheme,
} from '../../../shared/rendering/urls';

/** Renders `source` as an HTML body with `data`, then neutralizes, as a send does. */
async function rendered(source: string, data: Record<string, unknown>): Promise<string> {
  const html = await render(compile(source, 'html'), { ...data, data });
  return neutralizeUrls(html, literalUnsafeUrls(source));
}

const HOSTILE = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  '  javascript:alert(1)',
  '\u0001\u0002javascript:alert(1)',
  'java\tscript:alert(1)',
  'java\nscript:alert(1)',
  '\u200bjavascript:alert(1)',
  'vbscript:msgbox(1)',
  'data:text/html,<script>alert(1)</script>',
  'DATA:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'file:///etc/passwd',
];

describe('urlScheme and isSafeUrl', () => {
  it('reads the scheme as a browser does, and more strictly', () => {
    expect(urlScheme('https://example.com')).toBe('https');
    expect(urlScheme(' \tJaVa\nScRiPt:x')).toBe('javascript');
    expect(urlScheme('java&#x09;script:x')).toBe('javascript');
    expect(urlScheme('java&Tab;script&colon;x')).toBe('javascript');
    expect(urlScheme('&#106;&#97;vascript:x')).toBe('javascript');
    expect(urlScheme('&#x6A;avascript:x')).toBe('javascript');
    expect(urlScheme('&#106avascript:x')).toBe('javascript');
    expect(urlScheme('/relative/path:x')).toBeUndefined();
    expect(urlScheme('#top')).toBeUndefined();
    expect(urlScheme('page.html?a=b:c')).toBeUndefined();
    // Escaped once by Liquid, the entity is text: `&amp;#x09;` is `&#x09;` to the browser, no scheme.
    expect(urlScheme('java&amp;#x09;script:x')).toBeUndefined();
  });

  it('allows http, https, mailto and tel everywhere, cid where an image loads', () => {
    for (const url of [
      'http://a.test',
      'HTTPS://a.test',
      'mailto:a@b.test',
      'tel:+1555',
      '/x',
      '#a',
      '',
      'x.html',
    ])
      expect(isSafeUrl('href', url), url).toBe(true);
    expect(isSafeUrl('src', 'cid:logo@mail')).toBe(true);
    expect(isSafeUrl('href', 'cid:logo@mail')).toBe(false);
    for (const url of HOSTILE) expect(isSafeUrl('href', url), url).toBe(false);
  });
});

describe('neutralizeUrls after rendering', () => {
  for (const site of HOSTILE) {
    it(`replaces ${JSON.stringify(site)} from data in href and src`, async () => {
      const html = await rendered(
        '<a href="{{data.site}}">a</a><img src="{{data.site}}"><a href=\'{{data.site}}\'>b</a><form action="{{data.site}}"><button formaction="{{data.site}}">c</button></form>',
        { site },
      );
      expect(html).not.toMatch(/(?:java|vb)script|data:text|file:/i);
      expect(html.match(/about:blank/g)).toHaveLength(5);
    });
  }

  it('replaces a URL only data made unsafe: with a safe prefix, or split over two values', async () => {
    expect(await rendered('<a href="{{a}}{{b}}">x</a>', { a: 'java', b: 'script:alert(1)' })).toBe(
      `<a href="${NEUTRAL_URL}">x</a>`,
    );
    expect(await rendered('<a href="https://shop.test/{{p}}">x</a>', { p: 'javascript:alert(1)' })).toBe(
      '<a href="https://shop.test/javascript:alert(1)">x</a>',
    );
  });

  it('replaces a script URL in a tag that `| raw` let through, and an unquoted one', async () => {
    const raw = await rendered('<p>{{ block | raw }}</p>', {
      block: '<a HREF = "java&#x09;script:alert(1)">x</a>',
    });
    expect(raw).toBe(`<p><a HREF = "${NEUTRAL_URL}">x</a></p>`);
    expect(await rendered('<a href={{u}}>x</a>', { u: 'javascript:alert(1)' })).toBe(
      `<a href=${NEUTRAL_URL}>x</a>`,
    );
  });

  it('leaves safe links, relative links and text alone', async () => {
    const source =
      '<a href="{{u}}">a</a> <a href="/unsubscribe?x={{u}}">b</a> <img src="cid:logo"> <p>javascript: is text here</p>';
    expect(await rendered(source, { u: 'https://example.com/?a=1&b=2' })).toBe(
      '<a href="https://example.com/?a=1&amp;b=2">a</a> <a href="/unsubscribe?x=https://example.com/?a=1&amp;b=2">b</a> <img src="cid:logo"> <p>javascript: is text here</p>',
    );
  });

  it("leaves the template author's own literal script URL as written", async () => {
    const source = '<a href="javascript:history.back()">back</a> <a href="{{u}}">x</a>';
    expect(await rendered(source, { u: 'javascript:alert(1)' })).toBe(
      `<a href="javascript:history.back()">back</a> <a href="${NEUTRAL_URL}">x</a>`,
    );
  });

  it('counts only URL attributes the template writes as its own, not the same text elsewhere', async () => {
    const source = '<p>Never click javascript:alert(1)</p><a href="{{u}}">x</a>';
    expect(await rendered(source, { u: 'javascript:alert(1)' })).toBe(
      `<p>Never click javascript:alert(1)</p><a href="${NEUTRAL_URL}">x</a>`,
    );
    expect([...literalUnsafeUrls('<a href="javascript:{{x}}">a</a><a href="https://a.test">b</a>')]).toEqual([
      'javascript:{{x}}',
    ]);
  });

  it('returns the same string when nothing is unsafe, and is one pass over an unclosed quote', () => {
    const html = '<a href="https://a.test">a</a>';
    expect(neutralizeUrls(html, new Set())).toBe(html);
    const unclosed = `${' href="x'.repeat(20_000)}`;
    expect(neutralizeUrls(unclosed, new Set())).toBe(unclosed);
  });
});
