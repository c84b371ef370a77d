// Writes lib/builtins/<name>.mjs (see lib/bundling.ts, BUILTIN_SHIMS): each exports the builtin's
// properties whose first read loads nothing more, found by reading each one in a fresh process.
// Run with the Node that Lambda runs (22): `node scripts/builtin-shims.cjs`.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const why = {
  http: 'reading WebSocket, CloseEvent or MessageEvent compiles undici',
  util: 'reading parseArgs, diff or setTraceSigInt loads their modules (worker_threads among them)',
  process: 'reading stdin, stdout, stderr or report sets them up',
  net: 'reading BlockList or SocketAddress loads their modules',
  timers: 'reading promises loads timers/promises',
};

for (const name of Object.keys(why)) {
  const m = process.getBuiltinModule(`node:${name}`);
  const descriptors = Object.getOwnPropertyDescriptors(m);
  const ids = Object.keys(descriptors).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k));
  const loadsMore = (key) =>
    execFileSync(process.execPath, [
      '-e',
      `const m = process.getBuiltinModule('node:${name}'); const b = process.moduleLoadList.length;` +
        ` void m[${JSON.stringify(key)}]; console.log(process.moduleLoadList.length - b);`,
    ])
      .toString()
      .trim() !== '0';
  const left = ids.filter((k) => descriptors[k].get || loadsMore(k));
  const kept = ids.filter((k) => !left.includes(k)).sort((a, b) => a.localeCompare(b));
  const src = `// What every bundled import of \`node:${name}\` resolves to (lib/bundling.ts explains why): the
// module from \`process.getBuiltinModule\`, its properties exported as values read once. Written
// by scripts/builtin-shims.cjs. Left out, since the ESM facade this replaces reads every export
// and ${why[name]} (importing one fails the build):
// ${left.join(', ')}.
const m = process.getBuiltinModule('node:${name}');

export default m;
export const {
${kept.map((k) => `  ${k},`).join('\n')}
} = m;
`;
  fs.writeFileSync(path.join(__dirname, '..', 'lib', 'builtins', `${name}.mjs`), src);
}
