// What every bundled import of `node:timers` resolves to (lib/bundling.ts explains why): the
// module from `process.getBuiltinModule`, its properties exported as values read once. Written
// by scripts/builtin-shims.cjs. Left out, since the ESM facade this replaces reads every export
// and reading promises loads timers/promises (importing one fails the build):
// promises.
const m = process.getBuiltinModule('node:timers');

export default m;
export const {
  _unrefActive,
  active,
  clearImmediate,
  clearInterval,
  clearTimeout,
  enroll,
  setImmediate,
  setInterval,
  setTimeout,
  unenroll,
} = m;
