/**
 * EmailIdentityPort for the local runtime, standing in for SES domain identities:
 *
 * - creating an identity gives three DKIM tokens shaped like SES's (32 characters of a-z and
 *   0-9), derived from the domain and the creation time;
 * - an identity is verified for sending once its three DKIM CNAMEs resolve, through the
 *   runtime's DNS port (the zone file when SESAME_DNS_FILE is set), to `<token>.dkim.amazonses.com`;
 *   the MAIL FROM status likewise follows its MX record;
 * - as on SES, a check still failing 72 hours after creation reports FAILED;
 * - `markVerified` stands for a domain verified outside (the seeded sender domain).
 *
 * With a data folder, identities are kept in `ses-identities.json` and survive a restart.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import {
  type Clock,
  type DnsPort,
  type DomainIdentity,
  type EmailIdentityPort,
  type IdentityCheckStatus,
  systemClock,
} from '../../ports';
import { normalizeName } from './dns';
import { readFileIfExists, writeFileAtomic } from './files';

export interface StoredIdentity {
  readonly domain: string;
  readonly tokens: readonly string[];
  readonly createdAt: string;
  readonly mailFromDomain?: string;
  /** Verified without DNS (see `markVerified`). */
  readonly verifiedOutside?: boolean;
}

export interface LocalEmailIdentitiesOptions {
  /** Answers the DKIM and MAIL FROM lookups. */
  readonly dns: DnsPort;
  /** Folder for `ses-identities.json`; in memory when undefined. */
  readonly dataDir?: string;
  /** @default systemClock */
  readonly clock?: Clock;
  /** Region named in the MAIL FROM MX host. @default 'us-east-1' */
  readonly region?: string;
}

const SIGNING_ZONE = 'dkim.amazonses.com';
/** SES stops looking for the DKIM records 72 hours after the identity is created. */
const GIVE_UP_MS = 72 * 3600 * 1000;
const TOKEN_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

export class LocalEmailIdentities implements EmailIdentityPort {
  private readonly identities = new Map<string, StoredIdentity>();
  private readonly dns: DnsPort;
  private readonly file: string | undefined;
  private readonly clock: Clock;
  private readonly region: string;

  constructor(options: LocalEmailIdentitiesOptions) {
    this.dns = options.dns;
    this.clock = options.clock ?? systemClock;
    this.region = options.region ?? 'us-east-1';
    this.file = options.dataDir ? join(options.dataDir, 'ses-identities.json') : undefined;
    const text = this.file ? readFileIfExists(this.file)?.toString('utf8') : undefined;
    for (const identity of text ? (JSON.parse(text) as StoredIdentity[]) : []) {
      this.identities.set(identity.domain, identity);
    }
  }

  async createDomainIdentity(domain: string): Promise<{ created: boolean; identity: DomainIdentity }> {
    const key = normalizeName(domain);
    const existing = this.identities.get(key);
    if (existing) return { created: false, identity: await this.toIdentity(existing) };
    const createdAt = this.clock.now().toISOString();
    const stored: StoredIdentity = { domain: key, tokens: dkimTokens(key, createdAt), createdAt };
    this.put(stored);
    // SES answers a new identity as pending without looking anything up.
    return { created: true, identity: await this.toIdentity(stored, { lookUp: false }) };
  }

  async setMailFromDomain(domain: string, mailFromDomain: string): Promise<void> {
    const existing = this.identities.get(normalizeName(domain));
    if (!existing) throw new Error(`Local SES: no identity ${domain}`);
    this.put({ ...existing, mailFromDomain: normalizeName(mailFromDomain) });
  }

  async getDomainIdentity(domain: string): Promise<DomainIdentity | undefined> {
    const stored = this.identities.get(normalizeName(domain));
    return stored ? this.toIdentity(stored) : undefined;
  }

  async deleteDomainIdentity(domain: string): Promise<void> {
    if (this.identities.delete(normalizeName(domain))) this.save();
  }

  /** Registers `domain` as an identity already verified (as one verified in the SES console). */
  markVerified(domain: string): void {
    const key = normalizeName(domain);
    const existing = this.identities.get(key);
    if (existing?.verifiedOutside) return;
    const createdAt = existing?.createdAt ?? this.clock.now().toISOString();
    this.put({
      ...(existing ?? { domain: key, tokens: dkimTokens(key, createdAt), createdAt }),
      verifiedOutside: true,
    });
  }

  /** Every identity, for inspection. */
  list(): StoredIdentity[] {
    return [...this.identities.values()];
  }

  private async toIdentity(stored: StoredIdentity, options = { lookUp: true }): Promise<DomainIdentity> {
    const dkimRecords = stored.tokens.map((token) => ({
      name: `${token}._domainkey.${stored.domain}`,
      value: `${token}.${SIGNING_ZONE}`,
    }));
    const mailFromMx = `10 feedback-smtp.${this.region}.amazonses.com`;
    const expired = this.clock.now().getTime() - Date.parse(stored.createdAt) > GIVE_UP_MS;
    const status = (found: boolean): IdentityCheckStatus =>
      found ? 'SUCCESS' : expired ? 'FAILED' : 'PENDING';

    const resolve = (name: string, type: 'CNAME' | 'MX') =>
      options.lookUp ? this.dns.resolve(name, type) : Promise.resolve([]);
    const cnames = await Promise.all(dkimRecords.map((r) => resolve(r.name, 'CNAME')));
    const dkimFound =
      stored.verifiedOutside === true ||
      dkimRecords.every((r, i) => cnames[i]!.some((answer) => normalizeName(answer) === r.value));
    let mailFromStatus: IdentityCheckStatus | undefined;
    if (stored.mailFromDomain) {
      const host = mailFromMx.split(' ')[1]!;
      const mx = await resolve(stored.mailFromDomain, 'MX');
      mailFromStatus = status(mx.some((answer) => normalizeName(answer.split(/\s+/)[1] ?? '') === host));
    }
    return {
      domain: stored.domain,
      verifiedForSending: dkimFound,
      dkimStatus: status(dkimFound),
      dkimRecords,
      mailFromDomain: stored.mailFromDomain,
      mailFromStatus,
      mailFromMx,
    };
  }

  private put(identity: StoredIdentity): void {
    this.identities.set(identity.domain, identity);
    this.save();
  }

  private save(): void {
    if (this.file) writeFileAtomic(this.file, `${JSON.stringify(this.list(), null, 2)}\n`);
  }
}

/** Three SES-shaped tokens (32 characters of a-z, 2-7), stable for a domain and creation time. */
function dkimTokens(domain: string, createdAt: string): string[] {
  return [0, 1, 2].map((i) => {
    const digest = createHash('sha256').update(`${domain}\n${createdAt}\n${i}`).digest();
    return Array.from(digest.subarray(0, 32), (byte) => TOKEN_ALPHABET[byte & 31]).join('');
  });
}
