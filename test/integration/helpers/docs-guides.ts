/**
 * Runs the shell walkthroughs of the README and docs/*.md as a reader would paste them.
 *
 * A guide is its ```sh blocks, in order, run by one `bash -euo pipefail` (variables carry over
 * from block to block) in a temp folder, against a runtime the test starts the way `npm start`
 * would: the environment assignments of the guide's `... npm start` lines become the runtime's
 * environment (a relative `*_FILE` path is resolved in the guide's folder), and the `npm start`
 * line itself is not run. `export` lines get the runtime's values: `SESAME_URL` always, and `SK`,
 * `PK`, `PROJECT` where the guide shows a placeholder (`sk_...`, `4f3c...`).
 *
 * A block that cannot run on this machine is marked `<!-- not run: reason -->` on the line
 * before its fence (blank lines between are allowed); it is listed, not run.
 *
 * Expected output: full-line comments right after a command, starting with `{`, `[`, `HTTP/`
 * or a digit, are that command's output (with the comment lines after them that continue it:
 * indented, JSON, `name: value` headers or `…`; a line of prose ends it). A JSON one (its lines joined) must equal the command's
 * whole output (compared in its compact form); any other must match the output's lines in order. `…` (or `...`) stands for any
 * text, and the runtime's URL is shown as http://127.0.0.1:3000. When the real output is an error
 * (`{"success":false,"error":{code, message}}` or the flat `{"error": "..."}`), the example must
 * show its code and message exactly, and a `success` the output carries must be shown as it is.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const DOCS_URL = 'http://127.0.0.1:3000';

export interface ShellBlock {
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly code: string;
  /** Set when the block is marked `<!-- not run: reason -->`. */
  readonly notRun?: string;
}

/** The ```sh (or ```bash) blocks of a markdown file, in order. */
export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  let lastMarker: { reason: string; line: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const marker = /^<!--\s*not run:\s*(.*?)\s*-->\s*$/.exec(line);
    if (marker) {
      lastMarker = { reason: marker[1] ?? '', line: i };
      continue;
    }
    const fence = /^(`{3,})(\S*)\s*$/.exec(line);
    if (!fence) {
      if (line.trim() !== '') lastMarker = undefined;
      continue;
    }
    const close = fence[1] ?? '```';
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]?.trim() !== close; i++) body.push(lines[i] ?? '');
    if (fence[2] === 'sh' || fence[2] === 'bash') {
      blocks.push({
        line: start + 1,
        code: body.join('\n'),
        ...(lastMarker ? { notRun: lastMarker.reason } : {}),
      });
    }
    lastMarker = undefined;
  }
  return blocks;
}

/** True when bash reads `code` as complete commands (no open quote, loop or continuation). */
export function isCompleteShell(code: string): boolean {
  if (/\\\s*$/.test(code)) return false;
  return spawnSync('bash', ['-n'], { input: `${code}\n`, stdio: ['pipe', 'ignore', 'ignore'] }).status === 0;
}

const isComment = (line: string) => /^\s*#/.test(line);
const isExpectationStart = (text: string) => /^(\{|\[|HTTP\/|\d)/.test(text);
/** A further line of an expected output (indented JSON, a JSON line, a header, `…`), not prose. */
const isExpectationMore = (text: string) => /^(\s|\{|\[|"|…|\d|[A-Za-z0-9-]+: )/.test(text);

export interface Expectation {
  /** Guide line of the expectation's first comment line. */
  readonly line: number;
  /** The comment lines without their `# `. */
  readonly lines: readonly string[];
}

/** One piece of the script: code to run, and whether its output is compared with an expectation. */
interface Piece {
  readonly code: string;
  readonly expectation?: Expectation;
}

/** Splits a block into code and (the command before each expectation, the expectation). */
export function splitBlock(block: ShellBlock): Piece[] {
  const lines = block.code.split('\n');
  const pieces: Piece[] = [];
  let from = 0;
  for (let i = 0; i < lines.length; i++) {
    const text = (lines[i] ?? '').replace(/^\s*#\s?/, '');
    if (!isComment(lines[i] ?? '') || !isExpectationStart(text)) continue;
    const previous = lines[i - 1];
    if (previous === undefined || previous.trim() === '' || isComment(previous)) continue;
    const expected: string[] = [text];
    let end = i + 1;
    for (; end < lines.length && isComment(lines[end] ?? ''); end++) {
      const more = (lines[end] ?? '').replace(/^\s*#\s?/, '');
      if (!isExpectationMore(more)) break;
      expected.push(more);
    }
    const code = lines.slice(from, i);
    const start = lastCommandStart(code);
    if (start === undefined) {
      throw new Error(`line ${block.line + 1 + i}: cannot tell which command the expected output belongs to`);
    }
    pieces.push({ code: code.slice(0, start).join('\n') });
    pieces.push({
      code: code.slice(start).join('\n'),
      expectation: { line: block.line + 1 + i, lines: expected },
    });
    from = end;
    i = end - 1;
  }
  pieces.push({ code: lines.slice(from).join('\n') });
  return pieces;
}

function lastCommandStart(code: readonly string[]): number | undefined {
  for (let i = code.length - 1; i >= 0; i--) {
    const line = code[i] ?? '';
    if (line.trim() === '' || isComment(line)) continue;
    if (isCompleteShell(code.slice(0, i).join('\n')) && isCompleteShell(code.slice(i).join('\n'))) return i;
  }
  return undefined;
}

/** The environment of the guide's `VAR=value ... npm start` lines (all of them together). */
export function startEnvironment(blocks: readonly ShellBlock[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const block of blocks) {
    for (const line of block.code.split('\n')) {
      const m = /^\s*((?:[A-Z_][A-Z0-9_]*=\S*\s+)*)npm start\b/.exec(line);
      if (!m) continue;
      for (const assignment of (m[1] ?? '').trim().split(/\s+/).filter(Boolean)) {
        const [name = '', ...rest] = assignment.split('=');
        const value = rest.join('=');
        if (env[name] !== undefined && env[name] !== value) {
          throw new Error(`block at line ${block.line}: ${name} is set to two values by npm start lines`);
        }
        env[name] = value;
      }
    }
  }
  return env;
}

const PLACEHOLDER = /\.\.\.|…|</;

/** Rewrites a block for the test: `npm start` lines become `:`, `export` placeholders get values. */
export function adaptCode(code: string, values: Readonly<Record<string, string>>): string {
  return code
    .split('\n')
    .map((line) => {
      if (/^\s*(?:[A-Z_][A-Z0-9_]*=\S*\s+)*npm start\b/.test(line))
        return ": 'npm start: the test started Sesame'";
      if (!/^\s*export\s/.test(line)) return line;
      return line.replace(/\b([A-Z_][A-Z0-9_]*)=(\S*)/g, (whole, name: string, value: string) => {
        const given = values[name];
        if (given === undefined) return whole;
        if (name === 'SESAME_URL' || PLACEHOLDER.test(value)) return `${name}=${given}`;
        return whole;
      });
    })
    .join('\n');
}

export interface GuideRun {
  /** Exit status of bash. */
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The guide line of the last block that started. */
  readonly lastBlockLine: number | undefined;
  /** The real output of each command that has an expectation, in order. */
  readonly outputs: readonly { expectation: Expectation; output: string }[];
}

const BLOCK = '\u001eBLOCK';
const BEGIN = '\u001eBEGIN';
const END = '\u001eEND';

/** Runs the runnable blocks in one bash session in `cwd` with `env`. */
export async function runGuide(
  blocks: readonly ShellBlock[],
  options: { cwd: string; env: Record<string, string>; values: Record<string, string>; timeoutMs: number },
): Promise<GuideRun> {
  const expectations: Expectation[] = [];
  const script: string[] = [];
  for (const block of blocks) {
    if (block.notRun !== undefined) continue;
    script.push(`printf '\\n${BLOCK} %s\\n' ${block.line}`);
    for (const piece of splitBlock({ ...block, code: adaptCode(block.code, options.values) })) {
      if (!piece.expectation) {
        script.push(piece.code);
        continue;
      }
      const n = expectations.push(piece.expectation) - 1;
      script.push(`printf '\\n${BEGIN} %s\\n' ${n}`, piece.code, `printf '\\n${END} %s\\n' ${n}`);
    }
  }
  // The script lives outside the guide's folder, so that the folder holds only what the guide made.
  const scriptDir = mkdtempSync(join(tmpdir(), 'sesame-guide-script-'));
  const scriptFile = join(scriptDir, 'guide.sh');
  writeFileSync(scriptFile, `${script.join('\n')}\n`);
  const child = spawn('bash', ['-euo', 'pipefail', scriptFile], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
  const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  clearTimeout(timer);
  rmSync(scriptDir, { recursive: true, force: true });

  const outputs: { expectation: Expectation; output: string }[] = [];
  let lastBlockLine: number | undefined;
  for (const m of stdout.matchAll(new RegExp(`^${BLOCK} (\\d+)$`, 'gm'))) lastBlockLine = Number(m[1]);
  const pattern = new RegExp(`\\n${BEGIN} (\\d+)\\n([\\s\\S]*?)\\n${END} \\1\\n`, 'g');
  for (const m of stdout.matchAll(pattern)) {
    const expectation = expectations[Number(m[1])];
    if (expectation) outputs.push({ expectation, output: m[2] ?? '' });
  }
  return { status, stdout, stderr, lastBlockLine, outputs };
}

const wildcard = (text: string) =>
  text
    .split(/…|\.\.\./)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*?');

/**
 * Compares a command's real output with the guide's example; answers what differs, or undefined.
 * `url` is the runtime's base URL, shown in the guides as http://127.0.0.1:3000.
 */
export function compareOutput(expected: readonly string[], actual: string, url: string): string | undefined {
  const output = actual.split(url).join(DOCS_URL).replace(/\s+$/, '').replace(/^\n/, '');
  const first = expected[0] ?? '';
  if (first.startsWith('{') || first.startsWith('[')) {
    const example = expected.map((line) => line.trim()).join('');
    const compact = compactJson(output);
    if (!new RegExp(`^${wildcard(example)}$`).test(compact))
      return `expected ${example}\n     got ${compact}`;
    return checkEnvelope(example, compact);
  }
  const lines = output.split('\n').map((line) => line.replace(/\r$/, ''));
  let at = 0;
  for (const line of expected) {
    const re = new RegExp(`^${wildcard(line.trim())}$`);
    while (at < lines.length && !re.test((lines[at] ?? '').trim())) at++;
    if (at === lines.length) return `expected a line ${line.trim()} (in this order) in\n${output}`;
    at++;
  }
  return undefined;
}

/** JSON output in its compact form (a guide may pretty-print it); other output with its lines joined. */
function compactJson(output: string): string {
  try {
    return JSON.stringify(JSON.parse(output));
  } catch {
    return output
      .split('\n')
      .map((line) => line.trim())
      .join('');
  }
}

/** An error's code and message, and `success`, must be shown as they are, not left to a wildcard. */
function checkEnvelope(example: string, output: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(output);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  const required: string[] = [];
  if (typeof record.success === 'boolean') required.push(`"success":${record.success}`);
  const error = record.error;
  if (typeof error === 'string') required.push(`"error":${JSON.stringify(error)}`);
  if (typeof error === 'object' && error !== null) {
    const { code, message } = error as Record<string, unknown>;
    if (typeof code === 'string') required.push(`"code":${JSON.stringify(code)}`);
    if (typeof message === 'string') required.push(`"message":${JSON.stringify(message)}`);
  }
  const missing = required.filter((part) => !example.includes(part));
  return missing.length === 0 ? undefined : `the example must show ${missing.join(', ')} as they are`;
}
