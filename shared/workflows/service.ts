/**
 * Workflow definition use cases (docs/workflows.md): create, read, list, change and delete a
 * workflow, its steps and its transitions. Execution endpoints are `executions.ts`.
 *
 * Every change is a read-modify-write of the one definition item, conditional on the version
 * read and retried a few times when another request changed the workflow meanwhile (then 409
 * WORKFLOW_BUSY). After every write the project's workflow interest (`interest.ts`: the events
 * workflows start on or wait for) is rewritten; a crash between the two leaves it stale until the
 * workflow's next write, and the listener reads the definition before acting anyway.
 *
 * Rules beyond each input's own schema:
 * - structural edits (steps, transitions, the trigger) are 409 WORKFLOW_HAS_ACTIVE_EXECUTIONS
 *   while executions are RUNNING or WAITING, and so is a delete;
 * - enabling validates the graph (`graph.ts`, `enablingProblems`) and answers 422 listing every
 *   problem; an enabled workflow stays valid: a change of its graph, trigger or entry step that
 *   would break a rule is the same 422 (disable it to rebuild it in several steps);
 * - a transition never closes a cycle (422 when it would), so splicing never makes one either.
 */
import { randomBytes } from 'node:crypto';
import { AppError, conflict, notFound, validationError } from '../errors';
import { type OffsetPage, pageOf } from '../offset-list';
import type { Deps } from '../ports';
import { sleep } from '../store/store';
import { batchGetTemplates } from '../templates/repository';
import { hasActiveExecutions } from './executions';
import {
  cycleIssues,
  duplicateOf,
  enablingProblems,
  removeStep,
  sendEmailTemplateIds,
  transitionIssues,
} from './graph';
import { refreshInterest } from './interest';
import type { Step, Transition, Workflow, WorkflowRecord } from './model';
import { queuePurge } from './purge';
import {
  deleteWorkflowItem,
  getWorkflowRecord,
  itemBytes,
  listWorkflowSummaries,
  present,
  putNewWorkflow,
  replaceWorkflow,
  type WorkflowSummary,
} from './repository';
import {
  type AddStepInput,
  type AddTransitionInput,
  type CreateWorkflowInput,
  checkStepLiquid,
  type ListWorkflowsQuery,
  MAX_STEPS,
  type PatchStepInput,
  type PatchWorkflowInput,
  parseStepConfig,
} from './schemas';

export type WorkflowDeps = Pick<Deps, 'store' | 'clock' | 'ids' | 'queue'>;

/** Attempts of a read-modify-write before the request gives up (409 WORKFLOW_BUSY). */
const MAX_ATTEMPTS = 5;
/** The definition item stays well under DynamoDB's 400 KB item limit. */
export const MAX_WORKFLOW_BYTES = 350 * 1024;

const busy = (workflowId: string) =>
  conflict('WORKFLOW_BUSY', 'The workflow is being changed by another request; retry shortly', {
    workflowId,
  });

const hasActive = (workflowId: string) =>
  new AppError(
    409,
    'WORKFLOW_HAS_ACTIVE_EXECUTIONS',
    'The workflow has running or waiting executions; its steps, transitions and trigger cannot change, nor can it be deleted, until they end',
    {
      details: { workflowId },
      suggestion: 'Cancel them (POST /workflows/{id}/executions/cancel-all) or wait until they finish',
    },
  );

const backoff = (attempt: number) =>
  attempt > 0 ? sleep(Math.min(200, 5 * 2 ** attempt) * Math.random()) : Promise.resolve();

/** `whsec_` and 32 random bytes in hex: signs the WEBHOOK steps' requests (`Sesame-Signature`). */
const newWebhookSecret = () => `whsec_${randomBytes(32).toString('hex')}`;

export async function createWorkflow(
  deps: WorkflowDeps,
  projectId: string,
  input: CreateWorkflowInput,
): Promise<Workflow> {
  const now = deps.clock.now().toISOString();
  const record: WorkflowRecord = {
    id: deps.ids.uuid(),
    projectId,
    name: input.name,
    description: input.description,
    enabled: false,
    triggerType: 'EVENT',
    triggerConfig: { eventName: input.eventName },
    allowReentry: false,
    entryStepId: null,
    steps: [],
    transitions: [],
    webhookSecret: newWebhookSecret(),
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
  if (!(await putNewWorkflow(deps, record))) throw new Error('A new workflow id collided');
  const workflow = present(record);
  await refreshInterest(deps, projectId, record.id, workflow);
  return workflow;
}

async function requireWorkflow(
  deps: WorkflowDeps,
  projectId: string,
  workflowId: string,
  options: { consistent?: boolean } = {},
): Promise<WorkflowRecord> {
  const record = await getWorkflowRecord(deps, projectId, workflowId, options);
  if (!record) throw notFound('Workflow');
  return record;
}

export async function getWorkflow(
  deps: WorkflowDeps,
  projectId: string,
  workflowId: string,
): Promise<Workflow> {
  return present(await requireWorkflow(deps, projectId, workflowId));
}

/**
 * The offset list of templates and campaigns: the project's workflows filtered (`search` in name
 * and description, `enabled`, `triggerType`), sorted and paged.
 */
export async function listWorkflows(
  deps: WorkflowDeps,
  projectId: string,
  q: ListWorkflowsQuery,
): Promise<OffsetPage<WorkflowSummary>> {
  const search = q.search?.toLowerCase();
  const matches = (await listWorkflowSummaries(deps, projectId)).filter(
    (w) =>
      (q.enabled === undefined || w.enabled === q.enabled) &&
      (q.triggerType === undefined || w.triggerType === q.triggerType) &&
      (search === undefined || [w.name, w.description ?? ''].some((s) => s.toLowerCase().includes(search))),
  );
  const byId = new Map(matches.map((w) => [w.id, w]));
  const { ids, shape } = pageOf(matches, q);
  return { data: ids.map((id) => byId.get(id)!), ...shape };
}

/** What one change does to the workflow it read. */
interface Change<T> {
  /** The fields it sets. */
  readonly set: Partial<Omit<Workflow, 'id' | 'createdAt' | 'updatedAt' | 'webhookSecret'>>;
  /** Steps, transitions or trigger: refused while executions are active. */
  readonly structural: boolean;
  /** The graph, trigger or entry step changed: an enabled workflow is validated again. */
  readonly graphChanged: boolean;
  /** The request asks for the workflow to be enabled (`enabled: true`, even if it is already). */
  readonly enables?: boolean;
  /** What the request answers, from the workflow as written. */
  readonly result: (next: Workflow) => T;
}

/**
 * The read-modify-write every change goes through: a consistent read, `apply` (which may throw its
 * own 4xx), the active-executions rule, the size bound, the enabled graph's validation, then the
 * write conditional on the version read and the interest's refresh.
 */
async function change<T>(
  deps: WorkflowDeps,
  projectId: string,
  workflowId: string,
  apply: (current: Workflow) => Change<T>,
): Promise<T> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    await backoff(attempt);
    const current = await requireWorkflow(deps, projectId, workflowId, { consistent: true });
    const out = apply(present(current));
    if (out.structural && (await hasActiveExecutions(deps, projectId, workflowId)))
      throw hasActive(workflowId);
    const next: WorkflowRecord = {
      ...current,
      ...out.set,
      updatedAt: deps.clock.now().toISOString(),
      version: current.version + 1,
    };
    if (itemBytes(next) > MAX_WORKFLOW_BYTES) {
      throw validationError(
        [
          {
            field: '',
            message: `A workflow is stored as one item of at most ${MAX_WORKFLOW_BYTES} bytes; this change would exceed it`,
            code: 'too_big',
          },
        ],
        'The workflow would be too large',
      );
    }
    const enabling = next.enabled && (!current.enabled || out.enables === true);
    if (next.enabled && (enabling || out.graphChanged)) await requireRunnable(deps, next, enabling);
    if (await replaceWorkflow(deps, next, current.version)) {
      const workflow = present(next);
      await refreshInterest(deps, projectId, workflowId, workflow);
      return out.result(workflow);
    }
  }
  throw busy(workflowId);
}

/** 422 listing everything that keeps the workflow from running (see `enablingProblems`). */
async function requireRunnable(deps: WorkflowDeps, workflow: WorkflowRecord, enabling: boolean) {
  const wanted = sendEmailTemplateIds(workflow);
  const found = await batchGetTemplates(deps, workflow.projectId, wanted);
  const problems = enablingProblems(workflow, new Set(found.map((t) => t.id)));
  if (problems.length === 0) return;
  throw new AppError(
    422,
    'VALIDATION_ERROR',
    enabling ? 'The workflow cannot be enabled' : 'The change would leave the enabled workflow unable to run',
    {
      errors: problems,
      ...(enabling
        ? {}
        : {
            suggestion:
              'Disable the workflow (PATCH {"enabled": false}) to change it in several steps, then enable it again',
          }),
    },
  );
}

/**
 * `PATCH /workflows/{id}`: metadata, trigger, enabled, allowReentry, entry step. Enabling (or a
 * trigger or entry change of an enabled workflow) validates the graph; a trigger change while
 * executions are active is 409.
 */
export async function patchWorkflow(
  deps: WorkflowDeps,
  projectId: string,
  workflowId: string,
  input: PatchWorkflowInput,
): Promise<Workflow> {
  return change(deps, projectId, workflowId, (current) => {
    if (
      input.entryStepId !== undefined &&
      input.entryStepId !== null &&
      !current.steps.some((s) => s.id === input.entryStepId)
    ) {
      throw validationError([
        {
          field: 'entryStepId',
          message: 'entryStepId must be the id of one of the workflow’s steps',
          code: 'unknown_step',
          received: input.entryStepId,
        },
      ]);
    }
    const triggerType = input.triggerType ?? current.triggerType;
    const eventName =
      input.triggerConfig === undefined ? current.triggerConfig.eventName : input.triggerConfig.eventName;
    const triggerChanged =
      triggerType !== current.triggerType || eventName !== current.triggerConfig.eventName;
    const entryChanged = input.entryStepId !== undefined && input.entryStepId !== current.entryStepId;
    return {
      set: {
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.description === undefined ? {} : { description: input.description }),
        triggerType,
        triggerConfig: { eventName },
        ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
        ...(input.allowReentry === undefined ? {} : { allowReentry: input.allowReentry }),
        ...(input.entryStepId === undefined ? {} : { entryStepId: input.entryStepId }),
      },
      structural: triggerChanged,
      graphChanged: triggerChanged || entryChanged,
      enables: input.enabled === true,
      result: (next) => next,
    };
  });
}

/**
 * `DELETE /workflows/{id}`: 409 while executions are active; the workflow's interest goes with it,
 * and its executions and the contacts' entries into it go in the background (`purge.ts`).
 *
 * The purge is queued before the definition is deleted, not after: a crash between the two then
 * leaves a purge whose workflow still exists, which does nothing (the job purges only once the
 * definition is gone, and gives up after a few looks), instead of a deleted workflow whose
 * executions no job will ever delete. An attempt that loses to a change queues a purge of a
 * version that is never deleted, which the job drops too.
 */
export async function deleteWorkflow(
  deps: WorkflowDeps,
  projectId: string,
  workflowId: string,
): Promise<void> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    await backoff(attempt);
    const current = await requireWorkflow(deps, projectId, workflowId, { consistent: true });
    if (await hasActiveExecutions(deps, projectId, workflowId)) throw hasActive(workflowId);
    await queuePurge(deps, projectId, workflowId, current.version);
    if (await deleteWorkflowItem(deps, projectId, workflowId, current.version)) {
      await refreshInterest(deps, projectId, workflowId, null);
      return;
    }
  }
  throw busy(workflowId);
}

const stepNotFound = () => notFound('Step');

/** `POST /workflows/{id}/steps`: the new step; the workflow's first step becomes its entry step. */
export async function addStep(
  deps: WorkflowDeps,
  projectId: string,
  workflowId: string,
  input: AddStepInput,
): Promise<Step> {
  await checkStepLiquid(input.type, input.config);
  const step: Step = { id: deps.ids.uuid(), type: input.type, name: input.name, config: input.config };
  return change(deps, projectId, workflowId, (current) => {
    if (current.steps.length >= MAX_STEPS) {
      throw validationError([
        {
          field: 'steps',
          message: `A workflow has at most ${MAX_STEPS} steps`,
          code: 'too_big',
          received: current.steps.length,
        },
      ]);
    }
    return {
      set: {
        steps: [...current.steps, step],
        ...(current.steps.length === 0 && current.entryStepId === null ? { entryStepId: step.id } : {}),
      },
      structural: true,
      graphChanged: true,
      result: () => step,
    };
  });
}

/**
 * `PATCH /workflows/{id}/steps/{stepId}` `{name?, config?}`: a config replaces the step's whole
 * config and is checked for the step's type; the type itself never changes (422).
 */
export async function patchStep(
  deps: WorkflowDeps,
  projectId: string,
  workflowId: string,
  stepId: string,
  input: PatchStepInput,
): Promise<Step> {
  // A step's type never changes, so the config is checked once against the type read here.
  const step = (await requireWorkflow(deps, projectId, workflowId)).steps.find((s) => s.id === stepId);
  if (!step) throw stepNotFound();
  if (input.type !== undefined && input.type !== step.type) {
    throw validationError([
      {
        field: 'type',
        message: `A step's type cannot change (this one is ${step.type}): add a step of the new type instead`,
        code: 'immutable',
        ...(typeof input.type === 'string' ? { received: input.type } : {}),
      },
    ]);
  }
  const config = input.config === undefined ? undefined : parseStepConfig(step.type, input.config);
  if (config) await checkStepLiquid(step.type, config);
  return change(deps, projectId, workflowId, (current) => {
    const index = current.steps.findIndex((s) => s.id === stepId);
    if (index < 0) throw stepNotFound();
    const updated: Step = {
      ...current.steps[index]!,
      ...(input.name === undefined ? {} : { name: input.name }),
      ...(config === undefined ? {} : { config }),
    };
    return {
      set: { steps: current.steps.map((s, i) => (i === index ? updated : s)) },
      structural: true,
      graphChanged: true,
      result: () => updated,
    };
  });
}

/**
 * `DELETE /workflows/{id}/steps/{stepId}?splice=`: the step and every transition touching it go;
 * with `splice`, incoming transitions lead to the step's successor instead (see `removeStep`).
 */
export async function deleteStep(
  deps: WorkflowDeps,
  projectId: string,
  workflowId: string,
  stepId: string,
  options: { splice: boolean },
): Promise<{ id: string; deleted: true }> {
  return change(deps, projectId, workflowId, (current) => {
    if (!current.steps.some((s) => s.id === stepId)) throw stepNotFound();
    const graph = removeStep(current, stepId, options.splice);
    return {
      set: { steps: graph.steps, transitions: graph.transitions, entryStepId: graph.entryStepId },
      structural: true,
      graphChanged: true,
      result: () => ({ id: stepId, deleted: true as const }),
    };
  });
}

/**
 * `POST /workflows/{id}/transitions`: 422 for unknown steps, a self-transition, one from an EXIT
 * step, a branch that does not fit the step it leaves, or one that would close a cycle; 409
 * TRANSITION_EXISTS when the step already has a transition on that branch.
 */
export async function addTransition(
  deps: WorkflowDeps,
  projectId: string,
  workflowId: string,
  input: AddTransitionInput,
): Promise<Transition> {
  const transition: Transition = { id: deps.ids.uuid(), ...input };
  return change(deps, projectId, workflowId, (current) => {
    const issues = transitionIssues(current, input);
    if (issues.length > 0) throw validationError(issues);
    const existing = duplicateOf(current, input.fromStepId, input.branch);
    if (existing) {
      throw conflict(
        'TRANSITION_EXISTS',
        input.branch === null
          ? 'The step already has a transition; delete it first to lead elsewhere'
          : `The step already has a transition on branch ${input.branch}; delete it first to lead elsewhere`,
        { transitionId: existing.id, fromStepId: input.fromStepId, branch: input.branch },
      );
    }
    const cycle = cycleIssues(current, input);
    if (cycle.length > 0) throw validationError(cycle);
    return {
      set: { transitions: [...current.transitions, transition] },
      structural: true,
      graphChanged: true,
      result: () => transition,
    };
  });
}

/** `DELETE /workflows/{id}/transitions/{transitionId}`. */
export async function deleteTransition(
  deps: WorkflowDeps,
  projectId: string,
  workflowId: string,
  transitionId: string,
): Promise<{ id: string; deleted: true }> {
  return change(deps, projectId, workflowId, (current) => {
    if (!current.transitions.some((t) => t.id === transitionId)) throw notFound('Transition');
    return {
      set: { transitions: current.transitions.filter((t) => t.id !== transitionId) },
      structural: true,
      graphChanged: true,
      result: () => ({ id: transitionId, deleted: true as const }),
    };
  });
}
