import { describe, expect, it } from 'vitest';
import {
  addUsage,
  beyondFree,
  billedMs,
  costLines,
  dollars,
  gbSeconds,
  idlePollsPerMonth,
  lambdaTotals,
  PRICES,
  runsPerMonth,
  SES_PER_1000,
  scaleUsage,
  totals,
  unbatchedUsage,
  usd,
  verdict,
} from '../../../bench/cost-model';

const line = (lines: ReturnType<typeof costLines>, key: string) => lines.find((l) => l.key === key)!;

describe('the cost model of bench:cost', () => {
  it('prices units as AWS publishes them per million, per 1,000 or per unit', () => {
    expect(dollars(PRICES.dynamoWrite, 1e6, false)).toBeCloseTo(0.625, 10);
    expect(dollars(PRICES.dynamoRead, 2e6, false)).toBeCloseTo(0.25, 10);
    expect(dollars(PRICES.ses, 1000, false)).toBeCloseTo(0.1, 10);
    expect(SES_PER_1000).toBeCloseTo(0.1, 10);
    expect(dollars(PRICES.lambdaCompute, 1, false)).toBeCloseTo(0.0000133334, 12);
    expect(dollars(PRICES.cloudfrontRequests, 10_000, false)).toBeCloseTo(0.01, 10);
  });

  it('takes the monthly free tier off only when asked, and never below zero', () => {
    expect(beyondFree(1.5e6, 1e6)).toBe(0.5e6);
    expect(beyondFree(10, 1e6)).toBe(0);
    expect(dollars(PRICES.sqs, 1.5e6, true)).toBeCloseTo(0.2, 10);
    expect(dollars(PRICES.sqs, 1.5e6, false)).toBeCloseTo(0.6, 10);
    expect(dollars(PRICES.sqs, 900_000, true)).toBe(0);
    // No free tier: the same either way.
    expect(dollars(PRICES.dynamoPitr, 2, true)).toBeCloseTo(0.4, 10);
  });

  it("bills Lambda's duration rounded up to the millisecond, in GB-seconds of 1,024 MB", () => {
    expect(billedMs(0.2)).toBe(1);
    expect(billedMs(0)).toBe(1);
    expect(billedMs(12.01)).toBe(13);
    expect(billedMs(7)).toBe(7);
    expect(() => billedMs(-1)).toThrow(RangeError);
    expect(gbSeconds(1000, 1024)).toBe(1);
    expect(gbSeconds(2000, 512)).toBe(1);
    expect(gbSeconds(1000, 256)).toBe(0.25);
    const t = lambdaTotals({
      a: { invocations: 3, billedMs: 3000, memoryMb: 512 },
      b: { invocations: 1, billedMs: 1000, memoryMb: 256 },
    });
    expect(t).toEqual({ requests: 4, gbSeconds: 1.75 });
  });

  it('gives one line per counted item and totals with SES apart', () => {
    const lines = costLines(
      {
        dynamoRead: 4e6,
        dynamoWrite: 2e6,
        httpApi: 1e6,
        lambda: { f: { invocations: 1e6, billedMs: 1e6 * 10, memoryMb: 1024 } },
        sqs: 1e6,
        ses: 10_000,
      },
      { freeTier: false },
    );
    expect(lines.map((l) => l.key)).toEqual([
      'dynamoRead',
      'dynamoWrite',
      'httpApi',
      'lambdaRequests',
      'lambdaCompute',
      'sqs',
      'ses',
    ]);
    expect(line(lines, 'dynamoRead').usd).toBeCloseTo(0.5, 10);
    expect(line(lines, 'dynamoWrite').usd).toBeCloseTo(1.25, 10);
    expect(line(lines, 'httpApi').usd).toBeCloseTo(1, 10);
    expect(line(lines, 'lambdaRequests').usd).toBeCloseTo(0.2, 10);
    // 1e6 x 10 ms at 1 GB = 10,000 GB-s.
    expect(line(lines, 'lambdaCompute').quantity).toBeCloseTo(10_000, 6);
    expect(line(lines, 'lambdaCompute').usd).toBeCloseTo(0.133334, 6);
    expect(line(lines, 'ses').usd).toBeCloseTo(1, 10);
    const t = totals(lines);
    expect(t.ses).toBeCloseTo(1, 10);
    expect(t.aws).toBeCloseTo(0.5 + 1.25 + 1 + 0.2 + 0.133334 + 0.4 + 1, 6);
    expect(t.withoutSes).toBeCloseTo(t.aws - 1, 10);
    // Within the free tiers, Lambda and SQS cost nothing; DynamoDB and API Gateway have none.
    const free = costLines(
      { dynamoWrite: 2e6, lambda: { f: { invocations: 1000, billedMs: 5000, memoryMb: 512 } }, sqs: 3000 },
      { freeTier: true },
    );
    expect(line(free, 'lambdaRequests').usd).toBe(0);
    expect(line(free, 'lambdaCompute').usd).toBe(0);
    expect(line(free, 'sqs').usd).toBe(0);
    expect(line(free, 'dynamoWrite').usd).toBeCloseTo(1.25, 10);
  });

  it('scales every quantity linearly, Lambda invocations and billed time included', () => {
    const u = scaleUsage(
      { dynamoWrite: 9160, sqs: 6060, lambda: { jobs: { invocations: 208, billedMs: 1030, memoryMb: 512 } } },
      10,
    );
    expect(u).toEqual({
      dynamoWrite: 91_600,
      sqs: 60_600,
      lambda: { jobs: { invocations: 2080, billedMs: 10_300, memoryMb: 512 } },
    });
    expect(() => scaleUsage({}, -1)).toThrow(RangeError);
    const once = costLines({ dynamoWrite: 9160 }, { freeTier: false })[0]!.usd;
    const ten = costLines(scaleUsage({ dynamoWrite: 9160 }, 10), { freeTier: false })[0]!.usd;
    expect(ten).toBeCloseTo(once * 10, 12);
  });

  it('adds usages, Lambda by function, and refuses one function with two memory sizes', () => {
    const sum = addUsage(
      { sqs: 1, lambda: { a: { invocations: 1, billedMs: 5, memoryMb: 512 } } },
      { sqs: 2, dynamoRead: 3, lambda: { a: { invocations: 2, billedMs: 7, memoryMb: 512 } } },
    );
    expect(sum).toEqual({
      sqs: 3,
      dynamoRead: 3,
      lambda: { a: { invocations: 3, billedMs: 12, memoryMb: 512 } },
    });
    expect(() =>
      addUsage(
        { lambda: { a: { invocations: 1, billedMs: 1, memoryMb: 512 } } },
        { lambda: { a: { invocations: 1, billedMs: 1, memoryMb: 256 } } },
      ),
    ).toThrow(/two memory sizes/);
  });

  it("counts a month of a schedule's runs and of idle long polling over AWS's 730-hour month", () => {
    expect(runsPerMonth('rate(5 minutes)')).toBe(8760);
    expect(runsPerMonth('rate(15 minutes)')).toBe(2920);
    expect(runsPerMonth('rate(1 hour)')).toBe(730);
    expect(runsPerMonth('rate(1 day)')).toBeCloseTo(30.4167, 3);
    expect(() => runsPerMonth('cron(0 12 * * ? *)')).toThrow(/rate/);
    expect(() => runsPerMonth('rate(0 minutes)')).toThrow();
    expect(idlePollsPerMonth(5)).toBe(657_000);
    expect(idlePollsPerMonth(2)).toBe(262_800);
  });

  it('writes small amounts with their digits', () => {
    expect(usd(0)).toBe('$0');
    expect(usd(1.234)).toBe('$1.23');
    expect(usd(0.0035)).toBe('$0.0035');
  });

  it('prices a batched worker as if each record had its own invocation, receive and delete', () => {
    const usage = {
      sqs: 130,
      lambda: {
        'queue jobs': { invocations: 10, billedMs: 500, memoryMb: 512 },
        'http public': { invocations: 50, billedMs: 400, memoryMb: 512 },
      },
    };
    const out = unbatchedUsage(usage, { 'queue jobs': { invocations: 10, records: 100 } });
    // 90 more invocations, each a receive and a delete; the same billed time.
    expect(out.sqs).toBe(130 + 180);
    expect(out.lambda?.['queue jobs']).toEqual({ invocations: 100, billedMs: 500, memoryMb: 512 });
    expect(out.lambda?.['http public']).toEqual(usage.lambda['http public']);
    expect(unbatchedUsage(usage, { 'queue jobs': { invocations: 10, records: 10 } })).toEqual(usage);
  });

  it('passes a figure within the goal and fails one above it', () => {
    expect(verdict(0.005)).toBe('PASS');
    expect(verdict(0.0051)).toBe('FAIL');
    expect(verdict(0.003, 0.002)).toBe('FAIL');
  });
});
