/**
 * Runs workflow executions, a step at a time, through the jobs queue.
 *
 * A step runs from a `workflows.step` message naming the execution, the step and the execution's
 * `seq` (its number of moves so far). The run reads the execution and does nothing unless it
 * still stands at that step and `seq`; it then does the step's work and moves the execution with
 * one update conditional on `seq` (`moveExecution`). So a message delivered twice, or a schedule
 * that fires twice, finds `seq` moved on and stops: every step's move happens once.
 *
 * The message for the next step is queued (or scheduled) before the move, never after: a crash
 * between the two leaves the current message undeleted, and its redelivery runs the step again
 * (its work is idempotent, below) and makes the move. A message that arrives before the move it
 * follows finds the execution one `seq` behind and comes back a little later (`EARLY_*`).
 *
 * What each step's work does twice, at most:
 * - SEND_EMAIL: nothing; its email record's conditional put lets one attempt send (`send-step.ts`).
 * - UPDATE_CONTACT: writes the same values again (a no-op write is skipped by the contacts code)
 *   and emits no second subscription event (the subscription no longer changes).
 * - WEBHOOK: an attempt takes the execution's lease first, so two deliveries never call at once;
 *   a call cut by a crash is made again by the redelivery once the lease ends, with the same
 *   `Sesame-Delivery` id.
 * - DELAY, WAIT_FOR_EVENT: the schedule's name is derived from the execution and `seq`, so doing
 *   it again replaces it. A wait is the execution's own move to WAITING: the contact's event finds
 *   it through the contact's workflow entry (`resumeOnEvent`). A wait with a due time also puts
 *   its due item (`putDue`) before the move; an attempt that dies between the two leaves one that
 *   no execution matches, which the upcoming list passes over and its TTL deletes.
 * - CONDITION, EXIT: no side effect.
 *
 * A step whose message reaches its last delivery and fails again ends the execution FAILED with
 * the reason: nothing stays RUNNING for ever.
 */
import { nameUuid } from '../campaigns/ids';
import { evaluateCondition, needsFacts, parseCondition } from '../conditions';
import { parseDataPatch } from '../contacts/data';
import type { ContactRecord } from '../contacts/repository';
import { getContactRecord } from '../contacts/repository';
import { patchContact } from '../contacts/service';
import { AppError } from '../errors';
import { emit } from '../events/emit';
import { enqueue, type JobMeta, scheduleJob } from '../jobs/registry';
import type { Deps } from '../ports';
import { HOLD_DELAY_S, holdExpired, MAX_HOLD_MS, PROJECT_DISABLED, projectState } from '../projects/state';
import { activityOf, factsOver, fieldTypesOf } from '../segments/evaluation';
import { membershipsOf } from '../segments/repository';
import {
  ACTIVE_PARTITION,
  claimEntry,
  countMove,
  deleteDue,
  type ExecutionRecord,
  type ExecutionWait,
  getEntry,
  getExecutionRecord,
  type Move,
  moveExecution,
  putDue,
  putNewExecution,
  releaseEntry,
  TERMINAL,
  type TriggerEvent,
  takeLease,
} from './executions-repository';
import { type ResumeMessage, resumeJobMessage, type StepMessage, stepJobMessage } from './messages';
import {
  ACTIVE_STATUSES,
  type Branch,
  type ConditionConfig,
  type DelayConfig,
  type ExecutionStatus,
  nextStepId,
  type SendEmailConfig,
  type Step,
  type UpdateContactConfig,
  type WaitForEventConfig,
  type WebhookConfig,
  type Workflow,
} from './model';
import { getWorkflowRecord } from './repository';

import { SendInFlightError } from './step-errors';

export const WORKFLOW_STARTED = 'workflow.started';
export const WORKFLOW_COMPLETED = 'workflow.completed';

/** A message early for its move comes back this many times at most, this far apart. */
export const EARLY_RETRIES = 10;
export const EARLY_DELAY_S = 2;
/** How long a WEBHOOK attempt holds the execution: longer than its retries take. */
export const WEBHOOK_LEASE_MS = 120_000;
/** Until an entry's execution exists, another start waits this long before taking the entry over. */
export const ENTRY_TAKEOVER_MS = 60_000;

const UNIT_MS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;

/** The one-off schedule of an execution's move `seq` (a delay's end, a wait's timeout). */
export const scheduleName = (executionId: string, atSeq: number) => `wf-${executionId}-${atSeq}`;

const now = (deps: Pick<Deps, 'clock'>) => deps.clock.now();

// ---------------------------------------------------------------------------------------------
// Starting

export interface StartInput {
  readonly workflow: Workflow & { readonly projectId: string };
  readonly contactId: string;
  readonly executionId: string;
  readonly context: Record<string, unknown>;
  readonly trigger: TriggerEvent | null;
}

export type StartResult =
  | { readonly started: true; readonly execution: ExecutionRecord }
  | { readonly started: false; readonly reason: 'reentry' | 'no-entry-step' };

/**
 * Starts an execution under the re-entry rule: the contact's entry is claimed first (a conditional
 * write, so of twenty concurrent starts one wins), then the first step's message queued, then the
 * execution written. Starting again with the same execution id (a redelivered trigger) finishes
 * what a crashed start left and starts nothing new.
 */
export async function startExecution(deps: Deps, input: StartInput): Promise<StartResult> {
  const { workflow, contactId, executionId } = input;
  const projectId = workflow.projectId;
  if (!workflow.entryStepId) return { started: false, reason: 'no-entry-step' };
  const at = now(deps);
  let claimed = await claimEntry(
    deps,
    projectId,
    contactId,
    workflow.id,
    executionId,
    workflow.allowReentry,
    at,
  );
  if (!claimed) {
    const entry = await getEntry(deps, projectId, contactId, workflow.id);
    if (entry?.lastExecutionId === executionId) claimed = true;
    else if (entry?.activeExecutionId && Date.parse(entry.updatedAt) + ENTRY_TAKEOVER_MS < at.getTime()) {
      // An entry whose execution was never written (its start crashed and was not retried).
      const held = await getExecutionRecord(deps, projectId, workflow.id, entry.activeExecutionId, {
        consistent: true,
      });
      if (!held)
        claimed = await claimEntry(
          deps,
          projectId,
          contactId,
          workflow.id,
          executionId,
          workflow.allowReentry,
          at,
          entry.activeExecutionId,
        );
    }
  }
  if (!claimed) return { started: false, reason: 'reentry' };
  const existing = await getExecutionRecord(deps, projectId, workflow.id, executionId, { consistent: true });
  if (existing) return { started: true, execution: existing };
  const record: ExecutionRecord = {
    id: executionId,
    projectId,
    workflowId: workflow.id,
    contactId,
    status: 'RUNNING',
    currentStepId: workflow.entryStepId,
    context: input.context,
    history: [],
    startedAt: at.toISOString(),
    completedAt: null,
    error: null,
    seq: 1,
    trigger: input.trigger,
    wait: null,
    lease: null,
    updatedAt: at.toISOString(),
    counted: 'RUNNING',
    indexed: ACTIVE_PARTITION,
  };
  await enqueue(deps, stepJobMessage, {
    projectId,
    workflowId: workflow.id,
    executionId,
    seq: 1,
    stepId: workflow.entryStepId,
  });
  if (await putNewExecution(deps, record)) {
    await countMove(deps, projectId, workflow.id, undefined, 'RUNNING');
  }
  await emit(deps, {
    id: nameUuid(`sesame:workflow-started:${executionId}`),
    projectId,
    contactId,
    name: WORKFLOW_STARTED,
    data: { workflowId: workflow.id, workflowName: workflow.name, executionId },
    createdAt: record.startedAt,
  });
  return { started: true, execution: record };
}

// ---------------------------------------------------------------------------------------------
// Running a step

type Loaded = { readonly execution: ExecutionRecord; readonly workflow: Workflow & { projectId: string } };

/** The execution and workflow a message is for, or undefined when it has nothing to do. */
async function load(
  deps: Deps,
  m: Pick<StepMessage, 'projectId' | 'workflowId' | 'executionId' | 'seq' | 'stepId'>,
  onEarly: () => Promise<void>,
): Promise<Loaded | undefined> {
  const execution = await getExecutionRecord(deps, m.projectId, m.workflowId, m.executionId, {
    consistent: true,
  });
  if (!execution || execution.seq < m.seq) {
    // No execution and no workflow: deleted (with its project's data, by a reset), not early.
    if (!execution && !(await getWorkflowRecord(deps, m.projectId, m.workflowId))) return undefined;
    await onEarly();
    return undefined;
  }
  if (TERMINAL(execution.status)) {
    // The move that ended it may have stopped before its bookkeeping (a crash): done again.
    if (execution.seq === m.seq + 1) await afterEnd(deps, execution);
    return undefined;
  }
  if (execution.seq > m.seq) return undefined;
  // After a DELAY the execution stands at the DELAY step until its schedule's message, which names
  // the step after it, runs that step.
  const delayed = execution.wait?.kind === 'delay';
  if (execution.currentStepId !== m.stepId && !delayed) return undefined;
  const workflow = await getWorkflowRecord(deps, m.projectId, m.workflowId);
  if (!workflow) {
    await endExecution(deps, execution, 'FAILED', { error: 'The workflow was deleted' });
    return undefined;
  }
  if (
    execution.currentStepId !== m.stepId &&
    nextStepId(workflow, execution.currentStepId ?? '', null) !== m.stepId
  )
    return undefined;
  return { execution, workflow };
}

/** Runs a `workflows.step` message. */
export async function runStepMessage(deps: Deps, m: StepMessage, meta: JobMeta): Promise<void> {
  if (
    await heldForProject(deps, m, (at) => scheduleJob(deps, stepJobMessage, m, holdSchedule('step', m, at)))
  )
    return;
  const loaded = await load(deps, m, async () => {
    if (m.early >= EARLY_RETRIES) {
      log('warn', 'Workflow step message given up: its execution never reached it', m);
      return;
    }
    await enqueue(deps, stepJobMessage, { ...m, early: m.early + 1 }, { delaySeconds: EARLY_DELAY_S });
  });
  if (!loaded) return;
  const { execution, workflow } = loaded;
  // An execution waiting for an event moves only by the event or its timeout (`resume`).
  if (execution.status === 'WAITING' && execution.wait?.kind === 'event') return;
  if (m.finish) {
    await endExecution(deps, execution, 'COMPLETED', {});
    return;
  }
  const step = workflow.steps.find((s) => s.id === m.stepId);
  if (!step) {
    await endExecution(deps, execution, 'FAILED', { error: `Step ${m.stepId} no longer exists` });
    return;
  }
  try {
    await runStep(deps, execution, workflow, step);
  } catch (error) {
    if (error instanceof SendInFlightError || error instanceof RetryLaterError) {
      // Another attempt is at this step (or died there): look again once it has had time to finish.
      const ms = error instanceof RetryLaterError ? error.afterMs : 30_000;
      await enqueue(deps, stepJobMessage, m, {
        delaySeconds: Math.min(900, Math.max(1, Math.ceil(ms / 1000) + 1)),
      });
      return;
    }
    if (meta.lastAttempt) {
      await endExecution(deps, execution, 'FAILED', {
        error: `Step ${step.id} (${step.type}) failed: ${error instanceof Error ? error.message : String(error)}`,
      });
      return;
    }
    throw error;
  }
}

async function runStep(deps: Deps, execution: ExecutionRecord, workflow: Loaded['workflow'], step: Step) {
  switch (step.type) {
    case 'SEND_EMAIL': {
      const contact = await liveContact(deps, execution);
      if (!contact) return endExecution(deps, execution, 'FAILED', { error: 'The contact was deleted' });
      // Rendering and MIME load on the first send, not with every module that starts executions.
      const { runSendEmailStep } = await import('./send-step');
      const out = await runSendEmailStep(deps, execution, step.id, step.config as SendEmailConfig, contact);
      if (!out.ok) return endExecution(deps, execution, 'FAILED', { error: out.error, step });
      return goOn(deps, execution, workflow, step, null, out.result);
    }
    case 'DELAY': {
      const config = step.config as DelayConfig;
      const until = new Date(now(deps).getTime() + config.amount * UNIT_MS[config.unit]);
      return waitThen(deps, execution, workflow, step, until);
    }
    case 'WAIT_FOR_EVENT':
      return startWaiting(deps, execution, step, step.config as WaitForEventConfig);
    case 'CONDITION': {
      const contact = await liveContact(deps, execution);
      if (!contact) return endExecution(deps, execution, 'FAILED', { error: 'The contact was deleted' });
      const yes = await evaluateStepCondition(deps, execution, contact, step.config as ConditionConfig);
      return goOn(deps, execution, workflow, step, yes ? 'yes' : 'no', yes ? 'yes' : 'no');
    }
    case 'WEBHOOK':
      return runWebhookStep(deps, execution, workflow, step);
    case 'UPDATE_CONTACT': {
      const config = step.config as UpdateContactConfig;
      try {
        await patchContact(deps, execution.projectId, execution.contactId, {
          patch: parseDataPatch(config.data ?? {}),
          ...(config.subscribed === undefined ? {} : { subscribed: config.subscribed }),
          source: 'workflow',
        });
      } catch (error) {
        if (error instanceof AppError && error.statusCode < 500 && error.code !== 'CONTACT_BUSY')
          return endExecution(deps, execution, 'FAILED', { error: error.message, step });
        throw error;
      }
      return goOn(deps, execution, workflow, step, null, 'updated');
    }
    case 'EXIT': {
      const reason = (step.config as { reason?: string }).reason;
      return endExecution(deps, execution, 'EXITED', {
        step,
        result: reason ? `exited: ${reason}` : 'exited',
      });
    }
  }
}

async function liveContact(deps: Deps, execution: ExecutionRecord): Promise<ContactRecord | undefined> {
  const contact = await getContactRecord(deps, execution.projectId, execution.contactId);
  return contact && !contact.deletedAt ? contact : undefined;
}

/**
 * The condition on the contact, with the execution's context as `data.context.*` and the trigger
 * event's data as `data.event.*` (over any contact field of those names).
 */
async function evaluateStepCondition(
  deps: Deps,
  execution: ExecutionRecord,
  contact: ContactRecord,
  config: ConditionConfig,
): Promise<boolean> {
  const condition = parseCondition(config.condition, 'config.condition');
  const needs = needsFacts(condition);
  const [fieldTypes, activity, memberships] = await Promise.all([
    fieldTypesOf(deps, execution.projectId),
    needs.events || needs.emails ? activityOf(deps, execution.projectId, contact.id) : undefined,
    needs.segments ? membershipsOf(deps, execution.projectId, contact.id) : undefined,
  ]);
  const subject = {
    ...contact,
    data: {
      ...contact.data,
      context: execution.context as never,
      event: (execution.trigger?.data ?? {}) as never,
    },
  };
  return evaluateCondition(condition, subject, {
    now: now(deps),
    fieldTypes,
    ...factsOver(activity, memberships),
  });
}

/** The variables of a WEBHOOK step's templates. */
function webhookVariables(
  execution: ExecutionRecord,
  workflow: Workflow,
  contact: ContactRecord | undefined,
) {
  return {
    ...(contact?.data ?? {}),
    data: contact?.data ?? {},
    email: contact?.email ?? null,
    id: execution.contactId,
    contact: contact
      ? { id: contact.id, email: contact.email, subscribed: contact.subscribed, data: contact.data }
      : { id: execution.contactId },
    context: execution.context,
    event: execution.trigger ? { name: execution.trigger.name, ...execution.trigger.data } : {},
    workflow: { id: workflow.id, name: workflow.name },
    execution: { id: execution.id },
  };
}

async function runWebhookStep(
  deps: Deps,
  execution: ExecutionRecord,
  workflow: Loaded['workflow'],
  step: Step,
) {
  // One attempt at a time: a second delivery of this message while the call runs waits for the
  // lease (the attempt holding it may have died: its own redelivery meets the lease too).
  if (!(await takeLease(deps, execution, now(deps), WEBHOOK_LEASE_MS))) {
    const current = await getExecutionRecord(deps, execution.projectId, execution.workflowId, execution.id, {
      consistent: true,
    });
    if (current?.seq !== execution.seq || current.lease === null) return;
    throw new RetryLaterError(
      'The webhook step is held by another attempt',
      current.lease - now(deps).getTime(),
    );
  }
  const contact = await liveContact(deps, execution);
  const config = step.config as WebhookConfig;
  const { callWebhook, renderWebhook } = await import('./webhook');
  let call: Awaited<ReturnType<typeof renderWebhook>>;
  try {
    call = await renderWebhook(config, webhookVariables(execution, workflow, contact));
  } catch (error) {
    return endExecution(deps, execution, 'FAILED', { error: messageOf(error), step });
  }
  const out = await callWebhook(call, {
    secret: workflow.webhookSecret,
    // The same on every attempt at this step of this execution.
    deliveryId: nameUuid(`sesame:webhook:${execution.id}:${step.id}`),
    now: () => now(deps),
    allowedHosts: deps.config.webhookAllowedHosts,
  });
  if (!out.ok) return endExecution(deps, execution, 'FAILED', { error: out.error, step });
  return goOn(deps, execution, workflow, step, null, `called: ${out.status}`);
}

/** Moves on from `step` along `branch` (or ends the execution when no transition leaves it). */
async function goOn(
  deps: Deps,
  execution: ExecutionRecord,
  workflow: Loaded['workflow'],
  step: Step,
  branch: Branch | null,
  result: string,
): Promise<void> {
  const next = nextStepId(workflow, step.id, branch);
  if (!next) {
    await endExecution(deps, execution, 'COMPLETED', { step, result });
    return;
  }
  await enqueue(deps, stepJobMessage, {
    projectId: execution.projectId,
    workflowId: execution.workflowId,
    executionId: execution.id,
    seq: execution.seq + 1,
    stepId: next,
  });
  await move(deps, execution, {
    status: 'RUNNING',
    currentStepId: next,
    wait: null,
    entry: { stepId: step.id, type: step.type, result, at: now(deps).toISOString() },
  });
}

/**
 * A DELAY: the next step's message scheduled for `until`, the wait's due item put, then the move to
 * WAITING at the DELAY step (its `wait` says until when). RUNNING and WAITING share their index
 * partition, so the move writes no index entry; the counts move only at the execution's first wait.
 */
async function waitThen(
  deps: Deps,
  execution: ExecutionRecord,
  workflow: Loaded['workflow'],
  step: Step,
  until: Date,
): Promise<void> {
  const next = nextStepId(workflow, step.id, null);
  const name = scheduleName(execution.id, execution.seq);
  await scheduleJob(
    deps,
    stepJobMessage,
    {
      projectId: execution.projectId,
      workflowId: execution.workflowId,
      executionId: execution.id,
      seq: execution.seq + 1,
      stepId: next ?? step.id,
      finish: next === undefined,
    },
    { name, at: until },
  );
  const wait: ExecutionWait = { kind: 'delay', until: until.toISOString(), eventName: null, schedule: name };
  await putDue(deps, execution, wait.until!);
  await move(deps, execution, {
    status: 'WAITING',
    counted: 'WAITING',
    currentStepId: step.id,
    wait,
    entry: {
      stepId: step.id,
      type: step.type,
      result: `delayed until ${wait.until}`,
      at: now(deps).toISOString(),
    },
  });
}

/**
 * A WAIT_FOR_EVENT: its timeout scheduled (and its due item put), then the move to WAITING with
 * the event's name. The move is the wait: the contact's event finds the execution through the contact's entry into the
 * workflow (`resumeOnEvent`), so waiting writes nothing else. An event that comes before the move
 * came before the wait, and does not end it.
 */
async function startWaiting(
  deps: Deps,
  execution: ExecutionRecord,
  step: Step,
  config: WaitForEventConfig,
): Promise<void> {
  const waitingSeq = execution.seq + 1;
  let until: Date | null = null;
  let schedule: string | null = null;
  if (config.timeout !== undefined) {
    until = new Date(now(deps).getTime() + config.timeout * 1000);
    schedule = scheduleName(execution.id, execution.seq);
    await scheduleJob(
      deps,
      resumeJobMessage,
      {
        projectId: execution.projectId,
        workflowId: execution.workflowId,
        executionId: execution.id,
        seq: waitingSeq,
        stepId: step.id,
        branch: 'timeout',
      },
      { name: schedule, at: until },
    );
    await putDue(deps, execution, until.toISOString());
  }
  await move(deps, execution, {
    status: 'WAITING',
    counted: 'WAITING',
    currentStepId: step.id,
    wait: { kind: 'event', until: until?.toISOString() ?? null, eventName: config.eventName, schedule },
    entry: {
      stepId: step.id,
      type: step.type,
      result: `waiting for ${config.eventName}`,
      at: now(deps).toISOString(),
    },
  });
}

/**
 * Ends a wait for an event along `branch` (`event`: the contact's event came; `timeout`): the
 * execution at `ref.seq`, WAITING at `ref.stepId` (a timeout's schedule names both).
 */
export async function resumeWaiting(
  deps: Deps,
  ref: { projectId: string; workflowId: string; executionId: string; seq: number; stepId: string },
  branch: 'event' | 'timeout',
): Promise<'resumed' | 'early' | 'gone'> {
  const execution = await getExecutionRecord(deps, ref.projectId, ref.workflowId, ref.executionId, {
    consistent: true,
  });
  if (!execution)
    // No workflow either: deleted (with its project's data, by a reset), so nothing will come.
    return (await getWorkflowRecord(deps, ref.projectId, ref.workflowId)) ? 'early' : 'gone';
  if (execution.seq < ref.seq && !TERMINAL(execution.status)) return 'early';
  const waiting =
    execution.seq === ref.seq &&
    execution.status === 'WAITING' &&
    execution.wait?.kind === 'event' &&
    execution.currentStepId === ref.stepId;
  if (!waiting) return 'gone';
  return endWait(deps, execution, ref.stepId, branch);
}

/**
 * The contact's event `eventName` ends the execution's wait, if it is WAITING for that event now
 * (read consistently): false when it is not (not yet waiting, waiting for another event, moved on
 * or ended). A second delivery of the event finds it moved on.
 */
export async function resumeOnEvent(
  deps: Deps,
  ref: { projectId: string; workflowId: string; executionId: string },
  eventName: string,
): Promise<boolean> {
  const execution = await getExecutionRecord(deps, ref.projectId, ref.workflowId, ref.executionId, {
    consistent: true,
  });
  const stepId = execution?.currentStepId;
  const waiting =
    execution?.status === 'WAITING' &&
    execution.wait?.kind === 'event' &&
    execution.wait.eventName === eventName;
  if (!execution || !waiting || !stepId) return false;
  return (await endWait(deps, execution, stepId, 'event')) === 'resumed';
}

/** Moves a WAITING execution on from its step along `branch`. */
async function endWait(
  deps: Deps,
  execution: ExecutionRecord,
  stepId: string,
  branch: 'event' | 'timeout',
): Promise<'resumed' | 'gone'> {
  const workflow = await getWorkflowRecord(deps, execution.projectId, execution.workflowId);
  if (!workflow) {
    await endExecution(deps, execution, 'FAILED', { error: 'The workflow was deleted' });
    return 'gone';
  }
  const step = workflow.steps.find((s) => s.id === stepId);
  if (!step) {
    await endExecution(deps, execution, 'FAILED', { error: `Step ${stepId} no longer exists` });
    return 'gone';
  }
  await goOn(deps, execution, workflow, step, branch, branch === 'event' ? 'event received' : 'timed out');
  if (branch === 'event') await cancelSchedule(deps, execution);
  await deleteEarlyDue(deps, execution);
  return 'resumed';
}

/**
 * Deletes the due item of a wait that ended before its due time (an event, a cancel, a failure);
 * one that ended at its due time is left to its TTL, which costs no write.
 */
async function deleteEarlyDue(deps: Deps, execution: ExecutionRecord) {
  const until = execution.wait?.until;
  if (until && Date.parse(until) > now(deps).getTime()) await deleteDue(deps, execution, until);
}

/** Deletes the pending schedule of the execution's wait, if any (a delay's end, a wait's timeout). */
async function cancelSchedule(deps: Deps, execution: ExecutionRecord) {
  if (execution.wait?.schedule) await deps.scheduler.cancel(execution.wait.schedule);
}

export async function runResumeMessage(deps: Deps, m: ResumeMessage): Promise<void> {
  if (
    await heldForProject(deps, m, (at) =>
      scheduleJob(deps, resumeJobMessage, m, holdSchedule('resume', m, at)),
    )
  )
    return;
  const outcome = await resumeWaiting(deps, m, m.branch);
  if (outcome === 'early') throw new Error(`Execution ${m.executionId} has not started its wait yet`);
}

/**
 * The one-off schedule that brings a held message back: named after the message, so that copies
 * of one message (a redelivery) make one schedule, not two.
 */
const holdSchedule = (kind: 'step' | 'resume', m: Pick<StepMessage, 'executionId' | 'seq'>, at: Date) => ({
  name: `hold-${kind}-${m.executionId}-${m.seq}`,
  at,
});

/**
 * The project check of a step or timeout message (docs/accounts.md, "Disabled projects"): true
 * when the message must not run now. A deleted project's message is dropped. A disabled project's
 * is held: `hold(at)` schedules it again `HOLD_DELAY_S` later, so the execution does not advance
 * and goes on by itself within 15 minutes of the project being enabled again; held past
 * `MAX_HOLD_MS` from the project's `disabledAt`, the execution ends FAILED instead.
 */
async function heldForProject(
  deps: Deps,
  m: Pick<StepMessage, 'projectId' | 'workflowId' | 'executionId'>,
  hold: (at: Date) => Promise<void>,
): Promise<boolean> {
  const project = await projectState(deps, m.projectId);
  if (project.state === 'live') return false;
  if (project.state === 'gone') return true;
  if (!holdExpired(project, now(deps))) {
    await hold(new Date(now(deps).getTime() + HOLD_DELAY_S * 1000));
    return true;
  }
  const execution = await getExecutionRecord(deps, m.projectId, m.workflowId, m.executionId, {
    consistent: true,
  });
  if (execution && !TERMINAL(execution.status)) {
    await endExecution(deps, execution, 'FAILED', {
      error: `${PROJECT_DISABLED}: the project stayed disabled for more than ${MAX_HOLD_MS / 86_400_000} days`,
    });
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Moves and endings

/**
 * A move of an active execution, and its counts: an execution is counted RUNNING from its start and
 * WAITING from its first wait on (`change.counted`), so only that first wait moves the counts;
 * a resume leaves them (RUNNING lasts only while a step runs).
 */
async function move(deps: Deps, execution: ExecutionRecord, change: Move): Promise<boolean> {
  const counted = change.counted ?? execution.counted;
  const write = counted === execution.counted ? { ...change, counted: undefined } : change;
  const moved = await moveExecution(deps, execution, write, now(deps));
  if (moved) await countMove(deps, execution.projectId, execution.workflowId, execution.counted, counted);
  return moved;
}

/**
 * Ends the execution (`status`): the move, its counters, then the contact's entry released and
 * `workflow.completed` emitted (`afterEnd`, which a later message repeats if a crash came first).
 */
export async function endExecution(
  deps: Deps,
  execution: ExecutionRecord,
  status: Exclude<ExecutionStatus, 'RUNNING' | 'WAITING'>,
  detail: { readonly error?: string; readonly step?: Step; readonly result?: string },
): Promise<boolean> {
  const at = now(deps).toISOString();
  const entry = detail.step
    ? {
        stepId: detail.step.id,
        type: detail.step.type,
        result: detail.result ?? (detail.error ? 'failed' : 'done'),
        at,
      }
    : undefined;
  const moved = await moveExecution(
    deps,
    execution,
    {
      status,
      currentStepId: null,
      wait: null,
      completedAt: at,
      error: detail.error ?? null,
      counted: null,
      ...(entry ? { entry } : {}),
    },
    now(deps),
    ACTIVE_STATUSES,
  );
  if (!moved) return false;
  await countMove(deps, execution.projectId, execution.workflowId, execution.counted, status);
  await deleteEarlyDue(deps, execution);
  await afterEnd(deps, { ...execution, status, completedAt: at, error: detail.error ?? null });
  return true;
}

/** What follows an execution's end; each part is idempotent. */
async function afterEnd(deps: Deps, execution: ExecutionRecord): Promise<void> {
  await releaseEntry(deps, execution.projectId, execution.contactId, execution.workflowId, execution.id);
  await emit(
    deps,
    {
      id: nameUuid(`sesame:workflow-completed:${execution.id}`),
      projectId: execution.projectId,
      contactId: execution.contactId,
      name: WORKFLOW_COMPLETED,
      data: {
        workflowId: execution.workflowId,
        executionId: execution.id,
        status: execution.status,
        ...(execution.error ? { error: execution.error } : {}),
      },
      createdAt: execution.completedAt ?? now(deps).toISOString(),
    },
    { replay: true },
  );
}

/**
 * Cancels a RUNNING or WAITING execution: the move (any later message finds `seq` moved on), then
 * its pending schedule (a delay's end, a wait's timeout) deleted. False when it had already ended.
 */
export async function cancelExecutionRecord(deps: Deps, execution: ExecutionRecord): Promise<boolean> {
  if (TERMINAL(execution.status)) return false;
  const cancelled = await endExecution(deps, execution, 'CANCELLED', {});
  if (!cancelled) return false;
  await cancelSchedule(deps, execution);
  return true;
}

/** The step cannot run now; its message comes back after `afterMs`. */
class RetryLaterError extends Error {
  override readonly name = 'RetryLaterError';
  constructor(
    message: string,
    readonly afterMs: number,
  ) {
    super(message);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function log(level: 'warn' | 'error', message: string, fields: Record<string, unknown>) {
  const line = JSON.stringify({ level, message, ...fields });
  if (level === 'warn') console.warn(line);
  else console.error(line);
}
