/** Campaigns route group: parses and validates input, calls one use case, maps the result. */

import {
  getCampaignCount,
  getTreeCount,
  startCampaignCount,
  startTreeCount,
} from '../../../shared/campaigns/count-service';
import {
  audienceCountAnswer,
  campaignAnswer,
  campaignEnvelopeAnswer,
  campaignListAnswer,
  campaignSentAnswer,
  campaignStatsAnswer,
  campaignTestAnswer,
} from '../../../shared/campaigns/responses';
import {
  audienceCountBodySchema,
  audienceIdSchema,
  campaignIdSchema,
  campaignShape,
  listCampaignsQuerySchema,
  parseAudienceCountInput,
  parseCampaignInput,
  parseListQuery,
  parseSendInput,
  sendCampaignBodySchema,
  testSendSchema,
} from '../../../shared/campaigns/schemas';
import {
  campaignStats,
  cancelCampaign,
  createCampaign,
  deleteCampaign,
  duplicateCampaign,
  getCampaign,
  listCampaigns,
  replaceCampaignDefinition,
  sendCampaign,
  testSendCampaign,
} from '../../../shared/campaigns/service';
import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { eventBridgeScheduler } from '../../../shared/composition/aws-wiring/scheduler';
import { sesMailer } from '../../../shared/composition/aws-wiring/ses-mailer';
import { sqsQueue } from '../../../shared/composition/aws-wiring/sqs';
import { ssmLinkSigningSecret } from '../../../shared/composition/aws-wiring/ssm';
import { deletedAnswer } from '../../../shared/http/answers';
import { lambdaEntry } from '../../../shared/http/lambda';
import { created, json, ok } from '../../../shared/http/response';
import { type AuthedRequest, httpGroup, type RouteImpl, route } from '../../../shared/http/stack';
import { parse } from '../../../shared/http/validation';
import type { Deps } from '../../../shared/ports';

export function routes(deps: Deps): RouteImpl[] {
  return [
    {
      method: 'GET',
      path: '/campaigns',
      responses: { 200: campaignListAnswer },
      query: listCampaignsQuerySchema,
      handler: async (req: AuthedRequest) =>
        ok(await listCampaigns(deps, req.projectId, parseListQuery(req.query))),
    },
    {
      method: 'POST',
      path: '/campaigns',
      responses: { 201: campaignEnvelopeAnswer },
      body: campaignShape,
      // The one create that answers `{success, data}`.
      handler: async (req: AuthedRequest) =>
        created({
          success: true,
          data: await createCampaign(deps, req.projectId, parseCampaignInput(req.body)),
        }),
    },
    route({
      method: 'GET',
      path: '/campaigns/{id}',
      responses: { 200: campaignAnswer },
      params: campaignIdSchema,
      handler: async (req) => ok(await getCampaign(deps, req.projectId, req.params.id)),
    }),
    route({
      method: 'PUT',
      path: '/campaigns/{id}',
      responses: { 200: campaignAnswer },
      body: campaignShape,
      params: campaignIdSchema,
      handler: async (req) =>
        ok(await replaceCampaignDefinition(deps, req.projectId, req.params.id, parseCampaignInput(req.body))),
    }),
    route({
      method: 'DELETE',
      path: '/campaigns/{id}',
      responses: { 200: deletedAnswer },
      params: campaignIdSchema,
      handler: async (req) => {
        await deleteCampaign(deps, req.projectId, req.params.id);
        return ok({ id: req.params.id, deleted: true });
      },
    }),
    route({
      method: 'POST',
      path: '/campaigns/{id}/duplicate',
      responses: { 201: campaignAnswer },
      params: campaignIdSchema,
      handler: async (req) => created(await duplicateCampaign(deps, req.projectId, req.params.id)),
    }),
    route({
      method: 'POST',
      path: '/campaigns/{id}/send',
      responses: { 200: campaignSentAnswer },
      body: sendCampaignBodySchema,
      params: campaignIdSchema,
      handler: async (req) => {
        const { scheduledFor } = parseSendInput(req.body);
        const { campaign, message } = await sendCampaign(deps, req.projectId, req.params.id, scheduledFor);
        return ok({ success: true, data: campaign, message });
      },
    }),
    route({
      method: 'POST',
      path: '/campaigns/{id}/cancel',
      responses: { 200: campaignAnswer },
      params: campaignIdSchema,
      handler: async (req) => ok(await cancelCampaign(deps, req.projectId, req.params.id)),
    }),
    route({
      method: 'POST',
      path: '/campaigns/{id}/test',
      responses: { 200: campaignTestAnswer },
      body: testSendSchema,
      params: campaignIdSchema,
      handler: async (req) => {
        const { email } = parse(testSendSchema, req.body ?? {});
        return ok(await testSendCampaign(deps, req.projectId, req.params.id, email));
      },
    }),
    route({
      method: 'GET',
      path: '/campaigns/{id}/stats',
      responses: { 200: campaignStatsAnswer },
      params: campaignIdSchema,
      handler: async (req) =>
        ok({ success: true, data: await campaignStats(deps, req.projectId, req.params.id) }),
    }),
    route({
      method: 'POST',
      path: '/campaigns/{id}/audience',
      responses: { 202: audienceCountAnswer },
      params: campaignIdSchema,
      handler: async (req) => json(202, await startCampaignCount(deps, req.projectId, req.params.id)),
    }),
    route({
      method: 'GET',
      path: '/campaigns/{id}/audience',
      responses: { 200: audienceCountAnswer },
      params: campaignIdSchema,
      handler: async (req) => ok(await getCampaignCount(deps, req.projectId, req.params.id)),
    }),
    {
      method: 'POST',
      path: '/audiences',
      responses: { 202: audienceCountAnswer },
      body: audienceCountBodySchema,
      handler: async (req: AuthedRequest) =>
        json(202, await startTreeCount(deps, req.projectId, parseAudienceCountInput(req.body))),
    },
    route({
      method: 'GET',
      path: '/audiences/{id}',
      responses: { 200: audienceCountAnswer },
      params: audienceIdSchema,
      handler: async (req) => ok(await getTreeCount(deps, req.projectId, req.params.id)),
    }),
  ];
}

export const createHandler = (deps: Deps) => httpGroup(deps, 'campaigns', routes);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'campaigns',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: {
    store: dynamoStore,
    queue: sqsQueue,
    scheduler: eventBridgeScheduler,
    mailer: sesMailer,
    linkSigningSecret: ssmLinkSigningSecret,
  },
});
