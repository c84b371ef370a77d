/**
 * Sender-domain use cases: add (register the SES identity, answer the DNS records, optionally
 * publish them in the account's hosted zone), list, check (forced or in the background) and
 * delete.
 */
import { conflict, notFound } from '../errors';
import type { Deps, HostedZone } from '../ports';
import { answersMatch, evaluate, expectedRecords, lookUp, mailFromDomainOf } from './records';
import {
  type DnsRecord,
  type Domain,
  deleteDomainItems,
  getClaim,
  getDomainById,
  getDomainByName,
  insertDomain,
  listDomains,
  listPendingDomains,
  putClaim,
  putDomainPointer,
  saveDomain,
} from './repository';

/**
 * A claim older than this whose project holds no domain of that name was left by an add that
 * crashed (no request runs longer than API Gateway's 29 seconds): another project may take it.
 */
const STALE_CLAIM_MS = 60_000;

export interface DnsSetupRecord {
  readonly type: DnsRecord['type'];
  readonly name: string;
  readonly purpose: DnsRecord['purpose'];
}

/** What `createRecords` did, returned with the new domain. */
export interface DnsSetup {
  readonly requested: boolean;
  readonly hostedZone: HostedZone | null;
  readonly created: readonly DnsSetupRecord[];
  readonly skipped: readonly (DnsSetupRecord & { readonly reason: string })[];
  readonly message: string;
}

export async function addDomain(
  deps: Deps,
  projectId: string,
  input: { domain: string; createRecords: boolean; projectId?: string },
): Promise<{ domain: Domain; dnsSetup: DnsSetup }> {
  // A body naming another project is refused as if that project did not exist.
  if (input.projectId !== undefined && input.projectId !== projectId) throw notFound('Project');
  const name = input.domain;
  const alreadyAdded = () =>
    conflict('DOMAIN_ALREADY_ADDED', `${name} is already a sender domain of this project`, { domain: name });
  if (await getDomainByName(deps, projectId, name)) throw alreadyAdded();

  const now = deps.clock.now();
  const claim = await getClaim(deps, name);
  if (claim && claim.projectId !== projectId && !(await isStale(deps, claim, now))) throw inUse(name);
  // Whether Sesame creates the identity decides whether deleting the domain deletes it: an
  // identity the account already had (verified in the SES console, say) is used, never removed.
  // A claim left by an earlier attempt knows whether that attempt created it.
  const existing = await deps.emailIdentities.getDomainIdentity(name);
  const ownsIdentity = existing ? (claim?.ownsIdentity ?? false) : true;
  const claimed = await putClaim(
    deps,
    { name, projectId, ownsIdentity, claimedAt: now.toISOString() },
    claim && claim.projectId !== projectId ? claim : undefined,
  );
  if (!claimed) throw inUse(name);

  const id = deps.ids.uuid();
  await putDomainPointer(deps, { projectId, id, domain: name });
  let { identity } = await deps.emailIdentities.createDomainIdentity(name);
  if (ownsIdentity || !identity.mailFromDomain) {
    await deps.emailIdentities.setMailFromDomain(name, mailFromDomainOf(name));
    identity = { ...identity, mailFromDomain: mailFromDomainOf(name) };
  }

  // Not looked up yet: records are pending unless SES already confirms them (an identity the
  // account had verified before).
  const initial = expectedRecords(name, identity);
  const { status, records } = evaluate(
    initial,
    identity,
    initial.map(() => false),
  );
  const domain: Domain = {
    id,
    projectId,
    domain: name,
    status,
    verified: status === 'VERIFIED',
    records,
    lastCheckedAt: null,
    verifiedAt: status === 'VERIFIED' ? now.toISOString() : null,
    createdAt: now.toISOString(),
    ownsIdentity,
  };
  // A concurrent add of the same name by this project got here first.
  if (!(await insertDomain(deps, domain))) throw alreadyAdded();

  const dnsSetup = input.createRecords ? await publishRecords(deps, domain) : notRequested;
  return { domain, dnsSetup };
}

const inUse = (name: string) =>
  conflict('DOMAIN_IN_USE', `${name} is a sender domain of another project of this deployment`, {
    domain: name,
  });

async function isStale(deps: Deps, claim: { projectId: string; name: string; claimedAt: string }, now: Date) {
  if (now.getTime() - Date.parse(claim.claimedAt) < STALE_CLAIM_MS) return false;
  return !(await getDomainByName(deps, claim.projectId, claim.name));
}

const notRequested: DnsSetup = {
  requested: false,
  hostedZone: null,
  created: [],
  skipped: [],
  message: 'Add the records at your DNS provider, then check the domain with GET /domains/{id}/verify',
};

/**
 * Publishes the domain's records in the account's hosted zone for it. A record set that already
 * answers with other values is left alone (replacing it could break mail or a stricter DMARC
 * policy) and reported. The domain is added whatever happens here, so failures are reported in
 * the answer rather than thrown.
 */
async function publishRecords(deps: Deps, domain: Domain): Promise<DnsSetup> {
  let zone: HostedZone | undefined;
  try {
    zone = await deps.dnsZones.findZone(domain.domain);
  } catch (error) {
    return setupFailed(domain, null, error);
  }
  if (!zone) {
    return {
      ...notRequested,
      requested: true,
      message: `No public hosted zone for ${domain.domain} in this account: add the records at your DNS provider`,
    };
  }
  const created: DnsSetupRecord[] = [];
  const skipped: (DnsSetupRecord & { reason: string })[] = [];
  for (const record of domain.records) {
    const answers = await lookUp(deps.dns, record);
    const entry = { type: record.type, name: record.name, purpose: record.purpose };
    if (answersMatch(record, answers)) skipped.push({ ...entry, reason: 'already published' });
    else if (answers.length > 0)
      skipped.push({ ...entry, reason: `exists with other values: ${answers.join(' | ')}` });
    else created.push(entry);
  }
  try {
    await deps.dnsZones.upsertRecords(
      zone,
      domain.records.filter((r) => created.some((c) => c.name === r.name && c.type === r.type)),
    );
  } catch (error) {
    return setupFailed(domain, zone, error);
  }
  return {
    requested: true,
    hostedZone: zone,
    created,
    skipped,
    message:
      skipped.length === 0
        ? `Created ${created.length} records in the hosted zone ${zone.name}`
        : `Created ${created.length} records in the hosted zone ${zone.name}; ${skipped.length} left as they were`,
  };
}

function setupFailed(domain: Domain, zone: HostedZone | null, error: unknown): DnsSetup {
  const reason = error instanceof Error ? error.message : String(error);
  console.error(
    JSON.stringify({
      level: 'error',
      message: 'Publishing sender domain records failed',
      domain: domain.domain,
      error: reason,
    }),
  );
  return {
    requested: true,
    hostedZone: zone,
    created: [],
    skipped: [],
    message: `The records could not be created (${reason}): add them at your DNS provider`,
  };
}

/** The domains of the project named in the path, which must be the key's project. */
export async function listProjectDomains(deps: Deps, projectId: string, pathProjectId: string) {
  // Another project's domains are not found rather than forbidden: ids of other projects are
  // not confirmed to exist.
  if (pathProjectId !== projectId) throw notFound('Project');
  return listDomains(deps, projectId);
}

/** Forced check (`GET /domains/{id}/verify`). */
export async function verifyDomain(deps: Deps, projectId: string, domainId: string): Promise<Domain> {
  const domain = await getDomainById(deps, projectId, domainId);
  if (!domain) throw notFound('Domain');
  const checked = await checkDomain(deps, domain);
  if (!checked) throw notFound('Domain');
  return checked;
}

/**
 * Checks one domain against SES and DNS and stores the outcome; undefined when the domain was
 * deleted meanwhile (nothing is written back).
 */
export async function checkDomain(deps: Deps, domain: Domain): Promise<Domain | undefined> {
  const identity = await deps.emailIdentities.getDomainIdentity(domain.domain);
  // SES's view of the records wins (tokens can change when DKIM keys rotate); without an
  // identity, the records last known are checked.
  const records = identity ? expectedRecords(domain.domain, identity) : [...domain.records];
  const found = await Promise.all(
    records.map(async (record) => answersMatch(record, await lookUp(deps.dns, record))),
  );
  const { status, records: checkedRecords } = evaluate(records, identity, found);
  const now = deps.clock.now().toISOString();
  const verified = status === 'VERIFIED';
  const next: Domain = {
    ...domain,
    status,
    verified,
    records: checkedRecords,
    lastCheckedAt: now,
    verifiedAt: verified ? (domain.verified && domain.verifiedAt ? domain.verifiedAt : now) : null,
  };
  return (await saveDomain(deps, next)) ? next : undefined;
}

/** `DELETE /domains/{id}`: the SES identity first (if Sesame made it), so a retry can finish. */
export async function removeDomain(deps: Deps, projectId: string, domainId: string): Promise<void> {
  const domain = await getDomainById(deps, projectId, domainId);
  if (!domain) throw notFound('Domain');
  if (domain.ownsIdentity) await deps.emailIdentities.deleteDomainIdentity(domain.domain);
  if (!(await deleteDomainItems(deps, domain))) throw notFound('Domain');
}

export interface PendingCheckSummary {
  checked: number;
  verified: number;
  failed: number;
  pending: number;
  errors: number;
  /** Stopped for lack of time; the rest (checked least recently) come first next run. */
  incomplete: boolean;
}

/**
 * The five-minute background check: every PENDING domain of every project, read from the sparse
 * pending index (no Scan), least recently checked first, a few at a time. It stops starting
 * checks when `hasTime()` says so; one domain's failure does not stop the others.
 */
export async function checkPendingDomains(
  deps: Deps,
  options: { hasTime?: () => boolean; concurrency?: number } = {},
): Promise<PendingCheckSummary> {
  const hasTime = options.hasTime ?? (() => true);
  const concurrency = options.concurrency ?? 2;
  const summary: PendingCheckSummary = {
    checked: 0,
    verified: 0,
    failed: 0,
    pending: 0,
    errors: 0,
    incomplete: false,
  };
  // Collect first: checked domains leave or move within the index while we page through it.
  const queue: Domain[] = [];
  let cursor: string | undefined;
  do {
    const page = await listPendingDomains(deps, { limit: 100, cursor });
    queue.push(...page.domains);
    cursor = page.cursor;
  } while (cursor);

  const worker = async () => {
    for (let domain = queue.shift(); domain; domain = queue.shift()) {
      if (!hasTime()) {
        summary.incomplete = true;
        return;
      }
      try {
        const checked = await checkDomain(deps, domain);
        if (!checked) continue;
        summary.checked++;
        if (checked.status === 'VERIFIED') summary.verified++;
        else if (checked.status === 'FAILED') summary.failed++;
        else summary.pending++;
      } catch (error) {
        summary.errors++;
        console.error(
          JSON.stringify({
            level: 'error',
            message: 'Sender domain check failed',
            projectId: domain.projectId,
            domain: domain.domain,
            error: error instanceof Error ? error.message : String(error),
          }),
        );
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return summary;
}
