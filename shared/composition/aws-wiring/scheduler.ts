/**
 * The scheduler's adapter factory: EventBridge Scheduler, loaded on first use.
 * One factory per module (see `AwsWiring`, ../aws.ts): an entry point imports the factories it is wired
 * with, and no other factory's `import()` is in its bundle's graph.
 */
import type { SchedulerPort } from '../../ports';
import type { PortFactory } from '../aws';

export const eventBridgeScheduler: PortFactory<SchedulerPort> = async (settings) =>
  (await import('../aws-ports/scheduler')).eventBridgeScheduler(settings);
