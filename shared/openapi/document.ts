/**
 * The OpenAPI 3.1 document of the HTTP API, built from the manifest (every route, who may call
 * it) and the routes' own `RouteDoc` (the zod schemas their handlers parse with, and the schemas
 * of their answers). `npm run openapi` writes it to docs/openapi.json, which `GET /openapi.json`
 * serves; test/unit/openapi checks that the file is current and covers every route.
 */
import * as z from 'zod/mini';
import { ERROR_CODES } from '../http/error-codes';
import type { AnyRouteImpl } from '../http/stack';
import { ACCOUNT_ID } from '../http/validation';
import { wireInputOf } from '../http/wire';
import { manifest, pathParamNames, type RouteAuth, routeKey } from '../manifest';
import { VERSION } from '../version';
import { SUMMARIES } from './summaries';

type Json = Record<string, unknown>;

/** The `X-Project-Id` header: a project id (shared/http/validation.ts `ACCOUNT_ID`). */
export const PROJECT_ID_HEADER_SCHEMA = { type: 'string', pattern: ACCOUNT_ID.source } as const;

/** One route group's implementations, as its module builds them. */
export interface GroupRoutes {
  readonly group: string;
  readonly routes: readonly AnyRouteImpl[];
}

/** Routes that no Lambda implements: API Gateway stores their body itself (direct uploads). */
export interface ExtraOperation {
  readonly method: string;
  readonly path: string;
  readonly group: string;
  readonly operation: Json;
}

/** A zod schema as JSON Schema, input or output side. */
type SchemaOf = (schema: z.ZodMiniType, io: 'input' | 'output') => Json;

/**
 * The JSON Schema of `schema`. What zod emits under `$defs` (the schemas with an id, and those
 * that refer to themselves, such as a condition tree) goes to `named`, the document's
 * `components.schemas`.
 */
const toSchema = (schema: z.ZodMiniType, io: 'input' | 'output', named: Record<string, Json>): Json => {
  const {
    $schema: _,
    $defs,
    ...rest
  } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      const wire = io === 'input' ? wireInputOf(ctx.zodSchema) : undefined;
      if (!wire) return;
      for (const key of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Json)[key];
      Object.assign(ctx.jsonSchema, toSchema(wire, 'input', named));
    },
  }) as Json & { $defs?: Record<string, Json> };
  if (!$defs) return rest;
  // A schema that reads differently as input and as output (a default, say) gets two names.
  const suffix = io === 'input' ? 'Input' : '';
  const names = new Map(
    Object.keys($defs).map((key) => [`#/$defs/${key}`, `#/components/schemas/${key}${suffix}`]),
  );
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' ? (names.get(v) ?? v) : rewrite(v),
      ]),
    );
  };
  for (const [key, def] of Object.entries($defs)) {
    if (key.startsWith('__'))
      throw new Error('A recursive schema needs an id in z.globalRegistry to be named in the document');
    const name = `${key}${suffix}`;
    const schema = rewrite(def) as Json;
    if (named[name] && JSON.stringify(named[name]) !== JSON.stringify(schema))
      throw new Error(`Two different schemas are named ${name} in the document`);
    named[name] = schema;
  }
  return rewrite(rest) as Json;
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const errorContent = (name = 'Error') => ({ 'application/json': { schema: ref(name) } });

const errorResponse = (description: string) => ({ description, content: errorContent() });

const security: Record<RouteAuth, Json[]> = {
  secret: [{ secretKey: [] }, { session: [] }],
  public: [{ publicKey: [] }],
  session: [{ session: [] }],
  none: [],
};

/** `POST /contacts/{id}/events` -> `postContactsIdEvents`. */
export function operationId(method: string, path: string): string {
  const words = path
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1));
  return method.toLowerCase() + words.join('');
}

function parameters(impl: AnyRouteImpl, auth: RouteAuth, toSchema: SchemaOf): Json[] {
  const out: Json[] = [];
  const params = impl.params ? toSchema(impl.params, 'input') : undefined;
  const paramProps = (params?.properties ?? {}) as Record<string, Json>;
  for (const name of pathParamNames(impl.path)) {
    out.push({ name, in: 'path', required: true, schema: paramProps[name] ?? { type: 'string' } });
  }
  if (impl.query) {
    const query = toSchema(impl.query, 'input');
    const required = new Set((query.required ?? []) as string[]);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, Json>)) {
      const { description, ...rest } = schema;
      out.push({
        name,
        in: 'query',
        required: required.has(name),
        schema: rest,
        ...(typeof description === 'string' ? { description } : {}),
      });
    }
  }
  if (auth === 'secret') {
    out.push({
      name: 'X-Project-Id',
      in: 'header',
      required: false,
      description:
        'With a session cookie instead of a key: the project to act on (the caller must be a member)',
      schema: PROJECT_ID_HEADER_SCHEMA,
    });
  }
  return out;
}

function requestBody(impl: AnyRouteImpl, toSchema: SchemaOf): Json | undefined {
  if (impl.rawBody) {
    return {
      required: true,
      description: impl.rawBody.description,
      content: { [impl.rawBody.contentType]: { schema: {} } },
    };
  }
  if (!impl.body) return undefined;
  return { required: true, content: { 'application/json': { schema: toSchema(impl.body, 'input') } } };
}

/** The error answers every operation shares, referenced from `components.responses`. */
const ERROR_RESPONSES = {
  BadRequest: 'Malformed request (for example a body that is not JSON)',
  FlatBadRequest: 'A required field is missing: the flat `{error}` body; other bad input: the envelope',
  NoSession: 'No valid session',
  InvalidKey: 'Missing or invalid key',
  RateLimited: 'Rate limit exceeded; see Retry-After',
  Forbidden: 'Not allowed for this caller',
  NotFound: 'Not found',
  ValidationFailed: 'Validation failed: see `errors`',
  OtherError: 'Any other error, in the error envelope',
} as const;

export const errorRef = (name: keyof typeof ERROR_RESPONSES) => ({ $ref: `#/components/responses/${name}` });

function responses(impl: AnyRouteImpl, auth: RouteAuth, toSchema: SchemaOf): Json {
  const out: Json = {};
  for (const [status, schema] of Object.entries(impl.responses ?? {})) {
    out[status] = schema
      ? { description: 'Success', content: { 'application/json': { schema: toSchema(schema, 'output') } } }
      : { description: 'Success' };
  }
  if (!impl.responses) out['200'] = { description: 'Success (the body is not described yet)' };
  if (impl.body || impl.rawBody || impl.flatBadRequest)
    out['400'] = errorRef(impl.flatBadRequest ? 'FlatBadRequest' : 'BadRequest');
  if (auth !== 'none') {
    out['401'] = errorRef(auth === 'session' ? 'NoSession' : 'InvalidKey');
    out['429'] = errorRef('RateLimited');
  }
  if (auth === 'secret' || auth === 'session') out['403'] = errorRef('Forbidden');
  if (pathParamNames(impl.path).length > 0 || auth === 'secret') out['404'] = errorRef('NotFound');
  if (impl.body || impl.query || impl.params) out['422'] = errorRef('ValidationFailed');
  out.default = errorRef('OtherError');
  return out;
}

const errorResponses = Object.fromEntries(
  Object.entries(ERROR_RESPONSES).map(([name, description]) => [
    name,
    name === 'FlatBadRequest'
      ? {
          description,
          content: { 'application/json': { schema: { oneOf: [ref('FlatError'), ref('Error')] } } },
        }
      : errorResponse(description),
  ]),
);

const components = {
  responses: errorResponses,
  securitySchemes: {
    secretKey: { type: 'http', scheme: 'bearer', description: 'A secret key (`sk_...`)' },
    publicKey: {
      type: 'http',
      scheme: 'bearer',
      description: 'A public key (`pk_...`), for `/v1/track` only',
    },
    session: {
      type: 'apiKey',
      in: 'cookie',
      name: 'sesame_session',
      description: "A signed-in user's session; on project routes with the `X-Project-Id` header",
    },
  },
  schemas: {
    Error: {
      type: 'object',
      required: ['success', 'error', 'timestamp'],
      properties: {
        success: { const: false },
        error: {
          type: 'object',
          required: ['code', 'message', 'statusCode', 'requestId'],
          properties: {
            code: { type: 'string', enum: Object.keys(ERROR_CODES), description: codeTable() },
            message: { type: 'string' },
            statusCode: { type: 'integer' },
            requestId: { type: 'string' },
            errors: {
              type: 'array',
              description: 'VALIDATION_ERROR: each problem, with its field path',
              items: {
                type: 'object',
                required: ['field', 'message', 'code'],
                properties: {
                  field: { type: 'string' },
                  message: { type: 'string' },
                  code: { type: 'string' },
                  received: {},
                },
              },
            },
            details: { type: 'object' },
            suggestion: { type: 'string' },
          },
        },
        timestamp: { type: 'string', format: 'date-time' },
      },
    },
    FlatError: {
      type: 'object',
      required: ['error'],
      properties: { error: { type: 'string' } },
      description: 'The plain 400 of a create whose required fields are missing',
    },
  },
};

function codeTable(): string {
  return Object.entries(ERROR_CODES)
    .map(([code, meaning]) => `- \`${code}\`: ${meaning}`)
    .join('\n');
}

/** The document, from every group's routes and the operations no Lambda implements. */
export function buildDocument(groups: readonly GroupRoutes[], extra: readonly ExtraOperation[]): Json {
  const named: Record<string, Json> = {};
  const schemaOf: SchemaOf = (schema, io) => toSchema(schema, io, named);
  const paths: Record<string, Json> = {};
  const add = (path: string, method: string, operation: Json) => {
    paths[path] ??= {};
    paths[path][method.toLowerCase()] = operation;
  };
  for (const def of manifest.routeGroups) {
    const impls = groups.find((g) => g.group === def.name)?.routes ?? [];
    for (const r of def.routes) {
      const impl = impls.find((i) => i.method === r.method && i.path === r.path);
      if (!impl) throw new Error(`Route ${routeKey(r)} of group ${def.name} has no implementation`);
      const auth = r.auth ?? 'secret';
      const summary = SUMMARIES[routeKey(r)];
      const body = requestBody(impl, schemaOf);
      const params = parameters(impl, auth, schemaOf);
      add(r.path, r.method, {
        operationId: operationId(r.method, r.path),
        tags: [def.name],
        ...(summary ? { summary } : {}),
        security: security[auth],
        ...(params.length > 0 ? { parameters: params } : {}),
        ...(body ? { requestBody: body } : {}),
        responses: responses(impl, auth, schemaOf),
      });
    }
  }
  for (const e of extra) add(e.path, e.method, { tags: [e.group], ...e.operation });
  const sorted = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sesame API',
      version: VERSION,
      description:
        'The HTTP API of Sesame. Errors use one envelope (`Error`) except the flat `{error}` 400 of some creates (`FlatError`).',
    },
    servers: [{ url: '/' }],
    tags: manifest.routeGroups.map((g) => ({ name: g.name })),
    paths: sorted,
    components: { ...components, schemas: { ...components.schemas, ...named } },
  };
}
