import { Aws, RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { acknowledgeWildcardResource } from '../nag';
import type { WorkQueue } from './work-queue';

export interface OneOffSchedulerProps {
  /** Queues the runtime may target; the scheduler role may send to these and nothing else. */
  readonly queues: readonly WorkQueue[];
}

/**
 * Where the runtime creates its one-off schedules (scheduled campaigns, workflow delays and
 * timeouts): a schedule group to hold them and the role EventBridge Scheduler assumes to put their
 * message on a queue. Pending schedules are in-flight work, like queued messages, so this lives
 * with the queues in the stateful stack and survives a redeploy of the stateless one.
 */
export class OneOffScheduler extends Construct {
  readonly group: ScheduleGroup;
  /** Assumed by EventBridge Scheduler when a one-off schedule fires. */
  readonly role: Role;
  private readonly queues: readonly WorkQueue[];

  constructor(scope: Construct, id: string, props: OneOffSchedulerProps) {
    super(scope, id);
    this.queues = props.queues;
    // Destroyed with the stack like the queues its schedules target (they would fire into nothing);
    // retaining it would also block a redeploy, since its generated name is deterministic.
    this.group = new ScheduleGroup(this, 'Group', { removalPolicy: RemovalPolicy.DESTROY });
    this.role = new Role(this, 'Role', {
      // Only schedules of this account may use the role (confused-deputy guard).
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
      description: 'EventBridge Scheduler puts one-off schedule messages on Sesame queues',
    });
    if (props.queues.length > 0) {
      this.role.addToPolicy(
        new PolicyStatement({
          actions: ['sqs:SendMessage'],
          resources: props.queues.map((q) => q.queue.queueArn),
        }),
      );
    }
  }

  /** ARN pattern of the schedules in the group (schedule names are chosen at runtime). */
  get schedulesArn(): string {
    return `arn:${Aws.PARTITION}:scheduler:${Aws.REGION}:${Aws.ACCOUNT_ID}:schedule/${this.group.scheduleGroupName}/*`;
  }

  /**
   * Sets `SCHEDULER_ROLE_ARN`, `SCHEDULER_GROUP_NAME` and the ARN of each queue a schedule may
   * target (`QUEUE_<NAME>_ARN`), grants creating, replacing and deleting schedules in the group
   * only (the adapter updates a schedule whose name is taken), and passing the scheduler role to
   * EventBridge Scheduler only.
   */
  bind(fn: LambdaFunction): void {
    if (!fn.role) throw new Error(`${fn.node.path} has no role to grant scheduling to`);
    fn.addEnvironment('SCHEDULER_ROLE_ARN', this.role.roleArn);
    fn.addEnvironment('SCHEDULER_GROUP_NAME', this.group.scheduleGroupName);
    for (const queue of this.queues) queue.bindScheduleTarget(fn);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
        resources: [this.schedulesArn],
      }),
    );
    acknowledgeWildcardResource(
      fn.role,
      this.schedulesArn,
      'One-off schedules are named at runtime (one per scheduled campaign or workflow step), so the grant covers ' +
        'the schedules of this group only; recurring schedules live in another group and are out of reach.',
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [this.role.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
  }
}
