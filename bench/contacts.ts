/**
 * Contacts request path benchmark: latency and DynamoDB request units per request, through HTTP
 * against an in-memory local runtime. Run with `npm run bench:contacts` (optionally N=500).
 * Latency here is the local engine's, not DynamoDB's; the request units are what AWS would bill
 * (see capacity.ts for how index writes are counted), metered on the client the runtime's store
 * sends through. Last, the same GET and PATCH on a signed-up user's project with the project's
 * secret key and with the user's session cookie and X-Project-Id, against the goal that a session
 * costs at most one read unit more per request.
 */
import { startLocal } from '../shared/local/runtime';
import { meterCapacity } from './capacity';

const N = Number(process.env.N ?? 200);

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
        : { cookie: auth.cookie, 'x-project-id': auth.projectId }),
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
await rt.stop();
