/** The scheduler port over EventBridge Scheduler, with its client (see aws-wiring/scheduler.ts). */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { EventBridgeScheduler } from '../../adapters/aws/scheduler';
import type { SchedulerPort } from '../../ports';
import type { AwsSettings } from '../aws';

export function eventBridgeScheduler(settings: AwsSettings): SchedulerPort {
  return new EventBridgeScheduler(new SchedulerClient({}), {
    groupName: settings.schedulerGroupName,
    // awsDeps answers with an unconfigured scheduler when the role is missing.
    roleArn: settings.schedulerRoleArn ?? '',
    queueArns: settings.queueArns,
  });
}
