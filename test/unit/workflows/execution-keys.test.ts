/** An execution's item holds its ids only in its key: the key gives them back. */
import { describe, expect, it } from 'vitest';
import { keys } from '../../../shared/table';

const uuid = () => crypto.randomUUID();

describe('execution keys', () => {
  it('give back the ids they hold', () => {
    const [p, w, x] = [uuid(), uuid(), uuid()];
    expect(keys.executionIds(keys.execution(p, w, x))).toEqual({
      projectId: p,
      workflowId: w,
      executionId: x,
    });
  });

  it('refuse any other key', () => {
    expect(() => keys.executionIds({ pk: 'P#p#C#c', sk: 'X#x' })).toThrow('Not an execution key');
    expect(() => keys.executionIds({ pk: 'P#p#WFX#w', sk: '#COUNTS' })).toThrow('Not an execution key');
  });
});
