/**
 * Background work of workflows (`engine.ts`): a step's run, and the end of an event wait by its
 * timeout. Both are idempotent: a message delivered twice finds the execution moved on.
 */
import { defineJob } from '../jobs/registry';
import { resumeJobMessage, runResumeMessage, runStepMessage, stepJobMessage } from './engine';

export const stepJob = defineJob({
  ...stepJobMessage,
  run: (deps, m, meta) => runStepMessage(deps, m, meta),
});

export const resumeJob = defineJob({
  ...resumeJobMessage,
  run: (deps, m) => runResumeMessage(deps, m),
});

export const jobs = [stepJob, resumeJob];
