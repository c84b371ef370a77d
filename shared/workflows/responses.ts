/** The success answers of the workflow routes (see shared/http/answers.ts). */
import * as z from 'zod/mini';
import { id, instant, nullableInstant, offsetPageOf } from '../http/answers';
import { EXECUTION_STATUSES, STEP_TYPES, TRIGGER_TYPES } from './model';

export const stepAnswer = z.object({
  id,
  type: z.enum(STEP_TYPES),
  name: z.nullable(z.string()),
  /** The step type's settings (see the workflow guide). */
  config: z.record(z.string(), z.unknown()),
});

export const transitionAnswer = z.object({
  id,
  fromStepId: id,
  toStepId: id,
  branch: z.nullable(z.enum(['yes', 'no', 'event', 'timeout'])),
});

const workflowFields = {
  id,
  name: z.string(),
  description: z.nullable(z.string()),
  enabled: z.boolean(),
  triggerType: z.enum(TRIGGER_TYPES),
  triggerConfig: z.object({ eventName: z.nullable(z.string()) }),
  allowReentry: z.boolean(),
  entryStepId: z.nullable(id),
  createdAt: instant,
  updatedAt: instant,
};

export const workflowAnswer = z.object({
  ...workflowFields,
  steps: z.array(stepAnswer),
  transitions: z.array(transitionAnswer),
  /** Signs the requests of the workflow's WEBHOOK steps. */
  webhookSecret: z.string(),
});

export const workflowListAnswer = offsetPageOf(z.object({ ...workflowFields, stepCount: z.number() }));

const fieldRef = z.object({ field: z.string(), type: z.string() });
export const workflowFieldsAnswer = z.object({
  contact: z.array(fieldRef),
  custom: z.array(fieldRef),
  event: z.nullable(z.object({ name: z.string(), sampled: z.number(), fields: z.array(fieldRef) })),
});

export const executionAnswer = z.object({
  id,
  workflowId: id,
  contactId: id,
  status: z.enum(EXECUTION_STATUSES),
  currentStepId: z.nullable(id),
  /** When a WAITING execution's wait ends (a DELAY's end, a WAIT_FOR_EVENT's timeout); else null. */
  resumesAt: nullableInstant,
  context: z.record(z.string(), z.unknown()),
  history: z.array(z.object({ stepId: id, type: z.string(), result: z.string(), at: instant })),
  startedAt: instant,
  completedAt: nullableInstant,
  error: z.nullable(z.string()),
});

export const executionListAnswer = offsetPageOf(executionAnswer);
export const cancelledAnswer = z.object({ cancelled: z.number() });

// Named once in the API reference's components, and referred to from every answer that holds one.
z.globalRegistry.add(workflowAnswer, { id: 'Workflow' });
z.globalRegistry.add(stepAnswer, { id: 'Step' });
z.globalRegistry.add(transitionAnswer, { id: 'Transition' });
z.globalRegistry.add(executionAnswer, { id: 'Execution' });
