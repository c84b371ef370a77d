import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundleEntry } from '../../lib/bundling';
import { sourceMappedStack } from '../../shared/stack-trace';

// The functions run without --enable-source-maps (lib/constructs/sesame-function.ts): the error
// logs map their stacks through the bundle's source maps themselves. A fixture bundled as the
// functions are throws; its stack is read in a plain `node`, as Lambda runs it.
const entry = path.resolve('test/infra/fixtures/throwing-handler.ts');
const THROW_LINE = 6; // `throw new Error(...)` in the fixture
const CALL_LINE = 11; // `failDeepInside('on purpose')`
let out: string;

beforeAll(async () => {
  out = mkdtempSync(path.join(tmpdir(), 'sesame-stack-'));
  await bundleEntry(entry, out);
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

const run = (): { raw: string; mapped: string } =>
  JSON.parse(
    execFileSync(
      process.execPath,
      ['--input-type=module', '-e', "const m = await import('./index.mjs'); console.log(await m.handler());"],
      { cwd: out, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
    ),
  );

it('maps a bundled stack to the source files and lines, and leaves other frames alone', () => {
  const { raw, mapped } = run();
  // As raised: minified positions in the bundle.
  expect(raw).toMatch(/index\.mjs:\d+:\d+/);
  expect(raw).not.toContain('throwing-handler.ts');
  // Mapped: the throw and the call by source file and line, the message line unchanged.
  const lines = mapped.split('\n');
  expect(lines[0]).toBe('Error: fixture failure: on purpose');
  expect(lines[1]).toMatch(new RegExp(`test/infra/fixtures/throwing-handler\\.ts:${THROW_LINE}:\\d+\\)?$`));
  expect(lines[2]).toMatch(new RegExp(`test/infra/fixtures/throwing-handler\\.ts:${CALL_LINE}:\\d+\\)?$`));
  expect(mapped).not.toMatch(/index\.mjs:\d+:\d+/);
  // As many frames as raised, each in place.
  expect(lines).toHaveLength(raw.split('\n').length);
});

it('leaves a stack as raised when the bundle has no source map', () => {
  for (const f of readdirSync(out, { recursive: true, encoding: 'utf8' }))
    if (f.endsWith('.map')) rmSync(path.join(out, f));
  const { raw, mapped } = run();
  expect(mapped).toBe(raw);
});

it('answers undefined for what has no stack, and keeps frames it cannot map', () => {
  expect(sourceMappedStack(undefined)).toBeUndefined();
  expect(sourceMappedStack('text')).toBeUndefined();
  expect(sourceMappedStack({ stack: 42 })).toBeUndefined();
  const stack = 'Error: x\n    at f (/nowhere/index.mjs:1:10)\n    at node:internal/process/task_queues:95:5';
  expect(sourceMappedStack({ stack })).toBe(stack);
});
