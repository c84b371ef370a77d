/**
 * Sender domains of a project. A domain is usable for sending once its status is VERIFIED.
 * Record shape per decisions.md: id, projectId, domain, status, verified, records,
 * lastCheckedAt, verifiedAt, createdAt.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '../ports';
import { keys } from '../table';

export type DomainStatus = 'PENDING' | 'VERIFIED' | 'FAILED';

export interface DnsRecord {
  readonly type: 'CNAME' | 'MX' | 'TXT';
  readonly name: string;
  readonly value: string;
  readonly purpose: 'DKIM' | 'MAIL_FROM_MX' | 'MAIL_FROM_SPF' | 'DMARC';
  readonly status: 'PENDING' | 'VERIFIED';
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
}

type StoreDeps = Pick<Deps, 'db' | 'tableName' | 'clock' | 'ids'>;

export async function putDomain(deps: StoreDeps, domain: Domain): Promise<void> {
  await deps.db.send(
    new PutCommand({
      TableName: deps.tableName,
      Item: { ...keys.domain(domain.projectId, domain.domain), ...domain },
    }),
  );
}

export async function getDomainByName(
  deps: StoreDeps,
  projectId: string,
  name: string,
): Promise<Domain | undefined> {
  const out = await deps.db.send(
    new GetCommand({ TableName: deps.tableName, Key: keys.domain(projectId, name.toLowerCase()) }),
  );
  if (!out.Item) return undefined;
  const { pk: _pk, sk: _sk, ...domain } = out.Item;
  return domain as Domain;
}

/** A domain already verified, as the local runtime seeds it (no DNS work needed). */
export async function seedVerifiedDomain(deps: StoreDeps, projectId: string, name: string): Promise<Domain> {
  const existing = await getDomainByName(deps, projectId, name);
  if (existing?.verified) return existing;
  const now = deps.clock.now().toISOString();
  const domain: Domain = {
    id: existing?.id ?? deps.ids.uuid(),
    projectId,
    domain: name.toLowerCase(),
    status: 'VERIFIED',
    verified: true,
    records: [],
    lastCheckedAt: now,
    verifiedAt: now,
    createdAt: existing?.createdAt ?? now,
  };
  await putDomain(deps, domain);
  return domain;
}
