// What every bundled import of `node:http` resolves to (lib/bundling.ts explains why): the
// module from `process.getBuiltinModule`, its properties exported as values read once. Written
// by scripts/builtin-shims.cjs. Left out, since the ESM facade this replaces reads every export
// and reading WebSocket, CloseEvent or MessageEvent compiles undici (importing one fails the build):
// maxHeaderSize, globalAgent, WebSocket, CloseEvent, MessageEvent.
const m = process.getBuiltinModule('node:http');

export default m;
export const {
  _connectionListener,
  Agent,
  ClientRequest,
  createServer,
  get,
  IncomingMessage,
  METHODS,
  OutgoingMessage,
  request,
  Server,
  ServerResponse,
  setMaxIdleHTTPParsers,
  STATUS_CODES,
  validateHeaderName,
  validateHeaderValue,
} = m;
