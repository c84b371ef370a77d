/**
 * The typed client of the Sesame API: openapi-fetch over the types generated from the API's
 * OpenAPI document (./schema.ts). Every call answers `{data, error, response}`: `data` typed by
 * the route's success answer, `error` by its error answers (the error envelope, or the flat
 * `{error}` of some creates), and nothing throws for an HTTP error status.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, operations, paths } from './schema';

/** The error envelope every route answers on failure. */
export type SesameError = components['schemas']['Error'];
/** The plain `{error}` 400 of a create whose required fields are missing. */
export type SesameFlatError = components['schemas']['FlatError'];

export interface SesameClientOptions {
  /** Where the API is, e.g. `http://127.0.0.1:3000` locally or the API Gateway URL the deploy prints. */
  readonly baseUrl: string;
  /** A secret key (`sk_...`), or a public key (`pk_...`) for `/v1/track`. */
  readonly apiKey?: string;
  /** Instead of a key: a signed-in user's session token (the `sesame_session` cookie's value). */
  readonly session?: string;
  /** With `session`, on project routes: the project to act on. */
  readonly projectId?: string;
  /** Another fetch (tests, retries, proxies). */
  readonly fetch?: typeof globalThis.fetch;
}

export type SesameClient = Client<paths>;

export function createSesameClient(options: SesameClientOptions): SesameClient {
  const headers: Record<string, string> = {};
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  if (options.session) {
    headers.cookie = `sesame_session=${options.session}`;
    // Signed in by the cookie, a request that changes something must carry it (any value).
    headers['x-requested-with'] = 'sesame-client';
  }
  if (options.projectId) headers['x-project-id'] = options.projectId;
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/** Whether an error body is the envelope (rather than the flat `{error}` 400). */
export const isEnvelope = (error: unknown): error is SesameError =>
  typeof error === 'object' && error !== null && (error as { success?: unknown }).success === false;
