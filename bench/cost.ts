/**
 * `npm run bench:cost`: the AWS cost of Sesame's main kinds of work, from what an in-process local
 * runtime measures and AWS's published prices (bench/cost-model.ts, docs/cost.md).
 *
 * Scenarios, each through HTTP and the runtime's queue workers: SEND_COUNT (1,000) transactional
 * sends (`POST /v1/send`, one new recipient each), TRACK_COUNT (1,000) tracked events
 * (`POST /v1/track`, TRACK_CONTACTS contacts, the first event of each creates it), a campaign at
 * each of CAMPAIGN_SIZES (1,000 and 2,000 recipients) priced at CAMPAIGN_PRICED (10,000)
 * recipients by scaling the largest linearly (the per-recipient figures of the sizes are printed
 * side by side), and a month at idle (one run of each schedule, times its runs in a month).
 *
 * Each scenario runs twice on fresh addresses:
 * - the units pass, with bench/capacity.ts's meter on the runtime's DynamoDB client: read and
 *   write request units as on-demand DynamoDB bills them;
 * - the time pass, unmetered (the meter's own reads would lengthen the handlers), with every
 *   handler invocation run alone (one at a time in this process, so none is timed while another
 *   runs) and timed from call to answer: Lambda invocations per function and their durations,
 *   SQS sends (counted at the local queue) and receives and deletes (one each per worker
 *   invocation), SES sends (at the mail sink), SNS publishes (the SES events the sink publishes),
 *   EventBridge Scheduler deliveries (one-off schedules reaching the queue), S3 calls (the blob and
 *   image ports) and the bytes handlers log.
 *
 * Handlers are wrapped through `startLocal`'s `handlers` option (the modules the manifest names,
 * with a timer around what their `createHandler` returns); nothing in the product changes.
 * Function memory sizes, architecture, schedules and the list of billed resources come from the
 * stacks synthesized in this process (as the infra tests do, without bundling).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { App } from 'aws-cdk-lib';
import { addSesameStacks } from '../lib/app';
import { stageConfigSchema } from '../lib/config';
import { seedVerifiedDomain } from '../shared/domains/repository';
import { SES_EVENT_JOB } from '../shared/email-events/messages';
import { TALLY_SETTLE_DELAY_S } from '../shared/events/tally';
import { type HandlerFactory, type HandlerOverrides, repoRoot } from '../shared/local/handlers';
import { fastTimings, type LocalRuntime, startLocal } from '../shared/local/runtime';
import { type FunctionKind, functionUses, manifest } from '../shared/manifest';
import { createProject } from '../shared/projects/repository';
import { table } from '../shared/table';
import { itemBytes, meterCapacity } from './capacity';
import {
  addUsage,
  billedMs,
  COST_GOAL_PER_1000,
  COST_TARGET_PER_1000,
  type CostLine,
  costLines,
  gbSeconds,
  idlePollsPerMonth,
  type LambdaUse,
  runsPerMonth,
  SES_PER_1000,
  scaleUsage,
  totals,
  type Usage,
  unbatchedUsage,
  usd,
  verdict,
  type WorkerBatches,
} from './cost-model';
import { contactItems, putItems } from './local';

const SEND_COUNT = Number(process.env.SEND_COUNT ?? 1000);
const TRACK_COUNT = Number(process.env.TRACK_COUNT ?? 1000);
const TRACK_CONTACTS = Number(process.env.TRACK_CONTACTS ?? 100);
const CAMPAIGN_SIZES = (process.env.CAMPAIGN_SIZES ?? '1000,2000').split(',').map(Number);
const CAMPAIGN_PRICED = Number(process.env.CAMPAIGN_PRICED ?? 10_000);
const IDLE_RUNS = Number(process.env.IDLE_RUNS ?? 20);
/** Lambda's START, END and REPORT lines of one invocation, with CloudWatch's 26 bytes per event (estimate). */
const PLATFORM_LOG_BYTES = 360;
/** CloudWatch Logs counts 26 bytes of metadata per log event besides the message. */
const LOG_EVENT_OVERHEAD = 26;
const GB = 1024 ** 3;
const started = performance.now();

// ---------------------------------------------------------------------------------------------
// The deployment, as CDK synthesizes it.

type Template = { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };
const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const stacks = addSesameStacks(app, stageConfigSchema.parse({ stage: 'cost' }));
const assembly = app.synth();
const templates: Template[] = [stacks.stateful, stacks.stateless].map(
  (s) => assembly.getStackByName(s.stackName).template as Template,
);
const resources = templates.flatMap((t) => Object.entries(t.Resources));
const ofType = (type: string) => resources.filter(([, r]) => r.Type === type);

const pascal = (name: string) =>
  name
    .split(/[-_]/)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');
const cdkPrefix: Record<FunctionKind, string> = {
  http: 'Http',
  queue: 'Worker',
  schedule: 'Schedule',
  authorizer: 'Authorizer',
};
/** The Lambda function of a manifest entry in the template: its memory size and architecture. */
function deployed(kind: FunctionKind, name: string): { memoryMb: number; arch: string } {
  const pattern = new RegExp(`^${cdkPrefix[kind]}${pascal(name)}Function[0-9A-F]{8}$`);
  const found = ofType('AWS::Lambda::Function').find(([id]) => pattern.test(id));
  if (!found) throw new Error(`No Lambda function for ${kind} ${name} in the synthesized stacks`);
  const p = found[1].Properties ?? {};
  return {
    memoryMb: Number(p.MemorySize ?? 128),
    arch: String((p.Architectures as string[])?.[0] ?? 'x86_64'),
  };
}
const functions = functionUses(manifest).map((f) => ({ ...f, ...deployed(f.kind, f.name) }));
const notArm = functions.filter((f) => f.arch !== 'arm64');
if (notArm.length > 0)
  throw new Error(`The model prices arm64; not arm64: ${notArm.map((f) => f.name).join(', ')}`);
const functionKey = (kind: FunctionKind, name: string) => `${kind} ${name}`;
const memoryOf = new Map(functions.map((f) => [functionKey(f.kind, f.name), f.memoryMb]));

// One access-log line of the HTTP API per request: its format with each variable as 16 characters.
const stageLogs = ofType('AWS::ApiGatewayV2::Stage')[0]?.[1].Properties?.AccessLogSettings as
  | { Format?: string }
  | undefined;
const accessLogFormat = String(stageLogs?.Format ?? '');
const ACCESS_LOG_BYTES = accessLogFormat
  ? accessLogFormat.replace(/\$context\.[A-Za-z.]+/g, 'x'.repeat(16)).length + LOG_EVENT_OVERHEAD
  : 0;
const pollers = Number(
  (
    ofType('AWS::Lambda::EventSourceMapping')[0]?.[1].Properties?.ScalingConfig as
      | { MaximumConcurrency?: number }
      | undefined
  )?.MaximumConcurrency ?? 5,
);

// ---------------------------------------------------------------------------------------------
// Counters: what the time pass counts.

interface Counters {
  /** Timed invocations by function key. */
  lambda: Map<string, { invocations: number; billedMs: number; wallMs: number; records: number }>;
  apiRequests: number;
  workerInvocations: number;
  sqsSends: number;
  snsPublishes: number;
  schedulerDeliveries: number;
  sesEmails: number;
  s3Put: number;
  s3Get: number;
  logBytes: number;
}
const fresh = (): Counters => ({
  lambda: new Map(),
  apiRequests: 0,
  workerInvocations: 0,
  sqsSends: 0,
  snsPublishes: 0,
  schedulerDeliveries: 0,
  sesEmails: 0,
  s3Put: 0,
  s3Get: 0,
  logBytes: 0,
});
let counters = fresh();

// Handlers' own log lines (console) are counted, not printed, while a scenario runs.
let capturing = false;
const print = console.log.bind(console);
for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
  const original = console[method].bind(console);
  console[method] = (...args: unknown[]) => {
    if (!capturing) return original(...args);
    counters.logBytes += Buffer.byteLength(format(...args)) + LOG_EVENT_OVERHEAD;
  };
}

// Every handler invocation runs alone: the next one waits for the one before to answer.
let chain: Promise<unknown> = Promise.resolve();
function alone<T>(fn: () => Promise<T>): Promise<T> {
  const run = chain.then(fn, fn);
  chain = run.catch(() => undefined);
  return run;
}

let countSchedules = false;
/** Read requests (and how many were strongly consistent) while `countReads`: the idle floor. */
let countReads = false;
const reads = { requests: 0, consistent: 0 };

/** Set once the runtime has started: what wraps each invocation (metering on or off). */
let invoke: <T>(fn: () => Promise<T>) => Promise<T> = (fn) => fn();

async function timedFactory(kind: FunctionKind, name: string, handlerPath: string): Promise<HandlerFactory> {
  const mod = (await import(pathToFileURL(resolve(repoRoot, handlerPath)).href)) as {
    createHandler: HandlerFactory;
  };
  const key = functionKey(kind, name);
  return (deps) => {
    const handler = mod.createHandler(deps) as (event: unknown, context: unknown) => Promise<unknown>;
    return (event: unknown, context: unknown) =>
      alone(() =>
        invoke(async () => {
          // The clock moves that settle the queue fire the recurring schedules that fell due:
          // they are the idle month's, not counted in the other scenarios.
          if (kind === 'schedule' && !countSchedules) return handler(event, context);
          const t0 = performance.now();
          try {
            return await handler(event, context);
          } finally {
            const ms = performance.now() - t0;
            const c = counters.lambda.get(key) ?? { invocations: 0, billedMs: 0, wallMs: 0, records: 0 };
            c.invocations++;
            if (kind === 'queue') c.records += (event as { Records?: unknown[] }).Records?.length ?? 1;
            c.billedMs += billedMs(ms);
            c.wallMs += ms;
            counters.lambda.set(key, c);
            if (kind === 'http') counters.apiRequests++;
            if (kind === 'queue') counters.workerInvocations++;
          }
        }),
      );
  };
}

const overrides: Record<keyof HandlerOverrides, Record<string, HandlerFactory>> = {
  http: {},
  queues: {},
  schedules: {},
  authorizers: {},
};
const overrideKind: Record<FunctionKind, keyof HandlerOverrides> = {
  http: 'http',
  queue: 'queues',
  schedule: 'schedules',
  authorizer: 'authorizers',
};
for (const f of functions)
  overrides[overrideKind[f.kind]][f.name] = await timedFactory(f.kind, f.name, f.handler);

const rt: LocalRuntime = await startLocal({
  port: 0,
  timings: fastTimings,
  recurringSchedules: false,
  handlers: overrides,
  logger: { info: () => {}, warn: () => {}, error: (...a: unknown[]) => console.error(...a) },
  // Out of the way: the API's per-project rate limit and the SES send-rate pacing.
  env: { RATE_LIMIT_PER_MINUTE: '100000000', SES_MAX_SEND_RATE: '1000000' },
});
const meter = meterCapacity(rt.dynamo.db);
rt.dynamo.db.middlewareStack.add(
  (next, context) => async (args) => {
    const name = String(context.commandName);
    if (countReads && /^(Get|BatchGet|Query|Scan)/.test(name)) {
      reads.requests++;
      if ((args.input as { ConsistentRead?: boolean }).ConsistentRead) reads.consistent++;
    }
    return next(args);
  },
  { step: 'initialize', name: 'benchCostReads' },
);
let metering = false;
invoke = (fn) => (metering ? fn() : meter.unmetered(fn));

// SQS sends at the local queue: SES events are SNS publishes delivered to the queue; messages
// without the `type` attribute are one-off schedules' deliveries (EventBridge Scheduler).
{
  const queue = rt.queue as unknown as {
    send: (q: string, m: { type?: string }, o?: { typeAttribute?: boolean }) => Promise<void>;
  };
  const send = queue.send.bind(rt.queue);
  queue.send = (q, m, o) => {
    counters.sqsSends++;
    if (m.type === SES_EVENT_JOB) counters.snsPublishes++;
    if (o?.typeAttribute === false) counters.schedulerDeliveries++;
    return send(q, m, o);
  };
}
rt.mailSink.onSent(() => {
  counters.sesEmails++;
});
for (const port of [rt.deps.blobs, rt.deps.images] as unknown as Record<string, unknown>[]) {
  if (!port) continue;
  for (const method of ['put', 'get', 'delete']) {
    const fn = port[method];
    if (typeof fn !== 'function') continue;
    port[method] = (...args: unknown[]) => {
      if (method === 'get') counters.s3Get++;
      else counters.s3Put++;
      return (fn as (...a: unknown[]) => unknown).apply(port, args);
    };
  }
}

// ---------------------------------------------------------------------------------------------
// Scenarios.

async function settle(advance = true) {
  // Past the event tally's delay, so the tallies the work armed run too.
  if (advance) await rt.clock.advance(TALLY_SETTLE_DELAY_S);
  await rt.queue.drain({ timeoutMs: 300_000 });
}

interface Measured {
  readonly usage: Usage;
  readonly lambda: Map<string, { invocations: number; billedMs: number; wallMs: number; records: number }>;
  readonly unitsPassInvocations: number;
  readonly logBytes: number;
  readonly sqsSends: number;
  readonly workerInvocations: number;
  /** Records the queue workers were handed (more than their invocations when batched). */
  readonly workerRecords: number;
}

/** Runs `work` twice (units pass, then time pass), each time with a fresh tag for its addresses. */
async function measure(work: (tag: string) => Promise<void>, advance = true): Promise<Measured> {
  await settle(advance);
  // Units pass: metered, everything counted too (for the comparison of invocation counts).
  metering = true;
  meter.reset();
  counters = fresh();
  await work(`u${Date.now()}`);
  await settle(advance);
  metering = false;
  const units = meter.reset().byPhase.call ?? { read: 0, write: 0 };
  const unitsPassInvocations = [...counters.lambda.values()].reduce((s, c) => s + c.invocations, 0);
  // Time pass.
  counters = fresh();
  capturing = true;
  try {
    await work(`t${Date.now()}`);
    await settle(advance);
  } finally {
    capturing = false;
  }
  const c = counters;
  const lambda: Record<string, LambdaUse> = {};
  let invocations = 0;
  for (const [key, l] of c.lambda) {
    lambda[key] = { invocations: l.invocations, billedMs: l.billedMs, memoryMb: memoryOf.get(key) ?? 512 };
    invocations += l.invocations;
  }
  // What runs after this (warm-ups, the next scenario's setup) is counted nowhere.
  counters = fresh();
  const logBytes = c.logBytes + invocations * PLATFORM_LOG_BYTES + c.apiRequests * ACCESS_LOG_BYTES;
  return {
    usage: {
      dynamoRead: units.read,
      dynamoWrite: units.write,
      httpApi: c.apiRequests,
      lambda,
      // Sends (by Sesame, SNS and Scheduler), then a receive and a delete per worker invocation.
      sqs: c.sqsSends + 2 * c.workerInvocations,
      snsPublish: c.snsPublishes,
      scheduler: c.schedulerDeliveries,
      ses: c.sesEmails,
      s3Put: c.s3Put,
      s3Get: c.s3Get,
      logsIngestGb: logBytes / GB,
    },
    lambda: c.lambda,
    unitsPassInvocations,
    logBytes,
    sqsSends: c.sqsSends,
    workerInvocations: c.workerInvocations,
    workerRecords: [...c.lambda.values()].reduce((sum, l) => sum + l.records, 0),
  };
}

async function call(method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${rt.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

const from = `news@${rt.senderDomain}`;
const sends = await measure(async (tag) => {
  for (let i = 0; i < SEND_COUNT; i++)
    await call('POST', '/v1/send', rt.secretKey, {
      to: `reader${i}-${tag}@bench.example.org`,
      from,
      subject: 'Your receipt',
      body: '<p>Hello {{email}}, thanks for your order.</p>',
    });
});

const tracks = await measure(async (tag) => {
  for (let i = 0; i < TRACK_COUNT; i++)
    await call('POST', '/v1/track', rt.publicKey, {
      email: `visitor${i % TRACK_CONTACTS}-${tag}@bench.example.org`,
      event: `event-${i % 5}`,
    });
});

/** A project with its own verified domain and `n` subscribed contacts, written unmetered. */
async function campaignProject(tag: string, n: number) {
  return meter.unmetered(async () => {
    const { project, secretKey } = await createProject(rt.deps, { name: tag });
    const domain = `${tag}.bench.example.org`;
    await seedVerifiedDomain(rt.deps, project.id, domain);
    const base = rt.deps.clock.now().getTime() - n - 60_000;
    const items: Record<string, unknown>[] = [];
    for (let i = 0; i < n; i++)
      items.push(
        ...contactItems(
          project.id,
          `reader${i}@${domain}`,
          { 'first name': `Ann${i}` },
          new Date(base + i).toISOString(),
        ).items,
      );
    await putItems(rt, items, 4);
    return { secretKey, from: `news@${domain}` };
  });
}

const campaigns: { size: number; m: Measured }[] = [];
for (const size of CAMPAIGN_SIZES) {
  const projects = new Map<string, Awaited<ReturnType<typeof campaignProject>>>();
  for (const pass of ['u', 't'])
    projects.set(pass, await campaignProject(`c${size}${pass}${Date.now()}`, size));
  const m = await measure(async (tag) => {
    const p = projects.get(tag[0]!)!;
    const created = await call('POST', '/campaigns', p.secretKey, {
      name: 'Spring',
      subject: '{{first name ?? Hello}}, spring is here',
      body: '<h2>Spring is here</h2><p>Hi {{first name ?? there}}, our spring collection is in.</p>',
      from: p.from,
      fromName: 'Shop Team',
      audienceType: 'ALL',
    });
    const id = (created.data as { id: string }).id;
    await call('POST', `/campaigns/${id}/send`, p.secretKey, {});
    await rt.queue.drain({ timeoutMs: 600_000 });
    const c = await call('GET', `/campaigns/${id}`, p.secretKey);
    const status = (c.data as { status?: string } | undefined)?.status ?? c.status;
    if (status !== 'SENT') throw new Error(`campaign not SENT after the queue drained: ${JSON.stringify(c)}`);
  });
  campaigns.push({ size, m });
}

// The month at idle: one run of each schedule, on the seeded deployment (no pending domain, no
// segment), times its runs in a month.
// The engine reports 0 units for a read that finds nothing; DynamoDB bills a read request at
// least 0.5 RRU (1 when strongly consistent), which is the floor applied here.
const idleRuns: {
  name: string;
  expression: string;
  perMonth: number;
  m: Measured;
  readRequests: number;
  floorRru: number;
}[] = [];
countSchedules = true;
for (const s of manifest.schedules) {
  for (let i = 0; i < 3; i++) await rt.scheduler.runRecurring(s.name);
  let runs = 0;
  reads.requests = 0;
  reads.consistent = 0;
  const m = await measure(async () => {
    countReads = true;
    for (let i = 0; i < IDLE_RUNS; i++) await rt.scheduler.runRecurring(s.name);
    countReads = false;
    runs += IDLE_RUNS;
  }, false);
  const floorRru = (0.5 * (reads.requests - reads.consistent) + reads.consistent) / runs;
  const measuredRru = (m.usage.dynamoRead ?? 0) / IDLE_RUNS;
  const usage: Usage = {
    ...m.usage,
    dynamoRead: Math.max(measuredRru, floorRru) * IDLE_RUNS,
    scheduler: IDLE_RUNS,
  };
  idleRuns.push({
    name: s.name,
    expression: s.expression,
    perMonth: runsPerMonth(s.expression),
    m: { ...m, usage },
    readRequests: reads.requests / runs,
    floorRru,
  });
}

// The table's storage with only the seed in it: items plus DynamoDB's 100 bytes each, in the
// table and in each index the item is in (an index entry of a KEYS_ONLY index: its keys).
let tableBytes = 0;
{
  let start: Record<string, unknown> | undefined;
  const seeded = await startLocal({
    port: 0,
    recurringSchedules: false,
    logger: { info() {}, warn() {}, error() {} },
  });
  do {
    const out = await seeded.dynamo.db.send(
      new ScanCommand({ TableName: seeded.dynamo.tableName, ExclusiveStartKey: start }),
    );
    for (const item of out.Items ?? []) {
      tableBytes += itemBytes(item) + 100;
      for (const index of table.indexes) {
        if (item[index.partitionKey] === undefined || item[index.sortKey] === undefined) continue;
        const entry =
          index.projection === 'KEYS_ONLY'
            ? Object.fromEntries(
                [table.partitionKey, table.sortKey, index.partitionKey, index.sortKey].map((k) => [
                  k,
                  item[k],
                ]),
              )
            : item;
        tableBytes += itemBytes(entry) + 100;
      }
    }
    start = out.LastEvaluatedKey;
  } while (start);
  await seeded.stop();
}
await rt.stop();

// ---------------------------------------------------------------------------------------------
// Report (markdown).

const n = (x: number, digits = 0) => x.toLocaleString('en-US', { maximumFractionDigits: digits });
function costTable(lines: readonly CostLine[]): string[] {
  const out = ['| Service | Item | Quantity | Cost |', '| --- | --- | ---: | ---: |'];
  for (const l of lines)
    out.push(
      `| ${l.service} | ${l.item} | ${n(l.quantity, l.quantity < 10 ? 4 : 1)} ${l.unit} | ${usd(l.usd)} |`,
    );
  const t = totals(lines);
  out.push(`| **Total** | | | **${usd(t.aws)}** |`);
  if (t.ses > 0)
    out.push(
      `| of which SES's own price | | | ${usd(t.ses)} |`,
      `| Sesame's AWS cost beside SES | | | **${usd(t.withoutSes)}** |`,
    );
  return out;
}
function lambdaTable(m: Measured, per: number, perName: string): string[] {
  const out = [
    `| Function | Memory | Invocations | Mean local duration | Billed ms per ${perName} | GB-s per ${perName} |`,
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const [key, l] of [...m.lambda].sort()) {
    const mem = memoryOf.get(key) ?? 512;
    out.push(
      `| ${key} | ${mem} MB | ${n(l.invocations)} | ${(l.wallMs / l.invocations).toFixed(1)} ms | ${(l.billedMs / per).toFixed(2)} | ${gbSeconds(l.billedMs / per, mem).toPrecision(3)} |`,
    );
  }
  return out;
}
const lines: string[] = [];
const say = (...l: string[]) => lines.push(...l);

say(
  `Prices: AWS's published us-east-1 on-demand prices (bench/cost-model.ts PRICES). Scenario costs are marginal: no free tier taken off (an account past its free tiers); the idle month takes the monthly always-free tiers off.`,
  `Durations are wall times of each handler invocation in this process (run one at a time, dynalite answering in-process): local estimates of AWS's, not AWS's.`,
  '',
);

/** The scenario's costs as measured, and with one record per worker invocation (`unbatchedUsage`). */
function scenario(title: string, m: Measured, per: number, perName: string, priced = 1) {
  const scale = (u: Usage) => (priced === 1 ? u : scaleUsage(u, priced));
  const cost = costLines(scale(m.usage), { freeTier: false });
  const workers: Record<string, WorkerBatches> = {};
  for (const [key, l] of m.lambda) if (l.records > 0) workers[key] = l;
  const unbatched = totals(costLines(scale(unbatchedUsage(m.usage, workers)), { freeTier: false }));
  say(`### ${title}`, '', ...costTable(cost), '');
  say(...lambdaTable(m, per, perName), '');
  say(
    `Per ${perName}: ${((m.usage.dynamoRead ?? 0) / per).toFixed(2)} RRU, ${((m.usage.dynamoWrite ?? 0) / per).toFixed(2)} WRU, ${((m.usage.sqs ?? 0) / per).toFixed(2)} SQS requests (${(m.sqsSends / per).toFixed(2)} sends, ${(m.workerInvocations / per).toFixed(2)} worker invocations, each a receive and a delete, handed ${(m.workerRecords / per).toFixed(2)} records: ${(m.workerRecords / Math.max(1, m.workerInvocations)).toFixed(2)} a batch), ${((m.usage.snsPublish ?? 0) / per).toFixed(2)} SNS publishes, ${(m.logBytes / per).toFixed(0)} log bytes (estimated). Invocations: ${n([...m.lambda.values()].reduce((s, l) => s + l.invocations, 0))} in the time pass, ${n(m.unitsPassInvocations)} in the units pass.`,
    '',
    `With one record per worker invocation (a quiet queue: each receive finds one message): $${unbatched.withoutSes.toFixed(4)} beside SES instead of $${totals(cost).withoutSes.toFixed(4)}.`,
    '',
  );
  return { ...totals(cost), unbatchedWithoutSes: unbatched.withoutSes };
}

say(`## Results (run of ${new Date().toISOString().slice(0, 10)})`, '');
const sendTotal = scenario(
  `${n(SEND_COUNT)} transactional sends (POST /v1/send, one new recipient each)`,
  sends,
  SEND_COUNT,
  'send',
);
const trackTotal = scenario(
  `${n(TRACK_COUNT)} tracked events (POST /v1/track, ${TRACK_CONTACTS} contacts, 5 event names)`,
  tracks,
  TRACK_COUNT,
  'event',
);
say('### Campaign: per-recipient figures by measured size', '');
say(
  '| Recipients | RRU | WRU | Lambda invocations | Lambda billed ms | SQS requests | SNS publishes | SES emails | API requests |',
  '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
);
for (const { size, m } of campaigns) {
  const lt = [...m.lambda.values()].reduce((s, l) => ({ i: s.i + l.invocations, ms: s.ms + l.billedMs }), {
    i: 0,
    ms: 0,
  });
  const u = m.usage;
  say(
    `| ${n(size)} | ${((u.dynamoRead ?? 0) / size).toFixed(3)} | ${((u.dynamoWrite ?? 0) / size).toFixed(3)} | ${(lt.i / size).toFixed(3)} | ${(lt.ms / size).toFixed(3)} | ${((u.sqs ?? 0) / size).toFixed(3)} | ${((u.snsPublish ?? 0) / size).toFixed(3)} | ${((u.ses ?? 0) / size).toFixed(3)} | ${((u.httpApi ?? 0) / size).toFixed(3)} |`,
  );
}
say('');
const largest = campaigns.at(-1)!;
const campaignTotal = scenario(
  `Campaign of ${n(CAMPAIGN_PRICED)} recipients (measured at ${n(largest.size)}, scaled x${CAMPAIGN_PRICED / largest.size})`,
  largest.m,
  largest.size,
  'recipient',
  CAMPAIGN_PRICED / largest.size,
);

// Idle month.
const idleUsage = addUsage(...idleRuns.map((r) => scaleUsage(r.m.usage, r.perMonth / IDLE_RUNS)), {
  sqs: idlePollsPerMonth(pollers),
  dynamoStorageGbMonth: tableBytes / GB,
  dynamoPitrGbMonth: tableBytes / GB,
});
const idleLogGb = idleUsage.logsIngestGb ?? 0;
const idleFull: Usage = {
  ...idleUsage,
  // Logs kept 30 days: about one month's ingestion stored at any time.
  logsStorageGbMonth: idleLogGb,
  httpApi: 0,
  restApi: 0,
  snsPublish: 0,
  ses: 0,
  s3Put: 0,
  s3Get: 0,
  s3StorageGbMonth: 0,
  cloudfrontRequests: 0,
  cloudfrontTransferGb: 0,
  kms: 0,
};
const idleWith = costLines(idleFull, { freeTier: true });
const idleWithout = costLines(idleFull, { freeTier: false });
say('### A month at idle', '');
say(
  '| Schedule | Expression | Runs a month | Mean local duration | Read requests per run | RRU per run (floor applied) | WRU per run |',
  '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
);
for (const r of idleRuns) {
  const l = [...r.m.lambda.values()][0];
  say(
    `| ${r.name} | ${r.expression} | ${n(r.perMonth)} | ${l ? (l.wallMs / l.invocations).toFixed(1) : '-'} ms | ${r.readRequests.toFixed(2)} | ${((r.m.usage.dynamoRead ?? 0) / IDLE_RUNS).toFixed(2)} | ${((r.m.usage.dynamoWrite ?? 0) / IDLE_RUNS).toFixed(2)} |`,
  );
}
say(
  '',
  `SQS: the jobs queue's event source mapping long-polls the empty queue with ${pollers} pollers (its maximum concurrency), 3 ReceiveMessage calls a minute each: ${n(idlePollsPerMonth(pollers))} a month (estimated from AWS's description, not measured). Table storage with the seed only: ${n(tableBytes)} bytes (items, index entries and DynamoDB's 100 bytes of overhead each).`,
  '',
  '| Service | Item | Quantity a month | Before free tier | After free tier |',
  '| --- | --- | ---: | ---: | ---: |',
);
for (const [i, l] of idleWith.entries())
  say(
    `| ${l.service} | ${l.item} | ${n(l.quantity, l.quantity < 10 ? 6 : 0)} ${l.unit} | ${usd(idleWithout[i]!.usd)} | ${usd(l.usd)} |`,
  );
say(`| **Total** | | | ${usd(totals(idleWithout).aws)} | **${usd(totals(idleWith).aws)}** |`, '');

// Every billed resource the stacks create, with what it costs at idle.
const IDLE_RULES: Record<string, string> = {
  'AWS::DynamoDB::Table':
    "on-demand: requests (the schedules' reads above), storage (25 GB free), PITR by table size (no free tier): above",
  'AWS::Lambda::Function':
    'requests and GB-s only when invoked: the two schedule functions above; the rest $0 at idle (the custom-resource functions run at deploy only)',
  'AWS::Lambda::EventSourceMapping':
    "no charge itself; its pollers' ReceiveMessage calls are SQS requests (above)",
  'AWS::Lambda::Permission': 'no charge',
  'AWS::Logs::LogGroup': 'ingestion and storage of what is logged (above); 30-day retention',
  'AWS::Scheduler::Schedule': 'per invocation, 14 million a month free (above)',
  'AWS::Scheduler::ScheduleGroup': 'no charge (one-off schedules bill per invocation)',
  'AWS::SQS::Queue': 'per request (the pollers above); the dead-letter queue is not polled: $0',
  'AWS::SQS::QueuePolicy': 'no charge',
  'AWS::SNS::Topic': 'per publish: none at idle, $0',
  'AWS::SNS::Subscription': 'deliveries to SQS are free',
  'AWS::SNS::TopicPolicy': 'no charge',
  'AWS::SES::ConfigurationSet': 'no charge (SES bills per email)',
  'AWS::SES::ConfigurationSetEventDestination': "no charge (the SNS publishes it makes are SNS's)",
  'AWS::S3::Bucket':
    'storage and requests: none at idle in a new deployment, $0 (stored images cost $0.023 per GB-month, no always-free tier; imports expire after 7 days)',
  'AWS::S3::BucketPolicy': 'no charge',
  'AWS::CloudFront::Distribution':
    'per request and GB out, 10 million requests and 1 TB free a month: $0 at idle',
  'AWS::CloudFront::OriginAccessControl': 'no charge',
  'AWS::ApiGatewayV2::Api': 'per request: $0 at idle',
  'AWS::ApiGatewayV2::Stage': 'no charge itself; its access log lines are CloudWatch Logs ingestion',
  'AWS::ApiGatewayV2::Route': 'no charge',
  'AWS::ApiGatewayV2::Integration': 'no charge',
  'AWS::ApiGateway::RestApi': 'per request ($3.50 per million): $0 at idle',
  'AWS::ApiGateway::Stage': 'no charge (no cache, no access log)',
  'AWS::ApiGateway::Deployment': 'no charge',
  'AWS::ApiGateway::Resource': 'no charge',
  'AWS::ApiGateway::Method': 'no charge',
  'AWS::ApiGateway::Authorizer': 'no charge (its Lambda bills when invoked)',
  'AWS::ApiGateway::GatewayResponse': 'no charge',
  'AWS::ApiGateway::RequestValidator': 'no charge',
  'AWS::IAM::Role': 'no charge',
  'AWS::IAM::Policy': 'no charge',
  'Custom::SesameLinkSigningSecret':
    'a standard-tier SSM SecureString parameter under the AWS managed key aws/ssm: $0 (no monthly key fee; decrypts are KMS requests, 20,000 a month free, made at cold starts of functions that sign links, none of them scheduled)',
  'Custom::S3BucketNotifications': 'deploy-time only: $0',
  'AWS::CDK::Metadata': 'not an AWS resource',
  'AWS::CloudWatch::Alarm': 'NOT $0: $0.10 per alarm-month beyond the 10 free',
  'AWS::KMS::Key': 'NOT $0: $1 per customer managed key-month',
};
say('### Every resource the stacks create, at idle', '');
say('| Resource type | Count | At idle |', '| --- | ---: | --- |');
const byType = new Map<string, number>();
for (const [, r] of resources) byType.set(r.Type, (byType.get(r.Type) ?? 0) + 1);
const unknown: string[] = [];
for (const [type, count] of [...byType].sort()) {
  const rule = IDLE_RULES[type];
  if (!rule) unknown.push(type);
  say(`| ${type} | ${count} | ${rule ?? 'NO RULE: not priced by this bench, check it'} |`);
}
say('');
if (unknown.length) say(`Resource types without a rule (check them): ${unknown.join(', ')}`, '');
if (byType.has('AWS::CloudWatch::Alarm') || byType.has('AWS::KMS::Key'))
  say('The stacks create alarms or KMS keys: the idle month is NOT $0 (see the rows above).', '');

say('### Summary', '');
say(
  '| Scenario | Sesame on AWS (beside SES) | SES ($0.10 per 1,000) | Total |',
  '| --- | ---: | ---: | ---: |',
);
say(
  `| ${n(SEND_COUNT)} transactional sends | ${usd(sendTotal.withoutSes)} | ${usd(sendTotal.ses)} | ${usd(sendTotal.aws)} |`,
);
say(
  `| ${n(TRACK_COUNT)} tracked events | ${usd(trackTotal.withoutSes)} | ${usd(trackTotal.ses)} | ${usd(trackTotal.aws)} |`,
);
say(
  `| ${n(CAMPAIGN_PRICED)}-recipient campaign | ${usd(campaignTotal.withoutSes)} | ${usd(campaignTotal.ses)} | ${usd(campaignTotal.aws)} |`,
);
say(
  `| A month at idle (after free tiers) | ${usd(totals(idleWith).aws)} | $0 | ${usd(totals(idleWith).aws)} |`,
);
say('', '### Goal: Sesame beside SES, per 1,000 mails', '');
say(
  `| Kind | Measured | One record per worker invocation | Goal now (≤ ${usd(COST_GOAL_PER_1000)}) | Target (≤ ${usd(COST_TARGET_PER_1000)}) |`,
  '| --- | ---: | ---: | :---: | :---: |',
);
for (const [kind, t, count] of [
  ['transactional', sendTotal, SEND_COUNT],
  ['campaign', campaignTotal, CAMPAIGN_PRICED],
] as const) {
  const measured = (t.withoutSes * 1000) / count;
  const unbatched = (t.unbatchedWithoutSes * 1000) / count;
  // Judged on the higher figure, so that batches the local queue formed cannot pass it alone.
  const judged = Math.max(measured, unbatched);
  say(
    `| ${kind} | $${measured.toFixed(4)} | $${unbatched.toFixed(4)} | ${verdict(judged)} | ${verdict(judged, COST_TARGET_PER_1000)} |`,
  );
}
say(
  '',
  'Judged on the higher of the two figures: the local queue batches what waits while the bench runs one invocation at a time, which AWS does only when messages arrive faster than its pollers take them.',
);
say(
  '',
  `SES alone: ${usd(SES_PER_1000)} per 1,000 emails. Run time: ${((performance.now() - started) / 1000).toFixed(0)} s.`,
);

print(lines.join('\n'));
