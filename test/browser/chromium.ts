/**
 * The browser tier's Chromium: Debian's package (`apt-get install chromium`, which `.ci/run`
 * installs when missing) at `/usr/bin/chromium`, or the binary `CHROMIUM_PATH` names. puppeteer-core
 * drives it and downloads no browser of its own. Without one, the tier says so in a visible line
 * and its tests are skipped, never passed.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const hasChromium = existsSync(chromiumPath);

if (!hasChromium) {
  console.warn(
    `BROWSER TESTS SKIPPED: no Chromium at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`,
  );
}

/** Where screenshots and downloads of the run go (git-ignored). */
export const outputDir = resolve('test-output');
export const screenshotDir = join(outputDir, 'screenshots');

export function launchChromium(options: { downloadPath?: string } = {}): Promise<Browser> {
  mkdirSync(screenshotDir, { recursive: true });
  return puppeteer.launch({
    executablePath: chromiumPath,
    headless: true,
    // Root in a container: no user-namespace sandbox; no GPU; /dev/shm is often tiny.
    args: ['--no-sandbox', '--headless=new', '--disable-gpu', '--disable-dev-shm-usage'],
    defaultViewport: { width: 1280, height: 860 },
    ...(options.downloadPath
      ? { downloadBehavior: { policy: 'allow' as const, downloadPath: options.downloadPath } }
      : {}),
  });
}
