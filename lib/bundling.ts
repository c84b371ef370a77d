/**
 * How every Lambda entry point is bundled: esbuild, run in the CDK process (no Docker), into
 * minified ESM with source maps and the AWS SDK inside, split into chunks.
 *
 * Code splitting is why this is not NodejsFunction's bundling (which writes one `--outfile`):
 * without it, esbuild inlines everything a dynamic `import()` reaches into the one file, wrapped to
 * run on first use but parsed at every cold start, and not tree-shaken (an SDK client reached that
 * way comes with all its commands). With it, each dynamic `import()` is a chunk of its own that
 * Lambda reads only when that code first runs, and the code behind it is tree-shaken like the rest.
 * The chunks `index.mjs` imports statically are then merged into it (`mergeStartup`), so a cold
 * start loads that one file, nothing else.
 *
 * bench/bundles.ts builds with the same options to measure import times.
 */
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { repoRoot } from './paths';

/**
 * ESM needs `require` for the CommonJS dependencies esbuild inlines (parts of the AWS SDK among
 * them); this is the banner esbuild's documentation suggests. esbuild puts it on every chunk.
 */
const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/**
 * The builtins bundled from lib/builtins/<name>.mjs rather than imported as ESM: each takes the
 * module from `process.getBuiltinModule` and exports its data properties. Node 22 loads a builtin
 * imported as ESM through a facade that reads every export, and some exports load more on their
 * first read: `node:http`'s `WebSocket`, `CloseEvent` and `MessageEvent` compile the whole of undici
 * (an ESM import of it took about 27 ms, where `getBuiltinModule` takes about 2), `node:util`'s
 * load parse_args, the diff module and worker_threads, `node:process`'s open stdin, stdout
 * and stderr, `node:net`'s load the block list and socket address modules (every function imports
 * `isIP`), and `node:timers`' loads timers/promises (middy imports `setTimeout`). (`node:fs` is left as it is: the SDK imports its lazy `promises` and `ReadStream`,
 * so a shim would load what its facade does.) middy's util imports `STATUS_CODES` from `node:http`,
 * so every HTTP function paid for undici at import. test/infra/bundling.test.ts shows a bundle
 * that imports them, statically and through `import()`, without loading what they would.
 */
export const BUILTIN_SHIMS = ['http', 'net', 'process', 'timers', 'util'] as const;
const builtinAliases = Object.fromEntries(
  BUILTIN_SHIMS.flatMap((name) => {
    // (An alias also covers a module's subpaths: none of these has one that code imports.)
    const shim = path.join(repoRoot, 'lib/builtins', `${name}.mjs`);
    return [
      [`node:${name}`, shim],
      [name, shim],
    ];
  }),
);

/** The bundling settings every function shares. */
export const sesameBundling = {
  /** The file Lambda loads (handler `index.handler`). */
  entryFile: 'index.mjs',
  /** Where the chunks go, beside it. */
  chunkDir: 'chunks',
  target: 'node22',
  mainFields: ['module', 'main'],
  minify: true,
  sourcemap: true,
  // Mappings are enough for stack traces; embedding sources would double the asset size.
  sourcesContent: false,
  banner: ESM_REQUIRE_BANNER,
} as const;

/** esbuild's options for bundling `entry` (absolute) into `outdir`. */
export function esbuildOptions(
  entry: string,
  outdir: string,
  { minify = sesameBundling.minify }: { minify?: boolean } = {},
): esbuild.BuildOptions & { metafile: true } {
  return {
    entryPoints: { [path.basename(sesameBundling.entryFile, '.mjs')]: entry },
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: `${sesameBundling.chunkDir}/[name]-[hash]`,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: sesameBundling.target,
    mainFields: [...sesameBundling.mainFields],
    minify,
    sourcemap: minify ? sesameBundling.sourcemap : false,
    sourcesContent: sesameBundling.sourcesContent,
    // The AWS SDK is bundled too: the version that runs is the one tested.
    external: [],
    banner: {
      // Unminified, the banner's `createRequire` would clash with a bundled module's own import of it.
      js: minify
        ? sesameBundling.banner
        : "import { createRequire as __bannerRequire } from 'node:module'; const require = __bannerRequire(import.meta.url);",
    },
    alias: builtinAliases,
    metafile: true,
    logLevel: 'error',
  };
}

export interface BundleResult {
  readonly metafile: esbuild.Metafile;
  /** Files (relative to outdir) a cold start loads: the entry, with the chunks it imported statically merged in. */
  readonly startupFiles: readonly string[];
  /**
   * esbuild's outputs (relative to outdir, as in `metafile`) whose code a cold start loads: the
   * entry and the chunks merged into it (`mergeStartup`).
   */
  readonly startupOutputs: readonly string[];
  /** Every file kept, startup files and chunks loaded on first use alike (maps not included). */
  readonly files: readonly string[];
}

/**
 * Bundles `entry` into `outdir` and removes the chunks nothing can load. esbuild writes a chunk for
 * every dynamic `import()` of a module in the graph, even one inside code it then drops as unused
 * (an adapter factory a function is not wired with): such a chunk is in no output's imports.
 */
export async function bundleEntry(
  entry: string,
  outdir: string,
  options: { minify?: boolean } = {},
): Promise<BundleResult> {
  const result = await esbuild.build(esbuildOptions(entry, outdir, options));
  refuseUndefinedImports(result.warnings);
  return mergeStartup(outdir, result.metafile, pruneUnreachable(result.metafile, outdir), options);
}

/** `bundleEntry`, synchronously (CDK's local bundling is synchronous). */
export function bundleEntrySync(entry: string, outdir: string): BundleResult {
  const result = esbuild.buildSync(esbuildOptions(entry, outdir));
  refuseUndefinedImports(result.warnings);
  return mergeStartup(outdir, result.metafile, pruneUnreachable(result.metafile, outdir));
}

/** The temporary entry `mergeStartup` bundles, removed after. */
const MERGE_ENTRY = '__startup.mjs';

/**
 * Makes what a cold start loads one file. esbuild's splitting leaves the entry importing the
 * chunks of code it shares with the code behind each `import()` (twenty-odd files for an HTTP
 * function), and Node loads each as a module of its own: measured on `http-track`, the same code
 * in one file imported about 3 ms faster (bench/bundles.ts). So `index.mjs` and the chunks it
 * imports statically are bundled again into one `index.mjs` (esbuild reads their source maps, so
 * the new map still points at the sources), which also exports each chunk's exports under a name
 * of its own; each of those chunks becomes a one-line module re-exporting them from `index.mjs`.
 * The chunks loaded on first use are left as they are: their imports of a shared chunk now reach
 * the same bindings in `index.mjs`, so every module still exists once.
 */
function mergeStartup(
  outdir: string,
  metafile: esbuild.Metafile,
  bundle: BundleResult,
  { minify = sesameBundling.minify }: { minify?: boolean } = {},
): BundleResult {
  const { entryFile } = sesameBundling;
  const shared = bundle.startupFiles.filter((f) => f !== entryFile);
  if (shared.length === 0) return bundle;
  const exportsOf = new Map(
    Object.entries(metafile.outputs).map(([file, out]) => [
      path.relative(outdir, path.resolve(file)),
      out.exports,
    ]),
  );
  const own = (i: number, name: string) => `__sesame${i}_${name}`;
  const lines = [`export * from './${entryFile}';`];
  const shims = shared.map((file, i) => {
    const names = exportsOf.get(file) ?? [];
    const posix = file.split(path.sep).join('/');
    if (names.length > 0)
      lines.push(`export { ${names.map((n) => `${n} as ${own(i, n)}`).join(', ')} } from './${posix}';`);
    const back = path.relative(path.dirname(path.join(outdir, file)), path.join(outdir, entryFile));
    const specifier = back.startsWith('.') ? back : `./${back}`;
    return {
      file,
      text: `export { ${names.map((n) => `${own(i, n)} as ${n}`).join(', ')} } from '${specifier.split(path.sep).join('/')}';\n`,
    };
  });
  const lazy = bundle.files.filter((f) => !bundle.startupFiles.includes(f));
  const mergeEntry = path.join(outdir, MERGE_ENTRY);
  writeFileSync(mergeEntry, `${lines.join('\n')}\n`);
  try {
    const merged = esbuild.buildSync({
      entryPoints: [mergeEntry],
      outfile: path.join(outdir, entryFile),
      allowOverwrite: true,
      write: false,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: sesameBundling.target,
      minify,
      sourcemap: minify ? sesameBundling.sourcemap : false,
      sourcesContent: sesameBundling.sourcesContent,
      // Relative to the new file: esbuild rewrites the chunks' `./x.mjs` as `./chunks/x.mjs`.
      external: ['node:*', ...lazy.map((f) => path.join(outdir, f))],
      logLevel: 'error',
    });
    for (const out of merged.outputFiles) writeFileSync(out.path, out.contents);
  } finally {
    rmSync(mergeEntry, { force: true });
  }
  for (const { file, text } of shims) {
    writeFileSync(path.join(outdir, file), text);
    rmSync(path.join(outdir, `${file}.map`), { force: true });
  }
  return {
    metafile,
    startupFiles: [entryFile],
    startupOutputs: bundle.startupOutputs,
    files: [entryFile, ...shared, ...lazy],
  };
}

/**
 * A property read through a namespace import that the module does not export is only a warning to
 * esbuild ("will always be undefined"): with `BUILTIN_SHIMS`, that is a builtin's accessor that the
 * shim leaves out, so the build fails instead.
 */
function refuseUndefinedImports(warnings: readonly esbuild.Message[]): void {
  const undefinedImports = warnings.filter((w) => w.id === 'import-is-undefined');
  if (undefinedImports.length === 0) return;
  const where = undefinedImports.map((w) => `${w.location?.file}:${w.location?.line}: ${w.text}`);
  throw new Error(`Bundling refused imports that would be undefined:\n${where.join('\n')}`);
}

function pruneUnreachable(metafile: esbuild.Metafile, outdir: string): BundleResult {
  // Output paths in the metafile are relative to the working directory.
  const rel = (output: string) => path.relative(outdir, path.resolve(output));
  const outputs = new Map(
    Object.entries(metafile.outputs)
      .filter(([file]) => file.endsWith('.mjs'))
      .map(([file, out]) => [rel(file), out] as const),
  );
  const walk = (kinds: ReadonlySet<string>): Set<string> => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const imported of outputs.get(file)?.imports ?? []) {
        if (!imported.external && kinds.has(imported.kind)) visit(rel(imported.path));
      }
    };
    visit(sesameBundling.entryFile);
    return seen;
  };
  const startup = walk(new Set(['import-statement']));
  const reachable = walk(new Set(['import-statement', 'dynamic-import']));
  for (const file of outputs.keys()) {
    if (reachable.has(file)) continue;
    rmSync(path.join(outdir, file), { force: true });
    rmSync(path.join(outdir, `${file}.map`), { force: true });
  }
  const chunkDir = path.join(outdir, sesameBundling.chunkDir);
  if (existsSync(chunkDir) && readdirSync(chunkDir).length === 0) rmSync(chunkDir, { recursive: true });
  return { metafile, startupFiles: [...startup], startupOutputs: [...startup], files: [...reachable] };
}
