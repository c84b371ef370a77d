/**
 * The benches' verdicts, kept apart from the runs so that unit tests check them
 * (test/unit/bench/verdicts.test.ts). A goal gets PASS or FAIL only from a measurement that
 * happened: no samples, a value that is not a finite number, or a value the measured thing cannot
 * have (no units for work that must write) is NO VERDICT, never PASS, so that a bench whose run
 * measured nothing cannot pass by accident.
 */
import { STEP_TYPES, type StepType } from '../shared/workflows/model';

export type Verdict = 'PASS' | 'FAIL' | 'NO VERDICT';

export interface Judged {
  readonly verdict: Verdict;
  /** Why there is no verdict (or what failed), for the printed line. */
  readonly reason?: string;
}

export interface Measurement {
  readonly value: number;
  /** How many runs the value is taken from (a mean's divisor, a median's sample count). */
  readonly samples: number;
}

/** What makes a measurement unusable, or undefined when it can be judged. */
function missing(m: Measurement, options: { zeroIsMissing?: boolean }): string | undefined {
  if (!Number.isFinite(m.samples) || m.samples <= 0) return 'nothing was measured (0 runs)';
  if (!Number.isFinite(m.value)) return `the measured value is ${m.value}`;
  if (options.zeroIsMissing && m.value <= 0)
    return 'the measured value is 0: what it measures did not happen';
  return undefined;
}

/**
 * `value` at most `goal`. `zeroIsMissing` (default true) for what cannot be 0 when it ran (write
 * units of a step that writes, a load time): 0 is NO VERDICT.
 */
export function atMost(m: Measurement, goal: number, options: { zeroIsMissing?: boolean } = {}): Judged {
  const why = missing(m, { zeroIsMissing: options.zeroIsMissing ?? true });
  if (why) return { verdict: 'NO VERDICT', reason: why };
  return m.value <= goal ? { verdict: 'PASS' } : { verdict: 'FAIL', reason: `${round(m.value)} > ${goal}` };
}

/** Two measurements within `fraction` of the larger of them (both must have been measured, and not 0). */
export function within(a: Measurement, b: Measurement, fraction: number): Judged {
  const why = missing(a, { zeroIsMissing: true }) ?? missing(b, { zeroIsMissing: true });
  if (why) return { verdict: 'NO VERDICT', reason: why };
  const apart = Math.abs(a.value - b.value);
  return apart <= fraction * Math.max(a.value, b.value)
    ? { verdict: 'PASS' }
    : {
        verdict: 'FAIL',
        reason: `${round(a.value)} and ${round(b.value)} differ by more than ${fraction * 100}%`,
      };
}

/** The expected range of a bench's baseline measurement, inclusive. */
export interface Range {
  readonly min: number;
  readonly max: number;
}

/**
 * Whether a baseline can anchor verdicts: measured, and inside its expected range. Outside it the
 * machine is not the one the goals were set on (loaded, or much faster): every ratio to it would
 * mislead, so the bench gives no verdict.
 */
export function baselineCheck(m: Measurement, range: Range, unit = 'ms'): Judged {
  const why = missing(m, { zeroIsMissing: true });
  if (why) return { verdict: 'NO VERDICT', reason: `baseline: ${why}` };
  if (m.value < range.min || m.value > range.max)
    return {
      verdict: 'NO VERDICT',
      reason: `baseline ${round(m.value)} ${unit} outside [${range.min}, ${range.max}]`,
    };
  return { verdict: 'PASS' };
}

/**
 * bench:bundles' baseline (a bundle of the DynamoDB document client alone): its expected median
 * import time above a bare node, in ms. The README's runs of the current bundling on its 2-core
 * machine measured 28.0 to 33.6 ms; the range widens that by about a fifth each way. A loaded
 * machine (whose functions then came out at 0.6x of it) is outside it.
 */
export const BUNDLES_BASELINE_RANGE_MS: Range = { min: 22, max: 42 };

/** The bench's overall verdict: FAIL if any goal failed, else NO VERDICT if any had none (or there were none). */
export function overall(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.includes('FAIL')) return 'FAIL';
  if (verdicts.length === 0 || verdicts.includes('NO VERDICT')) return 'NO VERDICT';
  return 'PASS';
}

/** A verdict as the benches print it, padded to one column. */
export function label(verdict: Verdict | undefined): string {
  return (verdict ?? '').padEnd(10);
}

const round = (n: number) => Math.round(n * 100) / 100;

// ---------------------------------------------------------------------------------------------
// bench:workflows: each step type against its goal

export { STEP_TYPES, type StepType };

/** At most this many write units per executed step other than SEND_EMAIL (the execution's end apart). */
export const STEP_WCU_GOAL = 3;
/** A SEND_EMAIL's mail (record and `email.sent`): a campaign recipient's goal (bench:campaign). */
export const SEND_WCU_GOAL = 5;

/** What the bench measured of one step type (or the start or the end), over all its runs. */
export interface StepBill {
  /** Write units of the step's own writes (the end's apart). */
  readonly wcu: number;
  readonly rcu: number;
  /** Runs the workflows made of it (executions times its occurrences). */
  readonly runs: number;
  /** Queue messages the jobs worker ran for it: fewer than `runs` means some never ran. */
  readonly messages: number;
  /** SEND_EMAIL: the mail's share of `wcu` (email record and its event). */
  readonly mailWcu?: number;
}

export interface StepRow {
  readonly step: StepType | 'start' | 'end';
  readonly wcuPerRun: number;
  readonly rcuPerRun: number;
  readonly goal: string;
  /** Undefined for a row without a goal (start, end) that was measured. */
  readonly judged: Judged | undefined;
}

/**
 * One row per step type, then the execution's start and end: units per run and the verdict.
 * Every step type is judged, measured or not (a type the run never executed is NO VERDICT); a
 * type with fewer messages run than runs expected is NO VERDICT (what it measures is missing).
 */
export function stepRows(bills: Partial<Record<StepType | 'start' | 'end', StepBill>>): StepRow[] {
  const rows: StepRow[] = [];
  for (const step of [...STEP_TYPES, 'start', 'end'] as const) {
    const bill = bills[step];
    const runs = bill?.runs ?? 0;
    const per = (n: number) => (runs > 0 ? n / runs : Number.NaN);
    const wcuPerRun = per(bill?.wcu ?? 0);
    const rcuPerRun = per(bill?.rcu ?? 0);
    const m = { value: wcuPerRun, samples: runs };
    let judged: Judged;
    let goal: string;
    if (bill && bill.messages < bill.runs)
      judged = {
        verdict: 'NO VERDICT',
        reason: `${bill.messages} messages ran for ${bill.runs} runs: some never ran`,
      };
    else judged = atMost(m, Number.POSITIVE_INFINITY);
    if (step === 'SEND_EMAIL') {
      const mail = per(bill?.mailWcu ?? 0);
      goal = `mail <= ${SEND_WCU_GOAL} (a campaign recipient's), step's own <= ${STEP_WCU_GOAL}`;
      if (judged.verdict !== 'NO VERDICT') {
        const a = atMost({ value: mail, samples: runs }, SEND_WCU_GOAL);
        const b = atMost({ value: wcuPerRun - mail, samples: runs }, STEP_WCU_GOAL);
        judged =
          a.verdict === 'PASS' && b.verdict === 'PASS'
            ? a
            : {
                verdict: overall([a.verdict, b.verdict]),
                reason: [a.reason && `mail ${a.reason}`, b.reason && `step ${b.reason}`]
                  .filter(Boolean)
                  .join('; '),
              };
      }
    } else if (step === 'start' || step === 'end') {
      // No goal of their own: shown so that no step hides them; still NO VERDICT when unmeasured.
      goal = '-';
      if (judged.verdict !== 'NO VERDICT') {
        rows.push({ step, wcuPerRun, rcuPerRun, goal, judged: undefined });
        continue;
      }
    } else {
      goal = `<= ${STEP_WCU_GOAL}`;
      if (judged.verdict !== 'NO VERDICT') judged = atMost(m, STEP_WCU_GOAL);
    }
    rows.push({ step, wcuPerRun, rcuPerRun, goal, judged });
  }
  return rows;
}
