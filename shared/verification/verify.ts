/**
 * Email verification (`POST /v1/verify`, docs/events.md): syntax, domain lists
 * (disposable, personal provider, alias service), typo suggestion, plus-addressing, and DNS
 * (NS, MX, A, AAAA looked up in parallel, each with a short timeout).
 *
 * `valid` needs correct syntax, an existing domain and at least one usable MX record. The list
 * flags and the typo flag inform (they add reasons) but never make an address invalid.
 */
import { run as spellCheck } from '@zootools/email-spell-checker';
import type { DnsPort, DnsRecordType } from '../ports';
import { ALIAS_DOMAINS, DISPOSABLE_DOMAINS, inList, PERSONAL_DOMAINS, SPELLING_DOMAINS, TLDS } from './lists';

/** The `data` of a verification result. */
export interface VerificationResult {
  readonly email: string;
  readonly valid: boolean;
  readonly isDisposable: boolean;
  readonly isAlias: boolean;
  readonly isTypo: boolean;
  readonly isPlusAddressed: boolean;
  readonly isPersonalEmail: boolean;
  readonly domainExists: boolean;
  readonly hasWebsite: boolean;
  readonly hasMxRecords: boolean;
  readonly suggestedEmail?: string;
  readonly reasons: string[];
}

/** What the address alone says, without DNS. */
export interface AddressFacts {
  readonly local: string;
  /** Lower-cased. */
  readonly domain: string;
  /** Empty when the syntax is correct. */
  readonly syntaxProblems: string[];
  readonly isDisposable: boolean;
  readonly isAlias: boolean;
  readonly isPersonalEmail: boolean;
  readonly isPlusAddressed: boolean;
  readonly suggestedEmail?: string;
}

/** What DNS says about the domain. */
export interface DomainFacts {
  readonly domainExists: boolean;
  readonly hasWebsite: boolean;
  readonly hasMxRecords: boolean;
  /** The domain publishes a null MX (RFC 7505): it accepts no mail at all. */
  readonly nullMx: boolean;
  /** Record types whose lookup failed or timed out (their answer is unknown, counted as none). */
  readonly failed: readonly DnsRecordType[];
}

const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const DOT_ATOM = new RegExp(`^${ATOM}(\\.${ATOM})*$`);
const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** RFC 5321/5322 limits for a dot-atom address (quoted local parts and IP literals are not accepted). */
export function syntaxProblems(email: string): { local: string; domain: string; problems: string[] } {
  const problems: string[] = [];
  const at = email.lastIndexOf('@');
  const local = at < 0 ? '' : email.slice(0, at);
  const domain = at < 0 ? '' : email.slice(at + 1).toLowerCase();
  if (at < 0) return { local, domain, problems: ['the address has no @'] };
  if (email.length > 254) problems.push('the address is longer than 254 characters');
  if (local.length === 0) problems.push('the local part (before @) is empty');
  else if (local.length > 64) problems.push('the local part (before @) is longer than 64 characters');
  if (local.length > 0 && !DOT_ATOM.test(local))
    problems.push('the local part (before @) has characters or dots where none may be');
  const labels = domain.split('.');
  if (domain.length > 253) problems.push('the domain is longer than 253 characters');
  if (labels.length < 2) problems.push('the domain has no top-level domain');
  if (labels.some((l) => l.length === 0 || l.length > 63))
    problems.push('a domain label is empty or longer than 63 characters');
  else if (!labels.every((l) => LABEL.test(l)))
    problems.push('a domain label has characters other than letters, digits and inner hyphens');
  else if (/^\d+$/.test(labels[labels.length - 1]!)) problems.push('the top-level domain is numeric');
  return { local, domain, problems };
}

/**
 * A corrected address when the domain looks like a misspelling of a well-known one. Real
 * providers and alias services are never "corrected" (hanmail.net is not a typo of hotmail.net);
 * disposable domains may be, since typo domains (gmial.com) are listed as disposable. A
 * correction of an unknown domain's TLD (acme.cmo) is kept only when its TLD does not exist.
 */
export function suggestCorrection(local: string, domain: string): string | undefined {
  if (PERSONAL_DOMAINS.has(domain) || inList(ALIAS_DOMAINS, domain)) return undefined;
  if (SPELLING_DOMAINS.includes(domain)) return undefined;
  const suggestion = spellCheck({ email: `${local}@${domain}`, domains: [...SPELLING_DOMAINS] });
  const corrected = suggestion?.domain.toLowerCase();
  if (!corrected || corrected === domain) return undefined;
  const known = SPELLING_DOMAINS.includes(corrected) || PERSONAL_DOMAINS.has(corrected);
  const tld = domain.slice(domain.lastIndexOf('.') + 1);
  if (known || !TLDS.has(tld)) return `${local}@${corrected}`;
  return undefined;
}

/** Everything the address itself tells, without network. */
export function classifyAddress(email: string): AddressFacts {
  const { local, domain, problems } = syntaxProblems(email);
  const hasDomain = domain.length > 0;
  return {
    local,
    domain,
    syntaxProblems: problems,
    isDisposable: hasDomain && inList(DISPOSABLE_DOMAINS, domain),
    isAlias: hasDomain && inList(ALIAS_DOMAINS, domain),
    isPersonalEmail: hasDomain && PERSONAL_DOMAINS.has(domain),
    isPlusAddressed: local.includes('+'),
    ...(problems.length === 0 ? optional('suggestedEmail', suggestCorrection(local, domain)) : {}),
  };
}

const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

export interface DnsOptions {
  /** Per lookup; a slow name server must not hold the request. @default 2500 */
  readonly timeoutMs?: number;
}

type Lookup = { records: string[]; failed: boolean };

async function lookup(dns: DnsPort, name: string, type: DnsRecordType, timeoutMs: number): Promise<Lookup> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Lookup>((resolve) => {
    timer = setTimeout(() => resolve({ records: [], failed: true }), timeoutMs);
  });
  try {
    return await Promise.race([
      dns.resolve(name, type).then(
        (records) => ({ records, failed: false }),
        () => ({ records: [], failed: true }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** NS, MX, A and AAAA of the domain, in parallel. */
export async function lookupDomain(
  dns: DnsPort,
  domain: string,
  options: DnsOptions = {},
): Promise<DomainFacts> {
  const timeoutMs = options.timeoutMs ?? 2500;
  const types = ['NS', 'MX', 'A', 'AAAA'] as const;
  const [ns, mx, a, aaaa] = await Promise.all(types.map((t) => lookup(dns, domain, t, timeoutMs)));
  // MX answers are "<priority> <exchange>"; a null MX has the exchange "." (or empty).
  const exchanges = mx!.records.map((r) => r.trim().split(/\s+/)[1]?.replace(/\.$/, '') ?? '');
  const usable = exchanges.filter((e) => e !== '');
  const hasWebsite = a!.records.length > 0 || aaaa!.records.length > 0;
  return {
    // A subdomain has no NS records of its own, yet exists when it answers anything else.
    domainExists: ns!.records.length > 0 || mx!.records.length > 0 || hasWebsite,
    hasWebsite,
    hasMxRecords: usable.length > 0,
    nullMx: exchanges.length > 0 && usable.length === 0,
    failed: types.filter((_, i) => [ns, mx, a, aaaa][i]!.failed),
  };
}

const NO_DNS: DomainFacts = {
  domainExists: false,
  hasWebsite: false,
  hasMxRecords: false,
  nullMx: false,
  failed: [],
};

/** Puts the address and DNS facts together into the result, with its reasons. */
export function combine(email: string, address: AddressFacts, dns: DomainFacts): VerificationResult {
  const reasons: string[] = [];
  const syntaxOk = address.syntaxProblems.length === 0;
  for (const problem of address.syntaxProblems) reasons.push(`Invalid syntax: ${problem}`);
  if (syntaxOk) {
    const failed = (t: DnsRecordType) => dns.failed.includes(t);
    if (!dns.domainExists) {
      reasons.push(
        dns.failed.length > 0
          ? `The domain ${address.domain} could not be checked: DNS lookup failed or timed out (${dns.failed.join(', ')})`
          : `The domain ${address.domain} does not exist (no DNS records)`,
      );
    } else if (!dns.hasMxRecords) {
      if (dns.nullMx) reasons.push(`The domain ${address.domain} accepts no email (null MX record)`);
      else if (failed('MX')) reasons.push(`The MX lookup for ${address.domain} failed or timed out`);
      else reasons.push(`The domain ${address.domain} has no MX records, so it cannot receive email`);
    }
  }
  if (address.isDisposable) reasons.push('Disposable or temporary email domain');
  if (address.isAlias) reasons.push('Email forwarding or alias service');
  if (address.suggestedEmail) reasons.push(`Possible typo: did you mean ${address.suggestedEmail}?`);
  if (address.isPlusAddressed) reasons.push('Plus-addressed (sub-address) local part');
  if (address.isPersonalEmail) reasons.push('Free or personal email provider');
  return {
    email,
    valid: syntaxOk && dns.domainExists && dns.hasMxRecords,
    isDisposable: address.isDisposable,
    isAlias: address.isAlias,
    isTypo: address.suggestedEmail !== undefined,
    isPlusAddressed: address.isPlusAddressed,
    isPersonalEmail: address.isPersonalEmail,
    domainExists: dns.domainExists,
    hasWebsite: dns.hasWebsite,
    hasMxRecords: dns.hasMxRecords,
    ...optional('suggestedEmail', address.suggestedEmail),
    reasons,
  };
}

export async function verifyEmail(
  deps: { readonly dns: DnsPort },
  rawEmail: string,
  options: DnsOptions = {},
): Promise<VerificationResult> {
  const email = rawEmail.trim();
  const address = classifyAddress(email);
  // No lookups for a malformed domain: its answer would mean nothing.
  const dns =
    address.syntaxProblems.length === 0 ? await lookupDomain(deps.dns, address.domain, options) : NO_DNS;
  return combine(email, address, dns);
}
