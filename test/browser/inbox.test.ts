/**
 * The local inbox (`/_local/mail`) in a real browser: headless Chromium (Debian's package, see
 * chromium.ts) on an in-process local runtime. Mail goes in through `POST /v1/send` as a client
 * sends it (an attachment with a non-ASCII name, an inline `cid:` image, hostile markup in the
 * subject and body); the tests then use the page as a person would: the list, search, the
 * message's HTML (inline image shown), text, headers, source, an attachment download, the events
 * after an open, mail arriving without a reload, delete one, delete all. Screenshots go to
 * test-output/screenshots/ and their paths are printed.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { Browser, Dialog, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useLocalRuntime } from '../integration/helpers/local';
import { hasChromium, launchChromium, outputDir, screenshotDir } from './chromium';

/** A solid-colour PNG, so the test can tell the inline image really loaded (its natural size). */
function png(width: number, height: number, rgb: readonly [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3).map((_, i) => rgb[i % 3]!)]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const ATTACHMENT_NAME = 'résumé “Q3” report.txt';
const ATTACHMENT_TEXT = 'Revenue: 42\nCosts: 17\n';
const HOSTILE = '<img src=x onerror=alert(1)>';

describe.skipIf(!hasChromium)('the local inbox in Chromium', () => {
  const rt = useLocalRuntime();
  const downloads = join(outputDir, 'downloads');
  let browser: Browser;
  let page: Page;
  /** Dialogs the page opened: only the delete-all confirmation is expected. */
  const dialogs: string[] = [];
  let reportId = '';

  const shot = async (name: string) => {
    const path = join(screenshotDir, `${name}.png`);
    await page.screenshot({ path, fullPage: false });
    console.log(`screenshot: ${path}`);
  };

  const send = async (body: Record<string, unknown>) => {
    const res = await rt.api('POST', '/v1/send', { body });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.emails[0].status).toBe('sent');
  };

  /** The list's rows as the page shows them: sender, subject. */
  const rows = () =>
    page.$$eval('#messages li', (items) =>
      items.map((li) => ({
        from: li.querySelector('.from')?.textContent ?? '',
        subject: li.querySelector('.subject')?.textContent ?? '',
      })),
    );

  /**
   * Waits until `check` holds, asking the page again and again. (Not `page.waitForFunction`: the
   * page's policy forbids eval, which it needs for an expression, and rightly so.)
   */
  const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const textOf = (selector: string) => page.$eval(selector, (e) => e.textContent ?? '');
  const waitForRows = (count: number) =>
    until(`${count} rows`, async () => (await page.$$('#messages li')).length === count);

  beforeAll(async () => {
    rmSync(downloads, { recursive: true, force: true });
    mkdirSync(downloads, { recursive: true });
    browser = await launchChromium({ downloadPath: downloads });
    page = await browser.newPage();
    page.on('dialog', (dialog: Dialog) => {
      dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      void (dialog.type() === 'confirm' ? dialog.accept() : dialog.dismiss());
    });

    await send({
      to: 'bob@example.org',
      from: { name: 'Example News', email: `news@${rt.senderDomain}` },
      subject: `Your quarterly report ${HOSTILE}`,
      body:
        '<h1 style="color:#0969da">Quarterly report</h1><p>The spreadsheet is attached.</p>' +
        `<p><img id="logo" src="cid:logo" alt="logo" width="120" height="40"></p><p>${HOSTILE}</p>` +
        '<script>parent.document.title = "pwned"</script>',
      headers: { 'X-Entity-Ref-ID': 'report-2026-11' },
      attachments: [
        {
          filename: ATTACHMENT_NAME,
          content: Buffer.from(ATTACHMENT_TEXT).toString('base64'),
          contentType: 'text/plain; charset=utf-8',
        },
        {
          filename: 'logo.png',
          content: png(120, 40, [9, 105, 218]).toString('base64'),
          contentType: 'image/png',
          contentId: 'logo',
          disposition: 'inline',
        },
      ],
    });
    await send({
      to: 'carol@example.org',
      from: `hello@${rt.senderDomain}`,
      subject: 'Welcome, Carol',
      body: '<p>Glad to have you aboard.</p>',
    });
    await rt.drain();
    reportId = (await rt.mails({ to: 'bob@example.org' }))[0]!.id;
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('serves the page with a strict policy, from the runtime alone', async () => {
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const res = await page.goto(`${rt.url}/_local/mail`, { waitUntil: 'networkidle0' });
    expect(res?.status()).toBe(200);
    const csp = res?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(requested.every((url) => url.startsWith(rt.url))).toBe(true);
  });

  it('lists the mail with sender, subject and time, newest first', async () => {
    await waitForRows(2);
    expect(await rows()).toEqual([
      { from: `hello@${rt.senderDomain}`, subject: 'Welcome, Carol' },
      { from: `Example News <news@${rt.senderDomain}>`, subject: `Your quarterly report ${HOSTILE}` },
    ]);
    const times = await page.$$eval('#messages time', (ts) => ts.map((t) => t.textContent ?? ''));
    expect(times.every((t) => /\d/.test(t))).toBe(true);
    expect(await page.$eval('#count', (n) => n.textContent)).toBe('2 messages');
    // The hostile subject is text: no element came of it.
    expect(await page.$('#messages img')).toBeNull();
    await shot('inbox-list');
  });

  it('searches by recipient, sender, subject and text', async () => {
    const search = async (query: string, expected: string[]) => {
      // As a person does it: select what is there, erase it, type.
      await page.$eval('#search', (input) => (input as unknown as { select(): void }).select());
      await page.keyboard.press('Backspace');
      await page.type('#search', query);
      const subjects = () => page.$$eval('#messages .subject', (ss) => ss.map((e) => e.textContent));
      await until(
        `${JSON.stringify(expected)} for "${query}"`,
        async () => JSON.stringify(await subjects()) === JSON.stringify(expected),
      );
    };
    const report = `Your quarterly report ${HOSTILE}`;
    await search('carol', ['Welcome, Carol']);
    await search('from:news', [report]);
    await search('to:bob@example.org', [report]);
    await search('subject:welcome', ['Welcome, Carol']);
    await search('spreadsheet', [report]);
    await search('nothing-like-this', []);
    expect(await page.$eval('#empty', (n) => n.textContent)).toContain('No message matches');
    expect(await page.$eval('#count', (n) => n.textContent)).toBe('0 of 2 messages');
    await search('', ['Welcome, Carol', report]);
  });

  it('shows the HTML body sandboxed, with the inline image resolved to its part', async () => {
    const image = page.waitForResponse((r) => r.url().includes(`/parts/`) && r.status() === 200);
    await page.click(`#messages li[data-id="${reportId}"] a`);
    await until('the message', async () => (await textOf('#subject')) === `Your quarterly report ${HOSTILE}`);
    expect(await page.$eval('#html-frame', (f) => f.getAttribute('sandbox'))).toBe(
      'allow-popups allow-popups-to-escape-sandbox',
    );
    const logo = await image;
    expect(logo.headers()['content-type']).toBe('image/png');
    const frame = await (await page.$('#html-frame'))!.contentFrame();
    await frame.waitForSelector('#logo');
    // The image decoded at its own size: the cid: reference pointed at the PNG part.
    await until(
      'the inline image',
      async () =>
        (await frame.$eval('#logo', (img) => (img as unknown as { naturalWidth: number }).naturalWidth)) ===
        120,
    );
    expect(await frame.$eval('#logo', (img) => img.getAttribute('src'))).toMatch(
      new RegExp(`^/_local/mail/messages/${reportId}/parts/\\d+$`),
    );
    expect(await frame.$eval('h1', (h) => h.textContent)).toBe('Quarterly report');
    // The body's own script never ran, and its hostile markup did nothing to the page.
    expect(await page.title()).toBe('Sesame local inbox');
    expect(dialogs).toEqual([]);
    const meta = await page.$eval('#meta', (dl) => dl.textContent ?? '');
    expect(meta).toContain(`Example News <news@${rt.senderDomain}>`);
    expect(meta).toContain('bob@example.org');
    await shot('inbox-message-html');
  });

  it('shows the text, the headers and the raw source in the page', async () => {
    await page.click('.tabs button[data-tab="text"]');
    await page.waitForSelector('#tab-text:not([hidden])');
    expect(await page.$eval('#text', (p) => p.textContent)).toContain('The spreadsheet is attached.');

    await page.click('.tabs button[data-tab="headers"]');
    const headers = await page.$$eval('#headers tr', (trs) =>
      trs.map((tr) => [tr.querySelector('th')?.textContent, tr.querySelector('td')?.textContent]),
    );
    expect(headers).toContainEqual(['X-Entity-Ref-ID', 'report-2026-11']);
    expect(headers.find(([name]) => name === 'Subject')?.[1]).toBe(`Your quarterly report ${HOSTILE}`);

    await page.click('.tabs button[data-tab="source"]');
    await until('the source', async () => (await textOf('#source')).includes('MIME-Version'));
    const source = await page.$eval('#source', (p) => p.textContent ?? '');
    expect(source).toContain('Content-Type: multipart/');
    expect(source).toContain('X-Entity-Ref-ID: report-2026-11');
    expect(page.url()).toContain('/_local/mail#');
    await shot('inbox-message-source');
  });

  it('downloads an attachment with its name and bytes', async () => {
    const links = await page.$$eval('#attachments a', (as) =>
      as.map((a) => ({ name: a.getAttribute('download'), href: a.getAttribute('href') ?? '' })),
    );
    expect(links.map((l) => l.name).sort()).toEqual(['logo.png', ATTACHMENT_NAME]);
    const href = links.find((l) => l.name === ATTACHMENT_NAME)!.href;
    const res = await fetch(`${rt.url}${href}`);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="r_sum_ _Q3_ report.txt"; filename*=UTF-8''${encodeURIComponent(ATTACHMENT_NAME)}`,
    );
    expect(await res.text()).toBe(ATTACHMENT_TEXT);

    await page.click(`#attachments a[href="${href}"]`);
    const saved = join(downloads, ATTACHMENT_NAME);
    await until('the download', async () => existsSync(saved));
    expect(readFileSync(saved, 'utf8')).toBe(ATTACHMENT_TEXT);
    console.log(`downloaded: ${saved}`);
  });

  it("shows the message's events, and new ones without a reload", async () => {
    await page.click('.tabs button[data-tab="events"]');
    // The send's own events: SES's Send and Delivery, and the email.sent/delivered recorded.
    await until('the Delivery event', async () => (await textOf('#ses')).includes('Delivery'));
    const open = await rt.api('POST', `/_local/emails/${encodeURIComponent(reportId)}/open`, { key: null });
    expect(open.status, open.text).toBe(202);
    await rt.drain();
    await until(
      'the open',
      async () =>
        (await textOf('#recorded')).includes('email.opened') && (await textOf('#ses')).includes('Open'),
    );
    const recorded = await page.$$eval('#recorded .name', (ns) => ns.map((n) => n.textContent));
    expect(recorded).toEqual(['email.sent', 'email.delivered', 'email.opened']);
    expect(await page.$eval('#email-status', (p) => p.textContent)).toMatch(/DELIVERED · 1 open$/);
    await shot('inbox-message-events');
  });

  it('shows new mail without a reload', async () => {
    await page.evaluate(() => {
      (globalThis as { marker?: boolean }).marker = true;
    });
    await send({
      to: 'dan@example.org',
      from: `hello@${rt.senderDomain}`,
      subject: 'Arrived live',
      body: 'Hi Dan',
    });
    await waitForRows(3);
    expect((await rows())[0]!.subject).toBe('Arrived live');
    // Still the same document: nothing reloaded it.
    expect(await page.evaluate(() => (globalThis as { marker?: boolean }).marker)).toBe(true);
  });

  it('deletes one message, then all', async () => {
    const live = (await rt.mails({ to: 'dan@example.org' }))[0]!.id;
    await page.click(`#messages li[data-id="${live}"] a`);
    await until('the live message', async () => (await textOf('#subject')) === 'Arrived live');
    await page.click('#delete-one');
    await waitForRows(2);
    expect((await rows()).map((r) => r.subject)).not.toContain('Arrived live');
    expect(rt.mailSink.size).toBe(2);
    expect((await fetch(`${rt.url}/_local/emails/${live}`)).status).toBe(404);

    await page.click('#delete-all');
    await waitForRows(0);
    expect(dialogs).toEqual(['confirm: Delete every message in the local inbox?']);
    expect(await (await fetch(`${rt.url}/_local/emails`)).json()).toEqual([]);
    expect(await page.$eval('#empty', (n) => n.textContent)).toContain('No mail yet');
    expect(await page.$eval('#message', (a) => a.hasAttribute('hidden'))).toBe(true);
    await shot('inbox-empty');
  });
});
