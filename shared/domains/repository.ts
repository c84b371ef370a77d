/**
 * Sender domains of a project. A domain is usable for sending once its status is VERIFIED.
 * Record shape (docs/domains.md): id, projectId, domain, status, verified, records,
 * lastCheckedAt, verifiedAt, createdAt.
 *
 * Items (see shared/table.ts):
 * - the domain, by name in the project partition; while PENDING it also carries the sparse
 *   pending-index keys, so the background check finds pending domains without a Scan;
 * - a pointer by id (holds the name), for the routes that take an id;
 * - the deployment-wide claim of the name, because the SES identity behind it is account-wide.
 *
 * Writes are ordered so that a crash leaves only items that reads ignore or the next write
 * repairs: a pointer whose domain is missing (or has another id) answers 404; a claim whose
 * project holds no domain of that name is stale once older than any request can run.
 */
import type { Deps } from '../ports';
import type { StoreDeps } from '../store/store';
import { indexEntry, keys } from '../table';

export type DomainStatus = 'PENDING' | 'VERIFIED' | 'FAILED';
export type RecordPurpose = 'DKIM' | 'MAIL_FROM_MX' | 'MAIL_FROM_SPF' | 'DMARC';
export type RecordStatus = 'PENDING' | 'VERIFIED' | 'FAILED';

export interface DnsRecord {
  readonly type: 'CNAME' | 'MX' | 'TXT';
  readonly name: string;
  readonly value: string;
  readonly purpose: RecordPurpose;
  readonly status: RecordStatus;
}

export interface Domain {
  readonly id: string;
  readonly projectId: string;
  readonly domain: string;
  readonly status: DomainStatus;
  readonly verified: boolean;
  readonly records: readonly DnsRecord[];
  readonly lastCheckedAt: string | null;
  readonly verifiedAt: string | null;
  readonly createdAt: string;
  /**
   * Sesame created the SES identity (rather than finding one the account already had), so
   * deleting the domain deletes the identity. Not part of the API record.
   */
  readonly ownsIdentity?: boolean;
}

/** The deployment-wide claim of a domain name by one project. */
export interface DomainClaim {
  readonly name: string;
  readonly projectId: string;
  readonly ownsIdentity: boolean;
  readonly claimedAt: string;
}

const FIELDS = [
  'id',
  'projectId',
  'domain',
  'status',
  'verified',
  'records',
  'lastCheckedAt',
  'verifiedAt',
  'createdAt',
  'ownsIdentity',
] as const;

function toItem(domain: Domain): Record<string, unknown> {
  const pending =
    domain.status === 'PENDING'
      ? indexEntry(
          'pendingDomains',
          keys.pendingDomainsIndex,
          keys.pendingDomainSort(domain.lastCheckedAt ?? domain.createdAt, domain.projectId, domain.id),
        )
      : {};
  return {
    ...keys.domain(domain.projectId, domain.domain),
    ...pending,
    ...present(domain),
    ownsIdentity: domain.ownsIdentity === true,
  };
}

function fromItem(item: Record<string, unknown>): Domain {
  const out: Record<string, unknown> = {};
  for (const field of FIELDS) if (item[field] !== undefined) out[field] = item[field];
  return out as unknown as Domain;
}

/** The API's domain record (internal fields left out). */
export function present(domain: Domain) {
  return {
    id: domain.id,
    projectId: domain.projectId,
    domain: domain.domain,
    status: domain.status,
    verified: domain.verified,
    records: domain.records,
    lastCheckedAt: domain.lastCheckedAt,
    verifiedAt: domain.verifiedAt,
    createdAt: domain.createdAt,
  };
}

export async function getDomainByName(
  deps: StoreDeps,
  projectId: string,
  name: string,
): Promise<Domain | undefined> {
  const item = await deps.store.get(keys.domain(projectId, name.toLowerCase()), { consistent: true });
  return item ? fromItem(item) : undefined;
}

/** The project's domain with that id; undefined for unknown ids and other projects' domains. */
export async function getDomainById(
  deps: StoreDeps,
  projectId: string,
  domainId: string,
): Promise<Domain | undefined> {
  const pointer = await deps.store.get(keys.domainId(projectId, domainId), { consistent: true });
  const name = pointer?.domain;
  if (typeof name !== 'string') return undefined;
  const domain = await getDomainByName(deps, projectId, name);
  // A pointer left by a crashed add, or by a domain since deleted and added again.
  return domain?.id === domainId ? domain : undefined;
}

/** Every domain of a project, oldest first. */
export async function listDomains(deps: StoreDeps, projectId: string): Promise<Domain[]> {
  const domains: Domain[] = [];
  for await (const item of deps.store.queryAll({
    partition: keys.projectPartition(projectId),
    sort: { beginsWith: keys.domainPrefix },
    // A domain just added or checked shows at once (a project has a handful: cheap).
    consistent: true,
  })) {
    domains.push(fromItem(item));
  }
  return domains.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.domain.localeCompare(b.domain));
}

/** Writes the pointer from the domain's id to its name (before the domain itself). */
export async function putDomainPointer(deps: StoreDeps, domain: Pick<Domain, 'projectId' | 'id' | 'domain'>) {
  await deps.store.write({
    put: { ...keys.domainId(domain.projectId, domain.id), domain: domain.domain },
  });
}

/** Stores a new domain; false when the project already has one of that name. */
export function insertDomain(deps: StoreDeps, domain: Domain): Promise<boolean> {
  return deps.store.writeIf({ put: toItem(domain), if: 'attribute_not_exists(pk)' });
}

/** Stores a checked domain; false when it was deleted (or replaced) meanwhile, which is not undone. */
export function saveDomain(deps: StoreDeps, domain: Domain): Promise<boolean> {
  return deps.store.writeIf({ put: toItem(domain), if: 'id = :id', values: { ':id': domain.id } });
}

/** Deletes the domain (only that id) and then its pointer; false when it was already gone. */
export async function deleteDomainItems(deps: StoreDeps, domain: Domain): Promise<boolean> {
  const deleted = await deps.store.writeIf({
    delete: keys.domain(domain.projectId, domain.domain),
    if: 'id = :id',
    values: { ':id': domain.id },
  });
  if (!deleted) return false;
  await releaseClaim(deps, domain.domain, domain.projectId);
  await deps.store.write({ delete: keys.domainId(domain.projectId, domain.id) });
  return true;
}

/**
 * Writes a domain as is, with its pointer (no claim, no condition): for seeding and tests that
 * need a domain in a given state.
 */
export async function putDomain(deps: StoreDeps, domain: Domain): Promise<void> {
  await putDomainPointer(deps, domain);
  await deps.store.write({ put: toItem(domain) });
}

export async function getClaim(deps: StoreDeps, name: string): Promise<DomainClaim | undefined> {
  const item = await deps.store.get(keys.domainClaim(name), { consistent: true });
  if (!item) return undefined;
  const { projectId, ownsIdentity, claimedAt } = item;
  return {
    name,
    projectId: String(projectId),
    ownsIdentity: ownsIdentity === true,
    claimedAt: String(claimedAt),
  };
}

/**
 * Claims `claim.name` for `claim.projectId`. It succeeds when the name is free, already held by
 * the same project, or still held exactly as `replacing` says (a stale claim being taken over);
 * false otherwise.
 */
export function putClaim(deps: StoreDeps, claim: DomainClaim, replacing?: DomainClaim): Promise<boolean> {
  return deps.store.writeIf({
    put: {
      ...keys.domainClaim(claim.name),
      projectId: claim.projectId,
      ownsIdentity: claim.ownsIdentity,
      claimedAt: claim.claimedAt,
    },
    if: replacing
      ? 'attribute_not_exists(pk) OR projectId = :me OR (projectId = :was AND claimedAt = :wasAt)'
      : 'attribute_not_exists(pk) OR projectId = :me',
    values: replacing
      ? { ':me': claim.projectId, ':was': replacing.projectId, ':wasAt': replacing.claimedAt }
      : { ':me': claim.projectId },
  });
}

/** Releases the project's claim of a name (a claim held by another project is left alone). */
export async function releaseClaim(deps: StoreDeps, name: string, projectId: string): Promise<void> {
  await deps.store.writeIf({
    delete: keys.domainClaim(name),
    if: 'projectId = :me',
    values: { ':me': projectId },
  });
}

/**
 * The project that receives mail addressed to `domain` (shared/inbound): the one holding the
 * nearest sender domain, `domain` itself or its closest parent (`reply.acme.io`, then `acme.io`),
 * provided it is verified there. Names are claimed deployment-wide (one project per name), so the
 * answer is never ambiguous; a claim whose project holds no domain of that name (left by a crashed
 * add or delete) counts as no claim. Undefined when no project's domain covers it, or when the
 * nearest one is not verified: mail never reaches a project that has not proved it controls the
 * domain's DNS. One consistent read per name tried, and one more for the domain found.
 */
export async function receivingProject(
  deps: StoreDeps,
  domain: string,
): Promise<{ projectId: string; domain: string } | undefined> {
  const labels = domain.trim().toLowerCase().replace(/\.$/, '').split('.');
  // Down to two labels: a top-level domain is never a sender domain.
  for (let i = 0; i < labels.length - 1; i++) {
    const name = labels.slice(i).join('.');
    const claim = await getClaim(deps, name);
    if (!claim) continue;
    const held = await getDomainByName(deps, claim.projectId, name);
    if (!held) continue;
    return held.verified ? { projectId: claim.projectId, domain: name } : undefined;
  }
  return undefined;
}

/** One request's worth of pending domains across projects, least recently checked first. */
export async function listPendingDomains(
  deps: StoreDeps,
  options: { limit: number; cursor?: string },
): Promise<{ domains: Domain[]; cursor: string }> {
  const out = await deps.store.query(
    { index: 'pendingDomains', partition: keys.pendingDomainsIndex },
    { limit: options.limit, cursor: options.cursor },
  );
  return { domains: out.items.map(fromItem), cursor: out.cursor };
}

/**
 * A domain already verified, as the local runtime seeds it (no DNS work needed). Claims the name
 * for the project when no other project holds it.
 */
export async function seedVerifiedDomain(
  deps: StoreDeps & Pick<Deps, 'clock' | 'ids'>,
  projectId: string,
  name: string,
): Promise<Domain> {
  const existing = await getDomainByName(deps, projectId, name);
  const now = deps.clock.now().toISOString();
  const domain: Domain = existing?.verified
    ? existing
    : {
        id: existing?.id ?? deps.ids.uuid(),
        projectId,
        domain: name.toLowerCase(),
        status: 'VERIFIED',
        verified: true,
        records: existing?.records ?? [],
        lastCheckedAt: now,
        verifiedAt: now,
        createdAt: existing?.createdAt ?? now,
        ownsIdentity: false,
      };
  await putClaim(deps, { name: domain.domain, projectId, ownsIdentity: false, claimedAt: now });
  await putDomain(deps, domain);
  return domain;
}
