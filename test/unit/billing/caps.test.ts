/** The calendar month (UTC) a send counts in: `periodOf`, at the edges of months and years. */
import { describe, expect, it } from 'vitest';
import { periodOf } from '../../../shared/billing/caps';

describe('periodOf', () => {
  it('is the UTC calendar month, its end the first instant of the next', () => {
    expect(periodOf(new Date('2026-12-31T23:59:59.999Z'))).toEqual({
      month: '2026-12',
      start: new Date('2026-12-01T00:00:00.000Z'),
      end: new Date('2027-01-01T00:00:00.000Z'),
    });
    expect(periodOf(new Date('2027-01-01T00:00:00.000Z')).month).toBe('2027-01');
    // Local time plays no part: 23:30 on Feb 28 in New York is March 1 in UTC.
    expect(periodOf(new Date('2027-02-28T23:30:00-05:00')).month).toBe('2027-03');
    expect(periodOf(new Date('2028-02-29T12:00:00Z')).end.toISOString()).toBe('2028-03-01T00:00:00.000Z');
  });
});
