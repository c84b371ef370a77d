/**
 * Sender domains of a project. A domain is usable for sending once its status is VERIFIED.
 * Record shape per decisions.md: id, projectId, domain, status, verified, records,
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
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  type PutCommandInput,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Deps } from '../ports';
import { keys } from '../table';

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

type StoreDeps = Pick<Deps, 'db' | 'tableName' | 'clock' | 'ids'>;

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
      ? {
          gsi1pk: keys.pendingDomainsIndex,
          gsi1sk: keys.pendingDomainSort(
            domain.lastCheckedAt ?? domain.createdAt,
            domain.projectId,
            domain.id,
          ),
        }
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

const isConditionFailure = (error: unknown) =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/** Runs a conditional write; false when its condition did not hold. */
async function conditional(run: () => Promise<unknown>): Promise<boolean> {
  try {
    await run();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

export async function getDomainByName(
  deps: StoreDeps,
  projectId: string,
  name: string,
): Promise<Domain | undefined> {
  const out = await deps.db.send(
    new GetCommand({
      TableName: deps.tableName,
      Key: keys.domain(projectId, name.toLowerCase()),
      ConsistentRead: true,
    }),
  );
  return out.Item ? fromItem(out.Item) : undefined;
}

/** The project's domain with that id; undefined for unknown ids and other projects' domains. */
export async function getDomainById(
  deps: StoreDeps,
  projectId: string,
  domainId: string,
): Promise<Domain | undefined> {
  const pointer = await deps.db.send(
    new GetCommand({
      TableName: deps.tableName,
      Key: keys.domainId(projectId, domainId),
      ConsistentRead: true,
    }),
  );
  const name = pointer.Item?.domain;
  if (typeof name !== 'string') return undefined;
  const domain = await getDomainByName(deps, projectId, name);
  // A pointer left by a crashed add, or by a domain since deleted and added again.
  return domain?.id === domainId ? domain : undefined;
}

/** Every domain of a project, oldest first. */
export async function listDomains(deps: StoreDeps, projectId: string): Promise<Domain[]> {
  const domains: Domain[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await deps.db.send(
      new QueryCommand({
        TableName: deps.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.projectPartition(projectId), ':prefix': keys.domainPrefix },
        // A domain just added or checked shows at once (a project has a handful: cheap).
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of out.Items ?? []) domains.push(fromItem(item));
    start = out.LastEvaluatedKey;
  } while (start);
  return domains.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.domain.localeCompare(b.domain));
}

/** Writes the pointer from the domain's id to its name (before the domain itself). */
export async function putDomainPointer(deps: StoreDeps, domain: Pick<Domain, 'projectId' | 'id' | 'domain'>) {
  await deps.db.send(
    new PutCommand({
      TableName: deps.tableName,
      Item: { ...keys.domainId(domain.projectId, domain.id), domain: domain.domain },
    }),
  );
}

/** Stores a new domain; false when the project already has one of that name. */
export function insertDomain(deps: StoreDeps, domain: Domain): Promise<boolean> {
  return conditional(() =>
    deps.db.send(
      new PutCommand({
        TableName: deps.tableName,
        Item: toItem(domain),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
}

/** Stores a checked domain; false when it was deleted (or replaced) meanwhile, which is not undone. */
export function saveDomain(deps: StoreDeps, domain: Domain): Promise<boolean> {
  return conditional(() =>
    deps.db.send(
      new PutCommand({
        TableName: deps.tableName,
        Item: toItem(domain),
        ConditionExpression: 'id = :id',
        ExpressionAttributeValues: { ':id': domain.id },
      }),
    ),
  );
}

/** Deletes the domain (only that id) and then its pointer; false when it was already gone. */
export async function deleteDomainItems(deps: StoreDeps, domain: Domain): Promise<boolean> {
  const deleted = await conditional(() =>
    deps.db.send(
      new DeleteCommand({
        TableName: deps.tableName,
        Key: keys.domain(domain.projectId, domain.domain),
        ConditionExpression: 'id = :id',
        ExpressionAttributeValues: { ':id': domain.id },
      }),
    ),
  );
  if (!deleted) return false;
  await releaseClaim(deps, domain.domain, domain.projectId);
  await deps.db.send(
    new DeleteCommand({ TableName: deps.tableName, Key: keys.domainId(domain.projectId, domain.id) }),
  );
  return true;
}

/**
 * Writes a domain as is, with its pointer (no claim, no condition): for seeding and tests that
 * need a domain in a given state.
 */
export async function putDomain(deps: StoreDeps, domain: Domain): Promise<void> {
  await putDomainPointer(deps, domain);
  await deps.db.send(new PutCommand({ TableName: deps.tableName, Item: toItem(domain) }));
}

export async function getClaim(deps: StoreDeps, name: string): Promise<DomainClaim | undefined> {
  const out = await deps.db.send(
    new GetCommand({ TableName: deps.tableName, Key: keys.domainClaim(name), ConsistentRead: true }),
  );
  if (!out.Item) return undefined;
  const { projectId, ownsIdentity, claimedAt } = out.Item;
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
  const input: PutCommandInput = {
    TableName: deps.tableName,
    Item: {
      ...keys.domainClaim(claim.name),
      projectId: claim.projectId,
      ownsIdentity: claim.ownsIdentity,
      claimedAt: claim.claimedAt,
    },
    ConditionExpression: replacing
      ? 'attribute_not_exists(pk) OR projectId = :me OR (projectId = :was AND claimedAt = :wasAt)'
      : 'attribute_not_exists(pk) OR projectId = :me',
    ExpressionAttributeValues: replacing
      ? { ':me': claim.projectId, ':was': replacing.projectId, ':wasAt': replacing.claimedAt }
      : { ':me': claim.projectId },
  };
  return conditional(() => deps.db.send(new PutCommand(input)));
}

/** Releases the project's claim of a name (a claim held by another project is left alone). */
export async function releaseClaim(deps: StoreDeps, name: string, projectId: string): Promise<void> {
  await conditional(() =>
    deps.db.send(
      new DeleteCommand({
        TableName: deps.tableName,
        Key: keys.domainClaim(name),
        ConditionExpression: 'projectId = :me',
        ExpressionAttributeValues: { ':me': projectId },
      }),
    ),
  );
}

/** One page of pending domains across projects, least recently checked first. */
export async function listPendingDomains(
  deps: StoreDeps,
  options: { limit: number; start?: Record<string, unknown> },
): Promise<{ domains: Domain[]; next: Record<string, unknown> | undefined }> {
  const out = await deps.db.send(
    new QueryCommand({
      TableName: deps.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pending',
      ExpressionAttributeValues: { ':pending': keys.pendingDomainsIndex },
      Limit: options.limit,
      ExclusiveStartKey: options.start,
    }),
  );
  return { domains: (out.Items ?? []).map(fromItem), next: out.LastEvaluatedKey };
}

/**
 * A domain already verified, as the local runtime seeds it (no DNS work needed). Claims the name
 * for the project when no other project holds it.
 */
export async function seedVerifiedDomain(deps: StoreDeps, projectId: string, name: string): Promise<Domain> {
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
