/**
 * Gathers every route group's implementations from its module (the manifest names it; each
 * exports `routes(deps)`, and `lazyRoutes` for routes it loads on first use) and builds the
 * OpenAPI document. Only `npm run openapi` and the tests use this: no Lambda bundles it.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AnyRouteImpl } from '../http/stack';
import { manifest } from '../manifest';
import type { Deps } from '../ports';
import {
  buildDocument,
  type ExtraOperation,
  errorRef,
  type GroupRoutes,
  PROJECT_ID_HEADER_SCHEMA,
} from './document';

interface GroupModule {
  readonly routes?: (deps: Deps) => readonly AnyRouteImpl[];
  readonly lazyRoutes?: Readonly<
    Record<
      string,
      { method: string; path: string; load: () => Promise<(deps: Deps) => readonly AnyRouteImpl[]> }
    >
  >;
}

/** Deps that no route may touch while it is only being described. */
const untouchable = new Proxy({} as Deps, {
  get: (_, name) => {
    throw new Error(`A route group's routes(deps) read deps.${String(name)} while being described`);
  },
});

export async function collectRoutes(root = process.cwd()): Promise<GroupRoutes[]> {
  const out: GroupRoutes[] = [];
  for (const group of manifest.routeGroups) {
    const mod = (await import(pathToFileURL(resolve(root, group.handler)).href)) as GroupModule;
    if (!mod.routes) throw new Error(`${group.handler} exports no routes(deps)`);
    let routes = [...mod.routes(untouchable)];
    for (const lazy of Object.values(mod.lazyRoutes ?? {})) {
      const loaded = (await lazy.load())(untouchable).find(
        (r) => r.method === lazy.method && r.path === lazy.path,
      );
      if (!loaded) throw new Error(`The lazy route ${lazy.method} ${lazy.path} is not in its module`);
      routes = routes.map((r) => (r.method === lazy.method && r.path === lazy.path ? loaded : r));
    }
    out.push({ group: group.name, routes });
  }
  return out;
}

/** `POST /contacts/import`: API Gateway stores its body in the upload bucket; no Lambda parses it. */
const importUpload: ExtraOperation = {
  method: 'POST',
  path: '/contacts/import',
  group: 'contacts',
  operation: {
    operationId: 'postContactsImport',
    summary: 'Import contacts from a CSV file (an asynchronous job)',
    security: [{ secretKey: [] }, { session: [] }],
    parameters: [
      {
        name: 'X-Project-Id',
        in: 'header',
        required: false,
        description: 'With a session cookie instead of a key: the project to act on',
        schema: PROJECT_ID_HEADER_SCHEMA,
      },
    ],
    requestBody: {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: ['file'],
            properties: { file: { type: 'string', format: 'binary', description: 'The CSV, at most 5 MB' } },
          },
        },
      },
    },
    responses: {
      '202': {
        description: 'The job is queued; poll GET /contacts/import/{jobId}',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['jobId', 'status'],
              properties: { jobId: { type: 'string', format: 'uuid' }, status: { const: 'queued' } },
            },
          },
        },
      },
      '400': errorRef('BadRequest'),
      '401': errorRef('InvalidKey'),
      '403': {
        description: 'A session for a project the user is no member of, or without X-Project-Id',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
      '413': {
        description: 'FILE_TOO_LARGE',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
      '429': errorRef('RateLimited'),
      default: errorRef('OtherError'),
    },
  },
};

export const extraOperations: readonly ExtraOperation[] = [importUpload];

export async function generateDocument(root = process.cwd()) {
  if (
    manifest.directUploads?.some(
      (u) => !extraOperations.some((e) => e.path === u.path && e.method === u.method),
    )
  ) {
    throw new Error('A direct upload of the manifest is not described in shared/openapi/collect.ts');
  }
  return buildDocument(await collectRoutes(root), extraOperations);
}
