/**
 * Applying a CSV row's data to a contact in an import batch: data that would grow past the size
 * limit makes the row `invalid_data` (`tryApply` answers undefined); any other error is a bug and
 * propagates instead of being reported as the row's data.
 */
import { describe, expect, it } from 'vitest';
import { tryApply } from '../../../shared/contacts/batch';
import { type ContactData, MAX_DATA_BYTES, parseDataPatch } from '../../../shared/contacts/data';

describe('tryApply', () => {
  it('applies a patch within the size limit', () => {
    expect(tryApply({ a: 1 }, parseDataPatch({ b: 'x' }))?.data).toEqual({ a: 1, b: 'x' });
  });

  it('answers undefined when the data would pass the size limit', () => {
    const half = 'x'.repeat(MAX_DATA_BYTES / 2 + 10);
    expect(tryApply({ a: half }, parseDataPatch({ b: half }))).toBeUndefined();
  });

  it('lets any other error through', () => {
    // Not data the rules refuse: a value no stored contact can hold (a bug upstream).
    const broken = { n: 1n } as unknown as ContactData;
    expect(() => tryApply(broken, parseDataPatch({ b: 'x' }))).toThrow(TypeError);
  });
});
