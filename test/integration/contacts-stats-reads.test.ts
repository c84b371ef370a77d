/**
 * Reads that do not grow: the read units of GET /contacts (first page, with and without the
 * subscription filter), GET /contacts/fields and a field's values are the same for a project of
 * 100 contacts and of 3,000 (they read one page and the counters, never the whole index), and a
 * lookup costs at most one read unit per email. Units are DynamoDB's ConsumedCapacity, through the
 * meter the benchmarks use (bench/capacity.ts); nothing here depends on timing.
 *
 * A search by email substring is bounded too: its first page's total counts the matches among the
 * first SEARCH_TOTAL_WINDOW contacts of the list, and every page examines at most
 * MAX_EXAMINED_PER_PAGE index entries (test/integration/reads-flat.test.ts compares the units at
 * two sizes).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { meterCapacity } from '../../bench/capacity';
import { requestRecount } from '../../shared/contacts/messages';
import {
  listContactPage,
  MAX_EXAMINED_PER_PAGE,
  SEARCH_TOTAL_WINDOW,
} from '../../shared/contacts/repository';
import { expectCountersExact, seedContacts } from './helpers/contact-stats';
import { useLocalRuntime } from './helpers/local';
import { recordingStore } from './helpers/table';

const rt = useLocalRuntime();

let meter: ReturnType<typeof meterCapacity>;
beforeAll(async () => {
  meter = meterCapacity(rt.runtime.dynamo.db);
  // One contact through the API, so that the project has the seeded fields' type records.
  const res = await rt.api('POST', '/contacts', {
    body: { email: 'typer@reads.test', data: { plan: 'free', seats: 1, profile: { region: 'eu' } } },
  });
  expect(res.status).toBe(201);
});

const emailOf = (i: number) =>
  `reader${String(i).padStart(5, '0')}${i % 1000 === 7 ? 'needle' : ''}@reads.test`;
let seeded = 0;

/** Grows the project to `n` contacts (written straight to the table), then recounts its counters. */
async function growTo(n: number) {
  const from = seeded;
  await seedContacts(rt, n - from, (k) => {
    const i = from + k;
    return {
      email: emailOf(i),
      subscribed: i % 4 !== 0,
      data: {
        plan: ['free', 'pro', 'team'][i % 3]!,
        seats: i % 10,
        profile: { region: i % 2 ? 'eu' : 'us' },
      },
    };
  });
  seeded = n;
  await requestRecount(rt.deps, rt.projectId);
  await rt.drain();
}

/** Read units of one call (nothing else running). */
async function readUnits(method: string, path: string, body?: unknown): Promise<number> {
  await rt.drain();
  meter.reset();
  const res = await rt.api(method, path, body === undefined ? {} : { body });
  expect(res.status, res.text).toBe(200);
  return meter.reset().read;
}

const CALLS = [
  ['GET', '/contacts'],
  ['GET', '/contacts?subscribed=false'],
  ['GET', '/contacts?sort=email&limit=50'],
  ['GET', '/contacts/fields'],
  ['GET', '/contacts/fields/data.plan/values'],
  ['GET', '/contacts/fields/subscribed/values'],
] as const;

async function measureAll(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [method, path] of CALLS) out[`${method} ${path}`] = await readUnits(method, path);
  return out;
}

describe('reads that do not grow', () => {
  it('cost the same read units at 100 and at 3,000 contacts', { timeout: 180_000 }, async () => {
    await growTo(100);
    expect((await rt.api('GET', '/contacts')).body.total).toBe(101);
    const small = await measureAll();
    await growTo(3000);
    expect((await rt.api('GET', '/contacts')).body.total).toBe(3001);
    const large = await measureAll();
    console.log(`read units at 100 / 3,000 contacts: ${JSON.stringify({ small, large })}`);
    for (const call of Object.keys(small)) {
      expect(large[call], `${call}: ${small[call]} RCU at 100, ${large[call]} at 3,000`).toBeLessThanOrEqual(
        small[call]! * 1.1,
      );
      // A handful of units besides the page's contacts, which a list reads by key (half a unit
      // each: 20 by default, 50 by email here), and one counter read.
      expect(large[call], call).toBeLessThan(call.includes('limit=50') ? 30 : 15);
    }
    await expectCountersExact(rt, 'seeded and recounted');
  });

  it('look up at most one read unit per email', async () => {
    const overhead = await readUnits('POST', '/contacts/lookup', { emails: [] });
    const emails = Array.from({ length: 100 }, (_, i) => emailOf(i * 7));
    meter.reset();
    const res = await rt.api('POST', '/contacts/lookup', { body: { emails } });
    const units = meter.reset().read;
    expect(res.body.found).toHaveLength(100);
    expect(units - overhead).toBeLessThanOrEqual(100);
    const missing = await readUnits('POST', '/contacts/lookup', {
      emails: emails.map((e) => `no-${e}`),
    });
    expect(missing - overhead).toBeLessThanOrEqual(100);
  });

  it('search: the first page counts among the first contacts of the list; every page examines a bounded number of entries', async () => {
    // Three needles among 3,000 contacts: at 7, 1007 and 2007; the first 1,000 hold one.
    expect(SEARCH_TOTAL_WINDOW).toBe(1000);
    const first = await rt.api('GET', '/contacts', { query: { search: 'NEEDLE', limit: 1, dir: 'asc' } });
    expect(first.body).toMatchObject({ total: 1, hasMore: true });
    expect(first.body.data.map((c: { email: string }) => c.email)).toEqual([emailOf(7)]);

    const { store, sent } = recordingStore(rt);
    const deps = { ...rt.deps, store };
    const found: string[] = [];
    let cursor: string | undefined = first.body.cursor;
    let pages = 0;
    while (cursor) {
      sent.length = 0;
      const page = await listContactPage(deps, rt.projectId, {
        order: 'createdAt',
        dir: 'asc',
        limit: 1,
        cursor,
        search: 'needle',
      });
      const examined = sent.reduce((n, c) => n + Number(c.input.Limit ?? 0), 0);
      expect(examined).toBeLessThanOrEqual(MAX_EXAMINED_PER_PAGE);
      found.push(...page.records.map((r) => r.email));
      cursor = page.hasMore ? page.cursor : undefined;
      pages++;
    }
    expect(found).toEqual([emailOf(1007), emailOf(2007)]);
    // 3,000 items past the first match, 1,000 at most a page.
    expect(pages).toBeGreaterThanOrEqual(3);

    // Later pages through HTTP: bounded read units, and total 0.
    const second = await rt.api('GET', '/contacts', {
      query: { search: 'needle', limit: 1, dir: 'asc', cursor: first.body.cursor },
    });
    expect(second.body.total).toBe(0);
    meter.reset();
    await rt.api('GET', '/contacts', {
      query: { search: 'needle', limit: 1, dir: 'asc', cursor: first.body.cursor },
    });
    const laterPage = meter.reset().read;
    meter.reset();
    await rt.api('GET', '/contacts', { query: { search: 'needle', limit: 1, dir: 'asc' } });
    const firstPage = meter.reset().read;
    expect(laterPage).toBeLessThan(firstPage);
  });
});
