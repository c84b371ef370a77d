/** SchedulerPort over EventBridge Scheduler one-time schedules that target an SQS queue. */
import { createHash } from 'node:crypto';
import {
  CreateScheduleCommand,
  type CreateScheduleCommandInput,
  DeleteScheduleCommand,
  type SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import type { QueueName } from '../../manifest';
import { type Clock, type ScheduleInput, type SchedulerPort, systemClock } from '../../ports';
import { awsErrorName } from './aws-errors';

export interface EventBridgeSchedulerConfig {
  /** Schedule group holding this deployment's one-time schedules. */
  readonly groupName: string;
  /** Role that EventBridge Scheduler assumes to call `sqs:SendMessage` on the target queue. */
  readonly roleArn: string;
  /** Target queue ARN by queue name; a queue left out fails on first use. */
  readonly queueArns: Readonly<Partial<Record<QueueName, string>>>;
  /** Used to keep fire times in the future. @default systemClock */
  readonly clock?: Clock;
}

/**
 * One-time `at()` schedules that put the message (as the JSON body) on the queue, then delete
 * themselves. Re-using a name replaces the pending schedule.
 *
 * Scheduler cannot set SQS message attributes, so consumers must read `type` from the body, not
 * from the `type` attribute that `SqsQueue` adds.
 */
export class EventBridgeScheduler implements SchedulerPort {
  private readonly clock: Clock;

  constructor(
    private readonly client: SchedulerClient,
    private readonly config: EventBridgeSchedulerConfig,
  ) {
    this.clock = config.clock ?? systemClock;
  }

  async scheduleAt(input: ScheduleInput): Promise<void> {
    const arn = this.config.queueArns[input.queue];
    if (!arn) throw new Error(`EventBridgeScheduler: no ARN configured for queue "${input.queue}"`);
    const schedule = {
      Name: scheduleName(input.name),
      GroupName: this.config.groupName,
      ScheduleExpression: atExpression(fireTime(input.at, this.clock.now())),
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      State: 'ENABLED',
      Target: { Arn: arn, RoleArn: this.config.roleArn, Input: JSON.stringify(input.message) },
    } satisfies CreateScheduleCommandInput;

    // Create, or replace an existing schedule of that name. The old one can fire and delete
    // itself between our two calls, hence the second round.
    for (let round = 0; ; round++) {
      try {
        await this.client.send(new CreateScheduleCommand(schedule));
        return;
      } catch (error) {
        if (awsErrorName(error) !== 'ConflictException') throw error;
      }
      try {
        await this.client.send(new UpdateScheduleCommand(schedule));
        return;
      } catch (error) {
        if (awsErrorName(error) !== 'ResourceNotFoundException' || round > 0) throw error;
      }
    }
  }

  async cancel(name: string): Promise<void> {
    try {
      await this.client.send(
        new DeleteScheduleCommand({ Name: scheduleName(name), GroupName: this.config.groupName }),
      );
    } catch (error) {
      // Unknown, already cancelled, or already fired (fired schedules delete themselves).
      if (awsErrorName(error) !== 'ResourceNotFoundException') throw error;
    }
  }
}

const VALID_NAME = /^[0-9A-Za-z._-]{1,64}$/;
const HASH_LENGTH = 16;

/**
 * A Scheduler-safe name (1-64 of `[0-9A-Za-z._-]`). Valid names pass unchanged; any other name
 * keeps a readable prefix (invalid characters as `_`) and ends with `-` and 16 hex digits of its
 * SHA-256, so distinct inputs stay distinct and the same input always maps to the same name.
 */
export function scheduleName(name: string): string {
  if (name.length === 0) throw new Error('Schedule name must not be empty');
  if (VALID_NAME.test(name)) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, HASH_LENGTH);
  const readable = name.replace(/[^0-9A-Za-z._-]/g, '_').slice(0, 64 - HASH_LENGTH - 1);
  return `${readable}-${hash}`;
}

/** `at(yyyy-mm-ddThh:mm:ss)`, read by Scheduler in the schedule's time zone (UTC here). */
export function atExpression(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('Schedule time is not a valid date');
  return `at(${date.toISOString().slice(0, 19)})`;
}

const MINUTE_MS = 60_000;
/** Lead kept before a fire time, so that a time "now" is not in the past when Scheduler sees it. */
const MIN_LEAD_MS = 30_000;

/**
 * When to fire: `at` rounded up to a whole minute, and never sooner than 30 s from now.
 * Scheduler invokes with one-minute precision, so rounding up means a target never runs before
 * `at`; a time already past fires within the next minute or two instead of being rejected.
 */
export function fireTime(at: Date, now: Date): Date {
  if (Number.isNaN(at.getTime())) throw new RangeError('Schedule time is not a valid date');
  const earliest = Math.max(at.getTime(), now.getTime() + MIN_LEAD_MS);
  return new Date(Math.ceil(earliest / MINUTE_MS) * MINUTE_MS);
}
