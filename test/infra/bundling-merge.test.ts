import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundleEntry, esbuildOptions } from '../../lib/bundling';

// lib/bundling.ts merges the entry and the chunks it imports statically into one index.mjs (a
// cold start then loads one file), and leaves each merged chunk as a module re-exporting its
// bindings from index.mjs for the chunks loaded on first use. The fixture's entry and its lazily
// loaded module share a module holding a class and a counter: it must exist once.
const entry = path.resolve('test/infra/fixtures/split/handler.ts');
let out: string;
let result: Awaited<ReturnType<typeof bundleEntry>>;

beforeAll(async () => {
  out = mkdtempSync(path.join(tmpdir(), 'sesame-merge-'));
  result = await bundleEntry(entry, out);
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

const run = (dir: string) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      ['--input-type=module', '-e', "const m = await import('./index.mjs'); console.log(await m.handler());"],
      { cwd: dir, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
    ),
  );

it('splits the fixture as the functions are split: a shared chunk the entry imports statically', async () => {
  // Without the merge (esbuild's own output), the entry imports the shared chunk.
  const control = mkdtempSync(path.join(tmpdir(), 'sesame-merge-control-'));
  try {
    const built = await esbuild.build(esbuildOptions(entry, control));
    const index = Object.entries(built.metafile.outputs).find(([f]) => f.endsWith('index.mjs'))![1];
    expect(index.imports.filter((i) => i.kind === 'import-statement' && !i.external).length).toBeGreaterThan(
      0,
    );
  } finally {
    rmSync(control, { recursive: true, force: true });
  }
});

it('loads one file at a cold start, and every module once', () => {
  expect(result.startupFiles).toEqual(['index.mjs']);
  const index = readFileSync(path.join(out, 'index.mjs'), 'utf8');
  expect(index).not.toMatch(/from\s*["']\.\/chunks\//);
  expect(index).toMatch(/import\(["']\.\/chunks\/lazy-[\w-]+\.mjs["']\)/);
  const chunks = readdirSync(path.join(out, 'chunks')).filter((f) => f.endsWith('.mjs'));
  const shims = chunks.filter((f) =>
    readFileSync(path.join(out, 'chunks', f), 'utf8').startsWith('export {'),
  );
  expect(shims.length).toBeGreaterThan(0);
  for (const shim of shims)
    expect(readFileSync(path.join(out, 'chunks', shim), 'utf8')).toMatch(
      /^export \{[^}]+\} from '\.\.\/index\.mjs';\n$/,
    );
  expect([...result.files].sort()).toEqual(['index.mjs', ...chunks.map((f) => `chunks/${f}`)].sort());

  const answer = run(out);
  // The lazy chunk sees the entry's bump, the entry sees the lazy chunk's, and the class is one.
  expect(answer).toMatchObject({ seenByLazy: 1, countAfterLazyBump: 2, sameClass: true });
});

it('keeps the source maps: a stack through the merged file and a lazy chunk maps to the sources', () => {
  const lines = (run(out).mapped as string).split('\n');
  expect(lines[0]).toBe('Error: fixture failure: from the lazy chunk');
  expect(lines[1]).toMatch(/test\/infra\/fixtures\/split\/state\.ts:13:\d+\)?$/);
  expect(lines[2]).toMatch(/test\/infra\/fixtures\/split\/lazy\.ts:10:\d+\)?$/);
  expect(lines[3]).toMatch(/test\/infra\/fixtures\/split\/handler\.ts:14:\d+\)?$/);
});
