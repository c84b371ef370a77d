/**
 * `__proto__`, `constructor` and `prototype` as custom-data keys: refused at any depth with
 * `invalid_key`, never assigned, and never read through the prototype chain.
 */
import { describe, expect, it } from 'vitest';
import {
  applyDataPatch,
  dataPathIssues,
  FORBIDDEN_KEYS,
  getPath,
  parseDataPatch,
  removePath,
} from '../../../shared/contacts/data';
import { AppError } from '../../../shared/errors';
import { ImportFileError, layoutOf, readRow } from '../../../shared/imports/csv';

function issuesOf(input: unknown) {
  try {
    parseDataPatch(input);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).extra.errors ?? [];
  }
  throw new Error('parseDataPatch accepted the input');
}

describe('forbidden custom-data keys', () => {
  it('are exactly __proto__, constructor and prototype', () => {
    expect([...FORBIDDEN_KEYS].sort()).toEqual(['__proto__', 'constructor', 'prototype']);
  });

  for (const key of FORBIDDEN_KEYS) {
    const k = JSON.stringify(key);
    for (const [shape, json, path] of [
      ['top level', `{${k}:"x"}`, `data.${key}`],
      ['nested', `{"a":{${k}:{"b":1}}}`, `data.a.${key}`],
      ['in a kept value', `{"a":{"value":{${k}:1},"persistent":true}}`, `data.a.${key}`],
      ['in a one-off value', `{"a":{"value":{"b":{${k}:1}},"persistent":false}}`, `data.a.b.${key}`],
      ['in an array', `{"a":[1,{${k}:1}]}`, `data.a.1.${key}`],
    ] as const) {
      it(`refuses ${key} (${shape}) with invalid_key naming key and path`, () => {
        const issues = issuesOf(JSON.parse(json));
        expect(issues).toEqual([
          {
            field: path,
            code: 'invalid_key',
            received: key,
            message: expect.stringContaining(`"${key}" cannot be used as a data key (found at ${path})`),
          },
        ]);
      });
    }
  }

  it('reports every forbidden key of a payload, and with other problems', () => {
    const issues = issuesOf(JSON.parse('{"constructor":1,"a":{"prototype":2},"b.c":3}'));
    expect(issues.map((i) => [i.field, i.code])).toEqual([
      ['data.constructor', 'invalid_key'],
      ['data.a.prototype', 'invalid_key'],
      ['data.b.c', 'invalid_key'],
    ]);
  });

  it('never changes a prototype, even for a payload JSON.parse gave an own __proto__', () => {
    expect(() => parseDataPatch(JSON.parse('{"a":[{"__proto__":{"polluted":1}}]}'))).toThrow(AppError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads and removes own keys only', () => {
    const data = { plan: 'pro', profile: { tier: 'gold' } };
    for (const path of ['constructor', 'toString', 'profile.constructor', '__proto__', 'profile.__proto__']) {
      expect(getPath(data, path), path).toBeUndefined();
      expect(removePath(structuredClone(data), path), path).toBe(false);
    }
    expect(getPath(data, 'profile.tier')).toBe('gold');
  });

  it('still applies ordinary keys that contain the words', () => {
    const { data } = applyDataPatch({}, parseDataPatch({ Constructor: 1, proto: 2, a: { prototypes: 3 } }));
    expect(data).toEqual({ Constructor: 1, proto: 2, a: { prototypes: 3 } });
  });

  it('checks dotted field paths segment by segment', () => {
    expect(dataPathIssues('profile.tier', 'field')).toEqual([]);
    expect(dataPathIssues('profile.constructor.x', 'field')).toEqual([
      expect.objectContaining({ field: 'field', code: 'invalid_key', received: 'constructor' }),
    ]);
  });
});

describe('CSV columns with forbidden segments', () => {
  for (const column of ['constructor.prototype.x', '__proto__', 'a.prototype', 'constructor']) {
    it(`fail the file with INVALID_COLUMN naming "${column}"`, () => {
      let error: unknown;
      try {
        layoutOf(['email', 'name', column]);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ImportFileError);
      expect(error).toMatchObject({ code: 'INVALID_COLUMN' });
      expect((error as Error).message).toContain(`Column 3 ("${column}")`);
    });
  }

  it('builds rows from own keys only', () => {
    const layout = layoutOf(['email', 'toString.x', 'valueOf']);
    const row = readRow(layout, ['a@b.test', '1', '2'], 2);
    expect(row).toEqual({
      kind: 'contact',
      row: 2,
      email: 'a@b.test',
      data: { toString: { x: 1 }, valueOf: 2 },
    });
  });
});
