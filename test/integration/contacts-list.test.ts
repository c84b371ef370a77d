import { beforeAll, describe, expect, it } from 'vitest';
import { useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

type Page = {
  data: { id: string; email: string; subscribed: boolean }[];
  cursor: string;
  hasMore: boolean;
  total: number;
};

async function list(query: string): Promise<Page> {
  const res = await rt.api('GET', `/contacts${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Page;
}

async function all(query: string): Promise<{ pages: Page[]; emails: string[] }> {
  const pages: Page[] = [];
  let cursor = '';
  do {
    const sep = query.includes('?') ? '&' : '?';
    const page = await list(cursor ? `${query}${sep}cursor=${encodeURIComponent(cursor)}` : query);
    pages.push(page);
    cursor = page.hasMore ? page.cursor : '';
  } while (cursor);
  return { pages, emails: pages.flatMap((p) => p.data.map((c) => c.email)) };
}

// 105 contacts: every third unsubscribed; emails sort differently from creation order.
const emails = Array.from(
  { length: 105 },
  (_, i) => `${String.fromCharCode(97 + ((i * 7) % 26))}${i}@list.test`,
);

beforeAll(async () => {
  for (const [i, email] of emails.entries()) {
    const res = await rt.api('POST', '/contacts', { body: { email, subscribed: i % 3 !== 0 } });
    expect(res.status).toBe(201);
  }
});

describe('GET /contacts', () => {
  it('defaults to 20 newest first with total on the first page only', async () => {
    const first = await list('');
    expect(first.data).toHaveLength(20);
    expect(first.total).toBe(105);
    expect(first.hasMore).toBe(true);
    expect(first.data[0]!.email).toBe(emails[104]);
    const second = await list(`?cursor=${encodeURIComponent(first.cursor)}`);
    expect(second.total).toBe(0);
    expect(second.data[0]!.email).toBe(emails[84]);
  });

  it('clamps limit to 100 and pages through everything exactly once', async () => {
    const big = await list('?limit=1000');
    expect(big.data).toHaveLength(100);
    const { pages, emails: seen } = await all('?limit=30&dir=asc');
    expect(pages.map((p) => p.data.length)).toEqual([30, 30, 30, 15]);
    expect(seen).toEqual(emails);
    expect(pages.at(-1)!.hasMore).toBe(false);
  });

  it('refuses a limit below 1 or not a number, and a foreign cursor', async () => {
    for (const q of ['?limit=0', '?limit=abc', '?limit=-5']) {
      const res = await rt.api('GET', `/contacts${q}`);
      expect(res.status, q).toBe(422);
      expect(res.body.error.errors[0].field).toBe('limit');
    }
    const bad = await rt.api('GET', '/contacts?cursor=garbage');
    expect(bad.status).toBe(400);
    const forged = Buffer.from(
      JSON.stringify({ pk: 'P#other#C#x', sk: '#CONTACT', gsi1pk: 'P#other#CONTACTS', gsi1sk: 'x' }),
    ).toString('base64url');
    expect((await rt.api('GET', `/contacts?cursor=${forged}`)).status).toBe(400);
  });

  it('filters by subscribed and searches email substrings case-insensitively', async () => {
    const subscribed = await all('?subscribed=true&limit=100');
    expect(subscribed.pages[0]!.total).toBe(70);
    expect(subscribed.emails).toHaveLength(70);
    const unsubscribed = await all('?subscribed=false&limit=7');
    expect(unsubscribed.pages[0]!.total).toBe(35);
    expect(new Set(unsubscribed.emails)).toEqual(new Set(emails.filter((_, i) => i % 3 === 0)));
    const search = await all('?search=A1&limit=5');
    const expected = emails.filter((e) => e.includes('a1'));
    expect(search.pages[0]!.total).toBe(expected.length);
    expect(new Set(search.emails)).toEqual(new Set(expected));
    expect((await rt.api('GET', '/contacts?subscribed=maybe')).status).toBe(422);
  });

  it('sorts by email ascending by default, descending on request, and falls back on unknown values', async () => {
    const sorted = [...emails].sort();
    expect((await all('?sort=email&limit=100')).emails).toEqual(sorted);
    expect((await all('?sort=email&dir=desc&limit=100')).emails).toEqual([...sorted].reverse());
    expect((await all('?sort=bogus&dir=sideways&limit=100')).emails).toEqual([...emails].reverse());
  });
});
