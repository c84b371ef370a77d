/**
 * CORS headers as API Gateway computes them from the manifest's `cors` (an HTTP API's
 * CorsConfiguration): the local gateway adds them exactly where API Gateway would, and the HTTP
 * stack uses them to answer a preflight that API Gateway hands to the `$default` route (it does
 * so when such a route exists instead of answering itself).
 */
import type { CorsDef } from '../manifest';

/** A preflight: an OPTIONS request naming the method it wants to make from another origin. */
export function isPreflight(method: string, headers: Readonly<Record<string, unknown>>): boolean {
  return (
    method === 'OPTIONS' &&
    typeof headers.origin === 'string' &&
    typeof headers['access-control-request-method'] === 'string'
  );
}

/** Whether a request from `origin` is allowed, and the Access-Control-Allow-Origin value to answer. */
function allowedOrigin(cors: CorsDef, origin: string): string | undefined {
  if (cors.allowOrigins.includes('*')) return '*';
  return cors.allowOrigins.includes(origin) ? origin : undefined;
}

/** Headers of the answer to a preflight from `origin`; none when the origin is not allowed. */
export function preflightHeaders(cors: CorsDef, origin: string): Record<string, string> {
  const allow = allowedOrigin(cors, origin);
  if (!allow) return {};
  return {
    'access-control-allow-origin': allow,
    'access-control-allow-methods': cors.allowMethods.join(','),
    'access-control-allow-headers': cors.allowHeaders.join(','),
    'access-control-max-age': String(cors.maxAgeSeconds),
    ...(allow === '*' ? {} : { vary: 'Origin' }),
  };
}

/** Headers added to the response to an actual (non-preflight) request from `origin`. */
export function responseCorsHeaders(cors: CorsDef, origin: string): Record<string, string> {
  const allow = allowedOrigin(cors, origin);
  if (!allow) return {};
  return {
    'access-control-allow-origin': allow,
    ...(cors.exposeHeaders.length > 0
      ? { 'access-control-expose-headers': cors.exposeHeaders.join(',') }
      : {}),
    ...(allow === '*' ? {} : { vary: 'Origin' }),
  };
}
