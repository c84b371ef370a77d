/**
 * Dates in conditions: ISO 8601 strings (as custom data infers dates), read as a span of
 * instants so that a day (`2024-03-01`) and an instant (`2024-03-01T10:00:00Z`) compare alike.
 */
import type { TimeUnit } from './schema';

const DAY_MS = 86_400_000;

export const UNIT_MS: Readonly<Record<TimeUnit, number>> = {
  minutes: 60_000,
  hours: 3_600_000,
  days: DAY_MS,
};

/** The longest span a timed operator accepts: 100 years, in each unit. */
export const MAX_SPAN_DAYS = 36_500;
export const MAX_SPAN: Readonly<Record<TimeUnit, number>> = {
  minutes: MAX_SPAN_DAYS * 24 * 60,
  hours: MAX_SPAN_DAYS * 24,
  days: MAX_SPAN_DAYS,
};

/**
 * `YYYY-MM-DD`, or a date-time with a zone (`Z` or `±HH:MM`): `YYYY-MM-DDTHH:MM[:SS[.fraction]]`.
 * A date-time without a zone is refused: its instant would depend on where it is read.
 */
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2})))?$/;

/** A date as the half-open span of milliseconds `[start, end)` it covers. */
export interface DateSpan {
  readonly start: number;
  readonly end: number;
}

/**
 * Reads an ISO 8601 string: a `YYYY-MM-DD` covers its UTC day, a date-time one millisecond.
 * `strict` also refuses dates that are not on the calendar (`2024-02-30`), as filter values
 * should be; stored values are read as leniently as the project's type inference reads them.
 */
export function parseIsoDate(text: string, strict = false): DateSpan | undefined {
  const m = ISO.exec(text);
  if (!m) return undefined;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return undefined;
  if (strict) {
    const [y, mo, d, h = '0', mi = '0', s = '0', zh = '0', zm = '0'] = m.slice(1);
    const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
    if (day.getUTCMonth() !== Number(mo) - 1 || day.getUTCDate() !== Number(d)) return undefined;
    if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59 || Number(zh) > 23 || Number(zm) > 59) {
      return undefined;
    }
  }
  return m[4] === undefined ? { start: ms, end: ms + DAY_MS } : { start: ms, end: ms + 1 };
}

/** A stored value read as an instant (a `YYYY-MM-DD` is its UTC midnight), or undefined. */
export function toInstant(value: unknown): number | undefined {
  return typeof value === 'string' ? parseIsoDate(value)?.start : undefined;
}
