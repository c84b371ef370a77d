/** Templates route group: parses and validates input, calls one use case, maps the result. */

import { flatBadRequest } from '../../../shared/errors';
import { lambdaEntry } from '../../../shared/http/lambda';
import { created, ok } from '../../../shared/http/response';
import { type AuthedRequest, httpGroup } from '../../../shared/http/stack';
import { parse } from '../../../shared/http/validation';
import type { Deps } from '../../../shared/ports';
import {
  createTemplateSchema,
  listTemplatesQuerySchema,
  patchTemplateSchema,
  REQUIRED_ON_CREATE,
  templateIdSchema,
} from '../../../shared/templates/schemas';
import {
  createTemplate,
  deleteTemplate,
  duplicateTemplate,
  getTemplate,
  listTemplates,
  patchTemplate,
  templateUsage,
} from '../../../shared/templates/service';

const bodyObject = (req: AuthedRequest): Record<string, unknown> =>
  typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body)
    ? (req.body as Record<string, unknown>)
    : {};

const templateId = (req: AuthedRequest) => parse(templateIdSchema, req.params).id;

export function routes(deps: Deps) {
  return [
    {
      method: 'GET',
      path: '/templates',
      handler: async (req: AuthedRequest) =>
        ok(await listTemplates(deps, req.projectId, parse(listTemplatesQuerySchema, req.query))),
    },
    {
      method: 'POST',
      path: '/templates',
      handler: async (req: AuthedRequest) => {
        const body = bodyObject(req);
        const missing = REQUIRED_ON_CREATE.filter(
          (f) => body[f] === undefined || body[f] === null || body[f] === '',
        );
        if (missing.length > 0)
          throw flatBadRequest(`${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} required`);
        const input = parse(createTemplateSchema, body);
        return created(await createTemplate(deps, req.projectId, input));
      },
    },
    {
      method: 'GET',
      path: '/templates/{id}',
      handler: async (req: AuthedRequest) => ok(await getTemplate(deps, req.projectId, templateId(req))),
    },
    {
      method: 'PATCH',
      path: '/templates/{id}',
      handler: async (req: AuthedRequest) => {
        const id = templateId(req);
        const input = parse(patchTemplateSchema, req.body ?? {});
        return ok(await patchTemplate(deps, req.projectId, id, input));
      },
    },
    {
      method: 'DELETE',
      path: '/templates/{id}',
      handler: async (req: AuthedRequest) => {
        const id = templateId(req);
        await deleteTemplate(deps, req.projectId, id);
        return ok({ id, deleted: true });
      },
    },
    {
      method: 'POST',
      path: '/templates/{id}/duplicate',
      handler: async (req: AuthedRequest) => {
        const copy = await duplicateTemplate(deps, req.projectId, templateId(req));
        return created({ id: copy.id });
      },
    },
    {
      method: 'GET',
      path: '/templates/{id}/usage',
      handler: async (req: AuthedRequest) => ok(await templateUsage(deps, req.projectId, templateId(req))),
    },
  ] as const;
}

export const createHandler = (deps: Deps) => httpGroup(deps, 'templates', routes(deps));

export const handler = lambdaEntry(createHandler);
