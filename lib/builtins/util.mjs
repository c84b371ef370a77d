// What every bundled import of `node:util` resolves to (lib/bundling.ts explains why): the
// module from `process.getBuiltinModule`, its properties exported as values read once. Written
// by scripts/builtin-shims.cjs. Left out, since the ESM facade this replaces reads every export
// and reading parseArgs, diff or setTraceSigInt loads their modules (worker_threads among them) (importing one fails the build):
// transferableAbortSignal, transferableAbortController, aborted, parseArgs, diff, setTraceSigInt.
const m = process.getBuiltinModule('node:util');

export default m;
export const {
  _errnoException,
  _exceptionWithHostPort,
  _extend,
  callbackify,
  debug,
  debuglog,
  deprecate,
  format,
  formatWithOptions,
  getCallSite,
  getCallSites,
  getSystemErrorMap,
  getSystemErrorMessage,
  getSystemErrorName,
  inherits,
  inspect,
  isArray,
  isBoolean,
  isBuffer,
  isDate,
  isDeepStrictEqual,
  isError,
  isFunction,
  isNull,
  isNullOrUndefined,
  isNumber,
  isObject,
  isPrimitive,
  isRegExp,
  isString,
  isSymbol,
  isUndefined,
  log,
  MIMEParams,
  MIMEType,
  parseEnv,
  promisify,
  stripVTControlCharacters,
  styleText,
  TextDecoder,
  TextEncoder,
  toUSVString,
  types,
} = m;
