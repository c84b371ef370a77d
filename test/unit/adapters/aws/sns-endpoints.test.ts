/** The AWS adapter of SNS's endpoints (global fetch, mocked here): host checks, limits, cache. */
import { describe, expect, it, vi } from 'vitest';
import { HttpsSnsEndpoints } from '../../../../shared/adapters/aws/sns-endpoints';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const certUrl = (n = 1) => `https://sns.us-east-1.amazonaws.com/SimpleNotificationService-${n}.pem`;
const SUBSCRIBE =
  'https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=arn:aws:sns:us-east-1:123456789012:t&Token=secret-token';

/** A fetch answering `respond(url)`, recording the URLs and options it was called with. */
function fakeFetch(respond: (url: string) => Response | Promise<Response> = () => new Response(PEM)) {
  const calls: { url: string; init: RequestInit | undefined }[] = [];
  const fetch = vi.fn(async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    calls.push({ url, init });
    return respond(url);
  }) as unknown as typeof globalThis.fetch;
  return { fetch, calls };
}

describe('HttpsSnsEndpoints.signingCertificate', () => {
  it('GETs an SNS certificate URL without following redirects, with a timeout', async () => {
    const { fetch, calls } = fakeFetch();
    const sns = new HttpsSnsEndpoints({ fetch });
    expect(await sns.signingCertificate(certUrl())).toBe(PEM);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.url).toBe(certUrl());
    expect(calls[0]!.init).toMatchObject({ method: 'GET', redirect: 'error' });
    expect(calls[0]!.init?.signal).toBeInstanceOf(AbortSignal);
  });

  it.each([
    'http://sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem',
    'https://sns.us-east-1.amazonaws.com.evil.com/SimpleNotificationService-1.pem',
    'https://evil.com/SimpleNotificationService-1.pem',
    'https://a@sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem',
    'https://sns.us-east-1.amazonaws.com:8443/SimpleNotificationService-1.pem',
    'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-1.txt',
  ])('refuses %s without any request', async (url) => {
    const { fetch, calls } = fakeFetch();
    const sns = new HttpsSnsEndpoints({ fetch });
    await expect(sns.signingCertificate(url)).rejects.toThrow(/not an SNS certificate URL/);
    expect(calls).toEqual([]);
  });

  it('fetches each URL once per instance, concurrent requests included', async () => {
    const { fetch, calls } = fakeFetch();
    const sns = new HttpsSnsEndpoints({ fetch });
    const answers = await Promise.all([sns.signingCertificate(certUrl()), sns.signingCertificate(certUrl())]);
    expect(answers).toEqual([PEM, PEM]);
    expect(await sns.signingCertificate(certUrl())).toBe(PEM);
    expect(calls).toHaveLength(1);
    // Another instance (another warm Lambda) has a cache of its own.
    await new HttpsSnsEndpoints({ fetch }).signingCertificate(certUrl());
    expect(calls).toHaveLength(2);
  });

  it('keeps at most maxCachedCertificates, dropping the least recently used', async () => {
    const { fetch, calls } = fakeFetch();
    const sns = new HttpsSnsEndpoints({ fetch, maxCachedCertificates: 2 });
    await sns.signingCertificate(certUrl(1));
    await sns.signingCertificate(certUrl(2));
    await sns.signingCertificate(certUrl(1)); // 1 is now the most recently used
    await sns.signingCertificate(certUrl(3)); // drops 2
    expect(calls.map((c) => c.url)).toEqual([certUrl(1), certUrl(2), certUrl(3)]);
    await sns.signingCertificate(certUrl(1));
    await sns.signingCertificate(certUrl(3));
    expect(calls).toHaveLength(3);
    await sns.signingCertificate(certUrl(2));
    expect(calls).toHaveLength(4);
  });

  it('does not keep a failed fetch: the next request tries again', async () => {
    let status = 503;
    const { fetch, calls } = fakeFetch(() => new Response(status === 200 ? PEM : 'busy', { status }));
    const sns = new HttpsSnsEndpoints({ fetch });
    await expect(sns.signingCertificate(certUrl())).rejects.toThrow(`GET ${certUrl()} answered 503`);
    status = 200;
    expect(await sns.signingCertificate(certUrl())).toBe(PEM);
    expect(calls).toHaveLength(2);
  });

  it('refuses an answer that is not a PEM certificate, and does not keep it', async () => {
    const { fetch, calls } = fakeFetch(() => new Response('<html>'));
    const sns = new HttpsSnsEndpoints({ fetch });
    await expect(sns.signingCertificate(certUrl())).rejects.toThrow('did not answer a PEM certificate');
    await expect(sns.signingCertificate(certUrl())).rejects.toThrow();
    expect(calls).toHaveLength(2);
  });

  it('refuses a body over the size limit, declared or streamed', async () => {
    const big = `${PEM}${'x'.repeat(2000)}`;
    const declared = new HttpsSnsEndpoints({
      fetch: fakeFetch(() => new Response(big, { headers: { 'content-length': String(big.length) } })).fetch,
      maxCertificateBytes: 1000,
    });
    await expect(declared.signingCertificate(certUrl())).rejects.toThrow('more than 1000 bytes');
    const chunks = [PEM, 'x'.repeat(600), 'x'.repeat(600)];
    const streamed = new HttpsSnsEndpoints({
      fetch: fakeFetch(
        () =>
          new Response(
            new ReadableStream({
              pull(controller) {
                const next = chunks.shift();
                if (next === undefined) controller.close();
                else controller.enqueue(new TextEncoder().encode(next));
              },
            }),
          ),
      ).fetch,
      maxCertificateBytes: 1000,
    });
    await expect(streamed.signingCertificate(certUrl())).rejects.toThrow('more than 1000 bytes');
  });

  it('gives up on a slow answer after its timeout', async () => {
    const sns = new HttpsSnsEndpoints({
      fetch: (async (_input: string | URL | Request, init?: RequestInit) =>
        new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
        })) as typeof fetch,
      timeoutMs: 20,
    });
    await expect(sns.signingCertificate(certUrl())).rejects.toThrow(/timeout|aborted/i);
  });
});

describe('HttpsSnsEndpoints.confirmSubscription', () => {
  it('GETs the SubscribeURL on an SNS host, without following redirects', async () => {
    const { fetch, calls } = fakeFetch(() => new Response('<ConfirmSubscriptionResponse/>'));
    await new HttpsSnsEndpoints({ fetch }).confirmSubscription(SUBSCRIBE);
    expect(calls.map((c) => [c.url, c.init?.redirect])).toEqual([[SUBSCRIBE, 'error']]);
  });

  it.each([
    SUBSCRIBE.replace('https:', 'http:'),
    SUBSCRIBE.replace('amazonaws.com/', 'amazonaws.com.evil.com/'),
    SUBSCRIBE.replace('https://', 'https://x@'),
    'https://evil.com/?Action=ConfirmSubscription',
  ])('refuses %s without any request', async (url) => {
    const { fetch, calls } = fakeFetch();
    await expect(new HttpsSnsEndpoints({ fetch }).confirmSubscription(url)).rejects.toThrow(
      /not on an SNS host/,
    );
    expect(calls).toEqual([]);
  });

  it('rejects unless SNS answers 2xx, naming the URL without its token', async () => {
    const { fetch } = fakeFetch(() => new Response('denied', { status: 403 }));
    const failing = new HttpsSnsEndpoints({ fetch }).confirmSubscription(SUBSCRIBE);
    await expect(failing).rejects.toThrow('GET https://sns.us-east-1.amazonaws.com/ answered 403');
    await expect(failing).rejects.not.toThrow(/secret-token/);
  });
});
