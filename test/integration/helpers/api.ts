/**
 * One request to a Sesame API over HTTP, as a client makes it: the in-process local runtime of
 * the integration tests (helpers/local.ts) and the child-process runtime of the crash tier
 * (test/crash/harness.ts) both answer through this.
 */

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the tests' own assertions
export type Json = any;

export interface ApiOptions {
  /** JSON-encoded, with content-type application/json unless a content-type header is given. */
  readonly body?: unknown;
  /** A body sent as is (malformed JSON, CSV, multipart...); set the content-type header yourself. */
  readonly raw?: string | Uint8Array;
  /** Raw API key for `Authorization: Bearer`; null sends none. @default the runtime's secret key */
  readonly key?: string | null;
  /** Extra request headers; undefined values are left out. */
  readonly headers?: Readonly<Record<string, string | undefined>>;
  /** Appended to the path as a query string; undefined values are left out. */
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** Abort the request after this long. @default no limit */
  readonly timeoutMs?: number;
}

export interface ApiResponse {
  readonly status: number;
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON; the text when the body is not JSON; undefined when empty. */
  readonly body: Json;
  readonly text: string;
}

/** Something that sends requests to a runtime: the in-process one, another instance, a crash-tier child. */
export interface ApiClient {
  api(method: string, path: string, options?: ApiOptions): Promise<ApiResponse>;
}

/** One request to the API at `runtime.url`, with `runtime.secretKey` unless `options.key` says otherwise. */
export async function callApi(
  runtime: { readonly url: string; readonly secretKey: string },
  method: string,
  path: string,
  options: ApiOptions = {},
): Promise<ApiResponse> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(options.headers ?? {}))
    if (value !== undefined) headers.set(name, value);
  // Signed in by the cookie, the header a cross-site form cannot send, as the dashboard sends it
  // (shared/http/stack.ts, CSRF_HEADER), unless the test names it itself (an empty value sends
  // it empty, which counts as missing).
  if (headers.has('cookie') && !Object.hasOwn(options.headers ?? {}, 'x-requested-with'))
    headers.set('x-requested-with', 'sesame-tests');
  const key = options.key === undefined ? runtime.secretKey : options.key;
  if (key !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${key}`);
  let body: string | Uint8Array | undefined;
  if (options.raw !== undefined) {
    body = options.raw;
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  let url = `${runtime.url}${path}`;
  if (options.query) {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(options.query))
      if (value !== undefined) search.append(name, String(value));
    if ([...search].length > 0) url += `${url.includes('?') ? '&' : '?'}${search}`;
  }
  const signal = options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs);
  const res = await fetch(url, { method, headers, body, signal });
  const text = await res.text();
  let parsed: Json;
  if (text === '') parsed = undefined;
  else {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: res.status, headers: Object.fromEntries(res.headers), body: parsed, text };
}
