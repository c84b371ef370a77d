/** Domains route group: sender domains of the key's project. */
import { present } from '../../../shared/domains/repository';
import { addDomainSchema, domainIdSchema, projectIdSchema } from '../../../shared/domains/schemas';
import { addDomain, listProjectDomains, removeDomain, verifyDomain } from '../../../shared/domains/service';
import { notFound } from '../../../shared/errors';
import { lambdaEntry } from '../../../shared/http/lambda';
import { created, ok } from '../../../shared/http/response';
import { type AuthedRequest, httpGroup } from '../../../shared/http/stack';
import { parse } from '../../../shared/http/validation';
import type { Deps } from '../../../shared/ports';

const domainId = (req: AuthedRequest) => parse(domainIdSchema, req.params).id;

export function routes(deps: Deps) {
  return [
    {
      method: 'GET',
      path: '/domains/project/{projectId}',
      handler: async (req: AuthedRequest) => {
        const { projectId } = parse(projectIdSchema, req.params);
        const domains = await listProjectDomains(deps, req.projectId, projectId);
        return ok(domains.map(present));
      },
    },
    {
      method: 'POST',
      path: '/domains',
      handler: async (req: AuthedRequest) => {
        const input = parse(addDomainSchema, req.body ?? {});
        if (input.projectId !== undefined && input.projectId !== req.projectId) throw notFound('Project');
        const { domain, dnsSetup } = await addDomain(deps, req.projectId, input);
        return created({ ...present(domain), dnsSetup });
      },
    },
    {
      method: 'GET',
      path: '/domains/{id}/verify',
      handler: async (req: AuthedRequest) =>
        ok(present(await verifyDomain(deps, req.projectId, domainId(req)))),
    },
    {
      method: 'DELETE',
      path: '/domains/{id}',
      handler: async (req: AuthedRequest) => {
        const id = domainId(req);
        await removeDomain(deps, req.projectId, id);
        return ok({ id, deleted: true });
      },
    },
  ] as const;
}

export const createHandler = (deps: Deps) => httpGroup(deps, 'domains', routes(deps));

export const handler = lambdaEntry(createHandler);
