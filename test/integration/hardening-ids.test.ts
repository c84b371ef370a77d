/**
 * Every id-like field of the API is bounded by its schema, generated from the OpenAPI document
 * (docs/openapi.json, which test/unit/openapi/document.test.ts keeps equal to what the routes'
 * schemas generate): an over-long value sent to any of them, through HTTP against the local
 * runtime, is a 4xx in the error envelope, never a 5xx (a DynamoDB key over 2,048 bytes was a
 * 500), and writes nothing.
 *
 * Id-like fields: every path parameter; query parameters and headers named `id`, `...Id`,
 * `...Ids`, `cursor` or `X-Project-Id`; body properties at any depth (through arrays and unions)
 * named so, named `token`, or typed as UUIDs (`/v1/send`'s `template`); and, beyond what the
 * document types, the Idempotency-Key header and the `templateId` of a SEND_EMAIL step's config.
 * Each request is the route's tenant-isolation probe (helpers/isolation-cases.ts: real ids of a
 * filled project, a valid body) sent with the project's own credentials, with one field replaced,
 * so the over-long value is the only thing wrong with it. UUID fields and X-Project-Id are also
 * sent a short value of the wrong shape (`not-a-uuid`), with the same requirement. A new route, or a new id field on a
 * route, is covered as soon as the document has it; if its field is unbounded the request gets
 * through to the table (or past the checks) and the test fails.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { ApiOptions, ApiResponse, Json } from './helpers/api';
import { useBillingEnv } from './helpers/fake-stripe';
import { buildWorld, changedItems, tenantItems, type World } from './helpers/isolation';
import { type Creds, isolationCases, type Probe } from './helpers/isolation-cases';
import { useLocalRuntime } from './helpers/local';

const { stripe, env } = useBillingEnv('hardening_ids');
const rt = useLocalRuntime({ env });

/** The over-long value: far past DynamoDB's 2,048-byte partition key and any id's bound. */
const LONG = 'a'.repeat(5000);

type Schema = Json;
type Where = 'path' | 'query' | 'header' | 'body';

/** One field to send LONG to. `path` is the body property's path (`[]` for array items). */
interface Target {
  readonly where: Where;
  readonly name: string;
  readonly path?: readonly string[];
  /** A short value of the wrong shape, for the fields whose shape the document states. */
  readonly malformed?: string;
}

const ID_NAME = /^(id|.*Id|.*Ids|cursor|token)$/;
const ID_HEADERS = new Set(['x-project-id']);

/** Routes that take an Idempotency-Key (docs/sending.md, docs/events.md). */
const IDEMPOTENT = new Set(['POST /v1/send', 'POST /v1/track']);

/** Routes the document cannot fully describe: fields in free-form objects. */
const EXTRA_BODIES: Readonly<Record<string, (w: World) => { body: Json; target: Target }[]>> = {
  'POST /workflows/{id}/steps': () => [
    {
      body: { type: 'SEND_EMAIL', config: { templateId: LONG, recipient: { type: 'CONTACT' } } },
      target: { where: 'body', name: 'config.templateId', path: ['config', 'templateId'] },
    },
  ],
  'PATCH /workflows/{id}/steps/{stepId}': () => [
    {
      body: { config: { templateId: LONG, recipient: { type: 'CONTACT' } } },
      target: { where: 'body', name: 'config.templateId', path: ['config', 'templateId'] },
    },
  ],
};

/**
 * The subscription pages: a reader followed a link from an email, so a malformed token gets an
 * HTML error page (4xx), not the JSON envelope; the page checks the token's length and shape
 * itself (shared/subscriptions/links.ts), which the document cannot show.
 */
const HTML_PAGES = new Set(['GET /v1/subscription/{token}', 'POST /v1/subscription/{token}']);

/** Bodies for routes the isolation table exempts (no project credentials), to put LONG into. */
const EXEMPT_BODIES: Readonly<Record<string, Json>> = {
  'POST /auth/verify-email': { token: 'x' },
  'POST /auth/reset-password': { token: 'x', password: 'another horse battery' },
};

function resolve(doc: Json, schema: Schema): Schema {
  let s = schema;
  for (let i = 0; s && typeof s === 'object' && '$ref' in s && i < 10; i++)
    s = doc.components.schemas[String(s.$ref).split('/').pop()!];
  return s;
}

const isUuid = (s: Schema) => s && typeof s === 'object' && s.type === 'string' && s.format === 'uuid';

/** Paths of the id-like properties of a body schema, through objects, arrays and unions. */
function bodyTargets(doc: Json, schema: Schema, path: string[] = [], depth = 0): string[][] {
  const s = resolve(doc, schema);
  if (!s || typeof s !== 'object' || depth > 8) return [];
  const out: string[][] = [];
  for (const k of ['anyOf', 'oneOf', 'allOf'])
    for (const x of (s[k] as Schema[] | undefined) ?? []) out.push(...bodyTargets(doc, x, path, depth + 1));
  if (s.items) out.push(...bodyTargets(doc, s.items, [...path, '[]'], depth + 1));
  for (const [name, prop] of Object.entries((s.properties as Record<string, Schema>) ?? {})) {
    const p = resolve(doc, prop);
    const uuid = isUuid(p) || ((p?.anyOf as Schema[] | undefined) ?? []).some(isUuid);
    if (ID_NAME.test(name) || uuid) out.push([...path, name]);
    out.push(...bodyTargets(doc, prop, [...path, name], depth + 1));
  }
  return out;
}

/** Whether a document schema bounds its strings: a maxLength, a pattern of bounded length, an enum. */
function bounded(doc: Json, schema: Schema): boolean {
  const s = resolve(doc, schema);
  if (!s || typeof s !== 'object') return false;
  const union = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (union) return union.every((x) => resolve(doc, x)?.type === 'null' || bounded(doc, x));
  if (s.type === 'array') return bounded(doc, s.items);
  if (s.enum || 'const' in s || typeof s.maxLength === 'number') return true;
  // A pattern bounds the length when no part of it repeats without an upper bound.
  return typeof s.pattern === 'string' && !/[+*]|\{\d+,\}/.test(s.pattern);
}

/** The document schema of a target (undefined for the headers the document does not list). */
function schemaOf(doc: Json, op: Json, t: Target): Schema | undefined {
  if (t.where !== 'body')
    return (op.parameters as Json[] | undefined)?.find((p) => p.name === t.name)?.schema;
  let s = resolve(doc, op.requestBody.content['application/json'].schema);
  for (const part of t.path!) {
    const branches = [
      s,
      ...(((s?.anyOf ?? s?.oneOf) as Schema[] | undefined) ?? []).map((x) => resolve(doc, x)),
    ];
    const next: Schema[] = branches.flatMap((b) => (part === '[]' ? [b?.items] : [b?.properties?.[part]]));
    s = resolve(
      doc,
      next.find((x) => x !== undefined),
    );
  }
  return s;
}

/** A UUID field gets `not-a-uuid`, X-Project-Id a value no project id has; others none. */
function malformedFor(doc: Json, op: Json, t: Target): string | undefined {
  if (t.where === 'header') return t.name.toLowerCase() === 'x-project-id' ? 'not a project/id' : undefined;
  const s = schemaOf(doc, op, t);
  const uuid = isUuid(s) || ((s?.anyOf as Schema[] | undefined) ?? []).some(isUuid);
  return uuid || isUuid(resolve(doc, s?.items)) ? 'not-a-uuid' : undefined;
}

interface Operation {
  readonly route: string;
  readonly method: string;
  readonly path: string;
  readonly targets: readonly Target[];
}

function operations(doc: Json): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const route = `${method.toUpperCase()} ${path}`;
      const targets: Target[] = [];
      for (const p of (op.parameters as Json[] | undefined) ?? []) {
        if (p.in === 'path') targets.push({ where: 'path', name: p.name });
        else if (p.in === 'query' && ID_NAME.test(p.name)) targets.push({ where: 'query', name: p.name });
        else if (p.in === 'header' && ID_HEADERS.has(String(p.name).toLowerCase()))
          targets.push({ where: 'header', name: p.name });
      }
      if (IDEMPOTENT.has(route)) targets.push({ where: 'header', name: 'Idempotency-Key' });
      const json = op.requestBody?.content?.['application/json']?.schema;
      const seen = new Set<string>();
      for (const bodyPath of json ? bodyTargets(doc, json) : []) {
        const name = bodyPath.join('.');
        if (!seen.has(name)) targets.push({ where: 'body', name, path: bodyPath });
        seen.add(name);
      }
      ops.push({
        route,
        method: method.toUpperCase(),
        path,
        targets: targets.map((t) => ({ ...t, malformed: malformedFor(doc, op, t) })),
      });
    }
  }
  return ops;
}

/** `body` with `value` at `path` (an array item path sets a one-item array). */
function withValue(body: Json, path: readonly string[], value: string): Json {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (head === '[]') return [withValue(Array.isArray(body) ? body[0] : undefined, rest, value)];
  const base = body && typeof body === 'object' && !Array.isArray(body) ? body : {};
  return { ...base, [head]: withValue(base[head], rest, value) };
}

/** A's own credentials for a route's kind. */
function aCredentials(w: World, creds: Creds | undefined, path: string): ApiOptions {
  if (creds === 'public') return { key: w.a.publicKey };
  if (creds === 'user' || /^\/(users|projects)\//.test(path)) return w.a.session;
  if (creds === undefined) return { key: null };
  return { key: w.a.secretKey };
}

/** The route's probe for A: the isolation table's, or the path with A's ids filled in. */
function probeOf(w: World, op: Operation): { probe: Probe; creds: Creds | undefined } {
  const c = isolationCases[op.route];
  if (c && c.kind !== 'exempt') return { probe: c.probe(w), creds: c.creds };
  const path = op.path.replace(/\{[^}]+\}/g, 'placeholder');
  const body = EXEMPT_BODIES[op.route];
  return { probe: { path, ...(body ? { options: { body } } : {}) }, creds: undefined };
}

/** The probe's path with its parameter `name` replaced by `value`. */
function replaceParam(template: string, filled: string, name: string, value: string): string {
  const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const pattern = new RegExp(
    `^${template
      .split(/\{[^}]+\}/)
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('([^/]+)')}$`,
  );
  const values = pattern.exec(filled)?.slice(1);
  if (!values) throw new Error(`${filled} does not match ${template}`);
  let i = 0;
  return template.replace(/\{[^}]+\}/g, () => {
    const n = names[i];
    const v = values[i++]!;
    return n === name ? encodeURIComponent(value) : v;
  });
}

interface Request {
  readonly label: string;
  /** The answer is an HTML page (HTML_PAGES). */
  readonly htmlPage?: boolean;
  readonly method: string;
  readonly path: string;
  readonly options: ApiOptions;
}

/**
 * The requests of `op` with one field set to LONG each (and the fields the document cannot show,
 * EXTRA_BODIES), or to its malformed value (the fields that have one).
 */
function requestsOf(w: World, op: Operation, kind: 'long' | 'malformed'): Request[] {
  const valueFor = (t: Target) => (kind === 'long' ? LONG : t.malformed);
  const { probe, creds } = probeOf(w, op);
  const base = aCredentials(w, creds, probe.path);
  const headers = { ...(base.headers ?? {}), ...(probe.options?.headers ?? {}) };
  const options: ApiOptions = { ...base, ...probe.options, headers };
  const out: Request[] = [];
  for (const t of op.targets) {
    const value = valueFor(t);
    if (value === undefined) continue;
    const label = `${op.route} ${t.where} ${t.name} = ${value.slice(0, 12)}`;
    if (t.where === 'path')
      out.push({
        label,
        method: op.method,
        path: replaceParam(op.path, probe.path, t.name, value),
        options,
        htmlPage: HTML_PAGES.has(op.route),
      });
    else if (t.where === 'query')
      out.push({
        label,
        method: op.method,
        path: probe.path,
        options: { ...options, query: { ...(probe.options?.query ?? {}), [t.name]: value } },
      });
    else if (t.where === 'header') {
      // X-Project-Id is read with a session (a key names its project itself).
      const session = t.name.toLowerCase() === 'x-project-id' ? w.a.session : base;
      out.push({
        label,
        method: op.method,
        path: probe.path,
        options: {
          ...options,
          ...session,
          headers: { ...headers, ...(session.headers ?? {}), [t.name]: value },
        },
      });
    } else
      out.push({
        label,
        method: op.method,
        path: probe.path,
        options: { ...options, body: withValue(probe.options?.body ?? {}, t.path!, value) },
      });
  }
  const extras = kind === 'long' ? EXTRA_BODIES[op.route] : undefined;
  for (const extra of extras?.(w) ?? [])
    out.push({
      label: `${op.route} body ${extra.target.name}`,
      method: op.method,
      path: probe.path,
      options: { ...options, body: extra.body },
    });
  return out;
}

/** What is wrong with the answer to an over-long id: nothing when it is a 4xx in the envelope. */
function problemOf(req: Request, res: ApiResponse): string | undefined {
  const error = res.body?.error;
  if (res.status < 400 || res.status >= 500 || res.status === 401 || res.status === 429)
    return `${req.label}: ${res.status} ${res.text.slice(0, 300)}`;
  if (req.htmlPage)
    return res.headers['content-type']?.startsWith('text/html')
      ? undefined
      : `${req.label}: ${res.status} is not the HTML error page`;
  if (typeof error?.code !== 'string' || typeof error.message !== 'string' || error.statusCode !== res.status)
    return `${req.label}: ${res.status} not in the error envelope: ${res.text.slice(0, 300)}`;
  return undefined;
}

describe('over-long ids, from the OpenAPI document', () => {
  it('finds the id fields of the document, the ones that were unbounded among them', async () => {
    const doc = JSON.parse(await readFile('docs/openapi.json', 'utf8'));
    const labels = operations(doc).flatMap((op) => op.targets.map((t) => `${op.route} ${t.where} ${t.name}`));
    expect(labels).toEqual(
      expect.arrayContaining([
        'POST /workflows/{id}/executions body contactId',
        'POST /workflows/{id}/transitions body fromStepId',
        'PATCH /workflows/{id} body entryStepId',
        'POST /campaigns body segmentId',
        'POST /v1/send body template',
        'GET /contacts query cursor',
        'GET /v1/subscription/{token} path token',
        'GET /contacts header X-Project-Id',
        'POST /v1/send header Idempotency-Key',
      ]),
    );
    expect(labels.length).toBeGreaterThan(150);
    // UUID fields and X-Project-Id also get a short value of the wrong shape.
    const malformed = operations(doc).flatMap((op) => op.targets.filter((t) => t.malformed !== undefined));
    expect(malformed.length).toBeGreaterThan(100);
  });

  it('bounds every id field of the document in its schema', async () => {
    const doc = JSON.parse(await readFile('docs/openapi.json', 'utf8'));
    const unbounded: string[] = [];
    for (const op of operations(doc)) {
      const [method, path] = op.route.split(' ') as [string, string];
      for (const t of op.targets) {
        const schema = schemaOf(doc, doc.paths[path][method.toLowerCase()], t);
        if (schema === undefined && t.where === 'header') continue;
        if (HTML_PAGES.has(op.route) && t.name === 'token') continue;
        if (!bounded(doc, schema))
          unbounded.push(`${op.route} ${t.where} ${t.name}: ${JSON.stringify(schema)}`);
      }
    }
    expect(
      unbounded,
      'bound these in their zod schemas (shared/http/validation.ts uuidId, accountId)',
    ).toEqual([]);
  });

  it('answers every over-long or malformed id with a 4xx in the error envelope, and writes nothing', async () => {
    const doc = JSON.parse(await readFile('docs/openapi.json', 'utf8'));
    const w = await buildWorld(rt);
    const itemsBefore = await tenantItems(rt, w.a);
    const mailsBefore = (await rt.mails()).length;
    const stripeCalls = stripe.requests.length;
    const problems: string[] = [];
    let sent = 0;
    for (const op of operations(doc)) {
      for (const req of [...requestsOf(w, op, 'long'), ...requestsOf(w, op, 'malformed')]) {
        const res = await rt.api(req.method, req.path, req.options);
        sent++;
        const problem = problemOf(req, res);
        if (problem) problems.push(problem);
      }
    }
    await rt.drain({ timeoutMs: 30_000 });
    expect(problems).toEqual([]);
    expect(sent).toBeGreaterThan(250);
    expect(changedItems(itemsBefore, await tenantItems(rt, w.a)), 'a refused id changed an item').toEqual([]);
    expect((await rt.mails()).length, 'no mail').toBe(mailsBefore);
    expect(stripe.requests.length, 'Stripe was not called').toBe(stripeCalls);
  }, 180_000);
});
