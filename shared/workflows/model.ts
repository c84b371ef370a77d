/**
 * Workflows as stored and as the API shows them (docs/workflows.md). A workflow's steps and
 * transitions live inside its one definition item (`WORKFLOW#<id>` in the project's partition), so
 * a step run reads the whole graph in one read. Executions are items of their own
 * (`executions-repository.ts`).
 */

export const STEP_TYPES = [
  'SEND_EMAIL',
  'DELAY',
  'WAIT_FOR_EVENT',
  'CONDITION',
  'WEBHOOK',
  'UPDATE_CONTACT',
  'EXIT',
] as const;
export type StepType = (typeof STEP_TYPES)[number];

export const TRIGGER_TYPES = ['EVENT', 'MANUAL'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

/** Transition branches by the step type they leave; other types take none (`null`). */
export const BRANCHES = {
  CONDITION: ['yes', 'no'],
  WAIT_FOR_EVENT: ['event', 'timeout'],
} as const satisfies Partial<Record<StepType, readonly string[]>>;
export type Branch = 'yes' | 'no' | 'event' | 'timeout';

export type DelayUnit = 'minutes' | 'hours' | 'days';

export interface SendEmailConfig {
  readonly templateId: string;
  readonly recipient: { readonly type: 'CONTACT' } | { readonly type: 'CUSTOM'; readonly email: string };
}
export interface DelayConfig {
  readonly amount: number;
  readonly unit: DelayUnit;
}
export interface WaitForEventConfig {
  readonly eventName: string;
  /** Seconds; none waits for ever. */
  readonly timeout?: number;
}
export interface ConditionConfig {
  /** A condition tree (shared/conditions), stored as given and parsed when evaluated. */
  readonly condition: unknown;
}
export interface WebhookConfig {
  readonly url: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly headers: Readonly<Record<string, string>>;
  /** A Liquid template; none sends no body. */
  readonly body?: string;
}
export interface UpdateContactConfig {
  /** A custom-data payload with the contact data rules (shared/contacts/data.ts `parseDataPatch`). */
  readonly data: Readonly<Record<string, unknown>>;
  readonly subscribed?: boolean;
}
export interface ExitConfig {
  readonly reason?: string;
}

export type StepConfig =
  | SendEmailConfig
  | DelayConfig
  | WaitForEventConfig
  | ConditionConfig
  | WebhookConfig
  | UpdateContactConfig
  | ExitConfig;

export interface Step {
  readonly id: string;
  readonly type: StepType;
  readonly name: string | null;
  readonly config: StepConfig;
}

export interface Transition {
  readonly id: string;
  readonly fromStepId: string;
  readonly toStepId: string;
  readonly branch: Branch | null;
}

export interface Workflow {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly enabled: boolean;
  readonly triggerType: TriggerType;
  readonly triggerConfig: { readonly eventName: string | null };
  readonly allowReentry: boolean;
  readonly entryStepId: string | null;
  readonly steps: readonly Step[];
  readonly transitions: readonly Transition[];
  /** Signs the WEBHOOK steps' requests (`Sesame-Signature`); generated at creation. */
  readonly webhookSecret: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** The stored record: the workflow plus what only the service reads. */
export interface WorkflowRecord extends Workflow {
  readonly projectId: string;
  /** Bumped by every write; writes are conditional on the version they read. */
  readonly version: number;
}

export const EXECUTION_STATUSES = [
  'RUNNING',
  'WAITING',
  'COMPLETED',
  'EXITED',
  'FAILED',
  'CANCELLED',
] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];
export const ACTIVE_STATUSES: readonly ExecutionStatus[] = ['RUNNING', 'WAITING'];

/** The step a transition from `stepId` (on `branch`, for the step types that have branches) leads to. */
export function nextStepId(workflow: Pick<Workflow, 'transitions'>, stepId: string, branch: Branch | null) {
  return workflow.transitions.find((t) => t.fromStepId === stepId && t.branch === branch)?.toStepId;
}
