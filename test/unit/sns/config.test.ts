/** Where `POST /webhooks/sns` takes its topic from, and how its port is wired, on AWS and locally. */
import { describe, expect, it, vi } from 'vitest';
import { awsDeps, parseAwsSettings } from '../../../shared/composition/aws';
import { httpsSnsEndpoints } from '../../../shared/composition/aws-wiring/sns-endpoints';
import { LOCAL_SES_EVENTS_TOPIC_ARN, parseLocalSettings } from '../../../shared/composition/local';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:Sesame-prod-Stateful-EmailEventsTopic1A2B3C';

describe('on AWS', () => {
  it('reads SES_EVENTS_TOPIC_ARN into the config, and accepts no topic without it', () => {
    expect(parseAwsSettings({ TABLE_NAME: 't', SES_EVENTS_TOPIC_ARN: TOPIC }).sesEventsTopicArn).toBe(TOPIC);
    const uses = ['receive-sns', 'queue'] as const;
    const wiring = { snsEndpoints: httpsSnsEndpoints, queue: async () => ({ send: async () => {} }) };
    expect(awsDeps({ TABLE_NAME: 't', SES_EVENTS_TOPIC_ARN: TOPIC }, { uses, wiring }).config).toMatchObject({
      sesEventsTopicArn: TOPIC,
    });
    expect(awsDeps({ TABLE_NAME: 't' }, { uses, wiring }).config.sesEventsTopicArn).toBeUndefined();
  });

  it('refuses a value that is not an SNS topic ARN, naming the variable', () => {
    for (const value of ['my-topic', 'arn:aws:sqs:eu-west-1:123456789012:jobs', `${TOPIC}:subscription-id`])
      expect(() => parseAwsSettings({ TABLE_NAME: 't', SES_EVENTS_TOPIC_ARN: value })).toThrow(
        /SES_EVENTS_TOPIC_ARN: expected an SNS topic ARN/,
      );
  });

  it('builds the port on first use only, over the global fetch, refusing non-SNS URLs before fetching', async () => {
    const fetch = vi.spyOn(globalThis, 'fetch');
    try {
      const deps = awsDeps(
        { TABLE_NAME: 't' },
        { uses: ['receive-sns'], wiring: { snsEndpoints: httpsSnsEndpoints } },
      );
      await expect(deps.snsEndpoints.signingCertificate('https://evil.example/cert.pem')).rejects.toThrow(
        'not an SNS certificate URL',
      );
      expect(fetch).not.toHaveBeenCalled();
    } finally {
      fetch.mockRestore();
    }
  });
});

describe('locally', () => {
  it('accepts the local topic unless SES_EVENTS_TOPIC_ARN names another', () => {
    expect(LOCAL_SES_EVENTS_TOPIC_ARN).toBe('arn:aws:sns:us-east-1:000000000000:sesame-local-ses-events');
    expect(parseLocalSettings({}).config.sesEventsTopicArn).toBe(LOCAL_SES_EVENTS_TOPIC_ARN);
    expect(parseLocalSettings({ SES_EVENTS_TOPIC_ARN: TOPIC }).config.sesEventsTopicArn).toBe(TOPIC);
    expect(() => parseLocalSettings({ SES_EVENTS_TOPIC_ARN: 'nope' })).toThrow(
      'Invalid environment: SES_EVENTS_TOPIC_ARN: expected an SNS topic ARN',
    );
  });
});
