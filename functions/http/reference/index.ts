/**
 * Reference route group: `GET /openapi.json` (the OpenAPI document, docs/openapi.json, made by
 * `npm run openapi` from the routes' schemas) and `GET /docs`, a page that renders it, with its
 * script. Open routes, like `/config`: the API's description is no secret.
 */
import * as z from 'zod/mini';
import openApiDocument from '../../../docs/openapi.json';
import { lambdaEntry } from '../../../shared/http/lambda';
import { httpGroup, type OpenRouteImpl } from '../../../shared/http/stack';
import { REFERENCE_CSP, REFERENCE_HTML, REFERENCE_JS } from '../../../shared/openapi/page';
import type { Deps } from '../../../shared/ports';

const DOCUMENT = JSON.stringify(openApiDocument);

/** An OpenAPI 3.1 document, as far as this one describes itself. */
const openApiDocumentAnswer = z.looseObject({
  openapi: z.literal('3.1.0'),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.record(z.string(), z.unknown()),
});
const CACHE = 'public, max-age=300';

const text = (contentType: string, body: string) => ({
  statusCode: 200,
  headers: {
    'content-type': contentType,
    'cache-control': CACHE,
    'content-security-policy': REFERENCE_CSP,
    'x-content-type-options': 'nosniff',
  },
  body,
});

export const routes = (_deps: Deps): OpenRouteImpl[] => [
  {
    method: 'GET',
    path: '/openapi.json',
    auth: 'none',
    responses: { 200: openApiDocumentAnswer },
    handler: async () => ({
      statusCode: 200,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': CACHE },
      body: DOCUMENT,
    }),
  },
  {
    method: 'GET',
    path: '/docs',
    auth: 'none',
    responses: { 200: null },
    handler: async () => text('text/html; charset=utf-8', REFERENCE_HTML),
  },
  {
    method: 'GET',
    path: '/docs/reference.js',
    auth: 'none',
    responses: { 200: null },
    handler: async () => text('text/javascript; charset=utf-8', REFERENCE_JS),
  },
];

export const createHandler = (deps: Deps) => httpGroup(deps, 'reference', routes);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'reference',
  // No port: the document and the page are part of the bundle.
  wiring: {},
});
