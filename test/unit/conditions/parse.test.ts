import { describe, expect, it } from 'vitest';
import { MAX_CONDITION_DEPTH, OPERATORS, parseCondition } from '../../../shared/conditions';
import { type Operator, STANDARD_FIELD_TYPES, VALUELESS_OPERATORS } from '../../../shared/conditions/schema';
import { STANDARD_FIELDS } from '../../../shared/contacts/fields';
import { AppError } from '../../../shared/errors';
import { type FilterInput, issuesOf, nested, one } from './helpers';

const F0 = 'condition.groups.0.filters.0';

/** The one issue of a one-filter condition. */
function issueOf(filter: FilterInput) {
  const issues = issuesOf(one(filter));
  expect(issues).toHaveLength(1);
  return issues[0]!;
}

describe('parseCondition accepts', () => {
  /** A valid filter for every operator, on each kind of field it applies to. */
  const valid: FilterInput[] = [
    { field: 'email', operator: 'equals', value: 'a@b.co' },
    { field: 'email', operator: 'notEquals', value: 'a@b.co' },
    { field: 'email', operator: 'contains', value: '@b.' },
    { field: 'email', operator: 'notContains', value: '@b.' },
    { field: 'email', operator: 'exists' },
    { field: 'email', operator: 'notExists' },
    { field: 'subscribed', operator: 'equals', value: true },
    { field: 'subscribed', operator: 'notEquals', value: false },
    { field: 'createdAt', operator: 'equals', value: '2024-06-01' },
    { field: 'createdAt', operator: 'greaterThan', value: '2024-06-01T10:00:00Z' },
    { field: 'createdAt', operator: 'greaterThanOrEqual', value: '2024-06-01T10:00:00.123+02:00' },
    { field: 'updatedAt', operator: 'lessThan', value: '2024-06-01T10:00Z' },
    { field: 'updatedAt', operator: 'lessThanOrEqual', value: '2024-02-29' },
    { field: 'createdAt', operator: 'gt', value: '2024-06-01' },
    { field: 'createdAt', operator: 'gte', value: '2024-06-01' },
    { field: 'createdAt', operator: 'lt', value: '2024-06-01' },
    { field: 'createdAt', operator: 'lte', value: '2024-06-01' },
    { field: 'createdAt', operator: 'within', value: 7, unit: 'days' },
    { field: 'updatedAt', operator: 'olderThan', value: 1.5, unit: 'hours' },
    { field: 'data.plan', operator: 'equals', value: 'pro' },
    { field: 'data.plan', operator: 'equals', value: '' },
    { field: 'data.age', operator: 'equals', value: 3 },
    { field: 'data.vip', operator: 'equals', value: false },
    { field: 'data.tags', operator: 'equals', value: ['a', 1, true] },
    { field: 'data.plan', operator: 'notEquals', value: 'pro' },
    { field: 'data.tags', operator: 'contains', value: 'a' },
    { field: 'data.tags', operator: 'contains', value: 2 },
    { field: 'data.tags', operator: 'notContains', value: false },
    { field: 'data.age', operator: 'greaterThan', value: 18 },
    { field: 'data.age', operator: 'greaterThanOrEqual', value: '18' },
    { field: 'data.age', operator: 'lessThan', value: -1.5e3 },
    { field: 'data.day', operator: 'lessThanOrEqual', value: '2024-06-01' },
    { field: 'data.age', operator: 'gt', value: 1 },
    { field: 'data.age', operator: 'gte', value: 1 },
    { field: 'data.age', operator: 'lt', value: 1 },
    { field: 'data.age', operator: 'lte', value: 1 },
    { field: 'data.profile.tier', operator: 'exists' },
    { field: 'data.plan', operator: 'notExists', value: null },
    { field: 'data.seen', operator: 'within', value: 30, unit: 'minutes' },
    { field: 'data.seen', operator: 'olderThan', value: 36_500, unit: 'days' },
    { field: 'event.signup', operator: 'triggered' },
    { field: 'event.signup', operator: 'notTriggered', value: '' },
    { field: 'event.signup', operator: 'exists' },
    { field: 'event.signup', operator: 'notExists' },
    { field: 'event.order.placed', operator: 'triggeredWithin', value: 7, unit: 'days' },
    { field: 'event.signup', operator: 'triggeredOlderThan', value: 1, unit: 'hours' },
    { field: 'event.signup', operator: 'notTriggeredWithin', value: 52_560_000, unit: 'minutes' },
    { field: 'email.sent', operator: 'triggered' },
    { field: 'email.delivered', operator: 'notTriggered' },
    { field: 'email.opened', operator: 'triggeredWithin', value: 3, unit: 'days' },
    { field: 'email.clicked', operator: 'triggeredOlderThan', value: 3, unit: 'days' },
    { field: 'email.bounced', operator: 'notTriggeredWithin', value: 3, unit: 'days' },
    { field: 'email.complained', operator: 'exists' },
    { field: 'segment.5b0c4c1e-8f7a-4a52-9d35-0a4f6f0c6d11', operator: 'memberOfSegment' },
    { field: 'segment.vip_users', operator: 'notMemberOfSegment' },
  ];

  it.each(valid)('$field $operator $value $unit', (filter) => {
    const parsed = parseCondition(one(filter));
    expect(parsed.groups[0]!.filters[0]).toEqual({
      field: filter.field,
      operator: filter.operator,
      ...(filter.value === undefined || VALUELESS_OPERATORS.has(filter.operator as Operator)
        ? {}
        : { value: filter.value }),
      ...(filter.unit === undefined ? {} : { unit: filter.unit }),
    });
  });

  it('uses every operator at least once above', () => {
    expect(new Set(valid.map((f) => f.operator))).toEqual(new Set(OPERATORS));
  });

  it('keeps an empty-string value where one is compared (equals ""), drops it where none is used', () => {
    expect(
      parseCondition(one({ field: 'data.plan', operator: 'equals', value: '' })).groups[0]!.filters[0],
    ).toEqual({
      field: 'data.plan',
      operator: 'equals',
      value: '',
    });
  });

  it('drops unknown keys, null units and null values of operators that take none', () => {
    const parsed = parseCondition({
      logic: 'OR',
      id: 'x',
      groups: [
        {
          id: 'g1',
          filters: [{ id: 'f1', field: 'data.plan', operator: 'exists', value: null, unit: null }],
          conditions: { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'exists' }] }] },
        },
      ],
    });
    expect(parsed).toEqual({
      logic: 'OR',
      groups: [
        {
          filters: [{ field: 'data.plan', operator: 'exists' }],
          conditions: { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'exists' }] }] },
        },
      ],
    });
  });

  it(`accepts nesting ${MAX_CONDITION_DEPTH} levels deep`, () => {
    expect(() => parseCondition(nested(MAX_CONDITION_DEPTH))).not.toThrow();
  });

  it('accepts a group with only a nested condition', () => {
    expect(() =>
      parseCondition({
        logic: 'AND',
        groups: [{ filters: [], conditions: one({ field: 'email', operator: 'exists' }) }],
      }),
    ).not.toThrow();
  });
});

describe('parseCondition refuses with 422 naming the path', () => {
  it('throws AppError 422 VALIDATION_ERROR', () => {
    let error: unknown;
    try {
      parseCondition({
        logic: 'AND',
        groups: [{ filters: [{ field: 'plan', operator: 'equals', value: 1 }] }],
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ statusCode: 422, code: 'VALIDATION_ERROR' });
  });

  describe('the shape of the tree', () => {
    const cases: [string, unknown, string, string][] = [
      ['not an object', 'AND', 'condition', 'invalid_type'],
      ['null', null, 'condition', 'invalid_type'],
      ['an array', [], 'condition', 'invalid_type'],
      [
        'no logic',
        { groups: [{ filters: [{ field: 'email', operator: 'exists' }] }] },
        'condition.logic',
        'invalid_value',
      ],
      [
        'logic not AND/OR',
        { logic: 'XOR', groups: [{ filters: [{ field: 'email', operator: 'exists' }] }] },
        'condition.logic',
        'invalid_value',
      ],
      [
        'lower-case logic',
        { logic: 'and', groups: [{ filters: [{ field: 'email', operator: 'exists' }] }] },
        'condition.logic',
        'invalid_value',
      ],
      ['no groups', { logic: 'AND' }, 'condition.groups', 'invalid_type'],
      ['groups not an array', { logic: 'AND', groups: {} }, 'condition.groups', 'invalid_type'],
      ['empty groups', { logic: 'AND', groups: [] }, 'condition.groups', 'too_small'],
      ['a group not an object', { logic: 'AND', groups: ['x'] }, 'condition.groups.0', 'invalid_type'],
      [
        'a group without filters',
        { logic: 'AND', groups: [{}] },
        'condition.groups.0.filters',
        'invalid_type',
      ],
      [
        'an empty group',
        { logic: 'AND', groups: [{ filters: [] }] },
        'condition.groups.0.filters',
        'too_small',
      ],
      ['a filter not an object', { logic: 'AND', groups: [{ filters: [3] }] }, F0, 'invalid_type'],
      ['a filter without field', one({ operator: 'exists' } as FilterInput), `${F0}.field`, 'invalid_type'],
      [
        'a field not a string',
        one({ field: 3, operator: 'exists' } as unknown as FilterInput),
        `${F0}.field`,
        'invalid_type',
      ],
      ['an empty field', one({ field: '', operator: 'exists' }), `${F0}.field`, 'too_small'],
      [
        'a field too long',
        one({ field: `data.${'a'.repeat(300)}`, operator: 'exists' }),
        `${F0}.field`,
        'too_big',
      ],
      [
        'a filter without operator',
        one({ field: 'email' } as FilterInput),
        `${F0}.operator`,
        'invalid_value',
      ],
      ['an unknown operator', one({ field: 'email', operator: 'is' }), `${F0}.operator`, 'invalid_value'],
      [
        'an operator in the wrong case',
        one({ field: 'data.age', operator: 'GT', value: 1 }),
        `${F0}.operator`,
        'invalid_value',
      ],
      [
        'a nested condition not an object',
        { logic: 'AND', groups: [{ filters: [], conditions: 'x' }] },
        'condition.groups.0.conditions',
        'invalid_type',
      ],
      [
        'a nested condition with bad logic',
        { logic: 'AND', groups: [{ filters: [], conditions: { logic: 'NOT', groups: [] } }] },
        'condition.groups.0.conditions.logic',
        'invalid_value',
      ],
      [
        'too many groups',
        {
          logic: 'OR',
          groups: Array.from({ length: 101 }, () => ({ filters: [{ field: 'email', operator: 'exists' }] })),
        },
        'condition.groups',
        'too_big',
      ],
      [
        'too many filters',
        {
          logic: 'OR',
          groups: [{ filters: Array.from({ length: 101 }, () => ({ field: 'email', operator: 'exists' })) }],
        },
        'condition.groups.0.filters',
        'too_big',
      ],
    ];
    it.each(cases)('%s', (_, input, field, code) => {
      expect(issuesOf(input)).toContainEqual(expect.objectContaining({ field, code }));
    });

    it(`refuses nesting ${MAX_CONDITION_DEPTH + 1} levels deep, at the too-deep condition`, () => {
      const path = `condition${'.groups.0.conditions'.repeat(MAX_CONDITION_DEPTH)}`;
      expect(issuesOf(nested(MAX_CONDITION_DEPTH + 1))).toEqual([
        expect.objectContaining({ field: path, code: 'too_big', received: MAX_CONDITION_DEPTH + 1 }),
      ]);
    });

    it('refuses a tree nested thousands deep without recursing into it', () => {
      expect(issuesOf(nested(5_000))[0]).toMatchObject({ code: 'too_big' });
    });
  });

  describe('fields', () => {
    const cases: [string, string, string][] = [
      ['a custom field without data.', 'plan', 'invalid_value'],
      ['a standard field in another case', 'Email', 'invalid_value'],
      ['an unknown prefix', 'contact.plan', 'invalid_value'],
      ['data. with no path', 'data.', 'invalid_value'],
      ['an empty path segment', 'data.a..b', 'invalid_value'],
      ['a trailing dot', 'data.a.', 'invalid_value'],
      ['a forbidden data key', 'data.__proto__', 'invalid_key'],
      ['a forbidden key deeper', 'data.profile.constructor', 'invalid_key'],
      ['event. with no name', 'event.', 'invalid_value'],
      ['an event name with surrounding spaces', 'event. signup', 'invalid_value'],
      ['an event name with control characters', 'event.sign\nup', 'invalid_value'],
      ['an event name too long', `event.${'e'.repeat(101)}`, 'invalid_value'],
      ['email activity as an event', 'event.email.opened', 'reserved_event'],
      ['another reserved event', 'event.contact.subscribed', 'reserved_event'],
      ['a segment event', 'event.segment.vip.entry', 'reserved_event'],
      ['an unknown email activity', 'email.failed', 'invalid_value'],
      ['email activity in another case', 'email.Opened', 'invalid_value'],
      ['email. with no activity', 'email.', 'invalid_value'],
      ['segment. with no id', 'segment.', 'invalid_value'],
      ['a segment id with a dot', 'segment.a.b', 'invalid_value'],
      ['a segment id with a space', 'segment.a b', 'invalid_value'],
    ];
    it.each(cases)('%s (%s)', (_, field, code) => {
      const operator = field.startsWith('event.') || field.startsWith('email.') ? 'triggered' : 'exists';
      expect(issueOf({ field, operator })).toMatchObject({ field: `${F0}.field`, code, received: field });
    });
  });

  describe('operators that do not fit the field', () => {
    const cases: [string, string, unknown?, string?][] = [
      ['event.signup', 'equals', 1],
      ['event.signup', 'greaterThan', 1],
      ['event.signup', 'within', 1, 'days'],
      ['event.signup', 'memberOfSegment'],
      ['email.opened', 'contains', 'x'],
      ['email.opened', 'olderThan', 1, 'days'],
      ['segment.abc', 'exists'],
      ['segment.abc', 'triggered'],
      ['segment.abc', 'equals', true],
      ['data.plan', 'triggered'],
      ['data.plan', 'triggeredWithin', 1, 'days'],
      ['data.plan', 'memberOfSegment'],
      ['email', 'greaterThan', 'a'],
      ['email', 'gt', 'a'],
      ['email', 'within', 1, 'days'],
      ['email', 'triggered'],
      ['subscribed', 'contains', true],
      ['subscribed', 'lessThan', 1],
      ['subscribed', 'olderThan', 1, 'days'],
      ['createdAt', 'contains', '2024'],
      ['createdAt', 'notContains', '2024'],
      ['updatedAt', 'notTriggered'],
    ];
    it.each(cases)('%s %s', (field, operator, value, unit) => {
      expect(issueOf({ field, operator, value, unit })).toMatchObject({
        field: `${F0}.operator`,
        code: 'invalid_value',
        received: operator,
      });
    });
  });

  describe('values', () => {
    const cases: [string, FilterInput, string][] = [
      ['equals without a value', { field: 'data.plan', operator: 'equals' }, 'invalid_type'],
      ['equals null', { field: 'data.plan', operator: 'equals', value: null }, 'invalid_type'],
      ['equals an object', { field: 'data.plan', operator: 'equals', value: { a: 1 } }, 'invalid_type'],
      ['equals an empty array', { field: 'data.tags', operator: 'equals', value: [] }, 'invalid_type'],
      ['equals an array of objects', { field: 'data.tags', operator: 'equals', value: [{}] }, 'invalid_type'],
      [
        'equals an array too long',
        { field: 'data.tags', operator: 'equals', value: Array(101).fill(1) },
        'invalid_type',
      ],
      [
        'equals Infinity',
        { field: 'data.age', operator: 'equals', value: Number.POSITIVE_INFINITY },
        'invalid_type',
      ],
      ['email equals a number', { field: 'email', operator: 'equals', value: 3 }, 'invalid_type'],
      ['email equals an array', { field: 'email', operator: 'equals', value: ['a@b.co'] }, 'invalid_type'],
      ['subscribed equals text', { field: 'subscribed', operator: 'equals', value: 'true' }, 'invalid_type'],
      ['createdAt equals a number', { field: 'createdAt', operator: 'equals', value: 1 }, 'invalid_type'],
      [
        'createdAt equals words',
        { field: 'createdAt', operator: 'equals', value: 'yesterday' },
        'invalid_string',
      ],
      [
        'createdAt equals a day not on the calendar',
        { field: 'createdAt', operator: 'equals', value: '2024-02-30' },
        'invalid_string',
      ],
      [
        'createdAt gt a date-time without a zone',
        { field: 'createdAt', operator: 'gt', value: '2024-06-01T10:00:00' },
        'invalid_string',
      ],
      [
        'createdAt gt MM/DD/YYYY',
        { field: 'createdAt', operator: 'gt', value: '06/01/2024' },
        'invalid_string',
      ],
      [
        'createdAt lt hour 24',
        { field: 'createdAt', operator: 'lt', value: '2024-06-01T24:00:00Z' },
        'invalid_string',
      ],
      ['contains an empty string', { field: 'data.plan', operator: 'contains', value: '' }, 'invalid_type'],
      ['contains an array', { field: 'data.tags', operator: 'contains', value: ['a'] }, 'invalid_type'],
      ['contains without a value', { field: 'data.tags', operator: 'notContains' }, 'invalid_type'],
      ['email contains a number', { field: 'email', operator: 'contains', value: 1 }, 'invalid_type'],
      ['greaterThan a boolean', { field: 'data.age', operator: 'greaterThan', value: true }, 'invalid_type'],
      ['greaterThan words', { field: 'data.age', operator: 'greaterThan', value: 'ten' }, 'invalid_string'],
      ['lte without a value', { field: 'data.age', operator: 'lte' }, 'invalid_type'],
      ['exists with a value', { field: 'data.plan', operator: 'exists', value: 'x' }, 'invalid_type'],
      ['notExists with false', { field: 'data.plan', operator: 'notExists', value: false }, 'invalid_type'],
      ['triggered with a value', { field: 'event.signup', operator: 'triggered', value: 3 }, 'invalid_type'],
      [
        'memberOfSegment with a value',
        { field: 'segment.abc', operator: 'memberOfSegment', value: true },
        'invalid_type',
      ],
      ['within without a value', { field: 'createdAt', operator: 'within', unit: 'days' }, 'invalid_type'],
      [
        'within a numeric string',
        { field: 'createdAt', operator: 'within', value: '7', unit: 'days' },
        'invalid_type',
      ],
      ['within 0', { field: 'createdAt', operator: 'within', value: 0, unit: 'days' }, 'too_small'],
      [
        'olderThan a negative span',
        { field: 'data.seen', operator: 'olderThan', value: -1, unit: 'hours' },
        'too_small',
      ],
      [
        'within more than 100 years',
        { field: 'data.seen', operator: 'within', value: 36_501, unit: 'days' },
        'too_big',
      ],
      [
        'within too many minutes',
        { field: 'data.seen', operator: 'within', value: 52_560_001, unit: 'minutes' },
        'too_big',
      ],
      [
        'triggeredWithin a string',
        { field: 'event.a', operator: 'triggeredWithin', value: 'week', unit: 'days' },
        'invalid_type',
      ],
      [
        'triggeredOlderThan without a value',
        { field: 'email.sent', operator: 'triggeredOlderThan', unit: 'days' },
        'invalid_type',
      ],
      [
        'notTriggeredWithin 0',
        { field: 'event.a', operator: 'notTriggeredWithin', value: 0, unit: 'days' },
        'too_small',
      ],
    ];
    it.each(cases)('%s', (_, filter, code) => {
      expect(issueOf(filter)).toMatchObject({ field: `${F0}.value`, code });
    });
  });

  describe('units', () => {
    const cases: [string, FilterInput, string][] = [
      ['within without a unit', { field: 'createdAt', operator: 'within', value: 1 }, 'invalid_type'],
      [
        'olderThan with a null unit',
        { field: 'createdAt', operator: 'olderThan', value: 1, unit: null },
        'invalid_type',
      ],
      [
        'an unknown unit',
        { field: 'createdAt', operator: 'within', value: 1, unit: 'weeks' },
        'invalid_value',
      ],
      ['a singular unit', { field: 'createdAt', operator: 'within', value: 1, unit: 'day' }, 'invalid_value'],
      [
        'a unit in another case',
        { field: 'event.a', operator: 'triggeredWithin', value: 1, unit: 'Days' },
        'invalid_value',
      ],
      [
        'a unit not a string',
        { field: 'email.sent', operator: 'notTriggeredWithin', value: 1, unit: 1 },
        'invalid_value',
      ],
      ['a unit on equals', { field: 'data.age', operator: 'equals', value: 1, unit: 'days' }, 'invalid_type'],
      [
        'a unit on greaterThan',
        { field: 'createdAt', operator: 'greaterThan', value: '2024-01-01', unit: 'days' },
        'invalid_type',
      ],
      ['a unit on triggered', { field: 'event.a', operator: 'triggered', unit: 'days' }, 'invalid_type'],
    ];
    it.each(cases)('%s', (_, filter, code) => {
      expect(issueOf(filter)).toMatchObject({ field: `${F0}.unit`, code });
    });

    it('reports a bad value and a bad unit of one filter together', () => {
      const issues = issuesOf(one({ field: 'createdAt', operator: 'within', value: 'x', unit: 'weeks' }));
      expect(issues.map((i) => i.field)).toEqual([`${F0}.unit`, `${F0}.value`]);
    });
  });

  it('lists the problems of every filter, at their paths in nested conditions', () => {
    const issues = issuesOf({
      logic: 'AND',
      groups: [
        {
          filters: [
            { field: 'email', operator: 'exists' },
            { field: 'plan', operator: 'equals', value: 1 },
          ],
        },
        {
          filters: [{ field: 'data.age', operator: 'gt', value: true }],
          conditions: {
            logic: 'OR',
            groups: [
              { filters: [{ field: 'email', operator: 'exists' }] },
              { filters: [{ field: 'segment.x', operator: 'exists' }] },
            ],
          },
        },
      ],
    });
    expect(issues.map((i) => i.field)).toEqual([
      'condition.groups.0.filters.1.field',
      'condition.groups.1.filters.0.value',
      'condition.groups.1.conditions.groups.1.filters.0.operator',
    ]);
  });

  it('roots the paths where the caller says', () => {
    const bad = one({ field: 'email', operator: 'bogus' });
    expect(issuesOf(bad, 'audienceCondition')[0]!.field).toBe(
      'audienceCondition.groups.0.filters.0.operator',
    );
    expect(issuesOf(bad, 'config.condition')[0]!.field).toBe('config.condition.groups.0.filters.0.operator');
    expect(
      issuesOf(
        { logic: 'AND', groups: [{ filters: [{ field: 'x', operator: 'exists' }] }] },
        'config.condition',
      )[0]!.field,
    ).toBe('config.condition.groups.0.filters.0.field');
    expect(issuesOf(nested(6), 'audienceCondition')[0]!.field).toMatch(
      /^audienceCondition\.groups\.0\.conditions/,
    );
  });
});

it('knows the standard fields with the types of the contacts module', () => {
  expect(STANDARD_FIELD_TYPES).toEqual(STANDARD_FIELDS);
});
