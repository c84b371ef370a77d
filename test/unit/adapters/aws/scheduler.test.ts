import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
  ValidationException,
} from '@aws-sdk/client-scheduler';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { EventBridgeScheduler, fireTime, scheduleName } from '../../../../shared/adapters/aws/scheduler';

const queueArn = 'arn:aws:sqs:eu-west-1:123456789012:sesame-jobs';
const roleArn = 'arn:aws:iam::123456789012:role/sesame-scheduler';
const now = new Date('2030-01-01T00:00:00.000Z');
const client = new SchedulerClient({ region: 'eu-west-1' });
const mock = mockClient(client);
const scheduler = new EventBridgeScheduler(client, {
  groupName: 'sesame-prod',
  roleArn,
  queueArns: { jobs: queueArn },
  clock: { now: () => now },
});

const input = {
  name: 'campaign-c1',
  at: new Date('2030-01-01T12:34:56.789Z'),
  queue: 'jobs',
  message: { type: 'campaign.start', campaignId: 'c1' },
} as const;

const expected = {
  Name: 'campaign-c1',
  GroupName: 'sesame-prod',
  ScheduleExpression: 'at(2030-01-01T12:35:00)',
  ScheduleExpressionTimezone: 'UTC',
  FlexibleTimeWindow: { Mode: 'OFF' },
  ActionAfterCompletion: 'DELETE',
  State: 'ENABLED',
  Target: { Arn: queueArn, RoleArn: roleArn, Input: '{"type":"campaign.start","campaignId":"c1"}' },
};

/** An SDK service error as the client would throw it. */
const err = <T>(
  Type: new (o: { message: string; Message: string; $metadata: Record<string, never> }) => T,
  message = 'x',
) => new Type({ message, Message: message, $metadata: {} });

beforeEach(() => {
  mock.reset();
});

describe('EventBridgeScheduler.scheduleAt', () => {
  it('creates a one-time schedule that sends the message to the queue', async () => {
    mock.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn' });
    await scheduler.scheduleAt(input);

    expect(mock.calls()).toHaveLength(1);
    expect(mock.commandCalls(CreateScheduleCommand)[0]!.args[0].input).toStrictEqual(expected);
  });

  it('replaces an existing schedule of the same name', async () => {
    mock.on(CreateScheduleCommand).rejects(err(ConflictException, 'Schedule campaign-c1 already exists.'));
    mock.on(UpdateScheduleCommand).resolves({ ScheduleArn: 'arn' });
    await scheduler.scheduleAt(input);

    expect(mock.commandCalls(CreateScheduleCommand)).toHaveLength(1);
    const updates = mock.commandCalls(UpdateScheduleCommand);
    expect(updates).toHaveLength(1);
    expect(updates[0]!.args[0].input).toStrictEqual(expected);
  });

  it('creates again when the old schedule fired and deleted itself between create and update', async () => {
    mock.on(CreateScheduleCommand).rejectsOnce(err(ConflictException)).resolves({ ScheduleArn: 'arn' });
    mock.on(UpdateScheduleCommand).rejects(err(ResourceNotFoundException));
    await scheduler.scheduleAt(input);

    expect(mock.calls().map((c) => c.args[0].constructor.name)).toEqual([
      'CreateScheduleCommand',
      'UpdateScheduleCommand',
      'CreateScheduleCommand',
    ]);
  });

  it('gives up after a second round of conflict and not-found', async () => {
    mock.on(CreateScheduleCommand).rejects(err(ConflictException));
    mock.on(UpdateScheduleCommand).rejects(err(ResourceNotFoundException, 'gone'));
    await expect(scheduler.scheduleAt(input)).rejects.toThrow('gone');
    expect(mock.calls()).toHaveLength(4);
  });

  it('propagates other errors without updating', async () => {
    mock.on(CreateScheduleCommand).rejects(err(ValidationException, 'bad expression'));
    await expect(scheduler.scheduleAt(input)).rejects.toBeInstanceOf(ValidationException);
    expect(mock.commandCalls(UpdateScheduleCommand)).toHaveLength(0);
  });

  it('uses a sanitized name', async () => {
    mock.on(CreateScheduleCommand).resolves({});
    await scheduler.scheduleAt({ ...input, name: 'workflow:run/42' });
    const name = mock.commandCalls(CreateScheduleCommand)[0]!.args[0].input.Name;
    expect(name).toBe(scheduleName('workflow:run/42'));
    expect(name).toMatch(/^workflow_run_42-[0-9a-f]{16}$/);
  });

  it('fails clearly for a queue without an ARN', async () => {
    const unconfigured = new EventBridgeScheduler(client, { groupName: 'g', roleArn, queueArns: {} });
    await expect(unconfigured.scheduleAt(input)).rejects.toThrow('no ARN configured for queue "jobs"');
    expect(mock.calls()).toHaveLength(0);
  });

  it('rejects an invalid date', async () => {
    await expect(scheduler.scheduleAt({ ...input, at: new Date('nope') })).rejects.toThrow(RangeError);
  });
});

describe('EventBridgeScheduler.cancel', () => {
  it('deletes the schedule from the group', async () => {
    mock.on(DeleteScheduleCommand).resolves({});
    await scheduler.cancel('campaign-c1');
    expect(mock.commandCalls(DeleteScheduleCommand)[0]!.args[0].input).toStrictEqual({
      Name: 'campaign-c1',
      GroupName: 'sesame-prod',
    });
  });

  it('deletes by the same sanitized name as scheduleAt', async () => {
    mock.on(DeleteScheduleCommand).resolves({});
    await scheduler.cancel('workflow:run/42');
    expect(mock.commandCalls(DeleteScheduleCommand)[0]!.args[0].input.Name).toBe(
      scheduleName('workflow:run/42'),
    );
  });

  it('ignores an unknown schedule', async () => {
    mock.on(DeleteScheduleCommand).rejects(err(ResourceNotFoundException));
    await expect(scheduler.cancel('gone')).resolves.toBeUndefined();
  });

  it('propagates other errors', async () => {
    mock.on(DeleteScheduleCommand).rejects(err(ValidationException, 'denied'));
    await expect(scheduler.cancel('x')).rejects.toThrow('denied');
  });
});

describe('scheduleName', () => {
  const valid = /^[0-9A-Za-z._-]{1,64}$/;

  it('keeps a valid name', () => {
    expect(scheduleName('a.B_c-1')).toBe('a.B_c-1');
    expect(scheduleName('x'.repeat(64))).toBe('x'.repeat(64));
  });

  it('maps invalid or long names to valid, deterministic, distinct names', () => {
    const long = `p_${'x'.repeat(100)}`;
    for (const name of [long, 'a:b', 'a/b', 'é', ' ', 'x'.repeat(65)]) {
      expect(scheduleName(name)).toMatch(valid);
      expect(scheduleName(name)).toBe(scheduleName(name));
    }
    expect(scheduleName('a:b')).not.toBe(scheduleName('a/b'));
    expect(scheduleName(`${long}1`)).not.toBe(scheduleName(`${long}2`));
    expect(scheduleName('a:b')).not.toBe('a_b');
  });

  it('rejects an empty name', () => {
    expect(() => scheduleName('')).toThrow();
  });
});

describe('fireTime', () => {
  it('rounds up to the whole minute', () => {
    expect(fireTime(new Date('2030-01-01T10:00:00.000Z'), now).toISOString()).toBe(
      '2030-01-01T10:00:00.000Z',
    );
    expect(fireTime(new Date('2030-01-01T10:00:00.001Z'), now).toISOString()).toBe(
      '2030-01-01T10:01:00.000Z',
    );
  });

  it('moves a past or imminent time at least 30 s into the future', () => {
    expect(fireTime(new Date('2029-12-31T00:00:00Z'), now).toISOString()).toBe('2030-01-01T00:01:00.000Z');
    const late = new Date('2030-01-01T00:00:45.000Z');
    expect(fireTime(new Date('2030-01-01T00:00:50Z'), late).toISOString()).toBe('2030-01-01T00:02:00.000Z');
  });
});
