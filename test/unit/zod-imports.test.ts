/**
 * Every module a Lambda bundles imports zod as `import * as z from 'zod/mini'`. Classic `zod`
 * adds about 400 KB to a bundle, and so does `import { z } from 'zod/mini'`: that `z` is a
 * namespace object esbuild cannot tree-shake, so every locale and the JSON-schema code come along.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

const IMPORT = /^import\s+(?:type\s+)?([^;]*?)\s+from\s+'(zod[^']*)'/gm;

/** The zod imports of one source text that would defeat tree-shaking. */
function badZodImports(text: string): string[] {
  const bad: string[] = [];
  for (const [statement, clause, specifier] of text.matchAll(IMPORT)) {
    if (statement.startsWith('import type')) continue;
    if (specifier === 'zod/locales') continue; // named imports of single locales shake fine
    if (specifier !== 'zod/mini' || clause !== '* as z') bad.push(statement);
  }
  return bad;
}

it('flags the imports that pull all of zod into a bundle', () => {
  expect(badZodImports("import { z } from 'zod/mini';")).toHaveLength(1);
  expect(badZodImports("import * as z from 'zod';")).toHaveLength(1);
  expect(badZodImports("import { string } from 'zod/mini';")).toHaveLength(1);
  expect(badZodImports("import * as z from 'zod/mini';")).toEqual([]);
  expect(badZodImports("import type { z } from 'zod/mini';")).toEqual([]);
  expect(badZodImports("import { en } from 'zod/locales';")).toEqual([]);
});

it('bundled code (functions/, shared/) imports zod only as `* as z` from zod/mini', () => {
  const offenders = ['functions', 'shared']
    .flatMap((dir) => sources(join(root, dir)))
    .flatMap((file) => badZodImports(readFileSync(file, 'utf8')).map((s) => `${relative(root, file)}: ${s}`));
  expect(offenders).toEqual([]);
});
