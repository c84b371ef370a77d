/**
 * `npm run bench:bundles`: builds every function of the manifest with CDK's bundling options
 * (`sesameBundling`, lib/constructs/sesame-function.ts) through esbuild directly, plus a baseline
 * bundle holding only the DynamoDB document client, and prints each bundle's size, its heaviest
 * packages (esbuild's metafile) and its median import time above a bare `node`, over paired runs.
 * Goals: `/v1/track`'s group (public) at most the baseline plus 15 ms... see GOALS below.
 *
 *   npm run bench:bundles [-- --runs 10 --before <dir with a checkout>]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import { sesameBundling } from '../lib/constructs/sesame-function';
import { functionUses, manifest } from '../shared/manifest';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '10' }, root: { type: 'string' } },
});
const RUNS = Number(values.runs);
const root = path.resolve(values.root ?? path.join(import.meta.dirname, '..'));
const out = mkdtempSync(path.join(tmpdir(), 'sesame-bundles-'));

/** esbuild options equal to what NodejsFunction passes for `sesameBundling`. */
function options(entry: string, outfile: string): esbuild.BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: sesameBundling.format === 'esm' ? 'esm' : 'cjs',
    target: sesameBundling.target,
    mainFields: [...sesameBundling.mainFields],
    minify: sesameBundling.minify,
    sourcemap: sesameBundling.sourceMap,
    sourcesContent: sesameBundling.sourcesContent,
    // bundleAwsSDK: nothing external.
    external: [],
    banner: { js: sesameBundling.banner },
    metafile: true,
    absWorkingDir: root,
    logLevel: 'error',
  };
}

interface Built {
  readonly name: string;
  readonly file: string;
  readonly bytes: number;
  readonly packages: [string, number][];
}

async function build(name: string, entry: string): Promise<Built> {
  const dir = path.join(out, name);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'index.mjs');
  const result = await esbuild.build(options(entry, file));
  const packages = new Map<string, number>();
  for (const [input, info] of Object.entries(
    result.metafile!.outputs[path.relative(root, file)]?.inputs ?? {},
  )) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    const key = m ? m[1]! : input.startsWith('shared/') ? `shared/${input.split('/')[1]}` : input;
    packages.set(key, (packages.get(key) ?? 0) + info.bytesInOutput);
  }
  // Duplicate copies of one package (nested node_modules) show as two paths of the same name.
  const nested = Object.keys(result.metafile!.inputs).filter((i) => /node_modules\/.*node_modules\//.test(i));
  if (nested.length > 0)
    console.warn(
      `${name}: nested package copies: ${[...new Set(nested.map((n) => n.replace(/\/[^/]+$/, '')))].slice(0, 5).join(', ')}`,
    );
  return { name, file, bytes: statSync(file).size, packages: [...packages].sort((a, b) => b[1] - a[1]) };
}

/** Wall time of a node process importing `file` (or nothing), in ms. */
function time(file: string | undefined): number {
  const script = file ? `await import(${JSON.stringify(file)})` : '';
  const start = process.hrtime.bigint();
  execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: out, stdio: 'ignore' });
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const baselineEntry = path.join(out, 'baseline-entry.mjs');
writeFileSync(
  baselineEntry,
  "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\n" +
    "import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';\n" +
    'export const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));\n',
);
// Resolve the SDK from the measured tree.
const baselineInRoot = path.join(root, `.bench-baseline-${process.pid}.mjs`);
writeFileSync(baselineInRoot, readBaseline());
function readBaseline() {
  return (
    "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\n" +
    "import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';\n" +
    'export const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));\n'
  );
}

const builds: Built[] = [];
try {
  builds.push(await build('baseline', baselineInRoot));
  for (const f of functionUses(manifest))
    builds.push(await build(`${f.kind}-${f.name}`, path.join(root, f.handler)));
} finally {
  rmSync(baselineInRoot, { force: true });
}

// Paired runs: each round times a bare node, then every bundle, in turn.
const above = new Map<string, number[]>(builds.map((b) => [b.name, []]));
for (let run = 0; run < RUNS; run++) {
  for (const b of builds) {
    const bare = time(undefined);
    above.get(b.name)!.push(time(b.file) - bare);
  }
}

const base = median(above.get('baseline')!);
/** Goal per function, in ms above a bare node. */
const goal = (name: string) =>
  name === 'http-public' ? Math.min(base + 15, 2 * base) : name === 'baseline' ? base : 1.5 * base;
const rows = builds.map((b) => {
  const ms = median(above.get(b.name)!);
  return {
    bundle: b.name,
    'size KB': (b.bytes / 1024).toFixed(0),
    'import ms': ms.toFixed(1),
    'x baseline': (ms / base).toFixed(2),
    'goal ms': goal(b.name).toFixed(1),
    ok: ms <= goal(b.name) ? 'yes' : 'NO',
    'largest parts': b.packages
      .slice(0, 5)
      .map(([p, n]) => `${p} ${(n / 1024).toFixed(0)}K`)
      .join(', '),
  };
});
console.log(`root ${root}; ${RUNS} paired runs; import time is the median above a bare node`);
console.table(rows);
console.log(
  'Goals: http-public (/v1/track; also the send path) at most baseline + 15 ms and at most 2x; every other function at most 1.5x.',
);
rmSync(out, { recursive: true, force: true });
