/**
 * Helpers for tests of the contact counters (shared/contacts/stats.ts): what the counters should
 * hold, worked out here independently from every live contact as GET /contacts lists them, and
 * the check that the counters (as stored, and as the API answers from them) hold exactly that.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { type ContactRecord, toItem } from '../../../shared/contacts/repository';
import { readContactStats, readFieldValueCounts } from '../../../shared/contacts/stats';
import { keys } from '../../../shared/table';
import type { ApiClient, Json } from './api';
import type { LocalTestRuntime } from './local';

export interface Truth {
  readonly total: number;
  readonly subscribed: number;
  /** Leaf path -> contacts that have it. */
  readonly coverage: Record<string, number>;
  /** Leaf path -> value JSON -> contacts with it (values of at most 100 bytes of JSON). */
  readonly values: Record<string, Record<string, number>>;
}

/** Every live contact, oldest first, through GET /contacts (the list reads the contacts index). */
export async function allContacts(rt: ApiClient): Promise<Json[]> {
  const out: Json[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const res = await rt.api('GET', '/contacts', { query: { limit: 100, dir: 'asc', cursor } });
    expect(res.status, res.text).toBe(200);
    out.push(...res.body.data);
    if (!res.body.hasMore) return out;
    cursor = res.body.cursor;
  }
  throw new Error('more than 1,000 pages of contacts');
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the counters should hold, from the contacts as listed. */
export async function truth(rt: ApiClient): Promise<Truth> {
  const contacts = await allContacts(rt);
  const coverage: Record<string, number> = {};
  const values: Record<string, Record<string, number>> = {};
  const walk = (data: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(data)) {
      const path = prefix ? `${prefix}.${k}` : k;
      if (isObject(v)) {
        walk(v, path);
        continue;
      }
      coverage[path] = (coverage[path] ?? 0) + 1;
      const key = JSON.stringify(v);
      if (Buffer.byteLength(key) > 100) continue;
      values[path] ??= {};
      values[path][key] = (values[path][key] ?? 0) + 1;
    }
  };
  for (const c of contacts) walk(c.data ?? {}, '');
  return {
    total: contacts.length,
    subscribed: contacts.filter((c) => c.subscribed === true).length,
    coverage,
    values,
  };
}

/** The counters as stored (coverage and value counts without zeros). */
export async function storedCounters(rt: LocalTestRuntime, paths: readonly string[]) {
  const stats = await readContactStats(rt.deps, rt.projectId);
  const coverage = Object.fromEntries([...stats.coverage].filter(([, n]) => n !== 0));
  const values: Record<string, Record<string, number>> = {};
  for (const path of paths) {
    const counts = await readFieldValueCounts(rt.deps, rt.projectId, path);
    if (counts.counts.size > 0) values[path] = Object.fromEntries(counts.counts);
  }
  return { total: stats.total, subscribed: stats.subscribed, coverage, values };
}

const ratio = (n: number, total: number) => (total === 0 ? 0 : Math.round((n / total) * 10_000) / 10_000);

/**
 * Fails unless the counters hold exactly what the live contacts count for: as stored, and as
 * GET /contacts (totals, also per subscription), GET /contacts/fields (coverage) and
 * GET /contacts/fields/{field}/values (values, most frequent first) answer them. Fields with more
 * than 100 distinct values are left out of the value comparison (their counts are capped).
 */
export async function expectCountersExact(rt: LocalTestRuntime, label = 'counters'): Promise<Truth> {
  const want = await truth(rt);
  const small = Object.keys(want.values).filter((p) => Object.keys(want.values[p]!).length <= 100);
  const stored = await storedCounters(rt, Object.keys(want.coverage));
  expect({ ...stored, values: pick(stored.values, small) }, `${label}: stored`).toEqual({
    total: want.total,
    subscribed: want.subscribed,
    coverage: want.coverage,
    values: pick(want.values, small),
  });

  const totals = async (subscribed?: string) =>
    (await rt.api('GET', '/contacts', { query: { limit: 1, ...(subscribed ? { subscribed } : {}) } })).body
      .total;
  expect(
    { all: await totals(), on: await totals('true'), off: await totals('false') },
    `${label}: GET /contacts totals`,
  ).toEqual({ all: want.total, on: want.subscribed, off: want.total - want.subscribed });

  const fields = (await rt.api('GET', '/contacts/fields')).body.fields as Json[];
  for (const f of fields.filter((x) => x.isCustom)) {
    const path = String(f.field).slice(5);
    expect(f.coverage, `${label}: coverage of ${f.field}`).toBe(ratio(want.coverage[path] ?? 0, want.total));
  }
  for (const path of small.slice(0, 10)) {
    const res = await rt.api('GET', `/contacts/fields/${encodeURIComponent(`data.${path}`)}/values`);
    if (res.status === 404) continue; // a path whose type record is gone (a deleted field)
    const sorted = Object.entries(want.values[path]!).sort(
      ([ka, a], [kb, b]) => b - a || (ka < kb ? -1 : ka > kb ? 1 : 0),
    );
    expect(res.body, `${label}: values of data.${path}`).toMatchObject({
      values: sorted.map(([key]) => JSON.parse(key)),
      count: sorted.length,
    });
  }
  return want;
}

function pick<T>(record: Record<string, T>, names: readonly string[]): Record<string, T> {
  return Object.fromEntries(Object.entries(record).filter(([k]) => names.includes(k)));
}

const SEED_EPOCH = Date.parse('2020-01-01T00:00:00Z');
let seededSoFar = 0;

/**
 * Writes `n` contacts straight into the table (claims and contacts as the repository writes them,
 * 25 a request) without touching the counters: fast seeding for tests about size, and a project
 * whose counters a recount has to set.
 */
export async function seedContacts(
  rt: LocalTestRuntime,
  n: number,
  make: (i: number) => { email: string; subscribed?: boolean; data?: Record<string, unknown> },
): Promise<void> {
  const { db, tableName } = rt.runtime.dynamo;
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const c = make(i);
    const email = c.email.toLowerCase();
    const order = seededSoFar++;
    const id = `seed-${String(order).padStart(8, '0')}`;
    // In seeding order, a second apart, before anything created through the API.
    const at = new Date(SEED_EPOCH + order * 1000).toISOString();
    const record: ContactRecord = {
      id,
      email,
      emailLower: email,
      subscribed: c.subscribed ?? true,
      snoozedUntil: null,
      data: (c.data ?? {}) as ContactRecord['data'],
      createdAt: at,
      updatedAt: at,
      version: 1,
    };
    items.push(
      { ...keys.emailClaim(rt.projectId, email), entity: 'emailClaim', contactId: id, email },
      toItem(rt.projectId, record),
    );
  }
  for (let i = 0; i < items.length; i += 25) {
    let pending = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (out.UnprocessedItems?.[tableName] ?? []) as typeof pending;
    }
  }
}
