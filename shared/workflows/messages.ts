/**
 * The workflow engine's job messages (a step's move, a wait's timeout, a deleted workflow's purge):
 * what the jobs worker routes and checks at its cold start; the engine (`engine.ts`, `purge.ts`)
 * loads on the first message.
 */
import * as z from 'zod/mini';
import { defineJobMessage } from '../jobs/registry';
import '../zod-locale';

// Types (not interfaces) so that they are QueueMessages.
export type StepMessage = {
  readonly type: 'workflows.step';
  readonly projectId: string;
  readonly workflowId: string;
  readonly executionId: string;
  /** The execution's `seq` when it stands at this step. */
  readonly seq: number;
  readonly stepId: string;
  /** The execution ends here (a DELAY that is the last step): nothing runs, it completes. */
  readonly finish: boolean;
  /** Times it came back early. */
  readonly early: number;
};

export type ResumeMessage = {
  readonly type: 'workflows.resume';
  readonly projectId: string;
  readonly workflowId: string;
  readonly executionId: string;
  /** The execution's `seq` while it waits. */
  readonly seq: number;
  readonly stepId: string;
  readonly branch: 'timeout';
};

const id = z.string().check(z.minLength(1));
const seq = z.number().check(z.int(), z.nonnegative());

export const stepJobMessage = defineJobMessage<
  StepMessage,
  Omit<StepMessage, 'finish' | 'early'> & {
    finish?: boolean;
    early?: number;
  }
>({
  type: 'workflows.step',
  schema: z.object({
    type: z.literal('workflows.step'),
    projectId: id,
    workflowId: id,
    executionId: id,
    seq,
    stepId: id,
    finish: z._default(z.boolean(), false),
    early: z._default(seq, 0),
  }),
});

export const resumeJobMessage = defineJobMessage<ResumeMessage>({
  type: 'workflows.resume',
  schema: z.object({
    type: z.literal('workflows.resume'),
    projectId: id,
    workflowId: id,
    executionId: id,
    seq,
    stepId: id,
    branch: z.literal('timeout'),
  }),
});

// A type (not an interface) so that it is a QueueMessage.
export type PurgeMessage = {
  readonly type: 'workflows.purge';
  readonly projectId: string;
  readonly workflowId: string;
  /** The definition's version the delete read (and deletes conditionally on). */
  readonly version: number;
  /** Times the job found the definition still there and came back. */
  readonly rechecks: number;
};

const count = z.number().check(z.int(), z.nonnegative());

export const purgeJobMessage = defineJobMessage<
  PurgeMessage,
  Omit<PurgeMessage, 'rechecks'> & { rechecks?: number }
>({
  type: 'workflows.purge',
  schema: z.object({
    type: z.literal('workflows.purge'),
    projectId: id,
    workflowId: id,
    version: count,
    rechecks: z._default(count, 0),
  }),
});
