import {
  type ConditionSubject,
  type EvaluationContext,
  evaluateCondition,
  parseCondition,
} from '../../../shared/conditions';
import type { FieldType } from '../../../shared/contacts/data';
import { AppError, type FieldIssue } from '../../../shared/errors';

export const NOW = new Date('2024-06-15T12:00:00.000Z');

export const subject: ConditionSubject = {
  email: 'Ada@Example.com',
  subscribed: true,
  createdAt: '2024-06-10T08:00:00.000Z',
  updatedAt: '2024-06-15T11:30:00.000Z',
  data: {
    plan: 'Pro',
    age: 36,
    vip: true,
    lastSeen: '2024-06-15T10:00:00Z',
    birthday: '1988-12-10',
    tags: ['News', 'beta', 3],
    profile: { tier: 'gold', since: '2020-01-01' },
    zip: '02139',
    code: '42',
    nick: 'abc',
    when: '2024-06-15T11:00:00Z',
    broken: 'soon',
    loose: 5,
    flag: 'x',
    future: '2024-06-16',
  },
};

export const fieldTypes: ReadonlyMap<string, FieldType> = new Map<string, FieldType>([
  ['plan', 'string'],
  ['age', 'number'],
  ['vip', 'boolean'],
  ['lastSeen', 'date'],
  ['birthday', 'date'],
  ['tags', 'array'],
  ['profile.tier', 'string'],
  ['profile.since', 'date'],
  ['zip', 'string'],
  // Mixed types: the first value seen fixed the type, later values are stored as sent.
  ['code', 'number'],
  ['nick', 'number'],
  ['when', 'string'],
  ['broken', 'date'],
  ['flag', 'array'],
  ['future', 'date'],
  // `loose` has no type record: its own value's type is used.
]);

export const facts: Required<Pick<EvaluationContext, 'events' | 'emails' | 'memberOf'>> = {
  events: (name) =>
    ({
      signup: { count: 2, firstAt: '2024-06-01T00:00:00.000Z', lastAt: '2024-06-14T12:00:00.000Z' },
      zero: { count: 0, firstAt: '2024-06-01T00:00:00.000Z', lastAt: '2024-06-01T00:00:00.000Z' },
      dated: {
        count: 1,
        firstAt: new Date('2024-06-15T11:00:00Z'),
        lastAt: new Date('2024-06-15T11:00:00Z'),
      },
    })[name],
  emails: (kind) =>
    kind === 'opened'
      ? { count: 3, firstAt: '2024-05-01T00:00:00.000Z', lastAt: '2024-06-15T06:00:00.000Z' }
      : undefined,
  memberOf: (id) => id === 'seg-a',
};

export const ctx: EvaluationContext = { now: NOW, fieldTypes, ...facts };

export type FilterInput = { field: string; operator: string; value?: unknown; unit?: unknown };

export const one = (filter: FilterInput) => ({ logic: 'AND', groups: [{ filters: [filter] }] });

/** Parses a one-filter condition and evaluates it on `who` (the shared subject by default). */
export function matches(filter: FilterInput, who: ConditionSubject = subject, context = ctx): boolean {
  return evaluateCondition(parseCondition(one(filter)), who, context);
}

/** The field issues of a 422, or fails. */
export function issuesOf(input: unknown, path?: string): FieldIssue[] {
  try {
    parseCondition(input, path);
  } catch (e) {
    if (e instanceof AppError && e.statusCode === 422 && e.code === 'VALIDATION_ERROR')
      return [...e.extra.errors!];
    throw e;
  }
  throw new Error('expected a 422');
}

/** A condition nested `depth` levels deep (the root is level 1). */
export function nested(depth: number, leaf: FilterInput = { field: 'email', operator: 'exists' }): unknown {
  let c: unknown = one(leaf);
  for (let level = 1; level < depth; level++) c = { logic: 'AND', groups: [{ filters: [], conditions: c }] };
  return c;
}
