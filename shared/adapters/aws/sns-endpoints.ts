/**
 * SnsEndpointsPort over HTTPS with the global `fetch`, used on AWS: SNS signing certificates and
 * SubscribeURLs are plain HTTPS resources of SNS, so no SDK client (and no IAM right) is involved.
 *
 * Both URLs come from a request body, so each is checked against SNS's hosts first
 * (shared/sns/urls.ts) and the request is made so that it cannot be steered elsewhere: redirects
 * are refused rather than followed, the whole request (body included) has a timeout, and the body
 * read is bounded. Certificates are cached per instance by URL (a certificate URL names one
 * certificate: SNS publishes a new one under a new name), so a warm function fetches each once;
 * the cache holds at most `maxCachedCertificates`, dropping the least recently used, and a failed
 * fetch is not kept.
 */
import type { SnsEndpointsPort } from '../../ports';
import { isSnsCertificateUrl, isSnsSubscribeUrl, withoutQuery } from '../../sns/urls';

export interface HttpsSnsEndpointsOptions {
  /** @default the global fetch */
  readonly fetch?: typeof fetch;
  /** Limit on each request, its body included. @default 5000 */
  readonly timeoutMs?: number;
  /** Largest certificate accepted (SNS's are about 2 KB). @default 64 KiB */
  readonly maxCertificateBytes?: number;
  /** Largest SubscribeURL answer read (SNS's is a short XML document). @default 64 KiB */
  readonly maxConfirmationBytes?: number;
  /** Certificates kept per instance. @default 16 */
  readonly maxCachedCertificates?: number;
}

export class HttpsSnsEndpoints implements SnsEndpointsPort {
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;
  private readonly maxCertificateBytes: number;
  private readonly maxConfirmationBytes: number;
  private readonly maxCached: number;
  /** By URL, least recently used first (a Map keeps insertion order). */
  private readonly certificates = new Map<string, Promise<string>>();

  constructor(options: HttpsSnsEndpointsOptions = {}) {
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.maxCertificateBytes = options.maxCertificateBytes ?? 64 * 1024;
    this.maxConfirmationBytes = options.maxConfirmationBytes ?? 64 * 1024;
    this.maxCached = Math.max(1, options.maxCachedCertificates ?? 16);
  }

  async signingCertificate(url: string): Promise<string> {
    if (!isSnsCertificateUrl(url))
      throw new Error(`Refused to fetch ${withoutQuery(url)}: not an SNS certificate URL`);
    const cached = this.certificates.get(url);
    if (cached) {
      this.certificates.delete(url);
      this.certificates.set(url, cached);
      return cached;
    }
    // Concurrent requests for one URL share one fetch.
    const pending = this.get(url, this.maxCertificateBytes).then((pem) => {
      if (!pem.includes('-----BEGIN CERTIFICATE-----'))
        throw new Error(`${withoutQuery(url)} did not answer a PEM certificate`);
      return pem;
    });
    this.certificates.set(url, pending);
    while (this.certificates.size > this.maxCached)
      this.certificates.delete(this.certificates.keys().next().value as string);
    pending.catch(() => {
      if (this.certificates.get(url) === pending) this.certificates.delete(url);
    });
    return pending;
  }

  async confirmSubscription(subscribeUrl: string): Promise<void> {
    if (!isSnsSubscribeUrl(subscribeUrl))
      throw new Error(`Refused to GET ${withoutQuery(subscribeUrl)}: not on an SNS host`);
    await this.get(subscribeUrl, this.maxConfirmationBytes);
  }

  /** The body of a 2xx answer to a GET of `url`, as text; rejects on anything else. */
  private async get(url: string, maxBytes: number): Promise<string> {
    // The URL's query may hold a subscription token: it is never put in an error message.
    const shown = withoutQuery(url);
    const response = await this.fetch(url, {
      method: 'GET',
      redirect: 'error',
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`GET ${shown} answered ${response.status}`);
    }
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body?.cancel();
      throw new Error(`GET ${shown} answered more than ${maxBytes} bytes`);
    }
    if (!response.body) return '';
    const reader = response.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw new Error(`GET ${shown} answered more than ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
}
