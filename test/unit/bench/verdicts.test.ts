/**
 * The benches' verdicts (bench/verdicts.ts): a goal passes only on a measurement that happened,
 * a baseline off its expected range gives no verdict, and bench:workflows judges every step type
 * on its own (an average of them hid one at twice its goal).
 */
import { describe, expect, it } from 'vitest';
import {
  atMost,
  BUNDLES_BASELINE_RANGE_MS,
  baselineCheck,
  overall,
  STEP_TYPES,
  type StepBill,
  stepRows,
  within,
} from '../../../bench/verdicts';

describe('atMost and within', () => {
  it('passes a measured value at or under its goal and fails one above', () => {
    expect(atMost({ value: 3, samples: 10 }, 3).verdict).toBe('PASS');
    expect(atMost({ value: 3.01, samples: 10 }, 3)).toMatchObject({ verdict: 'FAIL', reason: '3.01 > 3' });
  });

  it('gives no verdict for nothing measured: no runs, NaN, or 0 where 0 cannot be', () => {
    expect(atMost({ value: 1, samples: 0 }, 3).verdict).toBe('NO VERDICT');
    expect(atMost({ value: Number.NaN, samples: 5 }, 3).verdict).toBe('NO VERDICT');
    expect(atMost({ value: 0, samples: 5 }, 3).verdict).toBe('NO VERDICT');
    // Where nothing is a possible outcome (an unchanged import row), 0 is judged.
    expect(atMost({ value: 0, samples: 5 }, 3, { zeroIsMissing: false }).verdict).toBe('PASS');
  });

  it('within: two zeros are no verdict, not equal', () => {
    expect(within({ value: 0, samples: 1 }, { value: 0, samples: 1 }, 0.1).verdict).toBe('NO VERDICT');
    expect(within({ value: 4, samples: 1 }, { value: 4.3, samples: 1 }, 0.1).verdict).toBe('PASS');
    expect(within({ value: 4, samples: 1 }, { value: 5, samples: 1 }, 0.1).verdict).toBe('FAIL');
  });

  it('overall: FAIL over NO VERDICT over PASS, and no goals at all is no verdict', () => {
    expect(overall(['PASS', 'PASS'])).toBe('PASS');
    expect(overall(['PASS', 'NO VERDICT'])).toBe('NO VERDICT');
    expect(overall(['NO VERDICT', 'FAIL', 'PASS'])).toBe('FAIL');
    expect(overall([])).toBe('NO VERDICT');
  });
});

describe('baselineCheck', () => {
  const range = { min: 20, max: 40 };

  it('accepts a baseline inside its range, bounds included', () => {
    expect(baselineCheck({ value: 28, samples: 10 }, range).verdict).toBe('PASS');
    expect(baselineCheck({ value: 20, samples: 10 }, range).verdict).toBe('PASS');
    expect(baselineCheck({ value: 40, samples: 10 }, range).verdict).toBe('PASS');
  });

  it('refuses a baseline off its range either way, naming it and the range', () => {
    // A loaded machine: the baseline slowed more than the functions (0.6x ratios that "passed").
    expect(baselineCheck({ value: 61.5, samples: 10 }, range)).toEqual({
      verdict: 'NO VERDICT',
      reason: 'baseline 61.5 ms outside [20, 40]',
    });
    expect(baselineCheck({ value: 12, samples: 10 }, range).verdict).toBe('NO VERDICT');
  });

  it("bench:bundles' range holds the README's baselines and not a loaded machine's", () => {
    for (const ms of [28.0, 28.5, 30.2, 31.0, 31.5, 32.0, 33.4, 33.6])
      expect(baselineCheck({ value: ms, samples: 10 }, BUNDLES_BASELINE_RANGE_MS).verdict).toBe('PASS');
    expect(baselineCheck({ value: 55, samples: 10 }, BUNDLES_BASELINE_RANGE_MS)).toEqual({
      verdict: 'NO VERDICT',
      reason: 'baseline 55 ms outside [22, 42]',
    });
  });

  it('refuses a baseline that was not measured', () => {
    expect(baselineCheck({ value: 30, samples: 0 }, range).verdict).toBe('NO VERDICT');
    expect(baselineCheck({ value: 0, samples: 10 }, range).verdict).toBe('NO VERDICT');
  });
});

describe('stepRows (bench:workflows)', () => {
  const n = 100;
  const bill = (wcuPerRun: number, extra: Partial<StepBill> = {}): StepBill => ({
    wcu: wcuPerRun * n,
    rcu: n,
    runs: n,
    messages: n,
    ...extra,
  });
  const measured = {
    SEND_EMAIL: bill(5.5, { mailWcu: 4 * n }),
    DELAY: bill(1),
    WAIT_FOR_EVENT: bill(2.5),
    CONDITION: bill(1),
    WEBHOOK: bill(2),
    UPDATE_CONTACT: bill(6.08),
    EXIT: bill(1),
    start: bill(7),
    end: bill(7),
  };

  it('judges each step type on its own: one at 2x its goal fails though the mean is under it', () => {
    const rows = stepRows(measured);
    const byStep = Object.fromEntries(rows.map((r) => [r.step, r]));
    const nonSending = rows.filter((r) => !['SEND_EMAIL', 'start', 'end'].includes(r.step));
    expect(nonSending.reduce((t, r) => t + r.wcuPerRun, 0) / nonSending.length).toBeLessThan(3);
    expect(byStep.UPDATE_CONTACT!.judged).toEqual({ verdict: 'FAIL', reason: '6.08 > 3' });
    for (const step of ['DELAY', 'WAIT_FOR_EVENT', 'CONDITION', 'WEBHOOK', 'EXIT'])
      expect(byStep[step]!.judged?.verdict).toBe('PASS');
    expect(overall(rows.flatMap((r) => (r.judged ? [r.judged.verdict] : [])))).toBe('FAIL');
  });

  it('has a row for every step type, then the start and the end (measured, no goal of their own)', () => {
    const rows = stepRows(measured);
    expect(rows.map((r) => r.step)).toEqual([...STEP_TYPES, 'start', 'end']);
    expect(rows.find((r) => r.step === 'start')).toMatchObject({
      wcuPerRun: 7,
      goal: '-',
      judged: undefined,
    });
    expect(rows.find((r) => r.step === 'end')).toMatchObject({ wcuPerRun: 7, judged: undefined });
  });

  it("judges SEND_EMAIL's mail as a campaign recipient's (5) and its own writes as a step's (3)", () => {
    const pass = stepRows(measured).find((r) => r.step === 'SEND_EMAIL')!;
    expect(pass.judged?.verdict).toBe('PASS');
    const heavy = stepRows({ ...measured, SEND_EMAIL: bill(9.5, { mailWcu: 6 * n }) }).find(
      (r) => r.step === 'SEND_EMAIL',
    )!;
    expect(heavy.judged).toEqual({ verdict: 'FAIL', reason: 'mail 6 > 5; step 3.5 > 3' });
  });

  it('gives no verdict for a step type that never ran, ran fewer messages than runs, or wrote nothing', () => {
    const { WEBHOOK: _w, start: _s, ...rest } = measured;
    const rows = stepRows({ ...rest, DELAY: bill(1, { messages: n - 1 }), EXIT: bill(0) });
    const byStep = Object.fromEntries(rows.map((r) => [r.step, r]));
    expect(byStep.WEBHOOK!.judged?.verdict).toBe('NO VERDICT');
    expect(byStep.DELAY!.judged).toMatchObject({
      verdict: 'NO VERDICT',
      reason: expect.stringContaining('99'),
    });
    expect(byStep.EXIT!.judged?.verdict).toBe('NO VERDICT');
    expect(byStep.start!.judged?.verdict).toBe('NO VERDICT');
    // Nothing measured at all: no PASS anywhere.
    const empty = stepRows({});
    expect(empty.every((r) => r.judged?.verdict === 'NO VERDICT')).toBe(true);
    expect(overall(empty.map((r) => r.judged!.verdict))).toBe('NO VERDICT');
  });
});
