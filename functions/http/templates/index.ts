/** Templates route group: parses and validates input, calls one use case, maps the result. */

import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { ssmLinkSigningSecret } from '../../../shared/composition/aws-wiring/ssm';
import { deletedAnswer } from '../../../shared/http/answers';
import { lambdaEntry } from '../../../shared/http/lambda';
import { created, ok } from '../../../shared/http/response';
import { type AuthedRequest, httpGroup, type RouteImpl, route } from '../../../shared/http/stack';
import { parse } from '../../../shared/http/validation';
import type { Deps } from '../../../shared/ports';
import {
  templateAnswer,
  templateCopyAnswer,
  templateListAnswer,
  templateUsageAnswer,
} from '../../../shared/templates/responses';
import {
  createTemplateSchema,
  listTemplatesQuerySchema,
  parseCreateTemplate,
  patchTemplateSchema,
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

export function routes(deps: Deps): RouteImpl[] {
  return [
    {
      method: 'GET',
      path: '/templates',
      responses: { 200: templateListAnswer },
      query: listTemplatesQuerySchema,
      handler: async (req: AuthedRequest) =>
        ok(await listTemplates(deps, req.projectId, parse(listTemplatesQuerySchema, req.query))),
    },
    {
      method: 'POST',
      path: '/templates',
      responses: { 201: templateAnswer },
      body: createTemplateSchema,
      flatBadRequest: true,
      handler: async (req: AuthedRequest) =>
        created(await createTemplate(deps, req.projectId, parseCreateTemplate(req.body))),
    },
    route({
      method: 'GET',
      path: '/templates/{id}',
      responses: { 200: templateAnswer },
      params: templateIdSchema,
      handler: async (req) => ok(await getTemplate(deps, req.projectId, req.params.id)),
    }),
    route({
      method: 'PATCH',
      path: '/templates/{id}',
      responses: { 200: templateAnswer },
      body: patchTemplateSchema,
      params: templateIdSchema,
      handler: async (req) => {
        const input = parse(patchTemplateSchema, req.body ?? {});
        return ok(await patchTemplate(deps, req.projectId, req.params.id, input));
      },
    }),
    route({
      method: 'DELETE',
      path: '/templates/{id}',
      responses: { 200: deletedAnswer },
      params: templateIdSchema,
      handler: async (req) => {
        await deleteTemplate(deps, req.projectId, req.params.id);
        return ok({ id: req.params.id, deleted: true });
      },
    }),
    route({
      method: 'POST',
      path: '/templates/{id}/duplicate',
      responses: { 201: templateCopyAnswer },
      params: templateIdSchema,
      handler: async (req) => {
        const copy = await duplicateTemplate(deps, req.projectId, req.params.id);
        return created({ id: copy.id });
      },
    }),
    route({
      method: 'GET',
      path: '/templates/{id}/usage',
      responses: { 200: templateUsageAnswer },
      params: templateIdSchema,
      handler: async (req) => ok(await templateUsage(deps, req.projectId, req.params.id)),
    }),
  ];
}

export const createHandler = (deps: Deps) => httpGroup(deps, 'templates', routes);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'templates',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: { store: dynamoStore, linkSigningSecret: ssmLinkSigningSecret },
});
