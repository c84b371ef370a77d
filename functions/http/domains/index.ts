/** Domains route group: sender domains of the key's project. */

import { systemDns } from '../../../shared/composition/aws-wiring/dns';
import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { route53Zones } from '../../../shared/composition/aws-wiring/route53';
import { sesEmailIdentities } from '../../../shared/composition/aws-wiring/ses-identities';
import { ssmLinkSigningSecret } from '../../../shared/composition/aws-wiring/ssm';
import { present } from '../../../shared/domains/repository';
import { domainAddedAnswer, domainAnswer, domainListAnswer } from '../../../shared/domains/responses';
import { addDomainSchema, domainIdSchema, projectIdSchema } from '../../../shared/domains/schemas';
import { addDomain, listProjectDomains, removeDomain, verifyDomain } from '../../../shared/domains/service';
import { deletedAnswer } from '../../../shared/http/answers';
import { lambdaEntry } from '../../../shared/http/lambda';
import { created, ok } from '../../../shared/http/response';
import { type AuthedRequest, httpGroup, type RouteImpl, route } from '../../../shared/http/stack';
import { parse } from '../../../shared/http/validation';
import type { Deps } from '../../../shared/ports';

export function routes(deps: Deps): RouteImpl[] {
  return [
    route({
      method: 'GET',
      path: '/domains/project/{projectId}',
      responses: { 200: domainListAnswer },
      params: projectIdSchema,
      handler: async (req) => {
        const domains = await listProjectDomains(deps, req.projectId, req.params.projectId);
        return ok(domains.map(present));
      },
    }),
    {
      method: 'POST',
      path: '/domains',
      responses: { 201: domainAddedAnswer },
      body: addDomainSchema,
      handler: async (req: AuthedRequest) => {
        const input = parse(addDomainSchema, req.body ?? {});
        const { domain, dnsSetup } = await addDomain(deps, req.projectId, input);
        return created({ ...present(domain), dnsSetup });
      },
    },
    route({
      method: 'GET',
      path: '/domains/{id}/verify',
      responses: { 200: domainAnswer },
      params: domainIdSchema,
      handler: async (req) => ok(present(await verifyDomain(deps, req.projectId, req.params.id))),
    }),
    route({
      method: 'DELETE',
      path: '/domains/{id}',
      responses: { 200: deletedAnswer },
      params: domainIdSchema,
      handler: async (req) => {
        await removeDomain(deps, req.projectId, req.params.id);
        return ok({ id: req.params.id, deleted: true });
      },
    }),
  ];
}

export const createHandler = (deps: Deps) => httpGroup(deps, 'domains', routes);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'domains',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: {
    store: dynamoStore,
    emailIdentities: sesEmailIdentities,
    dnsZones: route53Zones,
    dns: systemDns,
    linkSigningSecret: ssmLinkSigningSecret,
  },
});
