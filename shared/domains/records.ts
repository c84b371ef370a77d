/**
 * The DNS records of a sender domain and how a check reads them. SES decides whether the domain
 * may send (its DKIM CNAMEs); each record's own status comes from a DNS lookup, or from SES
 * where SES has already confirmed (or given up on) it.
 */
import type { DnsPort, DnsRecordType, DomainIdentity } from '../ports';
import type { DnsRecord, DomainStatus, RecordStatus } from './repository';

/** The custom MAIL FROM domain is `<label>.<domain>`; the IAM grant for Route 53 names it too. */
export const MAIL_FROM_LABEL = 'mail';
export const SPF_VALUE = 'v=spf1 include:amazonses.com ~all';
export const DMARC_VALUE = 'v=DMARC1; p=none;';
/** Record names Sesame writes into a hosted zone, as IAM name patterns. */
export const MANAGED_RECORD_NAME_PATTERNS = ['*._domainkey.*', `${MAIL_FROM_LABEL}.*`, '_dmarc.*'] as const;

export const mailFromDomainOf = (domain: string) => `${MAIL_FROM_LABEL}.${domain}`;

/** The records to publish for a domain, all PENDING, from the identity SES holds. */
export function expectedRecords(domain: string, identity: DomainIdentity): DnsRecord[] {
  const mailFrom = identity.mailFromDomain ?? mailFromDomainOf(domain);
  return [
    ...identity.dkimRecords.map(
      (r): DnsRecord => ({ type: 'CNAME', name: r.name, value: r.value, purpose: 'DKIM', status: 'PENDING' }),
    ),
    { type: 'MX', name: mailFrom, value: identity.mailFromMx, purpose: 'MAIL_FROM_MX', status: 'PENDING' },
    { type: 'TXT', name: mailFrom, value: SPF_VALUE, purpose: 'MAIL_FROM_SPF', status: 'PENDING' },
    { type: 'TXT', name: `_dmarc.${domain}`, value: DMARC_VALUE, purpose: 'DMARC', status: 'PENDING' },
  ];
}

const norm = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');
const exchange = (mx: string) => norm(mx.trim().split(/\s+/).at(-1) ?? '');

/** Whether DNS answers for the record's name and type carry what the record asks for. */
export function answersMatch(
  record: Pick<DnsRecord, 'type' | 'value' | 'purpose'>,
  answers: readonly string[],
) {
  switch (record.purpose) {
    case 'DKIM':
      return answers.some((a) => norm(a) === norm(record.value));
    case 'MAIL_FROM_MX':
      return answers.some((a) => exchange(a) === exchange(record.value));
    case 'MAIL_FROM_SPF':
      // Any SPF record that lets SES send counts, whatever else it allows.
      return answers.some((a) => /^v=spf1\s/i.test(a.trim()) && /\binclude:amazonses\.com\b/i.test(a));
    case 'DMARC':
      // Any DMARC policy counts: p=none is only the recommended start.
      return answers.some((a) => /^v=DMARC1\s*(;|$)/i.test(a.trim()));
  }
}

/**
 * The error codes of a DNS query that failed (node:dns's, which the DNS port passes on): a
 * timeout, a refusing or failing server, an unreadable answer, a name no query can take.
 */
const DNS_FAILURE_CODES: ReadonlySet<string> = new Set([
  'ENODATA',
  'EFORMERR',
  'ESERVFAIL',
  'ENOTFOUND',
  'ENOTIMP',
  'EREFUSED',
  'EBADQUERY',
  'EBADNAME',
  'EBADFAMILY',
  'EBADRESP',
  'ECONNREFUSED',
  'ETIMEOUT',
  'EOF',
  'EFILE',
  'ENOMEM',
  'EDESTRUCTION',
  'EBADSTR',
  'EBADFLAGS',
  'ENONAME',
  'EBADHINTS',
  'ENOTINITIALIZED',
  'ECANCELLED',
]);

/** Whether `error` is a DNS query's failure rather than anything else (a bug, a bad zone file). */
export function isDnsFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && DNS_FAILURE_CODES.has(code);
}

/**
 * The record's answers from DNS. A lookup that fails (timeout, server failure) counts as no
 * answer, and is logged: the record reads as not published yet and the next check asks again.
 * Any other error is not DNS's answer, and propagates.
 */
export async function lookUp(dns: DnsPort, record: Pick<DnsRecord, 'type' | 'name'>): Promise<string[]> {
  try {
    return await dns.resolve(record.name, record.type as DnsRecordType);
  } catch (error) {
    if (!isDnsFailure(error)) throw error;
    console.warn(
      JSON.stringify({
        level: 'warn',
        message: 'DNS lookup failed; the record counts as not published',
        name: record.name,
        type: record.type,
        code: (error as { code: string }).code,
      }),
    );
    return [];
  }
}

/**
 * The domain's status and records after a check: `identity` is what SES holds now (undefined when
 * the identity no longer exists) and `found` says, per record of `records`, whether DNS has it.
 */
export function evaluate(
  records: readonly DnsRecord[],
  identity: DomainIdentity | undefined,
  found: readonly boolean[],
): { status: DomainStatus; records: DnsRecord[] } {
  const status: DomainStatus = !identity
    ? 'FAILED'
    : identity.verifiedForSending
      ? 'VERIFIED'
      : identity.dkimStatus === 'FAILED'
        ? 'FAILED'
        : 'PENDING';
  const provider = (record: DnsRecord) =>
    record.purpose === 'DKIM'
      ? identity?.dkimStatus
      : record.purpose === 'MAIL_FROM_MX'
        ? identity?.mailFromStatus
        : undefined;
  return {
    status,
    records: records.map((record, i) => {
      const said = provider(record);
      const recordStatus: RecordStatus =
        found[i] || said === 'SUCCESS' ? 'VERIFIED' : said === 'FAILED' ? 'FAILED' : 'PENDING';
      return { ...record, status: recordStatus };
    }),
  };
}
