/** The headers of a request that its framing sets, apart from safe-fetch.ts so that what only checks them loads no HTTP client. */

/** Set by safeRequest (safe-fetch.ts) from the URL and the body; callers' values are dropped. */
export const FRAMING_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);
