/**
 * The date rule of type inference, shared by custom data (`shared/contacts/data.ts`)
 * and CSV cells (`shared/imports/csv.ts`): `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SS[.sss]Z`, and only a
 * real calendar date and time. `Date.parse` alone is not enough: it rolls `2024-02-30` over to
 * March 1st and accepts `24:00:00`, so each part is checked against the date it names.
 */
const CANONICAL_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,3})?Z)?$/;

/** True for a canonical date or UTC date-time whose year, month, day and time all exist. */
export function isCanonicalDate(value: string): boolean {
  const m = CANONICAL_DATE.exec(value);
  if (!m) return false;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1).map((part) => Number(part ?? 0));
  return isRealDateTime(year!, month!, day!, hour, minute, second);
}

/** True when the calendar has this day (month 1 to 12, day within the month) and the time is 00:00:00 to 23:59:59. */
export function isRealDateTime(
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
): boolean {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
