/**
 * Helpers for campaign tests: a fresh project with its own verified sender domain (so that an ALL
 * audience holds only the test's contacts), contacts written fast, and a campaign created, sent
 * and waited for through HTTP.
 */
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { getCampaignRun } from '../../../shared/campaigns/repository';
import { type ContactRecord, toItem } from '../../../shared/contacts/repository';
import { seedVerifiedDomain } from '../../../shared/domains/repository';
import { createProject } from '../../../shared/projects/repository';
import { keys } from '../../../shared/table';
import type { ApiOptions, ApiResponse, Json, LocalTestRuntime } from './local';

export interface CampaignProject {
  readonly projectId: string;
  readonly key: string;
  /** A sender address on the project's verified domain. */
  readonly from: string;
  api(method: string, path: string, options?: ApiOptions): Promise<ApiResponse>;
}

let projects = 0;

/** A new project with a verified sender domain of its own (`<tag>.campaigns.test`). */
export async function campaignProject(rt: LocalTestRuntime, tag = 'c'): Promise<CampaignProject> {
  const { project, secretKey } = await createProject(rt.deps, { name: `campaigns-${tag}` });
  const domain = `${tag}${++projects}.campaigns.test`;
  await seedVerifiedDomain(rt.deps, project.id, domain);
  return {
    projectId: project.id,
    key: secretKey,
    from: `news@${domain}`,
    api: (method, path, options = {}) => rt.api(method, path, { key: secretKey, ...options }),
  };
}

export interface SeedContact {
  readonly email: string;
  readonly subscribed?: boolean;
  readonly data?: Record<string, unknown>;
}

let seeded = 0;

/**
 * Writes contacts straight into the project (claim and contact item, as the repository writes
 * them, 25 a request), created a millisecond apart in the past; answers them in order.
 */
export async function seedProjectContacts(
  rt: LocalTestRuntime,
  projectId: string,
  contacts: readonly SeedContact[],
): Promise<ContactRecord[]> {
  const { db, tableName } = rt.runtime.dynamo;
  const base = rt.deps.clock.now().getTime() - 3_600_000;
  const records: ContactRecord[] = [];
  const items: Record<string, unknown>[] = [];
  for (const c of contacts) {
    const email = c.email.toLowerCase();
    const at = new Date(base + seeded++).toISOString();
    const record: ContactRecord = {
      id: randomUUID(),
      email,
      emailLower: email,
      subscribed: c.subscribed ?? true,
      snoozedUntil: null,
      data: (c.data ?? {}) as ContactRecord['data'],
      createdAt: at,
      updatedAt: at,
      version: 1,
    };
    records.push(record);
    items.push(
      { ...keys.emailClaim(projectId, email), entity: 'emailClaim', contactId: record.id, email },
      toItem(projectId, record),
    );
  }
  for (let i = 0; i < items.length; i += 25) {
    let pending = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (out.UnprocessedItems?.[tableName] ?? []) as typeof pending;
    }
  }
  return records;
}

/** A campaign body with the defaults of the tests (an ALL audience, MARKETING content). */
export const campaignBody = (from: string, extra: Record<string, unknown> = {}) => ({
  name: 'Spring news',
  subject: 'Hello {{name ?? there}}',
  body: '<p>Hi {{name ?? there}}, your plan is {{plan ?? none}}.</p>',
  from,
  audienceType: 'ALL',
  ...extra,
});

/** POST /campaigns answering 201; the campaign. */
export async function createCampaign(
  p: Pick<CampaignProject, 'api'>,
  body: Record<string, unknown>,
): Promise<Json> {
  const res = await p.api('POST', '/campaigns', { body });
  expect(res.status, res.text).toBe(201);
  expect(res.body.success).toBe(true);
  return res.body.data;
}

/** POST /campaigns/{id}/send now, then waits for the queue; the campaign as GET answers it then. */
export async function sendNow(rt: LocalTestRuntime, p: Pick<CampaignProject, 'api'>, id: string) {
  const res = await p.api('POST', `/campaigns/${id}/send`, { body: {} });
  expect(res.status, res.text).toBe(200);
  expect(res.body).toMatchObject({ success: true, data: { id, status: 'SENDING' } });
  await rt.drain({ timeoutMs: 60_000 });
  const got = await p.api('GET', `/campaigns/${id}`);
  expect(got.status).toBe(200);
  return got.body;
}

/** Messages the mail sink holds per recipient address (lower case). */
export async function mailCounts(rt: LocalTestRuntime): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const m of await rt.mails()) {
    for (const to of m.to) counts.set(to.toLowerCase(), (counts.get(to.toLowerCase()) ?? 0) + 1);
  }
  return counts;
}

/** The campaign's run as stored. */
export const campaignRun = (rt: LocalTestRuntime, projectId: string, campaignId: string) =>
  getCampaignRun(rt.deps, projectId, campaignId);

/** The most timestamps (ms) that fall in any one second (a sliding window). */
export function maxInAnySecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= 1000) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}
