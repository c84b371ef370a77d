/**
 * Background work of workflows: a step's run and the end of an event wait by its timeout
 * (`engine.ts`), and the purge of a deleted workflow's executions (`purge.ts`). All are
 * idempotent: a message delivered twice finds the execution moved on, or the items deleted. Their
 * messages are in `messages.ts`; the engine loads on the first one.
 */
import { defineJob } from '../jobs/registry';
import { purgeJobMessage, resumeJobMessage, stepJobMessage } from './messages';

export const stepJob = defineJob({
  ...stepJobMessage,
  run: async (deps, m, meta) => (await import('./engine')).runStepMessage(deps, m, meta),
});

export const resumeJob = defineJob({
  ...resumeJobMessage,
  run: async (deps, m) => (await import('./engine')).runResumeMessage(deps, m),
});

export const purgeJob = defineJob({
  ...purgeJobMessage,
  run: async (deps, m) => (await import('./purge')).runPurgeMessage(deps, m),
});

export const jobs = [stepJob, resumeJob, purgeJob];
