/**
 * The cost model of `npm run bench:cost` (bench/cost.ts), pure arithmetic: AWS's published
 * us-east-1 prices (one table, `PRICES`, the same as docs/cost.md's), what a scenario used
 * (`Usage`), and dollars per service, with or without the monthly free tiers.
 *
 * Lambda bills each invocation's duration rounded up to the millisecond, times the memory size
 * in GB (`billedMs`, `gbSeconds`). Quantities scale linearly (`scaleUsage`): a campaign measured
 * at 1,000 recipients is priced at 10,000 only after the bench has shown that its per-recipient
 * figures do not change with its size.
 */

export interface Price {
  readonly service: string;
  readonly item: string;
  /** Dollars per `per` units. */
  readonly usd: number;
  readonly per: number;
  readonly unit: string;
  /** Units free every month, for every account (AWS's "always free" tier); 0 when none. */
  readonly freePerMonth: number;
  readonly note?: string;
}

/**
 * AWS's published on-demand prices in us-east-1 (N. Virginia), as found in November 2026. The
 * free tiers are the monthly "always free" ones; offers limited to an account's first 12 months
 * (API Gateway's 1 million calls, SES's 3,000 messages, S3's 5 GB) are not counted.
 */
export const PRICES = {
  dynamoRead: {
    service: 'DynamoDB',
    item: 'on-demand read request units',
    usd: 0.125,
    per: 1e6,
    unit: 'RRU',
    freePerMonth: 0,
    note: "the free tier's 25 RCU/WCU apply to provisioned capacity only",
  },
  dynamoWrite: {
    service: 'DynamoDB',
    item: 'on-demand write request units',
    usd: 0.625,
    per: 1e6,
    unit: 'WRU',
    freePerMonth: 0,
  },
  dynamoStorage: {
    service: 'DynamoDB',
    item: 'storage (Standard table class)',
    usd: 0.25,
    per: 1,
    unit: 'GB-month',
    freePerMonth: 25,
  },
  dynamoPitr: {
    service: 'DynamoDB',
    item: 'point-in-time recovery (continuous backups), by table size',
    usd: 0.2,
    per: 1,
    unit: 'GB-month',
    freePerMonth: 0,
  },
  lambdaRequests: {
    service: 'Lambda',
    item: 'requests',
    usd: 0.2,
    per: 1e6,
    unit: 'requests',
    freePerMonth: 1e6,
  },
  lambdaCompute: {
    service: 'Lambda',
    item: 'duration, arm64 (first 7.5 billion GB-s a month)',
    usd: 0.0000133334,
    per: 1,
    unit: 'GB-s',
    freePerMonth: 400_000,
  },
  httpApi: {
    service: 'API Gateway',
    item: 'HTTP API requests (first 300 million a month, per 512 KB)',
    usd: 1.0,
    per: 1e6,
    unit: 'requests',
    freePerMonth: 0,
  },
  restApi: {
    service: 'API Gateway',
    item: 'REST API requests (the CSV upload route)',
    usd: 3.5,
    per: 1e6,
    unit: 'requests',
    freePerMonth: 0,
  },
  sqs: {
    service: 'SQS',
    item: 'standard queue requests (per 64 KB)',
    usd: 0.4,
    per: 1e6,
    unit: 'requests',
    freePerMonth: 1e6,
  },
  snsPublish: {
    service: 'SNS',
    item: 'standard topic publishes (per 64 KB)',
    usd: 0.5,
    per: 1e6,
    unit: 'publishes',
    freePerMonth: 1e6,
    note: 'deliveries to SQS are free',
  },
  scheduler: {
    service: 'EventBridge Scheduler',
    item: 'invocations',
    usd: 1.0,
    per: 1e6,
    unit: 'invocations',
    freePerMonth: 14e6,
  },
  ses: {
    service: 'SES',
    item: 'outbound email',
    usd: 0.1,
    per: 1000,
    unit: 'emails',
    freePerMonth: 0,
  },
  s3Put: {
    service: 'S3',
    item: 'PUT, COPY, POST, LIST requests (Standard)',
    usd: 0.005,
    per: 1000,
    unit: 'requests',
    freePerMonth: 0,
  },
  s3Get: {
    service: 'S3',
    item: 'GET and other requests (Standard)',
    usd: 0.0004,
    per: 1000,
    unit: 'requests',
    freePerMonth: 0,
  },
  s3Storage: {
    service: 'S3',
    item: 'storage (Standard, first 50 TB)',
    usd: 0.023,
    per: 1,
    unit: 'GB-month',
    freePerMonth: 0,
  },
  cloudfrontRequests: {
    service: 'CloudFront',
    item: 'HTTPS requests (United States)',
    usd: 0.01,
    per: 10_000,
    unit: 'requests',
    freePerMonth: 10e6,
  },
  cloudfrontTransfer: {
    service: 'CloudFront',
    item: 'data transfer out (United States)',
    usd: 0.085,
    per: 1,
    unit: 'GB',
    freePerMonth: 1024,
  },
  logsIngest: {
    service: 'CloudWatch Logs',
    item: 'ingestion (standard log class)',
    usd: 0.5,
    per: 1,
    unit: 'GB',
    freePerMonth: 5,
  },
  logsStorage: {
    service: 'CloudWatch Logs',
    item: 'storage (30-day retention)',
    usd: 0.03,
    per: 1,
    unit: 'GB-month',
    freePerMonth: 5,
  },
  kms: {
    service: 'KMS',
    item: 'requests to the AWS managed key aws/ssm (decrypting the link secret)',
    usd: 0.03,
    per: 10_000,
    unit: 'requests',
    freePerMonth: 20_000,
  },
  ssm: {
    service: 'SSM Parameter Store',
    item: 'standard parameters and standard-throughput API calls',
    usd: 0,
    per: 1,
    unit: 'parameters',
    freePerMonth: 0,
  },
} as const satisfies Record<string, Price>;

export type PriceKey = keyof typeof PRICES;
export type Prices = Readonly<Record<PriceKey, Price>>;

/** SES's price per 1,000 emails, which a send pays whatever Sesame adds around it. */
export const SES_PER_1000 = (PRICES.ses.usd / PRICES.ses.per) * 1000;

/** One Lambda function's use in a scenario. */
export interface LambdaUse {
  readonly invocations: number;
  /** Sum over the invocations of each one's duration rounded up to 1 ms (`billedMs`). */
  readonly billedMs: number;
  readonly memoryMb: number;
}

/** What a scenario used, in the units AWS bills. Absent: zero. */
export interface Usage {
  readonly dynamoRead?: number;
  readonly dynamoWrite?: number;
  readonly dynamoStorageGbMonth?: number;
  readonly dynamoPitrGbMonth?: number;
  readonly httpApi?: number;
  readonly restApi?: number;
  /** By function name. */
  readonly lambda?: Readonly<Record<string, LambdaUse>>;
  readonly sqs?: number;
  readonly snsPublish?: number;
  readonly scheduler?: number;
  readonly ses?: number;
  readonly s3Put?: number;
  readonly s3Get?: number;
  readonly s3StorageGbMonth?: number;
  readonly cloudfrontRequests?: number;
  readonly cloudfrontTransferGb?: number;
  readonly logsIngestGb?: number;
  readonly logsStorageGbMonth?: number;
  readonly kms?: number;
}

/** Lambda's billed duration of one invocation: rounded up to the millisecond, at least 1 ms. */
export function billedMs(wallMs: number): number {
  if (!Number.isFinite(wallMs) || wallMs < 0) throw new RangeError(`invalid duration ${wallMs}`);
  return Math.max(1, Math.ceil(wallMs));
}

/** GB-seconds of `billed` milliseconds at `memoryMb` (Lambda counts 1 GB as 1,024 MB). */
export function gbSeconds(billed: number, memoryMb: number): number {
  return (memoryMb / 1024) * (billed / 1000);
}

/** Every function's requests and GB-seconds together. */
export function lambdaTotals(lambda: Usage['lambda'] = {}): { requests: number; gbSeconds: number } {
  let requests = 0;
  let gbs = 0;
  for (const use of Object.values(lambda)) {
    requests += use.invocations;
    gbs += gbSeconds(use.billedMs, use.memoryMb);
  }
  return { requests, gbSeconds: gbs };
}

/** Units beyond the free tier. */
export function beyondFree(quantity: number, free: number): number {
  return Math.max(0, quantity - free);
}

/** Dollars of `quantity` units of `price`, with the monthly free tier taken off when `freeTier`. */
export function dollars(price: Price, quantity: number, freeTier: boolean): number {
  const billed = freeTier ? beyondFree(quantity, price.freePerMonth) : quantity;
  return (billed / price.per) * price.usd;
}

export interface CostLine {
  readonly key: PriceKey;
  readonly service: string;
  readonly item: string;
  readonly quantity: number;
  readonly unit: string;
  readonly usd: number;
}

/** Which usage field each price applies to (Lambda's two come from `lambdaTotals`). */
const FIELDS: readonly [PriceKey, (u: Usage) => number | undefined][] = [
  ['dynamoRead', (u) => u.dynamoRead],
  ['dynamoWrite', (u) => u.dynamoWrite],
  ['dynamoStorage', (u) => u.dynamoStorageGbMonth],
  ['dynamoPitr', (u) => u.dynamoPitrGbMonth],
  ['httpApi', (u) => u.httpApi],
  ['restApi', (u) => u.restApi],
  ['lambdaRequests', (u) => (u.lambda ? lambdaTotals(u.lambda).requests : undefined)],
  ['lambdaCompute', (u) => (u.lambda ? lambdaTotals(u.lambda).gbSeconds : undefined)],
  ['sqs', (u) => u.sqs],
  ['snsPublish', (u) => u.snsPublish],
  ['scheduler', (u) => u.scheduler],
  ['ses', (u) => u.ses],
  ['s3Put', (u) => u.s3Put],
  ['s3Get', (u) => u.s3Get],
  ['s3Storage', (u) => u.s3StorageGbMonth],
  ['cloudfrontRequests', (u) => u.cloudfrontRequests],
  ['cloudfrontTransfer', (u) => u.cloudfrontTransferGb],
  ['logsIngest', (u) => u.logsIngestGb],
  ['logsStorage', (u) => u.logsStorageGbMonth],
  ['kms', (u) => u.kms],
];

/**
 * Dollars per billed item of `usage`: every item it has a quantity for (zero quantities
 * included, so a table shows what was counted and found to be none).
 */
export function costLines(usage: Usage, options: { freeTier: boolean; prices?: Prices }): CostLine[] {
  const prices = options.prices ?? PRICES;
  const lines: CostLine[] = [];
  for (const [key, field] of FIELDS) {
    const quantity = field(usage);
    if (quantity === undefined) continue;
    const price = prices[key];
    lines.push({
      key,
      service: price.service,
      item: price.item,
      quantity,
      unit: price.unit,
      usd: dollars(price, quantity, options.freeTier),
    });
  }
  return lines;
}

/** The sum of the lines, with SES apart (SES's own price, which any sender pays). */
export function totals(lines: readonly CostLine[]): { aws: number; ses: number; withoutSes: number } {
  let aws = 0;
  let ses = 0;
  for (const l of lines) {
    aws += l.usd;
    if (l.key === 'ses') ses += l.usd;
  }
  return { aws, ses, withoutSes: aws - ses };
}

/** `usage` times `factor` (a measured scenario priced at another size). */
export function scaleUsage(usage: Usage, factor: number): Usage {
  if (!(factor >= 0)) throw new RangeError(`invalid factor ${factor}`);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(usage)) {
    if (k === 'lambda') {
      out.lambda = Object.fromEntries(
        Object.entries(v as Record<string, LambdaUse>).map(([name, use]) => [
          name,
          { ...use, invocations: use.invocations * factor, billedMs: use.billedMs * factor },
        ]),
      );
    } else if (typeof v === 'number') out[k] = v * factor;
  }
  return out as Usage;
}

/** Usages added up (Lambda by function; the same function's memory must agree). */
export function addUsage(...usages: readonly Usage[]): Usage {
  const out: Record<string, number> = {};
  const lambda: Record<string, LambdaUse> = {};
  for (const u of usages) {
    for (const [k, v] of Object.entries(u)) {
      if (k === 'lambda') {
        for (const [name, use] of Object.entries(v as Record<string, LambdaUse>)) {
          const had = lambda[name];
          if (had && had.memoryMb !== use.memoryMb)
            throw new Error(`function ${name} has two memory sizes: ${had.memoryMb} and ${use.memoryMb}`);
          lambda[name] = {
            memoryMb: use.memoryMb,
            invocations: (had?.invocations ?? 0) + use.invocations,
            billedMs: (had?.billedMs ?? 0) + use.billedMs,
          };
        }
      } else if (typeof v === 'number') out[k] = (out[k] ?? 0) + v;
    }
  }
  return { ...out, ...(Object.keys(lambda).length > 0 ? { lambda } : {}) } as Usage;
}

/** Hours in AWS's billing month (365 days x 24 / 12). */
export const HOURS_PER_MONTH = 730;

/**
 * Runs a month of an EventBridge Scheduler `rate(...)` expression: a 730-hour month over its
 * period. `cron(...)` expressions are not counted here (the manifest has none): they throw.
 */
export function runsPerMonth(expression: string): number {
  const m = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression.trim());
  if (!m) throw new Error(`Cannot count the runs of "${expression}": only rate(...) expressions`);
  const n = Number(m[1]);
  if (n <= 0) throw new Error(`Invalid rate in "${expression}"`);
  const minutes = m[2]!.startsWith('minute') ? n : m[2]!.startsWith('hour') ? n * 60 : n * 1440;
  return (HOURS_PER_MONTH * 60) / minutes;
}

/**
 * ReceiveMessage calls a month of an SQS event source mapping's long polling on an empty queue:
 * `pollers` connections each waiting up to 20 s per call (so 3 calls a minute each).
 */
export function idlePollsPerMonth(pollers: number, waitSeconds = 20): number {
  return pollers * (60 / waitSeconds) * 60 * HOURS_PER_MONTH;
}

/** Dollars as text: cents to 2 places, smaller amounts with enough digits to show them. */
export function usd(n: number): string {
  if (n === 0) return '$0';
  if (Math.abs(n) >= 0.01) return `$${n.toFixed(2)}`;
  return `$${n.toPrecision(2)}`;
}

/**
 * The goal for Sesame's own AWS cost beside SES's price, per 1,000 mails of either kind
 * (transactional sends and campaign recipients): met now when at most this.
 */
export const COST_GOAL_PER_1000 = 0.005;
/** Where the cost is to go after that (docs/cost.md, "The path to $0.002"). */
export const COST_TARGET_PER_1000 = 0.002;

/** PASS when `perThousand` dollars are within `goal`. */
export function verdict(perThousand: number, goal = COST_GOAL_PER_1000): 'PASS' | 'FAIL' {
  return perThousand <= goal ? 'PASS' : 'FAIL';
}

/** A queue worker's invocations and the records they were handed, as a scenario measured them. */
export interface WorkerBatches {
  readonly invocations: number;
  readonly records: number;
}

/**
 * `usage` as it would be had every record its own invocation and its own receive and delete: a
 * quiet queue, where each ReceiveMessage finds one message (on AWS, below a rate of roughly the
 * pollers' count divided by an invocation's duration). The local queue forms batches from what
 * is waiting when a worker is free, and the bench runs invocations one at a time, so its batches
 * can be fuller than AWS's at the same rate; this is the figure that cannot be too low.
 * `workers` is by the `lambda` keys of the queue workers; their GB-seconds stay as measured
 * (the same records' work).
 */
export function unbatchedUsage(usage: Usage, workers: Readonly<Record<string, WorkerBatches>>): Usage {
  const lambda: Record<string, LambdaUse> = { ...(usage.lambda ?? {}) };
  let extraSqs = 0;
  for (const [key, w] of Object.entries(workers)) {
    const use = lambda[key];
    if (!use || w.records <= w.invocations) continue;
    lambda[key] = { ...use, invocations: w.records };
    extraSqs += 2 * (w.records - w.invocations);
  }
  return { ...usage, lambda, sqs: (usage.sqs ?? 0) + extraSqs };
}
