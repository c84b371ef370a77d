/**
 * Background work of workflows: a step's run and the end of an event wait by its timeout
 * (`engine.ts`), and the purge of a deleted workflow's executions (`purge.ts`). All are
 * idempotent: a message delivered twice finds the execution moved on, or the items deleted.
 */
import { defineJob } from '../jobs/registry';
import { resumeJobMessage, runResumeMessage, runStepMessage, stepJobMessage } from './engine';
import { purgeJobMessage, runPurgeMessage } from './purge';

export const stepJob = defineJob({
  ...stepJobMessage,
  run: (deps, m, meta) => runStepMessage(deps, m, meta),
});

export const resumeJob = defineJob({
  ...resumeJobMessage,
  run: (deps, m) => runResumeMessage(deps, m),
});

export const purgeJob = defineJob({
  ...purgeJobMessage,
  run: (deps, m) => runPurgeMessage(deps, m),
});

export const jobs = [stepJob, resumeJob, purgeJob];
