import { describe, expect, it } from 'vitest';
import {
  applyDataPatch,
  getPath,
  inferType,
  leafPaths,
  mergeForRender,
  parseDataPatch,
  removePath,
} from '../../../shared/contacts/data';
import { AppError } from '../../../shared/errors';

const apply = (current: Record<string, unknown>, input: unknown) =>
  applyDataPatch(current as never, parseDataPatch(input)).data;

describe('custom data rules', () => {
  it('patches: only the keys sent change (rule 1)', () => {
    expect(apply({ a: 1, b: 'x' }, { b: 'y', c: true })).toEqual({ a: 1, b: 'y', c: true });
  });

  it('null deletes a key; empty string is ignored', () => {
    expect(apply({ a: 1, b: 'keep' }, { a: null, b: '' })).toEqual({ b: 'keep' });
  });

  it('removes reserved keys silently (rule 2), only at the top level', () => {
    const patch = parseDataPatch({
      id: 'x',
      sesame_id: 1,
      sesame_email: 'a@b.c',
      email: 'e@x.io',
      unsubscribeUrl: 'u',
      subscribeUrl: 's',
      manageUrl: 'm',
      plan: 'pro',
      nested: { id: 'fine' },
    });
    expect(applyDataPatch({}, patch).data).toEqual({ plan: 'pro', nested: { id: 'fine' } });
  });

  it('keeps {value, persistent: false} out of storage but available for rendering', () => {
    const patch = parseDataPatch({ code: { value: '1234', persistent: false }, plan: 'pro' });
    expect(applyDataPatch({}, patch).data).toEqual({ plan: 'pro' });
    expect(mergeForRender({ name: 'Ann' }, patch)).toEqual({ name: 'Ann', plan: 'pro', code: '1234' });
  });

  it('stores {value, persistent: true} as the plain value', () => {
    expect(apply({}, { tier: { value: 'gold', persistent: true } })).toEqual({ tier: 'gold' });
  });

  it('merges nested objects key by key (rule 7) and deletes nested keys with null', () => {
    const current = { profile: { tier: 'gold', since: 2020 } };
    expect(apply(current, { profile: { tier: 'silver', since: null, city: 'Oslo' } })).toEqual({
      profile: { tier: 'silver', city: 'Oslo' },
    });
  });

  it('a stored object value that looks like a patch is still just data', () => {
    const out = apply({}, { weird: { set: 1, remove: 2, transient: 3 } });
    expect(out).toEqual({ weird: { set: 1, remove: 2, transient: 3 } });
    expect(apply(out, { other: 1 })).toEqual({ weird: { set: 1, remove: 2, transient: 3 }, other: 1 });
  });

  it('reports the leaf paths set, for type inference', () => {
    const { setPaths } = applyDataPatch({}, parseDataPatch({ a: 1, p: { t: 'x', q: { r: true } } }));
    expect(setPaths).toEqual([
      ['a', 1],
      ['p.t', 'x'],
      ['p.q.r', true],
    ]);
  });

  it('refuses what cannot be stored with 422 and field paths', () => {
    const err = (input: unknown) => {
      try {
        parseDataPatch(input);
      } catch (e) {
        return e as AppError;
      }
      throw new Error('expected an error');
    };
    expect(err('str').statusCode).toBe(422);
    expect(err([1]).extra.errors?.[0]).toMatchObject({ field: 'data', code: 'invalid_type' });
    expect(err({ 'a.b': 1 }).extra.errors?.[0]).toMatchObject({ field: 'data.a.b', code: 'invalid_key' });
    expect(err({ '': 1 }).extra.errors?.[0]?.code).toBe('invalid_key');
    expect(err({ a: { b: { c: { d: { e: { f: 1 } } } } } }).extra.errors?.[0]?.code).toBe('too_big');
    expect(() => applyDataPatch({}, parseDataPatch({ big: 'x'.repeat(40_000) }))).toThrow(AppError);
  });
});

describe('type inference (rule 5)', () => {
  it.each([
    [42, 'number'],
    [3.14, 'number'],
    [true, 'boolean'],
    [false, 'boolean'],
    ['2024-05-01', 'date'],
    ['2024-05-01T10:20:30Z', 'date'],
    ['2024-05-01T10:20:30.123Z', 'date'],
    ['2024-13-45', 'string'],
    ['2024-02-30', 'string'],
    ['2023-02-29', 'string'],
    ['2024-02-29', 'date'],
    ['2024-04-31T10:00:00Z', 'string'],
    ['2024-05-01T24:00:00Z', 'string'],
    ['2024-05-01T23:60:00Z', 'string'],
    ['2024-05-01T23:59:60Z', 'string'],
    ['2024-00-10', 'string'],
    ['2024-05-00', 'string'],
    ['05/01/2024', 'string'],
    ['2024-05-01T10:20:30+02:00', 'string'],
    ['42', 'string'],
    [['a'], 'array'],
  ])('%j is %s', (value, type) => {
    expect(inferType(value as never)).toBe(type);
  });
});

describe('paths', () => {
  it('reads, lists and removes dotted paths, pruning empty parents', () => {
    const data = { a: 1, p: { t: 'x' }, q: { r: { s: 1 }, k: 2 } };
    expect(getPath(data, 'p.t')).toBe('x');
    expect(getPath(data, 'p.t.u')).toBeUndefined();
    expect(leafPaths(data)).toEqual(['a', 'p.t', 'q.r.s', 'q.k']);
    expect(removePath(data, 'p.t')).toBe(true);
    expect(data).toEqual({ a: 1, q: { r: { s: 1 }, k: 2 } });
    expect(removePath(data, 'q.r.s')).toBe(true);
    expect(data).toEqual({ a: 1, q: { k: 2 } });
    expect(removePath(data, 'missing.x')).toBe(false);
  });
});
