/** Workflows route group: parses and validates input, calls one use case, maps the result. */

import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { eventBridgeScheduler } from '../../../shared/composition/aws-wiring/scheduler';
import { sqsQueue } from '../../../shared/composition/aws-wiring/sqs';
import { ssmLinkSigningSecret } from '../../../shared/composition/aws-wiring/ssm';
import { deletedAnswer } from '../../../shared/http/answers';
import { lambdaEntry } from '../../../shared/http/lambda';
import { created, ok } from '../../../shared/http/response';
import { type AuthedRequest, httpGroup, type RouteImpl, route } from '../../../shared/http/stack';
import type { Deps } from '../../../shared/ports';
import {
  cancelAllExecutions,
  cancelExecution,
  getExecution,
  listExecutions,
  listExecutionsQuerySchema,
  parseListExecutionsQuery,
  parseStartExecution,
  startExecutionSchema,
  startManualExecution,
} from '../../../shared/workflows/executions';
import {
  cancelledAnswer,
  executionAnswer,
  executionListAnswer,
  stepAnswer,
  transitionAnswer,
  workflowAnswer,
  workflowFieldsAnswer,
  workflowListAnswer,
} from '../../../shared/workflows/responses';
import {
  addStepSchema,
  addTransitionSchema,
  createWorkflowSchema,
  deleteStepQuerySchema,
  executionParamsSchema,
  fieldsQuerySchema,
  listWorkflowsQuerySchema,
  parseAddStep,
  parseAddTransition,
  parseCreateWorkflow,
  parseDeleteStepQuery,
  parseFieldsQuery,
  parseListWorkflowsQuery,
  parsePatchStep,
  parsePatchWorkflow,
  patchStepSchema,
  patchWorkflowSchema,
  stepParamsSchema,
  transitionParamsSchema,
  workflowIdSchema,
} from '../../../shared/workflows/schemas';
import {
  addStep,
  addTransition,
  createWorkflow,
  deleteStep,
  deleteTransition,
  deleteWorkflow,
  getWorkflow,
  listWorkflows,
  patchStep,
  patchWorkflow,
} from '../../../shared/workflows/service';

export function routes(deps: Deps): RouteImpl[] {
  return [
    {
      method: 'GET',
      path: '/workflows',
      responses: { 200: workflowListAnswer },
      query: listWorkflowsQuerySchema,
      handler: async (req: AuthedRequest) =>
        ok(await listWorkflows(deps, req.projectId, parseListWorkflowsQuery(req.query))),
    },
    {
      method: 'POST',
      path: '/workflows',
      responses: { 201: workflowAnswer },
      body: createWorkflowSchema,
      flatBadRequest: true,
      handler: async (req: AuthedRequest) =>
        created(await createWorkflow(deps, req.projectId, parseCreateWorkflow(req.body))),
    },
    {
      method: 'GET',
      path: '/workflows/fields',
      responses: { 200: workflowFieldsAnswer },
      query: fieldsQuerySchema,
      handler: async (req: AuthedRequest) => {
        // The field listing (contact statistics, the event's recent data) loads with its first call.
        const { workflowFields } = await import('../../../shared/workflows/fields');
        return ok(await workflowFields(deps, req.projectId, parseFieldsQuery(req.query)));
      },
    },
    route({
      method: 'GET',
      path: '/workflows/{id}',
      responses: { 200: workflowAnswer },
      params: workflowIdSchema,
      handler: async (req) => ok(await getWorkflow(deps, req.projectId, req.params.id)),
    }),
    route({
      method: 'PATCH',
      path: '/workflows/{id}',
      responses: { 200: workflowAnswer },
      body: patchWorkflowSchema,
      params: workflowIdSchema,
      handler: async (req) =>
        ok(await patchWorkflow(deps, req.projectId, req.params.id, parsePatchWorkflow(req.body))),
    }),
    route({
      method: 'DELETE',
      path: '/workflows/{id}',
      responses: { 200: deletedAnswer },
      params: workflowIdSchema,
      handler: async (req) => {
        await deleteWorkflow(deps, req.projectId, req.params.id);
        return ok({ id: req.params.id, deleted: true });
      },
    }),
    route({
      method: 'POST',
      path: '/workflows/{id}/steps',
      responses: { 201: stepAnswer },
      body: addStepSchema,
      params: workflowIdSchema,
      handler: async (req) =>
        created(await addStep(deps, req.projectId, req.params.id, parseAddStep(req.body))),
    }),
    route({
      method: 'PATCH',
      path: '/workflows/{id}/steps/{stepId}',
      responses: { 200: stepAnswer },
      body: patchStepSchema,
      params: stepParamsSchema,
      handler: async (req) =>
        ok(await patchStep(deps, req.projectId, req.params.id, req.params.stepId, parsePatchStep(req.body))),
    }),
    route({
      method: 'DELETE',
      path: '/workflows/{id}/steps/{stepId}',
      responses: { 200: deletedAnswer },
      query: deleteStepQuerySchema,
      params: stepParamsSchema,
      handler: async (req) =>
        ok(
          await deleteStep(
            deps,
            req.projectId,
            req.params.id,
            req.params.stepId,
            parseDeleteStepQuery(req.query),
          ),
        ),
    }),
    route({
      method: 'POST',
      path: '/workflows/{id}/transitions',
      responses: { 201: transitionAnswer },
      body: addTransitionSchema,
      params: workflowIdSchema,
      handler: async (req) =>
        created(await addTransition(deps, req.projectId, req.params.id, parseAddTransition(req.body))),
    }),
    route({
      method: 'DELETE',
      path: '/workflows/{id}/transitions/{transitionId}',
      responses: { 200: deletedAnswer },
      params: transitionParamsSchema,
      handler: async (req) =>
        ok(await deleteTransition(deps, req.projectId, req.params.id, req.params.transitionId)),
    }),
    route({
      method: 'POST',
      path: '/workflows/{id}/executions',
      responses: { 201: executionAnswer },
      body: startExecutionSchema,
      params: workflowIdSchema,
      handler: async (req) =>
        created(
          await startManualExecution(deps, req.projectId, req.params.id, parseStartExecution(req.body ?? {})),
        ),
    }),
    route({
      method: 'GET',
      path: '/workflows/{id}/executions',
      responses: { 200: executionListAnswer },
      query: listExecutionsQuerySchema,
      params: workflowIdSchema,
      handler: async (req) =>
        ok(await listExecutions(deps, req.projectId, req.params.id, parseListExecutionsQuery(req.query))),
    }),
    route({
      method: 'GET',
      path: '/workflows/{id}/executions/{executionId}',
      responses: { 200: executionAnswer },
      params: executionParamsSchema,
      handler: async (req) =>
        ok(await getExecution(deps, req.projectId, req.params.id, req.params.executionId)),
    }),
    route({
      method: 'DELETE',
      path: '/workflows/{id}/executions/{executionId}',
      responses: { 200: executionAnswer },
      params: executionParamsSchema,
      handler: async (req) =>
        ok(await cancelExecution(deps, req.projectId, req.params.id, req.params.executionId)),
    }),
    route({
      method: 'POST',
      path: '/workflows/{id}/executions/cancel-all',
      responses: { 200: cancelledAnswer },
      params: workflowIdSchema,
      handler: async (req) => ok(await cancelAllExecutions(deps, req.projectId, req.params.id)),
    }),
  ];
}

export const createHandler = (deps: Deps) => httpGroup(deps, 'workflows', routes);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'workflows',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: {
    store: dynamoStore,
    queue: sqsQueue,
    scheduler: eventBridgeScheduler,
    linkSigningSecret: ssmLinkSigningSecret,
  },
});
