/**
 * `npm run bench:workflows`: workflow executions in an in-process local runtime, through HTTP.
 *
 * 1. A five-step workflow (SEND_EMAIL, DELAY 1 day, CONDITION, UPDATE_CONTACT, SEND_EMAIL) enabled
 *    on a tracked event; the event tracked for WORKFLOW_CONTACTS (5,000) contacts (written fast,
 *    unmetered); the clock advanced past the delay; executions a second from the first track to
 *    the last COMPLETED (the clock advance itself takes no time).
 * 2. The same run for METERED_CONTACTS (500) contacts of another project with the capacity meter
 *    on, and a second workflow for as many contacts of a third project (WEBHOOK to a server of
 *    the bench's own, WAIT_FOR_EVENT `paid`, EXIT), whose contacts then track `paid`: DynamoDB
 *    write and read units of each of the seven step types per run, from the jobs worker's writes
 *    labelled by the message that made them (WAIT_FOR_EVENT: its wait and its resume by the
 *    event's dispatch; no timeout, so no due item), and the execution's start (its trigger's dispatch) and end (of the message
 *    that ended it: the count, the entry's release, the status index move, `workflow.completed`)
 *    as rows of their own.
 * 3. Resuming a waiting execution: a WAIT_FOR_EVENT workflow with 100, then 2,000 executions
 *    waiting; the read units of handling one contact's event (its dispatch and the resume).
 *
 * Goals, each printed PASS, FAIL or NO VERDICT (bench/verdicts.ts): at most 3 write units per run
 * of each step type other than SEND_EMAIL, each type on its own; a SEND_EMAIL's mail at most a
 * campaign recipient's 5 (bench:campaign) and its own write at most 3; every metered execution
 * ended as its workflow says with no dead letter; the resume's read units the same at 100 and
 * 2,000 waiting (within 10%). A step type that did not run, ran fewer messages than runs, or
 * wrote nothing is NO VERDICT. The bench exits non-zero unless every goal passes.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSEvent } from 'aws-lambda';
import { seedVerifiedDomain } from '../shared/domains/repository';
import { fastTimings, type LocalRuntime, startLocal } from '../shared/local/runtime';
import { createProject } from '../shared/projects/repository';
import { meterCapacity, type WriteRecord } from './capacity';
import { apiCaller, contactItems, putItems, queueWorkers } from './local';
import {
  label,
  overall,
  STEP_TYPES,
  type StepBill,
  type StepType,
  stepRows,
  type Verdict,
  within,
} from './verdicts';

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
  env: {
    SES_MAX_SEND_RATE: '1000000',
    RATE_LIMIT_PER_MINUTE: '100000000',
    // The metered WEBHOOK step calls a server of the bench's own on this machine.
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  },
});

/**
 * Each jobs message runs labelled `<role>|<n>`: its role (`step:<TYPE>`, `end` for a finishing
 * message, `dispatch:<event name>`, or its job type) and its own number, so that the writes of the
 * message that ended an execution can be told apart from the others. `messages` counts the
 * messages run per role.
 */
const label_ = new AsyncLocalStorage<string>();
const stepTypes = new Map<string, string>();
const messages = new Map<string, number>();
let sequence = 0;
for (const q of queueWorkers(rt)) {
  const worker = q.worker;
  if (!worker) continue;
  q.worker = (event: SQSEvent) => {
    const body = JSON.parse(event.Records[0]?.body ?? '{}') as {
      type?: string;
      stepId?: string;
      finish?: boolean;
      event?: { name?: string };
    };
    const role =
      body.type === 'workflows.step'
        ? body.finish
          ? 'end'
          : `step:${stepTypes.get(body.stepId ?? '') ?? '?'}`
        : body.type === 'events.dispatch'
          ? `dispatch:${body.event?.name ?? '?'}`
          : (body.type ?? 'other');
    messages.set(role, (messages.get(role) ?? 0) + 1);
    return label_.run(`${role}|${++sequence}`, () => worker(event));
  };
}
const roleOf = (phase: string) => phase.split('|')[0]!;
const meter = meterCapacity(rt.dynamo.db, { phase: () => label_.getStore() ?? 'call' });
/** Every verdict printed, for the run's own at the end. */
const verdicts: Verdict[] = [];

/** The trigger events of the metered workflows (their dispatch starts executions) and the resume's. */
const TRIGGERS = new Set(['dispatch:joined', 'dispatch:enrolled']);
const RESUME = 'dispatch:paid';
/** Items an execution's end writes (beside the execution's status index move). */
const END_ITEMS = new Set(['#COUNTS', 'WFENTRY', 'workflowEvent']);
const EXECUTION = 'X';

/**
 * The metered run's units by step type, the start and the end: each message's writes go to its
 * role; of a step message that ended its execution (it wrote `workflow.completed`), the count, the
 * entry's release, the event and the execution's status index move are the end's, the execution's
 * own write the step's. Reads stay with the message that made them. A SEND_EMAIL's mail is every
 * write of it that is not the execution's. Runs: `n` executions of each workflow.
 */
function stepBills(
  writes: readonly WriteRecord[],
  byPhase: Record<string, { read: number; write: number }>,
  n: number,
): Partial<Record<StepType | 'start' | 'end', StepBill>> {
  const sum = new Map<string, { wcu: number; rcu: number; mail: number }>();
  const add = (key: string, wcu: number, rcu: number, mail = 0) => {
    const s = sum.get(key) ?? { wcu: 0, rcu: 0, mail: 0 };
    s.wcu += wcu;
    s.rcu += rcu;
    s.mail += mail;
    sum.set(key, s);
  };
  const keyOf = (role: string) =>
    TRIGGERS.has(role) || role === 'dispatch:workflow.started'
      ? 'start'
      : role === RESUME
        ? 'WAIT_FOR_EVENT'
        : role === 'end' || role === 'dispatch:workflow.completed'
          ? 'end'
          : role.startsWith('step:')
            ? role.slice('step:'.length)
            : role;
  const perMessage = new Map<string, WriteRecord[]>();
  for (const w of writes) perMessage.set(w.phase, [...(perMessage.get(w.phase) ?? []), w]);
  let endings = 0;
  let resumeWcu = 0;
  for (const [phase, list] of perMessage) {
    const role = roleOf(phase);
    const key = keyOf(role);
    const ended = role.startsWith('step:') && list.some((w) => w.entity === 'workflowEvent');
    if (ended) endings++;
    for (const w of list) {
      const own = w.entity === EXECUTION || END_ITEMS.has(w.entity);
      if (ended && END_ITEMS.has(w.entity)) add('end', w.units, 0);
      else if (ended && w.entity === EXECUTION) {
        add('end', w.units - w.table, 0);
        add(key, w.table, 0);
      } else add(key, w.units, 0, key === 'SEND_EMAIL' && !own ? w.units : 0);
      if (role === RESUME) resumeWcu += w.units;
    }
  }
  for (const [phase, units] of Object.entries(byPhase)) add(keyOf(roleOf(phase)), 0, units.read);
  const count = (pred: (role: string) => boolean) =>
    [...messages].filter(([role]) => pred(role)).reduce((t, [, c]) => t + c, 0);
  const bills: Partial<Record<StepType | 'start' | 'end', StepBill>> = {};
  const occurrences: Record<StepType, number> = {
    SEND_EMAIL: 2,
    DELAY: 1,
    WAIT_FOR_EVENT: 1,
    CONDITION: 1,
    WEBHOOK: 1,
    UPDATE_CONTACT: 1,
    EXIT: 1,
  };
  for (const step of STEP_TYPES) {
    const s = sum.get(step);
    if (!s) continue;
    bills[step] = {
      wcu: s.wcu,
      rcu: s.rcu,
      runs: occurrences[step] * n,
      messages: count((r) => r === `step:${step}`),
      ...(step === 'SEND_EMAIL' ? { mailWcu: s.mail } : {}),
    };
  }
  const start = sum.get('start');
  if (start) bills.start = { ...start, runs: 2 * n, messages: count((r) => TRIGGERS.has(r)) };
  const end = sum.get('end');
  if (end) bills.end = { ...end, runs: 2 * n, messages: endings + count((r) => r === 'end') };
  const send = bills.SEND_EMAIL;
  const wait = bills.WAIT_FOR_EVENT;
  if (send?.mailWcu !== undefined)
    console.log(
      `      SEND_EMAIL per run: the mail (record, email.sent) ${(send.mailWcu / send.runs).toFixed(2)} WCU, the step's own (the execution) ${((send.wcu - send.mailWcu) / send.runs).toFixed(2)} WCU`,
    );
  if (wait)
    console.log(
      `      WAIT_FOR_EVENT per run: the wait (its step message) ${((wait.wcu - resumeWcu) / wait.runs).toFixed(2)} WCU, the resume (the contact's event's dispatch) ${(resumeWcu / wait.runs).toFixed(2)} WCU`,
    );
  // The tracking requests themselves ('call') are not the workflows'.
  const others = [...sum].filter(([k]) => !(k in bills) && k !== 'call');
  if (others.length > 0)
    console.log(
      `      other jobs of the metered run (no step's): ${others.map(([k, v]) => `${k} ${v.wcu.toFixed(0)} WCU ${v.rcu.toFixed(1)} RCU`).join('; ')}`,
    );
  return bills;
}

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
  const call = apiCaller(runtime.url, secretKey);
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

/** WEBHOOK (to `url`), WAIT_FOR_EVENT `paid`, EXIT on `event`, enabled. */
async function threeSteps(p: Project, event: string, url: string) {
  const wf = (await p.call('POST', '/workflows', { name: 'Bench 2', eventName: event })).id as string;
  const add = async (type: string, config: unknown) => {
    const id = (await p.call('POST', `/workflows/${wf}/steps`, { type, config })).id as string;
    stepTypes.set(id, type);
    return id;
  };
  const s1 = await add('WEBHOOK', { url, method: 'POST', headers: {}, body: '{"email": "{{ email }}"}' });
  const s2 = await add('WAIT_FOR_EVENT', { eventName: 'paid' });
  const s3 = await add('EXIT', {});
  await p.call('POST', `/workflows/${wf}/transitions`, { fromStepId: s1, toStepId: s2 });
  await p.call('POST', `/workflows/${wf}/transitions`, { fromStepId: s2, toStepId: s3, branch: 'event' });
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

const report = (goal: string, value: string, verdict?: Verdict, reason?: string) => {
  if (verdict) verdicts.push(verdict);
  console.log(`${label(verdict)}  ${goal}: ${value}${reason ? ` (${reason})` : ''}`);
};

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

// 2. Capacity per step type: the five-step workflow, then WEBHOOK, WAIT_FOR_EVENT (its wait and
// its resume by the contact's event) and EXIT, for METERED contacts each.
{
  const hook = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;

  const a = await meter.unmetered(() => project(rt, 'wfmetered', METERED));
  const wfA = await fiveSteps(a, 'joined');
  const b = await meter.unmetered(() => project(rt, 'wfmetered2', METERED));
  const wfB = await threeSteps(b, 'enrolled', hookUrl);
  meter.reset();
  messages.clear();
  const deadBefore = rt.queue.deadLetters().length;
  await run(a, wfA, 'joined', METERED);
  await trackAll(b, b.emails, 'enrolled');
  await until('all waiting', async () => (await total(b, wfB, 'WAITING')) >= METERED);
  await rt.queue.drain({ timeoutMs: 300_000 });
  await trackAll(b, b.emails, 'paid');
  await until('all exited', async () => (await total(b, wfB, 'EXITED')) >= METERED);
  await rt.queue.drain({ timeoutMs: 300_000 });
  const bill = meter.reset();
  hook.close();
  const dead = rt.queue.deadLetters().length - deadBefore;
  const ended: [number, number, number, number] = [
    await total(a, wfA, 'COMPLETED'),
    await total(b, wfB, 'EXITED'),
    await total(a, wfA, 'FAILED'),
    await total(b, wfB, 'FAILED'),
  ];

  const rows = stepRows(stepBills(bill.writes, bill.byPhase, METERED));
  console.log(
    `      DynamoDB units per run of each step type, ${METERED} executions of each workflow (the end apart):`,
  );
  for (const r of rows) {
    const what =
      r.step === 'start'
        ? "execution's start (its trigger's dispatch)"
        : r.step === 'end'
          ? "execution's end (count, entry release, status index, workflow.completed)"
          : r.step;
    const units = `${r.wcuPerRun.toFixed(2)} WCU, ${r.rcuPerRun.toFixed(2)} RCU per run`;
    verdicts.push(...(r.judged ? [r.judged.verdict] : []));
    console.log(
      `${label(r.judged?.verdict)}  ${what.padEnd(16)} ${units}; goal ${r.goal}${r.judged?.reason ? ` (${r.judged.reason})` : ''}`,
    );
  }
  // The old figure, for comparison with earlier runs: it averaged the non-sending steps together.
  const nonSending = rows.filter((r) => r.step !== 'SEND_EMAIL' && r.step !== 'start' && r.step !== 'end');
  console.log(
    `            (mean of the ${nonSending.length} non-sending step types: ${(nonSending.reduce((n, r) => n + r.wcuPerRun, 0) / nonSending.length).toFixed(2)} WCU; each is judged on its own above)`,
  );
  const complete = ended[0] === METERED && ended[1] === METERED && ended[2] === 0 && ended[3] === 0;
  const runOk = complete && dead === 0;
  verdicts.push(runOk ? 'PASS' : 'FAIL');
  console.log(
    `${label(runOk ? 'PASS' : 'FAIL')}  every metered execution ended as its workflow says: ${ended[0]} of ${METERED} COMPLETED, ${ended[1]} of ${METERED} EXITED, ${ended[2] + ended[3]} FAILED, ${dead} dead-lettered messages`,
  );

  const byEntity = new Map<string, { n: number; units: number }>();
  for (const x of bill.writes as WriteRecord[]) {
    const key = `${roleOf(x.phase)} ${x.entity} ${x.command}${x.indexes.length ? ` (+${x.indexes.length} index)` : ''}${x.failed ? ' failed' : ''}`;
    const e = byEntity.get(key) ?? { n: 0, units: 0 };
    e.n++;
    e.units += x.units;
    byEntity.set(key, e);
  }
  console.log(
    '      writes by what the jobs worker ran and the item written (SEND_EMAIL: both of an execution):',
  );
  for (const [key, e] of [...byEntity].sort())
    console.log(`        ${key.padEnd(64)} ${(e.units / METERED).toFixed(2)} WCU per execution`);
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
    // The event's dispatch messages (its own and any it led to), whatever their number.
    const r = Object.entries(bill.byPhase)
      .filter(([phase]) => roleOf(phase).startsWith('dispatch:'))
      .reduce((n, [, units]) => n + units.read, 0);
    reads.push(r);
    report(
      `read units of resuming one of ${waiting} waiting executions on its event (dispatch)`,
      `${r.toFixed(1)} RCU`,
    );
  }
  const [a, b] = reads as [number, number];
  const judged = within({ value: a, samples: 1 }, { value: b, samples: 1 }, 0.1);
  report(
    'resume read units independent of executions waiting (goal within 10%)',
    `${a.toFixed(1)} vs ${b.toFixed(1)} RCU`,
    judged.verdict,
    judged.reason,
  );
}

await rt.stop();
const verdict = overall(verdicts);
console.log(
  `\nbench:workflows: ${verdict} (${verdicts.filter((v) => v === 'PASS').length} of ${verdicts.length} goals PASS)`,
);
if (verdict !== 'PASS') process.exitCode = 1;
