/**
 * TypeScript types from the OpenAPI document, in the shape `openapi-fetch` reads (`paths`,
 * `operations`, `components`): the typed client's client/src/schema.ts, written by
 * `npm run openapi`. The schemas are the JSON Schema that zod emits (objects, arrays, unions,
 * enums, consts, nullables, `$ref`s into components), which is all this needs to translate.
 *
 * (openapi-typescript, the usual generator, prints through the TypeScript 5 compiler API, which
 * the TypeScript 7 this project builds with does not have.)
 */

type Json = Record<string, unknown>;
type Schema = Json | boolean;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));

const indent = (text: string, by = '  ') => text.replace(/\n/g, `\n${by}`);

/** The TypeScript type of one JSON Schema. */
export function schemaType(schema: Schema | undefined): string {
  if (schema === undefined || schema === true) return 'unknown';
  if (schema === false) return 'never';
  const s = schema as Json;
  if (typeof s.$ref === 'string') {
    const [, section, name] = /^#\/components\/(\w+)\/(.+)$/.exec(s.$ref) ?? [];
    if (!section || !name) throw new Error(`Unsupported $ref ${s.$ref}`);
    return `components[${JSON.stringify(section)}][${JSON.stringify(name)}]`;
  }
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ') || 'never';
  for (const combinator of ['anyOf', 'oneOf'] as const) {
    const options = s[combinator];
    if (Array.isArray(options)) return union(options.map((o) => schemaType(o as Schema)));
  }
  if (Array.isArray(s.allOf)) return s.allOf.map((o) => `(${schemaType(o as Schema)})`).join(' & ');
  const type = s.type;
  if (Array.isArray(type)) return union(type.map((t) => schemaType({ ...s, type: t })));
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      if (Array.isArray(s.prefixItems))
        return `[${s.prefixItems.map((i) => schemaType(i as Schema)).join(', ')}]`;
      const item = schemaType(s.items as Schema | undefined);
      return /^[\w$.[\]"]+$/.test(item) ? `${item}[]` : `(${item})[]`;
    }
    case 'object':
      return objectType(s);
    default:
      return s.properties || s.additionalProperties ? objectType(s) : 'unknown';
  }
}

function union(types: string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes('unknown')) return 'unknown';
  return unique.length === 1 ? unique[0]! : unique.map((t) => (t.includes('\n') ? `(${t})` : t)).join(' | ');
}

function objectType(s: Json): string {
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set((s.required ?? []) as string[]);
  const lines = Object.entries(properties).map(([name, prop]) => {
    const description =
      typeof prop === 'object' && typeof prop.description === 'string' ? prop.description : '';
    const doc = description ? `/** ${description.replace(/\*\//g, '*\\/').replace(/\n/g, ' ')} */\n` : '';
    return `${doc}${key(name)}${required.has(name) ? '' : '?'}: ${schemaType(prop)};`;
  });
  const extra = s.additionalProperties;
  const rest = extra === undefined || extra === false ? undefined : schemaType(extra as Schema);
  if (lines.length === 0) return rest ? `Record<string, ${rest}>` : 'Record<string, never>';
  const body = `{\n  ${indent(lines.join('\n'))}\n}`;
  return rest ? `${body} & Record<string, unknown>` : body;
}

const block = (entries: readonly string[]) =>
  entries.length === 0 ? '{}' : `{\n  ${indent(entries.join('\n'))}\n}`;

function parametersType(parameters: readonly Json[]): string {
  const entries: string[] = [];
  for (const where of ['query', 'header', 'path', 'cookie'] as const) {
    const ps = parameters.filter((p) => p.in === where);
    if (ps.length === 0) {
      entries.push(`${where}?: never;`);
      continue;
    }
    const fields = ps.map(
      (p) => `${key(String(p.name))}${p.required ? '' : '?'}: ${schemaType(p.schema as Schema)};`,
    );
    const anyRequired = ps.some((p) => p.required);
    entries.push(`${where}${anyRequired ? '' : '?'}: ${block(fields)};`);
  }
  return block(entries);
}

function contentType(content: Json | undefined): string {
  if (!content) return 'never';
  return block(
    Object.entries(content).map(
      ([type, media]) => `${JSON.stringify(type)}: ${schemaType((media as Json).schema as Schema)};`,
    ),
  );
}

function responseType(response: Json): string {
  if (typeof response.$ref === 'string') return schemaType(response);
  const content = response.content as Json | undefined;
  return block([
    'headers: { [name: string]: unknown };',
    content ? `content: ${contentType(content)};` : 'content?: never;',
  ]);
}

function operationType(op: Json): string {
  const entries = [`parameters: ${parametersType((op.parameters ?? []) as Json[])};`];
  const body = op.requestBody as Json | undefined;
  entries.push(
    body
      ? `requestBody${body.required ? '' : '?'}: { content: ${contentType(body.content as Json)} };`
      : 'requestBody?: never;',
  );
  const responses = Object.entries((op.responses ?? {}) as Record<string, Json>).map(
    ([status, r]) => `${/^\d+$/.test(status) ? status : key(status)}: ${responseType(r)};`,
  );
  entries.push(`responses: ${block(responses)};`);
  return block(entries);
}

/** The module: `paths`, `operations` and `components`, as openapi-fetch expects them. */
export function documentTypes(doc: Json): string {
  const paths = doc.paths as Record<string, Record<string, Json>>;
  const pathEntries: string[] = [];
  const operationEntries: string[] = [];
  for (const [path, item] of Object.entries(paths)) {
    const methods: string[] = [];
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const id = String(op.operationId);
      if (op.summary) operationEntries.push(`/** ${String(op.summary).replace(/\*\//g, '*\\/')} */`);
      operationEntries.push(`${key(id)}: ${operationType(op)};`);
      methods.push(`${method}: operations[${JSON.stringify(id)}];`);
    }
    pathEntries.push(`${JSON.stringify(path)}: ${block(methods)};`);
  }
  const components = doc.components as Record<string, Record<string, Json>>;
  const schemas = Object.entries(components.schemas ?? {}).map(([n, s]) => `${key(n)}: ${schemaType(s)};`);
  const responses = Object.entries(components.responses ?? {}).map(
    ([n, r]) => `${key(n)}: ${responseType(r)};`,
  );
  return [
    '/**',
    ' * The types of the Sesame API, generated from docs/openapi.json by `npm run openapi`. Do not edit.',
    ' */',
    '',
    `export interface paths ${block(pathEntries)}`,
    '',
    `export interface operations ${block(operationEntries)}`,
    '',
    `export interface components ${block([`schemas: ${block(schemas)};`, `responses: ${block(responses)};`])}`,
    '',
  ].join('\n');
}
