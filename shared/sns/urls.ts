/**
 * Which URLs of an SNS message Sesame will fetch: a message names the certificate that signed it
 * (`SigningCertURL`) and, for a subscription confirmation, the URL that confirms it
 * (`SubscribeURL`). Both come from the request body, so before anything is fetched the URL must be
 * SNS's own: `https://sns.<region>.amazonaws.com/...`, or `https://sns.cn-<...>.amazonaws.com.cn/...`
 * in the China partition (whose SNS endpoints are named so; AWS's own message validators accept
 * that form too). Anything else is refused: another scheme, a look-alike host such as
 * `sns.us-east-1.amazonaws.com.evil.com` or `sns.us-east-1.evil.amazonaws.com` (S3 buckets also
 * live under amazonaws.com), userinfo, an explicit port (even :443) and upper case. The check
 * reads the URL as written, then confirms that the WHATWG parser (the one `fetch` uses) finds
 * the same host, so no parser difference can smuggle another host past it.
 */

/** `https://sns.<region>.amazonaws.com/` or the China partition's `.amazonaws.com.cn/`, as written. */
const SNS_ORIGIN = /^https:\/\/(sns\.([a-z]{2}(?:-[a-z]+)+-\d{1,2})\.amazonaws\.com(\.cn)?)\//;

/** The SNS host of `url` when it is an https URL on one (see above), else undefined. */
function snsHost(url: string): string | undefined {
  const match = SNS_ORIGIN.exec(url);
  if (!match) return undefined;
  const [, host, region, china] = match;
  // The .com.cn partition serves only the China regions, and they are served only there.
  if ((china !== undefined) !== region!.startsWith('cn-')) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' || parsed.hostname !== host || parsed.port !== '') return undefined;
  if (parsed.username !== '' || parsed.password !== '') return undefined;
  return host;
}

/**
 * The URL of an SNS signing certificate: on an SNS host (see above), a path ending in `.pem`, and
 * no query or fragment (a certificate is a static file).
 */
export function isSnsCertificateUrl(url: string): boolean {
  if (snsHost(url) === undefined) return false;
  const parsed = new URL(url);
  return parsed.pathname.endsWith('.pem') && parsed.search === '' && parsed.hash === '' && !url.includes('#');
}

/** A subscription's `SubscribeURL`: on an SNS host (see above); its query carries the token. */
export function isSnsSubscribeUrl(url: string): boolean {
  return snsHost(url) !== undefined && !url.includes('#');
}

/** `url` without its query and fragment, for messages and logs (a SubscribeURL's query holds its token). */
export function withoutQuery(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(not a URL)';
  }
}
