/** Which URLs of an SNS message may be fetched (shared/sns/urls.ts). */
import { describe, expect, it } from 'vitest';
import { isSnsCertificateUrl, isSnsSubscribeUrl, withoutQuery } from '../../../shared/sns/urls';

const PEM = '/SimpleNotificationService-9c6465fa7f48f5cacd23014631ec1136.pem';

describe('isSnsCertificateUrl', () => {
  it.each([
    `https://sns.us-east-1.amazonaws.com${PEM}`,
    `https://sns.eu-central-1.amazonaws.com${PEM}`,
    `https://sns.ap-southeast-2.amazonaws.com${PEM}`,
    `https://sns.us-gov-west-1.amazonaws.com${PEM}`,
    // The China partition, whose SNS endpoints are under amazonaws.com.cn.
    `https://sns.cn-north-1.amazonaws.com.cn${PEM}`,
  ])('accepts %s', (url) => {
    expect(isSnsCertificateUrl(url)).toBe(true);
  });

  it.each([
    ['http', `http://sns.us-east-1.amazonaws.com${PEM}`],
    ['another scheme', `ftp://sns.us-east-1.amazonaws.com${PEM}`],
    ['a look-alike suffix', `https://sns.us-east-1.amazonaws.com.evil.com${PEM}`],
    ['a look-alike subdomain', `https://sns.us-east-1.evil.amazonaws.com${PEM}`],
    ['a deeper subdomain', `https://x.sns.us-east-1.amazonaws.com${PEM}`],
    ['another AWS service', `https://sqs.us-east-1.amazonaws.com${PEM}`],
    ['an S3 bucket', `https://sns.s3.amazonaws.com${PEM}`],
    ['no region', `https://sns.amazonaws.com${PEM}`],
    ['a China host for another region', `https://sns.us-east-1.amazonaws.com.cn${PEM}`],
    ['a China region off its partition', `https://sns.cn-north-1.amazonaws.com${PEM}`],
    ['userinfo', `https://user:pass@sns.us-east-1.amazonaws.com${PEM}`],
    ['userinfo that hides another host', `https://sns.us-east-1.amazonaws.com@evil.com${PEM}`],
    ['a port', `https://sns.us-east-1.amazonaws.com:8443${PEM}`],
    ['the default port written out', `https://sns.us-east-1.amazonaws.com:443${PEM}`],
    ['upper case', `https://SNS.us-east-1.amazonaws.com${PEM}`],
    ['a backslash', `https://sns.us-east-1.amazonaws.com\\@evil.com${PEM}`],
    ['no .pem', 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService.txt'],
    ['.pem only in the query', 'https://sns.us-east-1.amazonaws.com/?x=.pem'],
    ['a query', `https://sns.us-east-1.amazonaws.com${PEM}?x=1`],
    ['a fragment', `https://sns.us-east-1.amazonaws.com${PEM}#x`],
    ['no path', 'https://sns.us-east-1.amazonaws.com'],
    ['not a URL', 'sns.us-east-1.amazonaws.com/cert.pem'],
    ['nothing', ''],
  ])('refuses %s', (_, url) => {
    expect(isSnsCertificateUrl(url)).toBe(false);
  });
});

describe('isSnsSubscribeUrl', () => {
  const confirm =
    '/?Action=ConfirmSubscription&TopicArn=arn:aws:sns:us-east-1:123456789012:events&Token=2336412f37fb';

  it('accepts a SubscribeURL on an SNS host', () => {
    expect(isSnsSubscribeUrl(`https://sns.us-east-1.amazonaws.com${confirm}`)).toBe(true);
    expect(isSnsSubscribeUrl(`https://sns.cn-northwest-1.amazonaws.com.cn${confirm}`)).toBe(true);
  });

  it.each([
    `http://sns.us-east-1.amazonaws.com${confirm}`,
    `https://sns.us-east-1.amazonaws.com.evil.com${confirm}`,
    `https://evil.com${confirm}`,
    `https://a@sns.us-east-1.amazonaws.com${confirm}`,
    `https://sns.us-east-1.amazonaws.com:443${confirm}`,
    `https://sns.us-east-1.amazonaws.com${confirm}#x`,
  ])('refuses %s', (url) => {
    expect(isSnsSubscribeUrl(url)).toBe(false);
  });
});

it('withoutQuery keeps a token out of messages', () => {
  expect(withoutQuery('https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&Token=secret')).toBe(
    'https://sns.us-east-1.amazonaws.com/',
  );
  expect(withoutQuery('nope')).toBe('(not a URL)');
});
