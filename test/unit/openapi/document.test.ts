/**
 * The OpenAPI document (docs/openapi.json) and the typed client's types (client/src/schema.ts)
 * are what the routes' schemas make, cover every route of the manifest, and form a valid
 * OpenAPI 3.1 document. (That handlers parse with the schemas the document shows, and answer what
 * it says, is checked on every request of the test suites: shared/http/schema-check.ts.)
 */
import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { ERROR_CODES } from '../../../shared/http/error-codes';
import { schemaParts } from '../../../shared/http/schema-check';
import { manifest, pathParamNames } from '../../../shared/manifest';
import { collectRoutes, generateDocument } from '../../../shared/openapi/collect';
import { buildDocument } from '../../../shared/openapi/document';
import { documentTypes, schemaType } from '../../../shared/openapi/typescript';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON
type Json = Record<string, any>;
let doc: Json;

beforeAll(async () => {
  doc = (await generateDocument()) as Json;
}, 60_000);

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );

describe('OpenAPI document', () => {
  it('is the committed docs/openapi.json, and the client types are current (npm run openapi)', async () => {
    expect(JSON.parse(await readFile('docs/openapi.json', 'utf8'))).toEqual(doc);
    expect(await readFile('client/src/schema.ts', 'utf8')).toBe(documentTypes(doc));
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has every route of the manifest, direct uploads included, and nothing else', () => {
    const expected = [
      ...manifest.routeGroups.flatMap((g) => g.routes.map((r) => `${r.method} ${r.path}`)),
      ...(manifest.directUploads ?? []).map((u) => `${u.method} ${u.path}`),
    ].sort();
    expect(
      operations()
        .map((o) => `${o.method} ${o.path}`)
        .sort(),
    ).toEqual(expected);
  });

  it('names every path parameter, gives unique operation ids, and says who may call', () => {
    const ids = operations().map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, op } of operations()) {
      const declared = (op.parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => p.name);
      expect(declared, `${method} ${path}`).toEqual(pathParamNames(path));
      expect(Array.isArray(op.security), `${method} ${path}`).toBe(true);
      expect(op.summary, `${method} ${path} has no summary (shared/openapi/summaries.ts)`).toMatch(/\S/);
    }
  });

  it('describes the error envelope with every code, and the flat 400 where a create answers it', () => {
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).toEqual(
      Object.keys(ERROR_CODES),
    );
    expect(doc.components.schemas.FlatError.required).toEqual(['error']);
    for (const path of ['/contacts', '/templates', '/segments', '/workflows']) {
      expect(doc.paths[path].post.responses['400'], path).toEqual({
        $ref: '#/components/responses/FlatBadRequest',
      });
    }
    for (const { path, method, op } of operations()) {
      expect(op.responses.default, `${method} ${path}`).toEqual({
        $ref: '#/components/responses/OtherError',
      });
    }
  });

  it("shows a route's body and query as the zod schemas its handler parses with", async () => {
    const groups = await collectRoutes();
    const contacts = groups.find((g) => g.group === 'contacts')!.routes;
    const upsert = contacts.find((r) => r.method === 'POST' && r.path === '/contacts')!;
    const body = doc.paths['/contacts'].post.requestBody.content['application/json'].schema;
    expect(body).toEqual(
      (({ $schema, ...rest }) => rest)(
        z.toJSONSchema(upsert.body!, { io: 'input', unrepresentable: 'any' }) as Json,
      ),
    );
    expect(body.required).toContain('email');
    const query = doc.paths['/contacts'].get.parameters.map((p: Json) => p.name);
    expect(query).toEqual(expect.arrayContaining(['limit', 'cursor']));
  });

  it('fails to build when a manifest route has no implementation', async () => {
    const groups = (await collectRoutes()).map((g) =>
      g.group === 'templates'
        ? { ...g, routes: g.routes.filter((r) => r.path !== '/templates/{id}/usage') }
        : g,
    );
    expect(() => buildDocument(groups, [])).toThrow(
      /GET \/templates\/\{id\}\/usage of group templates has no implementation/,
    );
  });
});

describe('schema parts (what a handler may parse with)', () => {
  it('finds the fields, options and pipe ends inside a schema, and nothing outside it', () => {
    const inner = z.string();
    const option = z.object({ a: inner });
    const root = z.object({ x: z.union([option, z.number()]), y: z.pipe(z.string(), z.transform(Number)) });
    const parts = schemaParts(root);
    expect(parts.has(root)).toBe(true);
    expect(parts.has(option)).toBe(true);
    expect(parts.has(inner)).toBe(true);
    expect(parts.has(z.string())).toBe(false);
  });
});

describe('TypeScript from JSON Schema', () => {
  it('translates the shapes zod emits', () => {
    expect(schemaType({ type: 'string' })).toBe('string');
    expect(schemaType({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toBe('string | null');
    expect(schemaType({ enum: ['A', 'B'] })).toBe('"A" | "B"');
    expect(schemaType({ const: false })).toBe('false');
    expect(schemaType({ type: 'array', items: { type: 'integer' } })).toBe('number[]');
    expect(schemaType({ $ref: '#/components/schemas/Error' })).toBe('components["schemas"]["Error"]');
    expect(schemaType({ type: 'object', additionalProperties: { type: 'number' } })).toBe(
      'Record<string, number>',
    );
    expect(
      schemaType({ type: 'object', properties: { 'a-b': { type: 'string' }, c: {} }, required: ['a-b'] }),
    ).toBe('{\n  "a-b": string;\n  c?: unknown;\n}');
    expect(schemaType({})).toBe('unknown');
  });
});
