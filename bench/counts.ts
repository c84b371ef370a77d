/**
 * `npm run bench:counts`: how soon an accepted event shows in its counters, and what the event
 * tally writes per event, under the load of a running campaign, in an in-process local runtime
 * with real queue delays (as `npm start` runs).
 *
 * 1. Delay: a project of RECIPIENTS (10,000) subscribed contacts (written fast and unmetered)
 *    gets an ALL campaign at SES_MAX_SEND_RATE=RATE (100); the mail sink reports each message's
 *    Delivery as SES would, so the project's events come at about twice the rate. While it sends,
 *    PROBES (60) times, three at a time: `POST /v1/track` an event of a name of its own, then poll
 *    `GET /events/names` every 25 ms until the name is listed with its count. Printed: the delay
 *    from the track's answer to the first read that shows it, p50/p99/max (goal: p99 at most 5 s),
 *    and the campaign's progress meanwhile (the load was there).
 * 2. Write units: the same with METERED (2,000) recipients and the capacity meter on
 *    (bench/capacity.ts), each queue message's writes labelled by its job type; after the send,
 *    the clock moves on so both passes of the tally meet every event. Printed: the tally's write
 *    units per event stored (`events.tally` jobs' writes over the events the run stored), by
 *    item.
 *
 * COUNTS_PARTS (e.g. `2`) runs only those parts.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { seedVerifiedDomain } from '../shared/domains/repository';
import { tallyJobMessage } from '../shared/events/tally';
import { enqueue } from '../shared/jobs/registry';
import { type LocalRuntime, startLocal } from '../shared/local/runtime';
import { createProject } from '../shared/projects/repository';
import { meterCapacity, type WriteRecord } from './capacity';
import { apiCaller, contactItems, putItems, queueWorkers } from './local';

const RECIPIENTS = Number(process.env.COUNTS_RECIPIENTS ?? 10_000);
const METERED = Number(process.env.METERED_RECIPIENTS ?? 2_000);
const RATE = Number(process.env.COUNTS_RATE ?? 100);
const PROBES = Number(process.env.COUNTS_PROBES ?? 60);
/** Probes in flight at once. */
const LANES = 3;
/** A probe not shown by then counts as a miss (longer than any goal). */
const PROBE_BOUND_MS = 60_000;
const PARTS = new Set((process.env.COUNTS_PARTS ?? '1,2').split(',').map((x) => x.trim()));
const quiet = { info: () => {}, warn: () => {}, error: console.error };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function runtime() {
  return startLocal({
    port: 0,
    recurringSchedules: false,
    logger: quiet,
    // The probes poll every 25 ms: above the default limit of 1,000 requests a minute.
    env: { SES_MAX_SEND_RATE: String(RATE), RATE_LIMIT_PER_MINUTE: '100000' },
  });
}

/** A project with its own verified domain and `n` subscribed contacts, written unmetered. */
async function project(rt: LocalRuntime, tag: string, n: number) {
  const { project: p, secretKey, publicKey } = await createProject(rt.deps, { name: tag });
  const domain = `${tag}.bench.example.org`;
  await seedVerifiedDomain(rt.deps, p.id, domain);
  const base = Date.now() - n - 60_000;
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++)
    items.push(
      ...contactItems(p.id, `reader${i}@${tag}.bench.example.org`, {}, new Date(base + i).toISOString())
        .items,
    );
  await putItems(rt, items);
  const call = apiCaller(rt.url, secretKey);
  return { id: p.id, from: `news@${domain}`, publicKey, call };
}

type Project = Awaited<ReturnType<typeof project>>;

async function startCampaign(p: Project): Promise<string> {
  const created = await p.call('POST', '/campaigns', {
    name: 'Load',
    subject: 'Spring is here',
    body: '<p>Hi {{email}}, spring is here.</p>',
    from: p.from,
    audienceType: 'ALL',
  });
  const id = (created.data as { id: string }).id;
  await p.call('POST', `/campaigns/${id}/send`, {});
  return id;
}

const campaign = async (p: Project, id: string) =>
  (await p.call('GET', `/campaigns/${id}`)) as { status: string; sentCount: number };

/** Tracks an event of a name of its own; resolves with the ms until `/events/names` lists it. */
async function probe(p: Project, i: number): Promise<number | undefined> {
  const name = `probe-${i}`;
  await p.call('POST', '/v1/track', { email: `probe${i}@probe.bench.example.org`, event: name }, p.publicKey);
  const accepted = performance.now();
  while (performance.now() - accepted < PROBE_BOUND_MS) {
    const { names } = (await p.call('GET', '/events/names')) as { names: { name: string; count: number }[] };
    if (names.some((n) => n.name === name && n.count === 1)) return performance.now() - accepted;
    await sleep(25);
  }
  return undefined;
}

/**
 * Resolves once no queue message is waiting or being handled (delayed ones may remain: each event
 * written arms a tally 190 s on, which the clock moves to instead).
 */
async function idle(rt: LocalRuntime): Promise<void> {
  for (let quiet = 0; quiet < 3; ) {
    const busy = Object.values(rt.queue.stats()).some((q) => q.pending + q.inFlight > 0);
    quiet = busy ? 0 : quiet + 1;
    await sleep(100);
  }
}

const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;

const report = (goal: string, value: string, pass?: boolean) =>
  console.log(`${pass === undefined ? '    ' : pass ? 'PASS' : 'FAIL'}  ${goal}: ${value}`);

if (PARTS.has('1')) {
  const rt = await runtime();
  console.log(`seeding ${RECIPIENTS} contacts...`);
  const p = await project(rt, 'delay', RECIPIENTS);
  const id = await startCampaign(p);
  while ((await campaign(p, id)).sentCount === 0) await sleep(50);
  const before = await campaign(p, id);
  const delays: number[] = [];
  let misses = 0;
  // LANES probes at a time, started a little apart, so all of them fall inside the campaign.
  let next = 0;
  const lane = async (offsetMs: number) => {
    await sleep(offsetMs);
    for (let i = next++; i < PROBES; i = next++) {
      const ms = await probe(p, i);
      if (ms === undefined) misses++;
      else delays.push(ms);
    }
  };
  await Promise.all(Array.from({ length: LANES }, (_, k) => lane(k * 300)));
  const after = await campaign(p, id);
  delays.sort((a, b) => a - b);
  const p99 = misses > 0 ? Number.POSITIVE_INFINITY : quantile(delays, 0.99);
  report(
    `delay from an accepted /v1/track to its count in GET /events/names, ${PROBES} probes during a ${RECIPIENTS}-recipient campaign at ${RATE}/s`,
    `p50 ${(quantile(delays, 0.5) / 1000).toFixed(2)} s, p90 ${(quantile(delays, 0.9) / 1000).toFixed(2)} s, p99 ${misses > 0 ? `over ${PROBE_BOUND_MS / 1000} s (${misses} not shown)` : `${(p99 / 1000).toFixed(2)} s`}, max ${((delays.at(-1) ?? 0) / 1000).toFixed(2)} s (goal: p99 at most 5 s)`,
    p99 <= 5000,
  );
  report(
    'the campaign meanwhile',
    `${before.status} ${before.sentCount} sent when the probes began, ${after.status} ${after.sentCount} when they ended`,
  );
  await rt.stop();
}

if (PARTS.has('2')) {
  const rt = await runtime();
  // Each queue message's writes under its job type (`jobs:<type>`), for the meter's phases.
  const phase = new AsyncLocalStorage<string>();
  for (const q of queueWorkers(rt)) {
    const worker = q.worker;
    if (!worker) continue;
    q.worker = async (event: SQSEvent) => {
      const byType = new Map<string, SQSEvent['Records']>();
      for (const r of event.Records) {
        const type = String((JSON.parse(r.body) as { type?: unknown }).type);
        byType.set(type, [...(byType.get(type) ?? []), r]);
      }
      const out = await Promise.all(
        [...byType].map(([type, Records]) => phase.run(`jobs:${type}`, () => worker({ Records }))),
      );
      return {
        batchItemFailures: out.flatMap((o) => (o as SQSBatchResponse | undefined)?.batchItemFailures ?? []),
      };
    };
  }
  const meter = meterCapacity(rt.dynamo.db, { phase: () => phase.getStore() ?? 'call' });
  const p = await meter.unmetered(() => project(rt, 'metered', METERED));
  meter.reset();
  const id = await startCampaign(p);
  for (let i = 0; (await campaign(p, id)).status !== 'SENT'; i++) {
    // A tracked event now and then beside the campaign's.
    if (i % 20 === 0)
      await p.call(
        'POST',
        '/v1/track',
        { email: `t${i}@probe.bench.example.org`, event: 'probe' },
        p.publicKey,
      );
    await sleep(50);
  }
  // Both passes meet every event: past the second pass's delay, then past its settle time again.
  for (const seconds of [0, 190, 121]) {
    if (seconds > 0) {
      await rt.clock.advance(seconds);
      await enqueue(rt.deps, tallyJobMessage, { projectId: p.id });
    }
    await idle(rt);
  }
  const bill = meter.reset();
  const writes = bill.writes as WriteRecord[];
  const events = writes.filter((w) => w.entity === 'event' && !w.failed && w.command === 'Put').length;
  const tally = writes.filter((w) => w.phase === `jobs:${tallyJobMessage.type}`);
  const units = tally.reduce((n, w) => n + w.units, 0);
  report(
    `event tally write units per event stored (${events} events: the campaign's ${METERED} sends, their deliveries, tracked events)`,
    `${(units / Math.max(1, events)).toFixed(3)} WCU (${units} WCU in ${tally.length} writes)`,
  );
  const byEntity = new Map<string, { n: number; units: number; failed: number }>();
  for (const w of tally) {
    const e = byEntity.get(w.entity) ?? { n: 0, units: 0, failed: 0 };
    e.n++;
    e.units += w.units;
    if (w.failed) e.failed++;
    byEntity.set(w.entity, e);
  }
  for (const [entity, e] of [...byEntity].sort((a, b) => b[1].units - a[1].units))
    console.log(
      `        ${entity.padEnd(24)} ${String(e.n).padStart(6)} writes ${String(e.units).padStart(6)} WCU  ${(e.units / Math.max(1, events)).toFixed(3)}/event${e.failed ? `  (${e.failed} failed conditions)` : ''}`,
    );
  await rt.stop();
}
