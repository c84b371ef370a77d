// What every bundled import of `node:net` resolves to (lib/bundling.ts explains why): the
// module from `process.getBuiltinModule`, its properties exported as values read once. Written
// by scripts/builtin-shims.cjs. Left out, since the ESM facade this replaces reads every export
// and reading BlockList or SocketAddress loads their modules (importing one fails the build):
// BlockList, SocketAddress.
const m = process.getBuiltinModule('node:net');

export default m;
export const {
  _createServerHandle,
  _normalizeArgs,
  _setSimultaneousAccepts,
  connect,
  createConnection,
  createServer,
  getDefaultAutoSelectFamily,
  getDefaultAutoSelectFamilyAttemptTimeout,
  isIP,
  isIPv4,
  isIPv6,
  Server,
  setDefaultAutoSelectFamily,
  setDefaultAutoSelectFamilyAttemptTimeout,
  Socket,
  Stream,
} = m;
