import { Aws, Duration } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ISchedule, IScheduleTarget, ScheduleTargetConfig } from 'aws-cdk-lib/aws-scheduler';

export interface FunctionScheduleTargetProps {
  /**
   * Retries after a failed invocation.
   * @default 2
   */
  readonly retryAttempts?: number;
  /**
   * How long Scheduler keeps trying one occurrence; recurring jobs are superseded by the next run.
   * @default Duration.minutes(15)
   */
  readonly maxEventAge?: Duration;
}

/**
 * A schedule target that invokes one Lambda function through a role allowed to invoke exactly
 * that function. (The `LambdaInvoke` target of aws-scheduler-targets also grants `<arn>:*`, every
 * version and alias, which Sesame does not use.)
 */
export class FunctionScheduleTarget implements IScheduleTarget {
  constructor(
    private readonly fn: IFunction,
    private readonly props: FunctionScheduleTargetProps = {},
  ) {}

  bind(schedule: ISchedule): ScheduleTargetConfig {
    const role = new Role(schedule, 'TargetRole', {
      // Only schedules of this account may use the role (confused-deputy guard).
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } },
      }),
    });
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.fn.functionArn] }),
    );
    return {
      arn: this.fn.functionArn,
      role,
      retryPolicy: {
        maximumRetryAttempts: this.props.retryAttempts ?? 2,
        maximumEventAgeInSeconds: (this.props.maxEventAge ?? Duration.minutes(15)).toSeconds(),
      },
    };
  }
}
