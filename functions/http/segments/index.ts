/** Segments route group: parses and validates input, calls one use case, maps the result. */

import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { sqsQueue } from '../../../shared/composition/aws-wiring/sqs';
import { ssmLinkSigningSecret } from '../../../shared/composition/aws-wiring/ssm';
import { deletedAnswer } from '../../../shared/http/answers';
import { lambdaEntry } from '../../../shared/http/lambda';
import { created, ok } from '../../../shared/http/response';
import { type AuthedRequest, httpGroup, type RouteImpl, route } from '../../../shared/http/stack';
import { parse } from '../../../shared/http/validation';
import type { Deps } from '../../../shared/ports';
import {
  membersAddedAnswer,
  membersRemovedAnswer,
  segmentAnswer,
  segmentComputeAnswer,
  segmentListAnswer,
  segmentMembersAnswer,
  segmentRefreshAnswer,
} from '../../../shared/segments/responses';
import {
  addMembersSchema,
  createSegmentBodySchema,
  membersPageQuerySchema,
  parseCreateSegment,
  parsePatchSegment,
  patchSegmentBodySchema,
  removeMembersSchema,
  segmentIdSchema,
} from '../../../shared/segments/schemas';
import {
  addMembers,
  computeSegment,
  createSegment,
  deleteSegment,
  getSegment,
  listSegments,
  membersPage,
  patchSegment,
  refreshSegment,
  removeMembers,
} from '../../../shared/segments/service';

export function routes(deps: Deps): RouteImpl[] {
  return [
    {
      method: 'GET',
      path: '/segments',
      responses: { 200: segmentListAnswer },
      handler: async (req: AuthedRequest) => ok(await listSegments(deps, req.projectId)),
    },
    {
      method: 'POST',
      path: '/segments',
      responses: { 201: segmentAnswer },
      body: createSegmentBodySchema,
      flatBadRequest: true,
      handler: async (req: AuthedRequest) =>
        created(await createSegment(deps, req.projectId, parseCreateSegment(req.body))),
    },
    route({
      method: 'GET',
      path: '/segments/{id}',
      responses: { 200: segmentAnswer },
      params: segmentIdSchema,
      handler: async (req) => ok(await getSegment(deps, req.projectId, req.params.id)),
    }),
    route({
      method: 'PATCH',
      path: '/segments/{id}',
      responses: { 200: segmentAnswer },
      body: patchSegmentBodySchema,
      params: segmentIdSchema,
      handler: async (req) =>
        ok(await patchSegment(deps, req.projectId, req.params.id, parsePatchSegment(req.body))),
    }),
    route({
      method: 'DELETE',
      path: '/segments/{id}',
      responses: { 200: deletedAnswer },
      params: segmentIdSchema,
      handler: async (req) => ok(await deleteSegment(deps, req.projectId, req.params.id)),
    }),
    route({
      method: 'GET',
      path: '/segments/{id}/contacts',
      responses: { 200: segmentMembersAnswer },
      query: membersPageQuerySchema,
      params: segmentIdSchema,
      handler: async (req) =>
        ok(
          await membersPage(
            deps,
            req.projectId,
            req.params.id,
            parse(membersPageQuerySchema, req.query, ['query']),
          ),
        ),
    }),
    route({
      method: 'POST',
      path: '/segments/{id}/members',
      responses: { 200: membersAddedAnswer },
      body: addMembersSchema,
      params: segmentIdSchema,
      handler: async (req) =>
        ok(await addMembers(deps, req.projectId, req.params.id, parse(addMembersSchema, req.body ?? {}))),
    }),
    route({
      method: 'DELETE',
      path: '/segments/{id}/members',
      responses: { 200: membersRemovedAnswer },
      body: removeMembersSchema,
      params: segmentIdSchema,
      handler: async (req) =>
        ok(
          await removeMembers(deps, req.projectId, req.params.id, parse(removeMembersSchema, req.body ?? {})),
        ),
    }),
    route({
      method: 'POST',
      path: '/segments/{id}/compute',
      responses: { 200: segmentComputeAnswer },
      params: segmentIdSchema,
      handler: async (req) => ok(await computeSegment(deps, req.projectId, req.params.id)),
    }),
    route({
      method: 'POST',
      path: '/segments/{id}/refresh',
      responses: { 200: segmentRefreshAnswer },
      params: segmentIdSchema,
      handler: async (req) => ok(await refreshSegment(deps, req.projectId, req.params.id)),
    }),
  ];
}

export const createHandler = (deps: Deps) => httpGroup(deps, 'segments', routes);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'segments',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: { store: dynamoStore, queue: sqsQueue, linkSigningSecret: ssmLinkSigningSecret },
});
