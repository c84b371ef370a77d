/** Workflows route group: parses and validates input, calls one use case, maps the result. */

import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { eventBridgeScheduler } from '../../../shared/composition/aws-wiring/scheduler';
import { sqsQueue } from '../../../shared/composition/aws-wiring/sqs';
import { ssmLinkSigningSecret } from '../../../shared/composition/aws-wiring/ssm';
import { lambdaEntry } from '../../../shared/http/lambda';
import { created, ok } from '../../../shared/http/response';
import { type AuthedRequest, httpGroup, type RouteImpl, route } from '../../../shared/http/stack';
import type { Deps } from '../../../shared/ports';
import {
  cancelAllExecutions,
  cancelExecution,
  getExecution,
  listExecutions,
  parseListExecutionsQuery,
  parseStartExecution,
  startManualExecution,
} from '../../../shared/workflows/executions';
import { workflowFields } from '../../../shared/workflows/fields';
import {
  executionParamsSchema,
  parseAddStep,
  parseAddTransition,
  parseCreateWorkflow,
  parseDeleteStepQuery,
  parseFieldsQuery,
  parseListWorkflowsQuery,
  parsePatchStep,
  parsePatchWorkflow,
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
      handler: async (req: AuthedRequest) =>
        ok(await listWorkflows(deps, req.projectId, parseListWorkflowsQuery(req.query))),
    },
    {
      method: 'POST',
      path: '/workflows',
      handler: async (req: AuthedRequest) =>
        created(await createWorkflow(deps, req.projectId, parseCreateWorkflow(req.body))),
    },
    {
      method: 'GET',
      path: '/workflows/fields',
      handler: async (req: AuthedRequest) =>
        ok(await workflowFields(deps, req.projectId, parseFieldsQuery(req.query))),
    },
    route({
      method: 'GET',
      path: '/workflows/{id}',
      params: workflowIdSchema,
      handler: async (req) => ok(await getWorkflow(deps, req.projectId, req.params.id)),
    }),
    route({
      method: 'PATCH',
      path: '/workflows/{id}',
      params: workflowIdSchema,
      handler: async (req) =>
        ok(await patchWorkflow(deps, req.projectId, req.params.id, parsePatchWorkflow(req.body))),
    }),
    route({
      method: 'DELETE',
      path: '/workflows/{id}',
      params: workflowIdSchema,
      handler: async (req) => {
        await deleteWorkflow(deps, req.projectId, req.params.id);
        return ok({ id: req.params.id, deleted: true });
      },
    }),
    route({
      method: 'POST',
      path: '/workflows/{id}/steps',
      params: workflowIdSchema,
      handler: async (req) =>
        created(await addStep(deps, req.projectId, req.params.id, parseAddStep(req.body))),
    }),
    route({
      method: 'PATCH',
      path: '/workflows/{id}/steps/{stepId}',
      params: stepParamsSchema,
      handler: async (req) =>
        ok(await patchStep(deps, req.projectId, req.params.id, req.params.stepId, parsePatchStep(req.body))),
    }),
    route({
      method: 'DELETE',
      path: '/workflows/{id}/steps/{stepId}',
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
      params: workflowIdSchema,
      handler: async (req) =>
        created(await addTransition(deps, req.projectId, req.params.id, parseAddTransition(req.body))),
    }),
    route({
      method: 'DELETE',
      path: '/workflows/{id}/transitions/{transitionId}',
      params: transitionParamsSchema,
      handler: async (req) =>
        ok(await deleteTransition(deps, req.projectId, req.params.id, req.params.transitionId)),
    }),
    route({
      method: 'POST',
      path: '/workflows/{id}/executions',
      params: workflowIdSchema,
      handler: async (req) =>
        created(
          await startManualExecution(deps, req.projectId, req.params.id, parseStartExecution(req.body ?? {})),
        ),
    }),
    route({
      method: 'GET',
      path: '/workflows/{id}/executions',
      params: workflowIdSchema,
      handler: async (req) =>
        ok(await listExecutions(deps, req.projectId, req.params.id, parseListExecutionsQuery(req.query))),
    }),
    route({
      method: 'GET',
      path: '/workflows/{id}/executions/{executionId}',
      params: executionParamsSchema,
      handler: async (req) =>
        ok(await getExecution(deps, req.projectId, req.params.id, req.params.executionId)),
    }),
    route({
      method: 'DELETE',
      path: '/workflows/{id}/executions/{executionId}',
      params: executionParamsSchema,
      handler: async (req) =>
        ok(await cancelExecution(deps, req.projectId, req.params.id, req.params.executionId)),
    }),
    route({
      method: 'POST',
      path: '/workflows/{id}/executions/cancel-all',
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
