/**
 * The API reference page (`GET /docs`) in headless Chromium: it loads the OpenAPI document from
 * the same origin (nothing from anywhere else, under its Content-Security-Policy), shows every
 * operation with its parameters, body and answers, and filters them.
 */
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useLocalRuntime } from '../integration/helpers/local';
import { hasChromium, launchChromium, screenshotDir } from './chromium';

describe.skipIf(!hasChromium)('the API reference page in Chromium', () => {
  const rt = useLocalRuntime();
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const requested: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('request', (r) => requested.push(r.url()));
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('renders every operation of the document, and filters them', async () => {
    const doc = (await (await fetch(`${rt.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);

    const res = await page.goto(`${rt.url}/docs`, { waitUntil: 'networkidle0' });
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.waitForSelector('section.op');
    expect(await page.$$eval('section.op', (els) => els.length)).toBe(operations);
    expect(await page.$eval('#status', (el) => el.textContent)).toBe(
      `${Object.keys(doc.paths).length} paths`,
    );

    // One operation, as a reader sees it: method, path, who may call, its body and answers.
    const contact = await page.$eval('#postContacts', (el) => el.textContent ?? '');
    expect(contact).toContain('POST/contacts');
    expect(contact).toContain('Auth: secretKey or session');
    expect(contact).toContain('application/json');
    expect(contact).toContain('201 — Success');

    await page.type('#filter', 'members/{userId}');
    const visible = await page.$$eval('section.op', (els) =>
      els
        .filter((el) => (el as unknown as { style: { display: string } }).style.display !== 'none')
        .map((el) => el.id),
    );
    expect(visible.sort()).toEqual(['deleteProjectsIdMembersUserId', 'patchProjectsIdMembersUserId']);
    const path = `${screenshotDir}/reference.png`;
    await page.screenshot({ path });
    console.log(`screenshot: ${path}`);

    expect(problems).toEqual([]);
    expect(requested.every((url) => url.startsWith(rt.url))).toBe(true);
  });
});
