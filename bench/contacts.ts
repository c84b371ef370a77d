/**
 * Contacts request path benchmark: latency and DynamoDB request units per request, through HTTP
 * against an in-memory local runtime. Run with `npm run bench:contacts` (optionally N=500).
 * Latency here is the local engine's, not DynamoDB's; the request units are what AWS would bill
 * (see capacity.ts for how index writes are counted), metered on the client the runtime's store
 * sends through. Last, the same GET and PATCH on a signed-up user's project with the project's
 * secret key and with the user's session cookie and X-Project-Id, against the goal that a session
 * costs at most one read unit more per request. Then the write units of a one-field PATCH of a
 * 3.5 KB contact (against the small one above), and the read units of the contact lists (plain,
 * by email, unsubscribed, a search in both orders) in a project grown to GROW_SIZES contacts
 * (200, 2,000 and 20,000, seeded straight into the table), with PASS when the largest size costs
 * what the one before it costs (within 10% and half a unit, the smallest unit a read is billed in).
 */
import { randomUUID } from 'node:crypto';
import { type ContactRecord, toItem } from '../shared/contacts/repository';
import { startLocal } from '../shared/local/runtime';
import { createProject } from '../shared/projects/repository';
import { keys } from '../shared/table';
import { meterCapacity } from './capacity';
import { putItems } from './local';

const N = Number(process.env.N ?? 200);
const GROW_SIZES = (process.env.GROW_SIZES ?? '200,2000,20000').split(',').map(Number);

const rt = await startLocal({ port: 0, logger: { info: () => {}, warn: () => {}, error: console.error } });
const meter = meterCapacity(rt.dynamo.db);

/** How a request authenticates: the seeded secret key unless told otherwise. */
type Auth = { readonly key: string } | { readonly cookie: string; readonly projectId: string };

async function call(method: string, path: string, body?: unknown, auth: Auth = { key: rt.secretKey }) {
  const res = await fetch(`${rt.url}${path}`, {
    method,
    headers: {
      ...('key' in auth
        ? { authorization: `Bearer ${auth.key}` }
        : { cookie: auth.cookie, 'x-project-id': auth.projectId, 'x-requested-with': 'sesame-bench' }),
      'content-type': 'application/json',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const rows: Record<string, string | number>[] = [];

async function measure(
  name: string,
  count: number,
  op: (i: number) => Promise<unknown>,
): Promise<{ p50: number; read: number; write: number }> {
  const times: number[] = [];
  meter.reset();
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await op(i);
    times.push(performance.now() - start);
  }
  const units = meter.reset();
  times.sort((a, b) => a - b);
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor(times.length * p))]!.toFixed(1);
  rows.push({
    operation: name,
    requests: count,
    'p50 ms': pct(0.5),
    'p95 ms': pct(0.95),
    'RCU/request': (units.read / count).toFixed(2),
    'WCU/request': (units.write / count).toFixed(2),
  });
  return { p50: Number(pct(0.5)), read: units.read / count, write: units.write / count };
}

const ids: string[] = [];
await measure('POST /contacts (new)', N, async (i) => {
  const c = await call('POST', '/contacts', { email: `bench${i}@example.org`, data: { plan: 'pro', n: i } });
  ids.push(String(c.id));
});
await measure('POST /contacts (existing)', N, (i) =>
  call('POST', '/contacts', { email: `bench${i}@example.org`, data: { n: i + 1 } }),
);
await measure('GET /contacts/{id}', N, (i) => call('GET', `/contacts/${ids[i]}`));
await measure('PATCH /contacts/{id}', N, (i) =>
  call('PATCH', `/contacts/${ids[i]}`, { data: { seen: true } }),
);
await measure(`GET /contacts (first page, total of ${N})`, 20, () => call('GET', '/contacts'));
const second = encodeURIComponent(String((await call('GET', '/contacts?limit=20')).cursor));
await measure('GET /contacts (next page)', 20, () => call('GET', `/contacts?limit=20&cursor=${second}`));
await measure('POST /contacts/lookup (100 emails)', 10, () =>
  call('POST', '/contacts/lookup', {
    emails: Array.from({ length: 100 }, (_, i) => `bench${i}@example.org`),
  }),
);

// A signed-in member's session cookie with X-Project-Id against the project's secret key, on the
// same contacts of the same project (a user who signed up, with the project signup made).
const signup = await fetch(`${rt.url}/auth/signup`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email: 'bench-owner@example.org', password: 'correct horse battery' }),
});
if (signup.status !== 201) throw new Error(`signup: ${signup.status} ${await signup.text()}`);
const owner = (await signup.json()) as { project: { id: string }; keys: { secretKey: string } };
const cookie = /sesame_session=[^;]*/.exec(signup.headers.get('set-cookie') ?? '')![0];
const asKey: Auth = { key: owner.keys.secretKey };
const asSession: Auth = { cookie, projectId: owner.project.id };
const own: string[] = [];
for (let i = 0; i < N; i++)
  own.push(
    String(
      (await call('POST', '/contacts', { email: `member${i}@example.org`, data: { seen: 0 } }, asKey)).id,
    ),
  );
const authRows: [string, Awaited<ReturnType<typeof measure>>, Awaited<ReturnType<typeof measure>>][] = [];
// Both PATCHes change the value of a field every contact already has (0 to 1, then 1 to 2), so
// they write the same items.
authRows.push([
  'GET /contacts/{id}',
  await measure('GET /contacts/{id}, secret key', N, (i) =>
    call('GET', `/contacts/${own[i]}`, undefined, asKey),
  ),
  await measure('GET /contacts/{id}, session + X-Project-Id', N, (i) =>
    call('GET', `/contacts/${own[i]}`, undefined, asSession),
  ),
]);
authRows.push([
  'PATCH /contacts/{id}',
  await measure('PATCH /contacts/{id}, secret key', N, (i) =>
    call('PATCH', `/contacts/${own[i]}`, { data: { seen: 1 } }, asKey),
  ),
  await measure('PATCH /contacts/{id}, session + X-Project-Id', N, (i) =>
    call('PATCH', `/contacts/${own[i]}`, { data: { seen: 2 } }, asSession),
  ),
]);

// A one-field update of a 3.5 KB contact: its index entries are keys only, so only the table's
// write grows with the item.
const big: string[] = [];
for (let i = 0; i < 20; i++)
  big.push(
    String(
      (
        await call('POST', '/contacts', {
          email: `big${i}@example.org`,
          data: { bio: 'b'.repeat(3300), seen: 0 },
        })
      ).id,
    ),
  );
await measure('PATCH /contacts/{id} (3.5 KB contact, one field)', 20, (i) =>
  call('PATCH', `/contacts/${big[i]}`, { data: { seen: 1 } }),
);

console.table(rows);
console.log('Every authenticated request also writes 1 WCU for the rate-limit window (included above).');
console.log('\nGoal: a session costs at most one extra read unit per request (against a secret key).');
console.table(
  authRows.map(([operation, key, session]) => ({
    operation,
    'extra RCU': (session.read - key.read).toFixed(2),
    'extra WCU': (session.write - key.write).toFixed(2),
    'extra p50 ms': (session.p50 - key.p50).toFixed(1),
    goal: session.read - key.read <= 1 + 1e-9 ? 'PASS' : 'MISS',
  })),
);
// Reads as a project grows: its own project, contacts seeded unmetered (one in four unsubscribed,
// one in a thousand with "needle" in its address).
const growth = await meter.unmetered(() => createProject(rt.deps, { name: 'contacts-growth' }));
const asGrowth: Auth = { key: growth.secretKey };
const LISTS: [string, string][] = [
  ['GET /contacts', '/contacts'],
  ['GET /contacts?sort=email', '/contacts?sort=email'],
  ['GET /contacts?subscribed=false', '/contacts?subscribed=false'],
  ['GET /contacts?search=needle', '/contacts?search=needle'],
  ['GET /contacts?search=needle&sort=email', '/contacts?search=needle&sort=email'],
];
const grown: Record<string, number[]> = Object.fromEntries(LISTS.map(([name]) => [name, []]));
let size = 0;
const epoch = Date.parse('2026-01-01T00:00:00.000Z');
for (const target of GROW_SIZES) {
  const items: Record<string, unknown>[] = [];
  for (; size < target; size++) {
    const email = `grow${String(size).padStart(6, '0')}${size % 1000 === 7 ? 'needle' : ''}@growth.example.org`;
    const at = new Date(epoch + size * 1000).toISOString();
    const record: ContactRecord = {
      id: randomUUID(),
      email,
      emailLower: email,
      subscribed: size % 4 !== 0,
      snoozedUntil: null,
      data: { plan: 'pro', n: size },
      createdAt: at,
      updatedAt: at,
      version: 1,
    };
    items.push(
      { ...keys.emailClaim(growth.project.id, email), entity: 'emailClaim', contactId: record.id, email },
      toItem(growth.project.id, record),
    );
  }
  await meter.unmetered(() => putItems(rt, items, 4));
  for (const [name, path] of LISTS) {
    meter.reset();
    await call('GET', path, undefined, asGrowth);
    grown[name]!.push(meter.reset().read);
  }
}
console.log(`\nRead units of the first page as the project grows (${GROW_SIZES.join(' / ')} contacts):`);
console.table(
  LISTS.map(([name]) => {
    const units = grown[name]!;
    const [before, last] = [units.at(-2) ?? units[0]!, units.at(-1)!];
    return {
      request: name,
      ...Object.fromEntries(GROW_SIZES.map((n, i) => [`RCU at ${n}`, units[i]])),
      flat: last <= before * 1.1 + 0.5 ? 'PASS' : 'FAIL',
    };
  }),
);
console.log(
  'A search reads at most 1,000 index entries a page and counts its total among the first 1,000 contacts of the list, so it stops growing there.',
);
await rt.stop();
