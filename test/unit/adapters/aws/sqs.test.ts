import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { SqsQueue, sqsDelaySeconds } from '../../../../shared/adapters/aws/sqs';

const url = 'https://sqs.eu-west-1.amazonaws.com/123456789012/sesame-jobs';
const client = new SQSClient({ region: 'eu-west-1' });
const sqs = mockClient(client);
const queue = new SqsQueue(client, { queueUrls: { jobs: url } });

beforeEach(() => {
  sqs.reset();
  sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
});

describe('SqsQueue', () => {
  it('sends the message as JSON to the queue URL with a type attribute', async () => {
    await queue.send('jobs', { type: 'purge', projectId: 'p1', n: 2 });

    const calls = sqs.commandCalls(SendMessageCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toStrictEqual({
      QueueUrl: url,
      MessageBody: '{"type":"purge","projectId":"p1","n":2}',
      DelaySeconds: undefined,
      MessageAttributes: { type: { DataType: 'String', StringValue: 'purge' } },
    });
  });

  it('passes a delay, rounded up and capped at 900 seconds', async () => {
    await queue.send('jobs', { type: 'a' }, { delaySeconds: 30 });
    await queue.send('jobs', { type: 'b' }, { delaySeconds: 1.2 });
    await queue.send('jobs', { type: 'c' }, { delaySeconds: 3600 });
    await queue.send('jobs', { type: 'd' }, { delaySeconds: 0 });

    const delays = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input.DelaySeconds);
    expect(delays).toEqual([30, 2, 900, 0]);
  });

  it('rejects a negative or non-finite delay without sending', async () => {
    await expect(queue.send('jobs', { type: 'a' }, { delaySeconds: -1 })).rejects.toThrow(RangeError);
    await expect(queue.send('jobs', { type: 'a' }, { delaySeconds: Number.NaN })).rejects.toThrow(RangeError);
    expect(sqs.calls()).toHaveLength(0);
  });

  it('fails clearly for a queue without a URL', async () => {
    const unconfigured = new SqsQueue(client, { queueUrls: {} });
    await expect(unconfigured.send('jobs', { type: 'a' })).rejects.toThrow(
      'no URL configured for queue "jobs"',
    );
    expect(sqs.calls()).toHaveLength(0);
  });

  it('propagates SQS errors', async () => {
    sqs.on(SendMessageCommand).rejects(new Error('boom'));
    await expect(queue.send('jobs', { type: 'a' })).rejects.toThrow('boom');
  });
});

describe('sqsDelaySeconds', () => {
  it('clamps to 0..900 whole seconds', () => {
    expect(sqsDelaySeconds(0)).toBe(0);
    expect(sqsDelaySeconds(0.001)).toBe(1);
    expect(sqsDelaySeconds(900)).toBe(900);
    expect(sqsDelaySeconds(901)).toBe(900);
    expect(() => sqsDelaySeconds(-0.5)).toThrow(RangeError);
    expect(() => sqsDelaySeconds(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
