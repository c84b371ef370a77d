import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as esbuild from 'esbuild';
import { expect, it } from 'vitest';
import { bundleEntry, esbuildOptions } from '../../lib/bundling';
import { SesameFunction } from '../../lib/constructs/sesame-function';

// Bundles one small fixture for real (esbuild in this process, no Docker) to check the bundling
// options; `npm run synth` bundles the real handlers.
it('bundles self-contained, minified ESM chunks with source maps, the AWS SDK inside and no dead chunk', () => {
  const app = new App();
  const stack = new Stack(app, 'Bundling');
  new SesameFunction(stack, 'Fn', { entry: 'test/infra/fixtures/sdk-handler.ts' });
  Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', {
    Handler: 'index.handler',
    Runtime: 'nodejs22.x',
  });

  const assetDir = readdirSync(app.outdir)
    .map((name) => path.join(app.outdir, name))
    .find((dir) => existsSync(path.join(dir, 'index.mjs')));
  expect(assetDir).toBeDefined();
  const code = readFileSync(path.join(assetDir!, 'index.mjs'), 'utf8');
  // One file at a cold start: the chunks it imported statically are merged into it
  // (test/infra/bundling-merge.test.ts), the banner's `require` with them.
  expect(code).toMatch(/import\{createRequire as \w+\}from"node:module"/);
  expect(code).not.toMatch(/from\s*"\.\/chunks\//);
  expect(existsSync(path.join(assetDir!, 'index.mjs.map'))).toBe(true);
  expect(code.split('\n').length).toBeLessThan(100); // minified

  // The scheduler client is a chunk of its own that the entry does not load at start; the Route 53
  // factory nobody calls leaves no chunk behind.
  const chunks = readdirSync(path.join(assetDir!, 'chunks')).filter((f) => f.endsWith('.mjs'));
  const chunkText = chunks.map((f) => readFileSync(path.join(assetDir!, 'chunks', f), 'utf8'));
  expect(chunkText.some((text) => text.includes('scheduler'))).toBe(true);
  expect([code, ...chunkText].some((text) => /route ?53/i.test(text))).toBe(false);
  // A chunk loaded on first use has the banner and a map; a merged one re-exports from index.mjs.
  for (const [i, text] of chunkText.entries()) {
    if (text.startsWith('export {')) {
      expect(text, chunks[i]).toMatch(/from '\.\.\/index\.mjs';\n$/);
      continue;
    }
    expect(text.startsWith("import { createRequire } from 'node:module';"), chunks[i]).toBe(true);
    expect(existsSync(path.join(assetDir!, 'chunks', `${chunks[i]}.map`)), chunks[i]).toBe(true);
  }

  // Run it where no node_modules can be found: the SDK must be inside the bundle, the CommonJS
  // parts of it must load through the banner's `require`, and the chunk must load on first use.
  const sandbox = mkdtempSync(path.join(tmpdir(), 'sesame-bundle-'));
  try {
    cpSync(assetDir!, sandbox, { recursive: true });
    const output = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', "const m = await import('./index.mjs'); console.log(await m.handler());"],
      { cwd: sandbox, encoding: 'utf8' },
    );
    expect(output.trim()).toBe('SQS Scheduler');
  } finally {
    rmSync(sandbox, { recursive: true, force: true });
    rmSync(app.outdir, { recursive: true, force: true });
  }
});

// CDK caches a bundled asset by source folder and bundling options (lib/constructs/sesame-function.ts):
// two functions of one app must each get their own bundle.
it('gives each function of an app its own bundle', () => {
  const app = new App();
  const stack = new Stack(app, 'TwoFunctions');
  new SesameFunction(stack, 'Sdk', { entry: 'test/infra/fixtures/sdk-handler.ts' });
  new SesameFunction(stack, 'Throwing', { entry: 'test/infra/fixtures/throwing-handler.ts' });
  try {
    const functions = Template.fromStack(stack).findResources('AWS::Lambda::Function');
    const keys = Object.values(functions).map(
      (f) => (f as { Properties: { Code: { S3Key: unknown } } }).Properties.Code.S3Key,
    );
    expect(keys).toHaveLength(2);
    expect(new Set(keys.map((k) => JSON.stringify(k))).size).toBe(2);
    const bundles = readdirSync(app.outdir)
      .map((name) => path.join(app.outdir, name, 'index.mjs'))
      .filter((file) => existsSync(file))
      .map((file) => readFileSync(file, 'utf8'));
    expect(bundles).toHaveLength(2);
    expect(bundles.filter((code) => code.includes('fixture failure'))).toHaveLength(1);
  } finally {
    rmSync(app.outdir, { recursive: true, force: true });
  }
});

// Node 22 loads a builtin imported as ESM through a facade that reads every export, and some load
// more on their first read (node:http's WebSocket compiles undici): lib/bundling.ts bundles the
// imports of those builtins as lib/builtins/<name>.mjs, which take them from getBuiltinModule.
it('bundles node:http, node:net, node:process, node:timers and node:util without their ESM facades', async () => {
  const entry = path.resolve('test/infra/fixtures/http-import-handler.ts');
  const out = mkdtempSync(path.join(tmpdir(), 'sesame-http-'));
  const control = mkdtempSync(path.join(tmpdir(), 'sesame-http-control-'));
  try {
    const result = await bundleEntry(entry, out);
    const files = result.files.map((f) => readFileSync(path.join(out, f), 'utf8'));
    for (const text of files)
      expect(text).not.toMatch(/(from|import)\s*\(?\s*["']node:(http|net|process|timers|util)["']/);
    const run = (dir: string) =>
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          "const m = await import('./index.mjs'); console.log(await m.handler());",
        ],
        { cwd: dir, encoding: 'utf8' },
      ).trim();
    expect(run(out)).toBe('Not Found function function string function true 6 function loaded:');
    // Bundled without the aliases, the same code loads what the accessors do (on Node 22, which runs
    // the tests).
    const { alias: _alias, ...plain } = esbuildOptions(entry, control);
    await esbuild.build(plain);
    expect(run(control)).toBe(
      'Not Found function function string function true 6 function loaded:undici,worker_threads,internal/process/report,internal/blocklist,timers/promises',
    );
  } finally {
    rmSync(out, { recursive: true, force: true });
    rmSync(control, { recursive: true, force: true });
  }
});
