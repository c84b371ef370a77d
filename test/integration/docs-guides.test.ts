/**
 * Every shell walkthrough of the README and docs/*.md runs as written against a local runtime,
 * and every output it shows (error envelopes especially) is the real one. How a guide is read and
 * run: test/integration/helpers/docs-guides.ts. Blocks marked `<!-- not run: reason -->` (deploying
 * to AWS, ...) are listed as skipped tests.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quietLogger } from '../../shared/adapters/local/log';
import { startLocal } from '../../shared/local/runtime';
import {
  adaptCode,
  compareOutput,
  isCompleteShell,
  runGuide,
  type ShellBlock,
  shellBlocks,
  splitBlock,
  startEnvironment,
} from './helpers/docs-guides';

const root = new URL('../../', import.meta.url).pathname;
const guides = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md') && name !== 'cost.md')
    .sort()
    .map((name) => `docs/${name}`),
];

/** Files a guide left in its folder, relative to it. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(dir, join(prefix, entry.name)) : [join(prefix, entry.name)],
  );
}

/** Whether git ignores `path` (relative to the repository's root) by the repository's .gitignore. */
const gitIgnores = (path: string) =>
  spawnSync('git', ['check-ignore', '--no-index', '-q', path], { cwd: root }).status === 0;

/** Files `biome check .` (npm test's lint) would read, were they left in the repository. */
const biomeReads = (path: string) =>
  /\.(json|jsonc|js|mjs|cjs|jsx|ts|mts|cts|tsx|css|graphql|gql)$/.test(path);

async function runOneGuide(guide: string, blocks: readonly ShellBlock[]): Promise<string[]> {
  const cwd = mkdtempSync(join(tmpdir(), 'sesame-guide-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'sesame-guide-data-'));
  const env = startEnvironment(blocks);
  for (const name of Object.keys(env)) {
    const value = env[name];
    if (name.endsWith('_FILE') && value && !isAbsolute(value)) env[name] = join(cwd, value);
  }
  const runtime = await startLocal({ port: 0, dataDir, env, logger: quietLogger });
  const problems: string[] = [];
  try {
    const values = {
      SESAME_URL: runtime.url,
      SK: runtime.secretKey,
      PK: runtime.publicKey,
      PROJECT: runtime.projectId,
    };
    const run = await runGuide(blocks, {
      cwd,
      // Only what a reader's shell has: the guide's own `export` lines give the URL and the keys.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, LANG: 'C.UTF-8' },
      values,
      timeoutMs: 50_000,
    });
    if (run.status !== 0) {
      problems.push(
        `bash exited ${run.status} in the block at ${guide}:${run.lastBlockLine}\n` +
          `stderr: ${run.stderr.slice(-1500)}\nstdout: ${run.stdout.slice(-1500)}`,
      );
    }
    const expected = blocks
      .filter((block) => block.notRun === undefined)
      .flatMap((block) => splitBlock({ ...block, code: adaptCode(block.code, values) }))
      .filter((piece) => piece.expectation).length;
    if (run.status === 0 && run.outputs.length !== expected) {
      problems.push(`${expected} outputs are shown, ${run.outputs.length} were captured`);
    }
    for (const { expectation, output } of run.outputs) {
      const difference = compareOutput(expectation.lines, output, runtime.url);
      if (difference) problems.push(`${guide}:${expectation.line}: ${difference}`);
    }
    // What the walkthrough leaves must not break `npm test` when run in the repository's folder.
    for (const file of filesUnder(cwd)) {
      const ignored = gitIgnores(file);
      if (guide === 'README.md' ? !ignored : !ignored && biomeReads(file)) {
        problems.push(`${guide} leaves ${file}, which .gitignore does not cover (npm test's lint reads it)`);
      }
    }
  } finally {
    await runtime.stop();
    rmSync(cwd, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
  return problems;
}

describe('the guides run as written', () => {
  for (const guide of guides) {
    const blocks = shellBlocks(readFileSync(join(root, guide), 'utf8'));
    for (const block of blocks.filter((b) => b.notRun !== undefined)) {
      it.skip(`${guide}:${block.line} is not run (${block.notRun})`, () => {});
    }
    const runnable = blocks.filter((block) => block.notRun === undefined);
    if (runnable.length === 0) continue;
    it.concurrent(`${guide}: its ${runnable.length} shell blocks run, and show the real outputs`, async () => {
      for (const block of runnable) {
        expect(isCompleteShell(block.code), `${guide}:${block.line} is not complete shell`).toBe(true);
      }
      const problems = await runOneGuide(guide, blocks);
      expect(problems.join('\n\n')).toBe('');
    }, 60_000);
  }
});

describe('how the guides are read', () => {
  it('takes each command output example with the command before it, and its marked blocks', () => {
    const blocks = shellBlocks(
      [
        '```sh',
        'export SESAME_URL=http://127.0.0.1:3000 SK=sk_... PK=pk_fixed',
        'curl -s -X POST "$SESAME_URL/x" \\',
        "  -d '{",
        "  }'",
        '# {"success":true,',
        '#  "data":{}}',
        '# Then the next step.',
        '```',
        '<!-- not run: needs AWS -->',
        '',
        '```sh',
        'cdk deploy',
        '```',
      ].join('\n'),
    );
    expect(blocks.map((b) => [b.line, b.notRun])).toEqual([
      [1, undefined],
      [12, 'needs AWS'],
    ]);
    const [first] = blocks;
    if (!first) throw new Error('no block');
    const pieces = splitBlock({
      ...first,
      code: adaptCode(first.code, { SESAME_URL: 'http://h:1', SK: 'sk_real', PK: 'pk_x' }),
    });
    expect(pieces[0]?.code).toBe('export SESAME_URL=http://h:1 SK=sk_real PK=pk_fixed');
    expect(pieces[1]?.code.split('\n')[0]).toBe('curl -s -X POST "$SESAME_URL/x" \\');
    expect(pieces[1]?.expectation?.lines).toEqual(['{"success":true,', ' "data":{}}']);
    expect(pieces[2]?.code).toBe('# Then the next step.');
  });

  it('refuses an example whose error code or message is not the real one, or hidden behind …', () => {
    const real =
      '{"success":false,"error":{"code":"VALIDATION_ERROR","message":"Invalid request","requestId":"r1"}}';
    const url = 'http://127.0.0.1:41234';
    expect(
      compareOutput(
        ['{"success":false,"error":{"code":"VALIDATION_ERROR","message":"Invalid request",…}}'],
        real,
        url,
      ),
    ).toBeUndefined();
    expect(compareOutput(['{"success":false,"error":{"code":"BAD_REQUEST",…}}'], real, url)).toMatch(
      /expected/,
    );
    expect(compareOutput(['{"success":false,"error":{"code":"VALIDATION_ERROR",…}}'], real, url)).toMatch(
      /"message":"Invalid request"/,
    );
    expect(compareOutput(['{"error":"email is required"}'], '{"error":"name is required"}', url)).toMatch(
      /expected/,
    );
    expect(compareOutput(['{"url":"http://127.0.0.1:3000/a"}'], `{"url":"${url}/a"}`, url)).toBeUndefined();
    expect(
      compareOutput(['HTTP/1.1 204 No Content', 'x: 1'], 'HTTP/1.1 204 No Content\r\ny: 2\r\nx: 1\r\n', url),
    ).toBeUndefined();
    expect(compareOutput(['HTTP/1.1 200 OK'], 'HTTP/1.1 204 No Content\r\n', url)).toMatch(/expected a line/);
  });

  it('reads the runtime environment of the npm start lines', () => {
    const blocks = shellBlocks(
      ['```sh', "echo '{}' > zone.json", 'SESAME_DNS_FILE=zone.json A=1 npm start', '```'].join('\n'),
    );
    expect(startEnvironment(blocks)).toEqual({ SESAME_DNS_FILE: 'zone.json', A: '1' });
    expect(adaptCode(blocks[0]?.code ?? '', {})).toBe(
      "echo '{}' > zone.json\n: 'npm start: the test started Sesame'",
    );
  });
});
