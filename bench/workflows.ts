/**
 * `npm run bench:workflows`: workflow executions in an in-process local runtime, through HTTP.
 *
 * 1. A five-step workflow (SEND_EMAIL, DELAY 1 day, CONDITION, UPDATE_CONTACT, SEND_EMAIL) enabled
 *    on a tracked event; the event tracked for WORKFLOW_CONTACTS (5,000) contacts (written fast,
 *    unmetered); the clock advanced past the delay; executions a second from the first track to
 *    the last COMPLETED (the clock advance itself takes no time).
 * 2. The same run for METERED_CONTACTS (500) contacts of another project with the capacity meter
 *    on: DynamoDB write and read units of each step type's runs, per executed step, from the jobs
 *    worker's writes labelled by the step each message ran (the dispatch that starts executions,
 *    and the executions' start and end, shown apart).
 * 3. Resuming a waiting execution: a WAIT_FOR_EVENT workflow with 100, then 2,000 executions
 *    waiting; the read units of handling one contact's event (its dispatch and the resume).
 *
 * Goals (PASS/MISS): at most 3 write units per executed step other than SEND_EMAIL (SEND_EMAIL is
 * a campaign recipient's cost: bench:campaign); the resume's read units the same at 100 and 2,000
 * waiting (within 10%).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { SQSEvent } from 'aws-lambda';
import { seedVerifiedDomain } from '../shared/domains/repository';
import { fastTimings, type LocalRuntime, startLocal } from '../shared/local/runtime';
import { createProject } from '../shared/projects/repository';
import { meterCapacity, type WriteRecord } from './capacity';
import { contactItems, putItems, queueWorkers } from './local';

const CONTACTS = Number(process.env.WORKFLOW_CONTACTS ?? 5_000);
const METERED = Number(process.env.METERED_CONTACTS ?? 500);
const quiet = { info: () => {}, warn: () => {}, error: console.error };
const DAY = 86_400;

const rt = await startLocal({
  port: 0,
  timings: fastTimings,
  recurringSchedules: false,
  sesEvents: false,
  logger: quiet,
  env: { SES_MAX_SEND_RATE: '1000000', RATE_LIMIT_PER_MINUTE: '100000000' },
});

/** Each jobs message runs labelled with what it is: `step:<TYPE>`, `dispatch`, or its job type. */
const label = new AsyncLocalStorage<string>();
const stepTypes = new Map<string, string>();
for (const q of queueWorkers(rt)) {
  const worker = q.worker;
  if (!worker) continue;
  q.worker = (event: SQSEvent) => {
    const body = JSON.parse(event.Records[0]?.body ?? '{}') as {
      type?: string;
      stepId?: string;
      finish?: boolean;
    };
    const name =
      body.type === 'workflows.step'
        ? body.finish
          ? 'end'
          : `step:${stepTypes.get(body.stepId ?? '') ?? '?'}`
        : body.type === 'events.dispatch'
          ? 'dispatch'
          : (body.type ?? 'other');
    return label.run(name, () => worker(event));
  };
}
const meter = meterCapacity(rt.dynamo.db, { phase: () => label.getStore() ?? 'call' });

async function project(runtime: LocalRuntime, tag: string, n: number) {
  const { project: p, secretKey, publicKey } = await createProject(runtime.deps, { name: tag });
  const domain = `${tag}.bench.example.org`;
  await seedVerifiedDomain(runtime.deps, p.id, domain);
  const base = Date.now() - n - 60_000;
  const items: Record<string, unknown>[] = [];
  const emails: string[] = [];
  for (let i = 0; i < n; i++) {
    const email = `user${i}@${domain}`;
    emails.push(email);
    items.push(
      ...contactItems(
        p.id,
        email,
        { tier: i % 2 ? 'gold' : 'silver', points: i },
        new Date(base + i).toISOString(),
      ).items,
    );
  }
  await putItems(runtime, items);
  const call = async (method: string, path: string, json?: unknown, key = secretKey) => {
    const res = await fetch(`${runtime.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const out = (await res.json()) as Record<string, unknown>;
    if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(out)}`);
    return out;
  };
  return {
    id: p.id,
    from: `hello@${domain}`,
    emails,
    call,
    track: (email: string, event: string) => call('POST', '/v1/track', { email, event }, publicKey),
  };
}
type Project = Awaited<ReturnType<typeof project>>;

/** The bench's five-step workflow on `event`, enabled; its step ids by type. */
async function fiveSteps(p: Project, event: string) {
  const template = (
    await p.call('POST', '/templates', {
      name: 'Hi',
      subject: 'Hi {{ email }}',
      body: '<p>Welcome, {{ tier }}</p>',
      from: p.from,
      type: 'TRANSACTIONAL',
    })
  ).id as string;
  const wf = (await p.call('POST', '/workflows', { name: 'Bench', eventName: event })).id as string;
  const add = async (type: string, config: unknown) => {
    const id = (await p.call('POST', `/workflows/${wf}/steps`, { type, config })).id as string;
    stepTypes.set(id, type);
    return id;
  };
  const s1 = await add('SEND_EMAIL', { templateId: template, recipient: { type: 'CONTACT' } });
  const s2 = await add('DELAY', { amount: 1, unit: 'days' });
  const s3 = await add('CONDITION', {
    condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.points', operator: 'gte', value: 0 }] }] },
  });
  const s4 = await add('UPDATE_CONTACT', { data: { stage: 'onboarded' } });
  const s5 = await add('SEND_EMAIL', { templateId: template, recipient: { type: 'CONTACT' } });
  for (const [from, to, branch] of [
    [s1, s2],
    [s2, s3],
    [s3, s4, 'yes'],
    [s4, s5],
  ] as const)
    await p.call('POST', `/workflows/${wf}/transitions`, {
      fromStepId: from,
      toStepId: to,
      ...(branch ? { branch } : {}),
    });
  await p.call('PATCH', `/workflows/${wf}`, { enabled: true });
  return wf;
}

async function total(p: Project, wf: string, status: string): Promise<number> {
  return Number((await p.call('GET', `/workflows/${wf}/executions?status=${status}&pageSize=1`)).total);
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 900_000) {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > timeoutMs) throw new Error(`Timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function trackAll(p: Project, emails: readonly string[], event: string, lanes = 16) {
  const queue = [...emails];
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      for (let e = queue.shift(); e; e = queue.shift()) await p.track(e, event);
    }),
  );
}

/** The project's executions in a delay: their pending one-off schedules. */
const delayed = (p: Project) =>
  rt.scheduler.list().filter((s) => s.name.startsWith('wf-') && s.message.projectId === p.id).length;

/** Tracks, waits for every execution to reach its delay, advances a day, waits for every one to complete. */
async function run(p: Project, wf: string, event: string, n: number) {
  const start = performance.now();
  await trackAll(p, p.emails, event);
  await until('all in the delay', async () => delayed(p) >= n);
  const waitingAt = performance.now();
  await p.call('POST', '/_local/clock', { advance: DAY + 60 });
  await until('all completed', async () => (await total(p, wf, 'COMPLETED')) >= n);
  await rt.queue.drain({ timeoutMs: 300_000 });
  return { ms: performance.now() - start, toWaitingMs: waitingAt - start };
}

const report = (goal: string, value: string, pass?: boolean) =>
  console.log(`${pass === undefined ? '    ' : pass ? 'PASS' : 'MISS'}  ${goal}: ${value}`);

// 1. Throughput.
{
  console.log(`seeding ${CONTACTS} contacts...`);
  const p = await meter.unmetered(() => project(rt, 'wfbig', CONTACTS));
  const wf = await fiveSteps(p, 'signed_up');
  const out = await meter.unmetered(() => run(p, wf, 'signed_up', CONTACTS));
  report(
    `${CONTACTS} executions of the five-step workflow, first track to last COMPLETED`,
    `${(out.ms / 1000).toFixed(1)} s (${(out.toWaitingMs / 1000).toFixed(1)} s to all in the delay), ${(CONTACTS / (out.ms / 1000)).toFixed(0)} executions/s`,
  );
}

// 2. Capacity per step.
{
  const p = await meter.unmetered(() => project(rt, 'wfmetered', METERED));
  const wf = await fiveSteps(p, 'joined');
  meter.reset();
  await run(p, wf, 'joined', METERED);
  const bill = meter.reset();
  const steps = new Map<string, number>([
    ['step:SEND_EMAIL', 2 * METERED],
    ['step:DELAY', METERED],
    ['step:CONDITION', METERED],
    ['step:UPDATE_CONTACT', METERED],
  ]);
  console.log(`      DynamoDB units of ${METERED} executions, by what the jobs worker ran:`);
  for (const [phase, units] of Object.entries(bill.byPhase).sort()) {
    const runs = steps.get(phase);
    console.log(
      `        ${phase.padEnd(22)} ${units.write.toFixed(0).padStart(7)} WCU ${units.read.toFixed(1).padStart(9)} RCU${runs ? `   ${(units.write / runs).toFixed(2)} WCU, ${(units.read / runs).toFixed(2)} RCU per step` : ''}`,
    );
  }
  const nonSend = ['step:DELAY', 'step:CONDITION', 'step:UPDATE_CONTACT'];
  const w = nonSend.reduce((n, s) => n + (bill.byPhase[s]?.write ?? 0), 0) / (3 * METERED);
  report(
    'write units per executed step other than SEND_EMAIL (goal at most 3)',
    `${w.toFixed(2)} WCU`,
    w <= 3,
  );
  // The last SEND_EMAIL also ends its execution: the count, the entry's release, the status
  // index's move and `workflow.completed` are the end's, shown apart.
  const sends = (bill.writes as WriteRecord[]).filter((r) => r.phase === 'step:SEND_EMAIL');
  const endUnits = sends.reduce((n, r) => {
    if (['#COUNTS', 'WFENTRY', 'workflowEvent'].includes(r.entity)) return n + r.units;
    return r.entity === 'X' ? n + r.units - r.table : n;
  }, 0);
  const sendTotal = bill.byPhase['step:SEND_EMAIL']?.write ?? 0;
  report(
    'write units per SEND_EMAIL step (a campaign recipient: bench:campaign), the end apart',
    `${((sendTotal - endUnits) / (2 * METERED)).toFixed(2)} WCU; the execution's end ${(endUnits / METERED).toFixed(2)} WCU`,
  );
  const byEntity = new Map<string, { n: number; units: number }>();
  for (const x of (bill.writes as WriteRecord[]).filter((r) => r.phase.startsWith('step:'))) {
    const key = `${x.phase} ${x.entity} ${x.command}${x.indexes.length ? ` (+${x.indexes.length} index)` : ''}${x.failed ? ' failed' : ''}`;
    const e = byEntity.get(key) ?? { n: 0, units: 0 };
    e.n++;
    e.units += x.units;
    byEntity.set(key, e);
  }
  console.log('      writes of the steps, by item (SEND_EMAIL: both of an execution):');
  for (const [key, e] of [...byEntity].sort())
    console.log(`        ${key.padEnd(58)} ${(e.units / METERED).toFixed(2)} WCU per execution`);
}

// 3. Resume reads, independent of how many executions wait.
{
  const reads: number[] = [];
  for (const waiting of [100, 2_000]) {
    const p = await meter.unmetered(() => project(rt, `wfwait${waiting}`, waiting));
    const event = `started_${waiting}`;
    const wf = (await p.call('POST', '/workflows', { name: 'Wait', eventName: event })).id as string;
    const w = (
      await p.call('POST', `/workflows/${wf}/steps`, {
        type: 'WAIT_FOR_EVENT',
        config: { eventName: 'paid' },
      })
    ).id;
    const x = (await p.call('POST', `/workflows/${wf}/steps`, { type: 'EXIT', config: {} })).id;
    await p.call('POST', `/workflows/${wf}/transitions`, { fromStepId: w, toStepId: x, branch: 'event' });
    await p.call('PATCH', `/workflows/${wf}`, { enabled: true });
    await meter.unmetered(() => trackAll(p, p.emails, event));
    await meter.unmetered(() => until('all waiting', async () => (await total(p, wf, 'WAITING')) >= waiting));
    await meter.unmetered(() => rt.queue.drain({ timeoutMs: 300_000 }));
    meter.reset();
    await p.track(p.emails[waiting >> 1]!, 'paid');
    await rt.queue.drain({ timeoutMs: 60_000 });
    const bill = meter.reset();
    const r = bill.byPhase.dispatch?.read ?? 0;
    reads.push(r);
    report(
      `read units of resuming one of ${waiting} waiting executions on its event (dispatch)`,
      `${r.toFixed(1)} RCU`,
    );
  }
  const [a, b] = reads as [number, number];
  report(
    'resume read units independent of executions waiting (goal within 10%)',
    `${a.toFixed(1)} vs ${b.toFixed(1)} RCU`,
    Math.abs(a - b) <= 0.1 * Math.max(a, b),
  );
}

await rt.stop();
