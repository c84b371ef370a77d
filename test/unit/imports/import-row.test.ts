/**
 * A CSV record becomes a contact row or a row error: data the data rules refuse is the row's
 * `invalid_data`, while any other error is a bug and fails the chunk instead of being reported
 * as bad data.
 */
import { describe, expect, it } from 'vitest';
import type { RowOutcome } from '../../../shared/imports/csv';
import { importRowOf } from '../../../shared/imports/worker';

const contact = (data: Record<string, unknown>): RowOutcome => ({
  kind: 'contact',
  row: 7,
  email: 'ann@example.org',
  data,
});

describe('importRowOf', () => {
  it('turns a record into a row with its data patch', () => {
    const read = importRowOf(contact({ plan: 'pro' }));
    expect(read).toMatchObject({
      row: { row: 7, email: 'ann@example.org', patch: { set: { plan: 'pro' } } },
    });
  });

  it('passes a record error on', () => {
    const read = importRowOf({ kind: 'error', row: 3, email: 'x@', reason: 'invalid_email' });
    expect(read).toEqual({ error: { row: 3, email: 'x@', reason: 'invalid_email' } });
  });

  it('reports data the data rules refuse as invalid_data', () => {
    const read = importRowOf(contact({ ['k'.repeat(101)]: 1 }));
    expect(read).toEqual({ error: { row: 7, email: 'ann@example.org', reason: 'invalid_data' } });
  });

  it('lets any other error through', () => {
    const data = {
      get plan(): string {
        throw new Error('a bug, not bad data');
      },
    };
    expect(() => importRowOf(contact(data))).toThrow('a bug, not bad data');
  });
});
