/**
 * `npm run bench:events`: SES events applied through the jobs path of an in-process local runtime.
 *
 * EMAILS (10,000) email records (and their contacts) are written fast and unmetered, as the
 * sending code writes them; then five SES-shaped events per email (a delivery, or a permanent
 * bounce for one email in twenty; two opens; a click; a third open) go on the jobs queue as
 * `ses.event` jobs, with the queue delivering every message twice (the runtime's
 * `redeliverEachMessage`). The clock then moves past the event tally's settle time so the
 * counters take every event, and the queue is drained again.
 *
 * Printed: events a second (first enqueue to drained, tally included); DynamoDB write units per
 * distinct event, everything the jobs wrote (the email records, the `email.*` events and their
 * index entries, suppressions and unsubscribes, the tally's counters) and the duplicates' failed
 * conditional writes, over the number of distinct events (goal: at most 5); and the read units of
 * `GET /activity` (50 items) and `GET /analytics/timeseries` (30 days by day) after the first
 * EARLY (1,000) events and after all of them (goal: the same). Last, the read units of the first
 * page of `GET /events/contact/{id}` (its `total` included) for contacts of CONTACT_EVENTS (100,
 * 1,000 and 10,000) events in a project of their own, seeded unmetered and tallied (goal: the
 * same at every size).
 */
import { randomUUID } from 'node:crypto';
import { SES_EVENT_JOB } from '../shared/email-events/messages';
import { type EventRecord, eventItem } from '../shared/events/repository';
import { runTally, TALLY_SETTLE_MS } from '../shared/events/tally';
import { fastTimings, startLocal } from '../shared/local/runtime';
import { createProject } from '../shared/projects/repository';
import type { EmailRecord } from '../shared/sending/repository';
import { keys } from '../shared/table';
import { meterCapacity, type WriteRecord } from './capacity';
import { contactItems, labelJobs, putItems } from './local';

const EMAILS = Number(process.env.EVENT_EMAILS ?? 10_000);
const EARLY = Number(process.env.EARLY_EVENTS ?? 1_000);
const CONTACT_EVENTS = (process.env.CONTACT_EVENTS ?? '100,1000,10000').split(',').map(Number);
const quiet = { info: () => {}, warn: () => {}, error: console.error };

const rt = await startLocal({
  port: 0,
  timings: { ...fastTimings, redeliverEachMessage: true },
  recurringSchedules: false,
  logger: quiet,
});
const phase = labelJobs(rt);
const meter = meterCapacity(rt.dynamo.db, { phase: () => phase.getStore() ?? 'call' });
// The SES event job logs a warning per event it cannot apply; there are none here.
const warn = console.warn;

const { project, secretKey } = await meter.unmetered(() => createProject(rt.deps, { name: 'events-bench' }));
const call = async (path: string): Promise<{ data: unknown[]; series: unknown[] }> => {
  const res = await fetch(`${rt.url}${path}`, { headers: { authorization: `Bearer ${secretKey}` } });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { data: unknown[]; series: unknown[] };
};

/** EMAILS contacts and their SENT email records, written unmetered 25 items a request. */
async function seed(): Promise<EmailRecord[]> {
  const now = rt.deps.clock.now().toISOString();
  const records: EmailRecord[] = [];
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < EMAILS; i++) {
    const email = `reader${i}@events.bench.example.org`;
    const { record: contact, items: contactWrites } = contactItems(project.id, email, {}, now);
    const record: EmailRecord = {
      id: randomUUID(),
      projectId: project.id,
      contactId: contact.id,
      to: email,
      from: 'news@events.bench.example.org',
      fromName: null,
      replyTo: null,
      subject: 'Spring is here',
      templateId: null,
      type: 'MARKETING',
      status: 'SENT',
      messageId: `0100-bench-${i}`,
      reason: null,
      error: null,
      createdAt: now,
      sentAt: now,
      updatedAt: now,
    };
    records.push(record);
    items.push(...contactWrites, { ...keys.emailMessage(project.id, record.id), entity: 'email', ...record });
  }
  await putItems(rt, items);
  return records;
}

/** The five SES events of one email, a second apart from `at`. */
function eventsOf(record: EmailRecord, i: number, at: number): Record<string, unknown>[] {
  const mail = {
    timestamp: new Date(at).toISOString(),
    messageId: record.messageId,
    source: record.from,
    destination: [record.to],
    tags: { projectId: [record.projectId], emailId: [record.id] },
  };
  const t = (s: number) => new Date(at + s * 1000).toISOString();
  const first =
    i % 20 === 0
      ? {
          eventType: 'Bounce',
          mail,
          bounce: {
            timestamp: t(1),
            bounceType: 'Permanent',
            bounceSubType: 'General',
            bouncedRecipients: [{ emailAddress: record.to }],
          },
        }
      : { eventType: 'Delivery', mail, delivery: { timestamp: t(1), recipients: [record.to] } };
  return [
    first,
    { eventType: 'Open', mail, open: { timestamp: t(2) } },
    { eventType: 'Open', mail, open: { timestamp: t(3) } },
    { eventType: 'Click', mail, click: { timestamp: t(4), link: 'https://shop.example.com/r' } },
    { eventType: 'Open', mail, open: { timestamp: t(5) } },
  ];
}

/** Puts the events on the jobs queue, runs them (each twice), then the project's tally. */
async function apply(events: Record<string, unknown>[]): Promise<number> {
  const start = performance.now();
  for (const event of events) await rt.queue.send('jobs', { type: SES_EVENT_JOB, event });
  await rt.queue.drain({ timeoutMs: 3_600_000 });
  await rt.clock.advance(TALLY_SETTLE_MS / 1000 + 1);
  await phase.run('jobs', () => runTally(rt.deps, project.id));
  await rt.queue.drain({ timeoutMs: 600_000 });
  return performance.now() - start;
}

/** Read units of the two measured requests. */
async function readsOfQueries() {
  meter.reset();
  const feed = await call('/activity?limit=50');
  const feedReads = meter.reset().read;
  const end = rt.deps.clock.now();
  const start = new Date(end.getTime() - 29 * 86_400_000).toISOString();
  const series = await call(
    `/analytics/timeseries?granularity=day&startDate=${start}&endDate=${end.toISOString()}`,
  );
  const seriesReads = meter.reset().read;
  return { feedReads, seriesReads, items: feed.data.length, buckets: series.series.length };
}

console.log(`seeding ${EMAILS} emails and their contacts...`);
const records = await meter.unmetered(seed);
const base = rt.deps.clock.now().getTime() - 10_000;
const all = records.flatMap((r, i) => eventsOf(r, i, base + i));
const early = all.slice(0, EARLY);
const rest = all.slice(EARLY);

console.warn = () => {};
meter.reset();
let ms = await apply(early);
const atEarly = await readsOfQueries();
meter.reset();
ms += await apply(rest);
const bill = meter.reset();
const writes = bill.byPhase.jobs?.write ?? 0;
const atAll = await readsOfQueries();
console.warn = warn;

// The early batch's writes were reset above: the rest's units stand for the whole run.
const perEvent = writes / rest.length;
const line = (pass: boolean | undefined, goal: string, value: string) =>
  console.log(`${pass === undefined ? '    ' : pass ? 'PASS' : 'MISS'}  ${goal}: ${value}`);
line(
  undefined,
  `${all.length} SES events for ${EMAILS} emails, every message delivered twice`,
  `${(all.length / (ms / 1000)).toFixed(0)} events/s (${(ms / 1000).toFixed(1)} s, tally included)`,
);
line(
  perEvent <= 5,
  'DynamoDB write units per distinct event, duplicates and counters included (goal at most 5)',
  `${perEvent.toFixed(3)} WCU`,
);
line(
  atEarly.feedReads === atAll.feedReads,
  `GET /activity (${atAll.items} items) read units at ${EARLY} and at ${all.length} events (goal: the same)`,
  `${atEarly.feedReads} and ${atAll.feedReads} RCU`,
);
line(
  atEarly.seriesReads === atAll.seriesReads,
  `GET /analytics/timeseries (${atAll.buckets} days by day) read units at ${EARLY} and at ${all.length} events (goal: the same)`,
  `${atEarly.seriesReads} and ${atAll.seriesReads} RCU`,
);
const byEntity = new Map<string, { n: number; units: number; failed: number }>();
for (const w of (bill.writes as WriteRecord[]).filter((x) => x.phase === 'jobs')) {
  const key = `${w.entity} ${w.command}${w.indexes.length ? ` (+${w.indexes.length} index)` : ''}`;
  const e = byEntity.get(key) ?? { n: 0, units: 0, failed: 0 };
  e.n++;
  e.units += w.units;
  if (w.failed) e.failed++;
  byEntity.set(key, e);
}
console.log(`      writes of the last ${rest.length} events, by item:`);
for (const [key, e] of [...byEntity].sort((a, b) => b[1].units - a[1].units))
  console.log(
    `        ${key.padEnd(40)} ${String(e.n).padStart(7)} writes ${String(e.units).padStart(7)} WCU  ${(e.units / rest.length).toFixed(3)}/event${e.failed ? `  (${e.failed} failed conditions)` : ''}`,
  );
// A contact's events page, by how many events the contact has (a project of its own, every event
// seeded before its first tally, so the tally counts them all).
const many = await meter.unmetered(() => createProject(rt.deps, { name: 'contact-events' }));
const contactsBySize: { n: number; id: string }[] = [];
const seeded: Record<string, unknown>[] = [];
const past = rt.deps.clock.now().getTime() - 3_600_000;
for (const n of CONTACT_EVENTS) {
  const email = `many${n}@events.bench.example.org`;
  const { record, items } = contactItems(many.project.id, email, {}, new Date(past).toISOString());
  seeded.push(...items);
  for (let i = 0; i < n; i++) {
    const event: EventRecord = {
      id: randomUUID(),
      projectId: many.project.id,
      contactId: record.id,
      name: `bench.${i % 5}`,
      data: { i },
      createdAt: new Date(past + i).toISOString(),
    };
    seeded.push(eventItem(event));
  }
  contactsBySize.push({ n, id: record.id });
}
await meter.unmetered(async () => {
  await putItems(rt, seeded, 4);
  for (;;) if ((await runTally(rt.deps, many.project.id)) === 'done') break;
  await rt.queue.drain({ timeoutMs: 600_000 });
});
const perContact: { n: number; read: number; total: number }[] = [];
for (const { n, id } of contactsBySize) {
  meter.reset();
  const res = await fetch(`${rt.url}/events/contact/${id}`, {
    headers: { authorization: `Bearer ${many.secretKey}` },
  });
  const body = (await res.json()) as { total: number };
  perContact.push({ n, read: meter.reset().read, total: body.total });
}
const flat = perContact.every((p) => p.read === perContact[0]!.read);
const exact = perContact.every((p) => p.total === p.n);
line(
  flat && exact,
  `GET /events/contact/{id} read units at ${CONTACT_EVENTS.join(' / ')} events of the contact (goal: the same, total exact)`,
  perContact.map((p) => `${p.read} RCU (total ${p.total})`).join(', '),
);
await rt.stop();
