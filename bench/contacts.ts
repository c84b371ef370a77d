/**
 * Contacts request path benchmark: latency and DynamoDB request units per request, through HTTP
 * against an in-memory local runtime. Run with `npm run bench:contacts` (optionally N=500).
 * Latency here is the local engine's, not DynamoDB's; the request units are what AWS would bill
 * (see capacity.ts for how index writes are counted), metered on the client the runtime's store
 * sends through.
 */
import { startLocal } from '../shared/local/runtime';
import { meterCapacity } from './capacity';

const N = Number(process.env.N ?? 200);

const rt = await startLocal({ port: 0, logger: { info: () => {}, warn: () => {}, error: console.error } });
const meter = meterCapacity(rt.dynamo.db);

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${rt.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${rt.secretKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const rows: Record<string, string | number>[] = [];

async function measure(name: string, count: number, op: (i: number) => Promise<unknown>) {
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

console.table(rows);
console.log('Every authenticated request also writes 1 WCU for the rate-limit window (included above).');
await rt.stop();
