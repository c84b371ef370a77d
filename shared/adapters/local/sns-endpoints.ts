/**
 * SnsEndpointsPort for the local runtime, standing in for SNS's HTTPS endpoints without reaching
 * the network:
 *
 * - `signingCertificate` serves the certificates registered with `registerCertificate` (a test
 *   generates a key and a certificate, registers it under an SNS-shaped URL, and signs messages
 *   with the key), and rejects any other URL as an unreachable certificate would;
 * - `confirmSubscription` records the SubscribeURL it was asked to GET (`confirmations()`), as SNS
 *   would record the confirmation.
 *
 * Both refuse exactly the URLs the AWS adapter refuses (shared/sns/urls.ts), so the endpoint's
 * host checks hold locally too. Why not the real `fetch`: nothing reaches the local runtime from
 * SNS (its SES events come from the mail sink through the jobs queue), and the integration tier
 * must not depend on the network; the AWS adapter has tests of its own with a mocked `fetch`.
 * Nothing is persisted: registrations last as long as the runtime.
 */
import type { SnsEndpointsPort } from '../../ports';
import { isSnsCertificateUrl, isSnsSubscribeUrl, withoutQuery } from '../../sns/urls';

export class LocalSnsEndpoints implements SnsEndpointsPort {
  private readonly certificates = new Map<string, string>();
  private readonly confirmed: string[] = [];

  /** Serves `pem` at the SNS certificate URL `url` from now on. */
  registerCertificate(url: string, pem: string): void {
    if (!isSnsCertificateUrl(url)) throw new Error(`${url} is not an SNS certificate URL`);
    this.certificates.set(url, pem);
  }

  async signingCertificate(url: string): Promise<string> {
    if (!isSnsCertificateUrl(url))
      throw new Error(`Refused to fetch ${withoutQuery(url)}: not an SNS certificate URL`);
    const pem = this.certificates.get(url);
    if (pem === undefined)
      throw new Error(`GET ${withoutQuery(url)} answered 404 (no certificate registered locally)`);
    return pem;
  }

  async confirmSubscription(subscribeUrl: string): Promise<void> {
    if (!isSnsSubscribeUrl(subscribeUrl))
      throw new Error(`Refused to GET ${withoutQuery(subscribeUrl)}: not on an SNS host`);
    this.confirmed.push(subscribeUrl);
  }

  /** The SubscribeURLs GET so far, oldest first. */
  confirmations(): readonly string[] {
    return [...this.confirmed];
  }
}
