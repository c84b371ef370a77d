/**
 * The README's walkthrough leaves scratch files (zone.json, domain.json, track.html) in the
 * checkout; `.gitignore` names them, and the linter must honour it so that `npm test` still passes.
 * Runs the project's own biome with the project's biome.json in a scratch git repository: the same
 * badly formatted file fails the check unless `.gitignore` names it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
const biome = join(root, 'node_modules', '.bin', 'biome');
const dir = mkdtempSync(join(tmpdir(), 'sesame-lint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function lint(): number {
  const run = spawnSync(biome, ['check', '.'], { cwd: dir, encoding: 'utf8' });
  return run.status ?? -1;
}

describe('lint honours .gitignore', () => {
  it('fails on a badly formatted scratch file that .gitignore does not name, passes once it does', () => {
    execFileSync('git', ['init', '-q'], { cwd: dir });
    copyFileSync(join(root, 'biome.json'), join(dir, 'biome.json'));
    writeFileSync(join(dir, 'zone.json'), '{"records":[   {"name":"x"}],\n\n\n   "b":  2}\n');
    writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
    expect(lint()).not.toBe(0);
    copyFileSync(join(root, '.gitignore'), join(dir, '.gitignore'));
    expect(lint()).toBe(0);
  });
});
