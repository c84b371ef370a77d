/**
 * Request-path reads that stay flat as a project grows, counted in DynamoDB read units (the
 * engine's ConsumedCapacity, through the meter the benchmarks use: bench/capacity.ts), never in
 * time:
 * - `GET /events/contact/{id}`: a contact of 1,000 events costs what one of 100 costs, and its
 *   first page's `total` is exact (the tally's count of the contact plus the events it has not
 *   counted yet);
 * - `GET /contacts` with a search or a subscription filter, in both orders: the same units at
 *   1,200 and at 12,000 contacts (keys-only index entries examined, a bounded number a page, and a
 *   search's total counted among the first `SEARCH_TOTAL_WINDOW` contacts of the list).
 */
import { describe, expect, it } from 'vitest';
import {
  type ContactRecord,
  reindexContactItem,
  SEARCH_TOTAL_WINDOW,
  toItem,
  unindexedContacts,
} from '../../shared/contacts/repository';
import { type EventRecord, putEvent } from '../../shared/events/repository';
import { keys } from '../../shared/table';
import { seedContacts } from './helpers/contact-stats';
import { settleEventCounts } from './helpers/events';
import { useLocalRuntime } from './helpers/local';
import { useReadMeter } from './helpers/read-units';

const rt = useLocalRuntime();

const reads = useReadMeter(rt);
const readUnits = (path: string, query: Record<string, string> = {}) =>
  reads.readUnits('GET', path, { query });

async function newContact(email: string): Promise<string> {
  const res = await rt.api('POST', '/contacts', { body: { email } });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

/**
 * `n` events of the contact, a second apart, ten minutes or more in the past, written now: late
 * writes (shared/events/repository.ts, `LATE_MS`), indexed where the tally will meet them.
 */
async function seedEvents(contactId: string, n: number): Promise<void> {
  const start = rt.runtime.clock.now().getTime() - 10 * 60_000 - n * 1000;
  const writes: Promise<boolean>[] = [];
  for (let i = 0; i < n; i++) {
    const createdAt = new Date(start + i * 1000);
    const event: EventRecord = {
      id: rt.deps.ids.uuid(),
      projectId: rt.projectId,
      contactId,
      name: `seeded.${i % 3}`,
      data: { i, note: 'an event of a contact with many events' },
      createdAt: createdAt.toISOString(),
    };
    writes.push(putEvent(rt.deps, event, rt.runtime.clock.now()));
    if (writes.length === 25) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
}

/** What the contact's partition holds of events, read in full (the ground truth, not metered). */
const storedEvents = (contactId: string) =>
  reads.meter.unmetered(() =>
    rt.deps.store.count({
      partition: keys.contactPartition(rt.projectId, contactId),
      sort: { beginsWith: keys.contactEventPrefix },
    }),
  );

describe('GET /events/contact/{id}', () => {
  it('costs the same read units for 100 and 1,000 events, with an exact total', {
    timeout: 120_000,
  }, async () => {
    const small = await newContact('hundred@flat.test');
    const large = await newContact('thousand@flat.test');
    await reads.meter.unmetered(() => seedEvents(small, 100));
    await reads.meter.unmetered(() => seedEvents(large, 1000));
    await settleEventCounts(rt, rt.projectId, { secondPass: true });

    const smallPage = await rt.api('GET', `/events/contact/${small}`);
    const largePage = await rt.api('GET', `/events/contact/${large}`);
    expect(smallPage.body).toMatchObject({ total: 100, hasMore: true });
    expect(largePage.body).toMatchObject({ total: 1000, hasMore: true });
    expect(await storedEvents(large)).toBe(1000);
    expect(largePage.body.data).toHaveLength(20);

    const smallUnits = await readUnits(`/events/contact/${small}`);
    const largeUnits = await readUnits(`/events/contact/${large}`);
    console.log(`GET /events/contact/{id} read units: 100 events ${smallUnits}, 1,000 events ${largeUnits}`);
    expect(largeUnits, `${smallUnits} RCU at 100 events, ${largeUnits} at 1,000`).toBe(smallUnits);
    // The contact, the count, the events after it (none) and one page.
    expect(largeUnits).toBeLessThan(10);
  });

  it('counts events the tally has not met yet, and lowers the count when events go', async () => {
    const id = await newContact('fresh@flat.test');
    await seedEvents(id, 50);
    await settleEventCounts(rt);
    for (const event of ['fresh.one', 'fresh.two']) {
      const res = await rt.api('POST', '/events/track', { body: { email: 'fresh@flat.test', event } });
      expect(res.status, res.text).toBe(200);
    }
    // Not tallied yet: counted from the contact's newest events.
    expect((await rt.api('GET', `/events/contact/${id}`)).body.total).toBe(52);
    await settleEventCounts(rt);
    expect((await rt.api('GET', `/events/contact/${id}`)).body.total).toBe(52);
    expect(await storedEvents(id)).toBe(52);

    // Deleting a name's events lowers the contact's count by those the tally had counted.
    expect((await rt.api('DELETE', '/events/fresh.one')).status).toBe(202);
    await rt.drain();
    await settleEventCounts(rt);
    expect((await rt.api('GET', `/events/contact/${id}`)).body.total).toBe(51);
    expect(await storedEvents(id)).toBe(51);
  });
});

describe('GET /contacts with a search or a filter', () => {
  const emailOf = (i: number) =>
    `flat${String(i).padStart(6, '0')}${i % 1000 === 7 ? 'needle' : ''}@grow.test`;
  let seeded = 0;
  async function growTo(n: number) {
    const from = seeded;
    await seedContacts(rt, n - from, (k) => ({ email: emailOf(from + k), subscribed: (from + k) % 4 !== 0 }));
    seeded = n;
  }

  const CALLS: Record<string, Record<string, string>> = {
    'search, newest first': { search: 'NEEDLE' },
    'search, by email': { search: 'needle', sort: 'email', dir: 'asc' },
    'unsubscribed, newest first': { subscribed: 'false' },
    'unsubscribed, by email': { subscribed: 'false', sort: 'email' },
    'subscribed, search': { subscribed: 'true', search: 'needle' },
    'no filter, by email': { sort: 'email', limit: '50' },
  };

  async function measureAll(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const [name, query] of Object.entries(CALLS)) out[name] = await readUnits('/contacts', query);
    return out;
  }

  it('cost the same read units at 1,200 and at 12,000 contacts', { timeout: 240_000 }, async () => {
    await growTo(1200);
    const small = await measureAll();
    // Needles at 7 and 1007: the newest 1,000 contacts hold one, and so does all of the list.
    const first = await rt.api('GET', '/contacts', { query: { search: 'needle' } });
    expect(first.body.total).toBe(1);
    expect(first.body.data.map((c: { email: string }) => c.email)).toEqual([emailOf(1007)]);

    await growTo(12_000);
    const large = await measureAll();
    console.log(`GET /contacts read units at 1,200 / 12,000 contacts: ${JSON.stringify({ small, large })}`);
    for (const call of Object.keys(CALLS)) {
      // Within half a unit, the quantum a Query is billed in (its bytes are rounded up per request).
      expect(
        large[call],
        `${call}: ${small[call]} RCU at 1,200, ${large[call]} at 12,000`,
      ).toBeLessThanOrEqual(small[call]! + 0.5);
    }

    // A search's total counts among the first SEARCH_TOTAL_WINDOW of the list, in its order: the
    // newest 1,000 hold one needle (11007), the first 1,000 by email one (7), of twelve in all.
    expect(SEARCH_TOTAL_WINDOW).toBe(1000);
    expect((await rt.api('GET', '/contacts', { query: { search: 'needle' } })).body.total).toBe(1);
    const byEmail = await rt.api('GET', '/contacts', {
      query: { search: 'needle', sort: 'email', dir: 'asc' },
    });
    expect(byEmail.body.total).toBe(1);
    expect(byEmail.body.data.map((c: { email: string }) => c.email)).toEqual([emailOf(7)]);

    // Unsubscribed first page: the newest unsubscribed contacts, every one of them unsubscribed.
    const unsubscribed = await rt.api('GET', '/contacts', { query: { subscribed: 'false', limit: '10' } });
    const listed = unsubscribed.body.data as { email: string; subscribed: boolean }[];
    expect(listed.every((c) => !c.subscribed)).toBe(true);
    const grown = listed.map((c) => c.email).filter((e) => e.endsWith('@grow.test'));
    expect(grown.length).toBeGreaterThanOrEqual(5);
    expect(grown).toEqual(
      [11996, 11992, 11988, 11984, 11980, 11976, 11972, 11968, 11964, 11960]
        .slice(0, grown.length)
        .map(emailOf),
    );
  });

  it('walks every match of a search through its pages, each examining a bounded number of entries', {
    timeout: 120_000,
  }, async () => {
    const found: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await rt.api('GET', '/contacts', {
        query: { search: 'needle', dir: 'asc', limit: '5', ...(cursor ? { cursor } : {}) },
      });
      expect(res.status, res.text).toBe(200);
      found.push(...res.body.data.map((c: { email: string }) => c.email));
      cursor = res.body.hasMore ? res.body.cursor : undefined;
      pages++;
    } while (cursor);
    expect(found).toEqual(Array.from({ length: 12 }, (_, k) => emailOf(k * 1000 + 7)));
    // 12,000 entries, 1,000 at most a page.
    expect(pages).toBeGreaterThanOrEqual(12);
  });
});

describe('contacts written before the lists moved to keys-only indexes', () => {
  it('are listed again once reindexed (scripts/reindex-contacts.ts), and leave the former indexes', async () => {
    // Older than anything else in the project: first in the list by creation, oldest first.
    const at = '2000-01-01T00:00:00.000Z';
    const record: ContactRecord = {
      id: rt.deps.ids.uuid(),
      email: 'legacy@former.test',
      emailLower: 'legacy@former.test',
      subscribed: true,
      snoozedUntil: null,
      data: { plan: 'old' },
      createdAt: at,
      updatedAt: at,
      version: 3,
    };
    // As the former code wrote it: in gsi1 and gsi2, not in the list indexes of now.
    const { gsi3pk: _a, gsi3sk: _b, gsi4pk: _c, gsi4sk: _d, ...rest } = toItem(rt.projectId, record);
    const former = {
      ...rest,
      gsi1pk: `P#${rt.projectId}#CONTACTS`,
      gsi1sk: `${at}#${record.id}`,
      gsi2pk: `P#${rt.projectId}#CONTACTS`,
      gsi2sk: `${record.emailLower}#${record.id}`,
    };
    await rt.deps.store.write({ put: former });
    const search = () => rt.api('GET', '/contacts', { query: { search: 'legacy@former', dir: 'asc' } });
    expect((await search()).body.data).toEqual([]);

    let cursor = '';
    let reindexed = 0;
    do {
      const page = await rt.deps.store.scan(unindexedContacts, { limit: 1000, cursor });
      for (const item of page.items) if (await reindexContactItem(rt.deps, item)) reindexed++;
      cursor = page.cursor;
    } while (cursor);
    expect(reindexed).toBe(1);
    expect((await search()).body.data.map((c: { id: string }) => c.id)).toEqual([record.id]);
    const stored = await rt.deps.store.get(keys.contact(rt.projectId, record.id));
    expect(stored).not.toHaveProperty('gsi1pk');
    expect(stored).not.toHaveProperty('gsi2sk');
    expect(stored).toMatchObject({ version: 3, data: { plan: 'old' } });
  });
});
