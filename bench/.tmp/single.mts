import { esbuildOptions } from '/work/main/lib/bundling.ts';
import * as esbuild from '/work/main/node_modules/esbuild/lib/main.js';

const [entry, outdir] = process.argv.slice(2);
const o = esbuildOptions(entry!, outdir!);
await esbuild.build({
  ...o,
  splitting: false,
  chunkNames: undefined,
  plugins: [
    {
      name: 'lazy-external',
      setup(b) {
        b.onResolve({ filter: /.*/ }, (a) =>
          a.kind === 'dynamic-import' ? { path: a.path, external: true } : undefined,
        );
      },
    },
  ],
});
