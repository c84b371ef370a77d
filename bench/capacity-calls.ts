/**
 * DynamoDB request units per API call, through HTTP against an in-memory local runtime, with the
 * honest meter of capacity.ts (index writes of every put, update, delete and batch write; failed
 * conditional writes). Run with `npm run bench:capacity` (REPS=3 calls of each kind by default;
 * SIZES=200,2000,20000 contacts for the list).
 *
 * Per call: the units of the request itself, then those of what it left on the jobs queue (event
 * listeners, purges, the event tally it armed, ...), drained after the call (with the clock moved
 * past the tally's delay) and metered in their own column, and a list of
 * every item write: what it wrote (named from its key), its table and index units, failed
 * conditions. Reads are the engine's ConsumedCapacity.
 *
 * The contacts behind `GET /contacts` and `POST /contacts/lookup` are seeded fast and unmetered:
 * the repository's own items (`toItem`, and the email claim `putClaim` writes) in BatchWriteItem
 * requests of 25 on the runtime's client, not through the API.
 */
import { randomUUID } from 'node:crypto';
import { NO_LIMITS, putBillingLimits } from '../shared/billing/repository';
import { requestRecount } from '../shared/contacts/messages';
import { type ContactRecord, toItem } from '../shared/contacts/repository';
import { putEvent } from '../shared/events/repository';
import { TALLY_SETTLE_DELAY_S, TALLY_SETTLE_MS, tallyJobMessage } from '../shared/events/tally';
import { enqueue } from '../shared/jobs/registry';
import { fastTimings, startLocal } from '../shared/local/runtime';
import { keys } from '../shared/table';
import { meterCapacity, type WriteRecord } from './capacity';
import { labelJobs, putItems } from './local';

const REPS = Number(process.env.REPS ?? 3);
const SIZES = (process.env.SIZES ?? '200,2000,20000').split(',').map(Number);
const started = performance.now();

const rt = await startLocal({
  port: 0,
  timings: fastTimings,
  recurringSchedules: false,
  logger: { info: () => {}, warn: () => {}, error: console.error },
});

// Writes made by queue workers are labelled 'jobs': each worker runs inside this context.
const phase = labelJobs(rt);
const meter = meterCapacity(rt.dynamo.db, { phase: () => phase.getStore() ?? 'call' });

async function call(
  method: string,
  path: string,
  body?: unknown,
  key = rt.secretKey,
  idempotencyKey?: string,
) {
  const res = await fetch(`${rt.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

interface Measured {
  call: string;
  rcu: number;
  wcu: number;
  jobsRcu: number;
  jobsWcu: number;
  writes: WriteRecord[];
}
const results: Measured[] = [];
let unique = 0;
const email = (tag: string) => `${tag}-${++unique}@bench.example.org`;

/** Runs what calls left on the queue: the clock moves past the tally's delay, so it runs too. */
async function settle() {
  await rt.clock.advance(TALLY_SETTLE_DELAY_S);
  await rt.queue.drain({ timeoutMs: 60_000 });
}

/** Runs `op` REPS times (after `setup`, unmetered in effect: the meter is reset after it). */
async function measure(
  name: string,
  op: (rep: number) => Promise<unknown>,
  setup?: (rep: number) => Promise<void>,
  options: { countSetupEvents?: boolean } = {},
) {
  const sum = { rcu: 0, wcu: 0, jobsRcu: 0, jobsWcu: 0 };
  let writes: WriteRecord[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    if (setup) await setup(rep);
    // Events the setup recorded are counted before the call, unless the call is to count them.
    if (options.countSetupEvents === false) await rt.queue.drain({ timeoutMs: 60_000 });
    else await settle();
    meter.reset();
    await op(rep);
    const during = meter.reset();
    await settle();
    const after = meter.reset();
    // Jobs that ran while the call was still answering are labelled 'jobs' too.
    const all = [...during.writes, ...after.writes];
    for (const part of [during.byPhase, after.byPhase]) {
      sum.rcu += part.call?.read ?? 0;
      sum.wcu += part.call?.write ?? 0;
      sum.jobsRcu += part.jobs?.read ?? 0;
      sum.jobsWcu += part.jobs?.write ?? 0;
    }
    if (rep === 0) writes = all;
  }
  const avg = (n: number) => Math.round((n / REPS) * 100) / 100;
  results.push({
    call: name,
    rcu: avg(sum.rcu),
    wcu: avg(sum.wcu),
    jobsRcu: avg(sum.jobsRcu),
    jobsWcu: avg(sum.jobsWcu),
    writes,
  });
}

const from = `news@${rt.senderDomain}`;
const send = (to: string[], idempotencyKey?: string) =>
  call(
    'POST',
    '/v1/send',
    { to: to.length === 1 ? to[0] : to, from, subject: 'Hi', body: '<p>Hello</p>' },
    rt.secretKey,
    idempotencyKey,
  );
const createContacts = async (list: string[]) => {
  for (const e of list) await call('POST', '/contacts', { email: e, data: { plan: 'free' } });
};

for (const n of [1, 5]) {
  await measure(`POST /v1/send, ${n} new contact${n > 1 ? 's' : ''}`, () =>
    send(Array.from({ length: n }, () => email('send-new'))),
  );
  let existing: string[] = [];
  await measure(
    `POST /v1/send, ${n} existing contact${n > 1 ? 's' : ''}`,
    () => send(existing),
    async () => {
      existing = Array.from({ length: n }, () => email('send-old'));
      await createContacts(existing);
    },
  );
}

{
  let existing: string[] = [];
  await measure(
    'POST /v1/send, 1 existing contact, Idempotency-Key',
    () => send(existing, `bench-${++unique}`),
    async () => {
      existing = [email('send-key')];
      await createContacts(existing);
    },
  );
}

// With a monthly transactional cap the send reserves its room on the request path (one write to
// the month's usage item); without one (every call above) the event tally counts it later.
{
  const limits = { transactional: 1_000_000, campaigns: null, workflows: null };
  const change = { at: new Date().toISOString(), by: 'bench' };
  await meter.unmetered(() => putBillingLimits(rt.deps, rt.projectId, limits, change));
  let existing: string[] = [];
  await measure(
    'POST /v1/send, 1 existing contact, transactional cap set',
    () => send(existing),
    async () => {
      existing = [email('send-cap')];
      await createContacts(existing);
    },
  );
  await meter.unmetered(() => putBillingLimits(rt.deps, rt.projectId, NO_LIMITS, change));
}

const track = (body: Record<string, unknown>, idempotencyKey?: string) =>
  call('POST', '/v1/track', body, rt.publicKey, idempotencyKey);
await measure('POST /v1/track, new contact', () => track({ email: email('track-new'), event: 'signup' }));
let tracked = '';
await measure(
  'POST /v1/track, existing contact, no data, Idempotency-Key',
  () => track({ email: tracked, event: 'login' }, `bench-${++unique}`),
  async () => {
    tracked = email('track-key');
    await track({ email: tracked, event: 'signup' });
  },
);
await measure(
  'POST /v1/track, existing contact, no data',
  () => track({ email: tracked, event: 'login' }),
  async () => {
    tracked = email('track-old');
    await track({ email: tracked, event: 'signup' });
  },
);
await measure(
  'POST /v1/track, existing contact, new data',
  () => track({ email: tracked, event: 'upgrade', data: { plan: 'pro', seats: 3 } }),
  async () => {
    tracked = email('track-data');
    await track({ email: tracked, event: 'signup' });
  },
);

// What three dynamic segments on contact fields add to a contact write: the same call as above,
// now entering two of them (plan, seats) while staying in the third (subscribed), and a write that
// changes no membership. Their definitions are read once a minute per instance, not metered here.
for (const [name, filter] of [
  ['Pro plan', { field: 'data.plan', operator: 'equals', value: 'pro' }],
  ['Teams', { field: 'data.seats', operator: 'greaterThan', value: 2 }],
  ['Subscribed', { field: 'subscribed', operator: 'equals', value: true }],
] as const) {
  await call('POST', '/segments', { name, condition: { logic: 'AND', groups: [{ filters: [filter] }] } });
}
await rt.clock.advance(61);
await settle();
await measure(
  'POST /v1/track, existing contact, new data, 3 dynamic segments (enters 2)',
  () => track({ email: tracked, event: 'upgrade', data: { plan: 'pro', seats: 3 } }),
  async () => {
    tracked = email('track-seg');
    await track({ email: tracked, event: 'signup' });
  },
);
await measure(
  'POST /v1/track, existing contact, new data, 3 dynamic segments (no change)',
  () => track({ email: tracked, event: 'visit', data: { lastPage: '/pricing' } }),
  async () => {
    tracked = email('track-seg-same');
    await track({ email: tracked, event: 'signup' });
  },
);

// The tally's cost per event where it counts many at once: 100 events of 5 names of one contact,
// stored as a request stores them but without arming a tally (so no run meets them early), then
// both passes of the tally over them, metered: the first pass a second on, the second past its
// settle time.
const TALLIED = 100;
await measure(
  `event tally of ${TALLIED} events of one contact, 5 names (both passes)`,
  async () => {
    await rt.clock.advance(1);
    await enqueue(rt, tallyJobMessage, { projectId: rt.projectId });
    await rt.queue.drain({ timeoutMs: 60_000 });
    await rt.clock.advance(TALLY_SETTLE_MS / 1000 + 1);
    await enqueue(rt, tallyJobMessage, { projectId: rt.projectId });
  },
  async () => {
    const who = email('tally');
    const contact = (await track({ email: who, event: 'first' })) as { data: { contact: string } };
    await settle();
    const at = rt.clock.now().toISOString();
    for (let i = 0; i < TALLIED; i++) {
      const event = {
        id: randomUUID(),
        projectId: rt.projectId,
        contactId: contact.data.contact,
        name: `batch-${i % 5}`,
        data: {},
        createdAt: at,
      };
      await putEvent(rt.deps, event, rt.clock.now());
    }
  },
  { countSetupEvents: false },
);

// Contacts seeded fast and unmetered, as the repository writes them (claim, then contact).
let seeded = 0;
const seedEmails: string[] = [];
const seedTimes: string[] = [];
async function seedTo(total: number) {
  const start = performance.now();
  const now = Date.now();
  const items: Record<string, unknown>[] = [];
  for (; seeded < total; seeded++) {
    const id = `seed${String(seeded).padStart(8, '0')}`;
    const address = `seed${seeded}@bench.example.org`;
    if (seedEmails.length < 100) seedEmails.push(address);
    const at = new Date(now - (total - seeded) * 1000).toISOString();
    const c: ContactRecord = {
      id,
      email: address,
      emailLower: address,
      subscribed: true,
      snoozedUntil: null,
      data: { plan: seeded % 2 ? 'pro' : 'free', n: seeded },
      createdAt: at,
      updatedAt: at,
      version: 1,
    };
    items.push(
      { ...keys.emailClaim(rt.projectId, address), entity: 'emailClaim', contactId: id, email: address },
      toItem(rt.projectId, c),
    );
  }
  await meter.unmetered(() => putItems(rt, items, 8));
  seedTimes.push(`${total}: ${((performance.now() - start) / 1000).toFixed(1)} s`);
}

for (const size of SIZES) {
  await seedTo(size);
  // The seeded contacts bypassed the counters: a recount sets them, so the calls read real ones.
  await meter.unmetered(async () => {
    await requestRecount(rt, rt.projectId);
    await settle();
  });
  await measure(`GET /contacts, first page (${size.toLocaleString('en')} seeded contacts)`, () =>
    call('GET', '/contacts'),
  );
  if (size === SIZES[0]) {
    await measure('GET /contacts/fields', () => call('GET', '/contacts/fields'));
    await measure('POST /contacts/lookup, 100 emails', () =>
      call('POST', '/contacts/lookup', { emails: seedEmails }),
    );
  }
}

console.log(
  `\nDynamoDB units per call (mean of ${REPS}), in-memory local runtime, honest meter (bench/capacity.ts)\n`,
);
console.table(
  results.map((r) => ({
    call: r.call,
    RCU: r.rcu,
    WCU: r.wcu,
    'jobs RCU': r.jobsRcu,
    'jobs WCU': r.jobsWcu,
  })),
);

/** One line per kind of write: how many, what it cost in the table and each index. */
function describe(writes: WriteRecord[], which: string): string[] {
  const lines = new Map<string, { n: number; units: number }>();
  for (const w of writes.filter((x) => x.phase === which)) {
    const idx = w.indexes.map((i) => `${i.index} ${i.op} ${i.units}`).join(', ');
    const label = `${w.entity} ${w.command}${w.failed ? ' FAILED condition' : ''}: table ${w.table}${idx ? `, ${idx}` : ''}`;
    const line = lines.get(label) ?? { n: 0, units: 0 };
    line.n++;
    line.units += w.units;
    lines.set(label, line);
  }
  return [...lines].map(([label, { n, units }]) => `${n} x ${label} (= ${units} WCU)`);
}

console.log('\nWrites of the first call of each kind (call | jobs drained after it):');
for (const r of results) {
  const call = describe(r.writes, 'call');
  const jobs = describe(r.writes, 'jobs');
  if (call.length + jobs.length === 0) continue;
  console.log(`\n${r.call}`);
  for (const line of call) console.log(`  call | ${line}`);
  for (const line of jobs) console.log(`  jobs | ${line}`);
}
// The issue's goals for request-path writes (no Idempotency-Key; the rate-limit window included).
const byCall = new Map(results.map((r) => [r.call, r]));
const goals: { call: string; per: number; goal: number }[] = [
  { call: 'POST /v1/track, existing contact, no data', per: 1, goal: 4 },
  { call: 'POST /v1/send, 1 existing contact', per: 1, goal: 6 },
  { call: 'POST /v1/send, 5 existing contacts', per: 5, goal: 6 },
  // A key may add at most 2.
  { call: 'POST /v1/track, existing contact, no data, Idempotency-Key', per: 1, goal: 6 },
  { call: 'POST /v1/send, 1 existing contact, Idempotency-Key', per: 1, goal: 8 },
];
console.log('\nGoals (request-path WCU per call or recipient):');
for (const g of goals) {
  const r = byCall.get(g.call);
  if (!r) continue;
  const value = Math.round((r.wcu / g.per) * 100) / 100;
  console.log(
    `  ${g.call}: ${value} per ${g.per === 1 ? 'call' : 'recipient'}, goal <= ${g.goal}: ${value <= g.goal ? 'PASS' : 'MISS'}`,
  );
}
const tally = results.find((r) => r.call.startsWith('event tally'));
if (tally)
  console.log(
    `  event tally: ${Math.round((tally.jobsWcu / TALLIED) * 1000) / 1000} WCU per event off the request path (was 2 on it)`,
  );

console.log(`\nSeeding (unmetered BatchWriteItem, claim + contact per contact): ${seedTimes.join('; ')}`);
console.log(`Run time: ${((performance.now() - started) / 1000).toFixed(1)} s`);
await rt.stop();
