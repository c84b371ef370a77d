/**
 * Keeps the API reference honest (shared/openapi builds it from the routes' `RouteDoc`). With
 * SESAME_CHECK_SCHEMAS=1, as every test suite runs, a request fails with an error that names the
 * route when:
 * - its handler parses the body or the query with a schema that is neither the one the route
 *   declares nor a part of it;
 * - it answers a success status its route does not list in `responses`, or a JSON body that the
 *   listed schema does not accept;
 * - it answers an error code missing from the catalogue (shared/http/error-codes.ts), or the flat
 *   `{error}` 400 without `flatBadRequest`.
 * Off (production), none of this runs, nor is it loaded (the stack imports it only when on).
 */
import type * as z from 'zod/mini';
import { isErrorCode } from './error-codes';
import type { HttpResult } from './response';
import type { RouteDoc } from './stack';
import { type ParseWatch, watchParses } from './validation';

/** Runs the handler `call` of route `key`, checking what it parses and answers against `doc`. */
export async function checkedCall(
  key: string,
  doc: RouteDoc,
  body: unknown,
  query: unknown,
  call: () => Promise<HttpResult>,
): Promise<HttpResult> {
  const watch: ParseWatch = { body, query, bodySchemas: new Set(), querySchemas: new Set() };
  let result: HttpResult | undefined;
  try {
    result = await watchParses(watch, call);
  } finally {
    checkParsed(key, 'body', doc.body, watch.bodySchemas);
    checkParsed(key, 'query', doc.query, watch.querySchemas);
  }
  checkAnswer(key, doc, result);
  return result;
}

function checkParsed(
  key: string,
  what: 'body' | 'query',
  declared: z.ZodMiniType | undefined,
  used: ReadonlySet<z.ZodMiniType>,
): void {
  if (used.size === 0) return;
  const allowed = declared ? schemaParts(declared) : new Set<unknown>();
  for (const schema of used) {
    if (!allowed.has(schema) && !fieldsAllowed(schema, allowed)) {
      throw new Error(
        `Route ${key} parses its ${what} with a schema its RouteDoc does not declare (${declared ? 'declared another' : `no ${what} schema declared`})`,
      );
    }
  }
}

function checkAnswer(key: string, doc: RouteDoc, result: HttpResult): void {
  const status = result.statusCode;
  if (status >= 400 || !doc.responses) return;
  if (!(status in doc.responses)) {
    throw new Error(`Route ${key} answered ${status}, which its RouteDoc.responses does not list`);
  }
  const schema = doc.responses[status];
  if (!schema) return;
  const type = String(result.headers['content-type'] ?? '');
  if (!type.startsWith('application/json')) {
    throw new Error(`Route ${key} answered ${status} with ${type}, not the JSON its RouteDoc describes`);
  }
  const body: unknown = JSON.parse(String(result.body));
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
    throw new Error(`Route ${key} answered ${status} with a body its RouteDoc rejects: ${issues.join('; ')}`);
  }
  // zod drops the fields an object schema does not name: any dropped field is undocumented.
  const extra = undocumentedField(body, parsed.data, '');
  if (extra !== undefined) {
    throw new Error(
      `Route ${key} answered ${status} with the field ${extra}, which its RouteDoc does not name`,
    );
  }
}

/** The path of the first field of `sent` missing from `parsed` (what zod stripped), if any. */
function undocumentedField(sent: unknown, parsed: unknown, path: string): string | undefined {
  if (Array.isArray(sent) && Array.isArray(parsed)) {
    for (let i = 0; i < sent.length; i++) {
      const found = undocumentedField(sent[i], parsed[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (sent === null || typeof sent !== 'object' || parsed === null || typeof parsed !== 'object')
    return undefined;
  for (const [name, value] of Object.entries(sent)) {
    const at = path ? `${path}.${name}` : name;
    if (!(name in parsed)) return at;
    const found = undocumentedField(value, (parsed as Record<string, unknown>)[name], at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Checks an error answer against the reference: its code is in the catalogue, and a flat `{error}`
 * 400 comes only from a route that says it answers one. Answers why it fails, or undefined.
 */
export function undocumentedError(
  error: { readonly code: string; readonly extra: { readonly flat?: boolean } },
  doc: RouteDoc | undefined,
  route: string,
): string | undefined {
  if (!isErrorCode(error.code))
    return `Error code ${error.code} is not in shared/http/error-codes.ts, so the API reference does not list it`;
  if (error.extra.flat && doc && !doc.flatBadRequest)
    return `Route ${route} answered a flat {error} 400, which its RouteDoc (flatBadRequest) does not say`;
  return undefined;
}

/** An object schema all of whose fields are parts of the declared one (a `z.extend` of it, say). */
function fieldsAllowed(schema: z.ZodMiniType, allowed: ReadonlySet<unknown>): boolean {
  const def = (schema as unknown as { _zod: { def: { type: string; shape?: Record<string, unknown> } } })._zod
    .def;
  if (def.type !== 'object' || !def.shape) return false;
  return Object.values(def.shape).every((field) => allowed.has(field));
}

/** The schema and every schema inside it (object fields, union options, pipe ends, ...). */
export function schemaParts(root: z.ZodMiniType): Set<unknown> {
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number): void => {
    if (depth > 40 || value === null || typeof value !== 'object') return;
    if (isSchema(value)) {
      if (seen.has(value)) return;
      seen.add(value);
      visit((value as { _zod: { def: unknown } })._zod.def, depth + 1);
      return;
    }
    if (Array.isArray(value)) {
      for (const v of value) visit(v, depth + 1);
      return;
    }
    if (Object.getPrototypeOf(value) === Object.prototype) {
      for (const v of Object.values(value)) visit(v, depth + 1);
    }
  };
  visit(root, 0);
  return seen;
}

const isSchema = (value: object): boolean =>
  '_zod' in value && typeof (value as { _zod?: { def?: unknown } })._zod?.def === 'object';
