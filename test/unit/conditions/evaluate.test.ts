import { describe, expect, it } from 'vitest';
import { type ConditionSubject, evaluateCondition, parseCondition } from '../../../shared/conditions';
import { ctx, type FilterInput, facts, fieldTypes, matches, NOW, nested, subject } from './helpers';

type Row = readonly [operator: string, value: unknown, expected: boolean, unit?: string];

/**
 * Every value operator on every kind of value: [operator, value, expected(, unit)]. The subject
 * and its field types are in helpers.ts; now is 2024-06-15T12:00:00Z.
 */
const matrix: Record<string, { field: string; rows: readonly Row[] }> = {
  'string (data.plan = "Pro")': {
    field: 'data.plan',
    rows: [
      ['equals', 'Pro', true],
      ['equals', 'pro', false],
      ['equals', 'Pr', false],
      ['notEquals', 'pro', true],
      ['notEquals', 'Pro', false],
      ['contains', 'ro', true],
      ['contains', 'PR', true],
      ['contains', 'x', false],
      ['notContains', 'x', true],
      ['notContains', 'pr', false],
      ['greaterThan', 1, false],
      ['greaterThanOrEqual', 0, false],
      ['lessThan', 10, false],
      ['lessThanOrEqual', '2030-01-01', false],
      ['exists', undefined, true],
      ['notExists', undefined, false],
      ['within', 1, false, 'days'],
      ['olderThan', 1, false, 'days'],
    ],
  },
  'number (data.age = 36)': {
    field: 'data.age',
    rows: [
      ['equals', 36, true],
      ['equals', 36.0, true],
      ['equals', '36', true],
      ['equals', 35, false],
      ['equals', 'thirty-six', false],
      ['notEquals', 35, true],
      ['notEquals', 36, false],
      ['contains', 3, false],
      ['notContains', 3, true],
      ['greaterThan', 35, true],
      ['greaterThan', '35.5', true],
      ['greaterThan', 36, false],
      ['greaterThanOrEqual', 36, true],
      ['greaterThanOrEqual', 37, false],
      ['lessThan', 37, true],
      ['lessThan', 36, false],
      ['lessThanOrEqual', 36, true],
      ['lessThanOrEqual', 35, false],
      ['lessThan', '2030-01-01', false],
      ['exists', undefined, true],
      ['notExists', undefined, false],
      ['within', 1, false, 'days'],
      ['olderThan', 1, false, 'days'],
    ],
  },
  'boolean (data.vip = true)': {
    field: 'data.vip',
    rows: [
      ['equals', true, true],
      ['equals', 'true', true],
      ['equals', 'TRUE', true],
      ['equals', false, false],
      ['notEquals', false, true],
      ['notEquals', true, false],
      ['contains', true, false],
      ['notContains', true, true],
      ['greaterThan', 0, false],
      ['greaterThanOrEqual', 0, false],
      ['lessThan', 2, false],
      ['lessThanOrEqual', 1, false],
      ['exists', undefined, true],
      ['notExists', undefined, false],
      ['within', 1, false, 'days'],
      ['olderThan', 1, false, 'days'],
    ],
  },
  'date-time (data.lastSeen = 2024-06-15T10:00:00Z)': {
    field: 'data.lastSeen',
    rows: [
      ['equals', '2024-06-15', true],
      ['equals', '2024-06-14', false],
      ['equals', '2024-06-15T10:00:00Z', true],
      ['equals', '2024-06-15T12:00:00+02:00', true],
      ['equals', '2024-06-15T10:00:00.001Z', false],
      ['equals', 1718445600000, false],
      ['notEquals', '2024-06-14', true],
      ['notEquals', '2024-06-15', false],
      ['contains', '2024', false],
      ['notContains', '2024', true],
      ['greaterThan', '2024-06-14', true],
      ['greaterThan', '2024-06-15', false],
      ['greaterThan', '2024-06-15T09:59:59.999Z', true],
      ['greaterThan', '2024-06-15T10:00:00Z', false],
      ['greaterThan', 5, false],
      ['greaterThanOrEqual', '2024-06-15', true],
      ['greaterThanOrEqual', '2024-06-15T10:00:00Z', true],
      ['greaterThanOrEqual', '2024-06-16', false],
      ['lessThan', '2024-06-16', true],
      ['lessThan', '2024-06-15', false],
      ['lessThan', '2024-06-15T10:00:00.001Z', true],
      ['lessThanOrEqual', '2024-06-15', true],
      ['lessThanOrEqual', '2024-06-15T10:00:00Z', true],
      ['lessThanOrEqual', '2024-06-14', false],
      ['exists', undefined, true],
      ['notExists', undefined, false],
      ['within', 2, true, 'hours'],
      ['within', 120, true, 'minutes'],
      ['within', 119, false, 'minutes'],
      ['within', 1, true, 'days'],
      ['olderThan', 1, true, 'hours'],
      ['olderThan', 2, false, 'hours'],
      ['olderThan', 1, false, 'days'],
    ],
  },
  'date only (data.birthday = 1988-12-10)': {
    field: 'data.birthday',
    rows: [
      ['equals', '1988-12-10', true],
      ['equals', '1988-12-10T00:00:00Z', true],
      ['equals', '1988-12-10T12:00:00Z', false],
      ['equals', '1988-12-11', false],
      ['notEquals', '1988-12-11', true],
      ['notEquals', '1988-12-10', false],
      ['contains', '1988', false],
      ['notContains', '1988', true],
      ['greaterThan', '1988-12-09', true],
      ['greaterThan', '1988-12-10', false],
      ['greaterThanOrEqual', '1988-12-10', true],
      ['greaterThanOrEqual', '1988-12-10T00:00:00.001Z', false],
      ['lessThan', '1988-12-10', false],
      ['lessThan', '1988-12-11', true],
      ['lessThanOrEqual', '1988-12-10', true],
      ['lessThanOrEqual', '1988-12-09', false],
      ['exists', undefined, true],
      ['notExists', undefined, false],
      ['within', 365, false, 'days'],
      ['within', 36_500, true, 'days'],
      ['olderThan', 365, true, 'days'],
      ['olderThan', 36_500, false, 'days'],
    ],
  },
  'array (data.tags = ["News", "beta", 3])': {
    field: 'data.tags',
    rows: [
      ['equals', ['beta', 3, 'News'], true],
      ['equals', ['News', 'beta'], false],
      ['equals', ['news', 'beta', 3], false],
      ['equals', ['News', 'beta', 3, 3], false],
      ['equals', 'News', false],
      ['notEquals', 'News', true],
      ['notEquals', ['News', 'beta', 3], false],
      ['contains', 'news', true],
      ['contains', 'BETA', true],
      ['contains', 'bet', false],
      ['contains', 3, true],
      ['contains', '3', true],
      ['contains', true, false],
      ['notContains', 'x', true],
      ['notContains', 'beta', false],
      ['greaterThan', 1, false],
      ['greaterThanOrEqual', 1, false],
      ['lessThan', 10, false],
      ['lessThanOrEqual', 10, false],
      ['exists', undefined, true],
      ['notExists', undefined, false],
      ['within', 1, false, 'days'],
      ['olderThan', 1, false, 'days'],
    ],
  },
  'object (data.profile = {tier, since})': {
    field: 'data.profile',
    rows: [
      ['equals', 'gold', false],
      ['notEquals', 'gold', true],
      ['contains', 'gold', false],
      ['notContains', 'gold', true],
      ['greaterThan', 1, false],
      ['greaterThanOrEqual', 1, false],
      ['lessThan', 1, false],
      ['lessThanOrEqual', 1, false],
      ['exists', undefined, true],
      ['notExists', undefined, false],
      ['within', 1, false, 'days'],
      ['olderThan', 1, false, 'days'],
    ],
  },
  'missing (data.nope)': {
    field: 'data.nope',
    rows: [
      ['equals', 'x', false],
      ['equals', ['x'], false],
      ['notEquals', 'x', true],
      ['contains', 'x', false],
      ['notContains', 'x', true],
      ['greaterThan', 1, false],
      ['greaterThanOrEqual', 1, false],
      ['lessThan', 1, false],
      ['lessThanOrEqual', 1, false],
      ['exists', undefined, false],
      ['notExists', undefined, true],
      ['within', 1, false, 'days'],
      ['olderThan', 1, false, 'days'],
    ],
  },
  'a path below an object (data.profile.tier, data.profile.since)': {
    field: 'data.profile.tier',
    rows: [
      ['equals', 'gold', true],
      ['contains', 'OL', true],
      ['exists', undefined, true],
    ],
  },
  'a path through a value that is not an object (data.plan.x)': {
    field: 'data.plan.x',
    rows: [
      ['exists', undefined, false],
      ['notEquals', 'x', true],
    ],
  },
  'email (standard, text compared without case)': {
    field: 'email',
    rows: [
      ['equals', 'ada@example.com', true],
      ['equals', 'ADA@EXAMPLE.COM', true],
      ['equals', 'ada@example.org', false],
      ['notEquals', 'ADA@example.com', false],
      ['notEquals', 'bob@example.com', true],
      ['contains', 'EXAMPLE', true],
      ['contains', 'gmail', false],
      ['notContains', 'gmail', true],
      ['notContains', '@example', false],
      ['exists', undefined, true],
      ['notExists', undefined, false],
    ],
  },
  'subscribed (standard boolean = true)': {
    field: 'subscribed',
    rows: [
      ['equals', true, true],
      ['equals', false, false],
      ['notEquals', false, true],
      ['notEquals', true, false],
      ['exists', undefined, true],
      ['notExists', undefined, false],
    ],
  },
  'createdAt (standard date = 2024-06-10T08:00:00Z)': {
    field: 'createdAt',
    rows: [
      ['equals', '2024-06-10', true],
      ['equals', '2024-06-10T08:00:00.000Z', true],
      ['equals', '2024-06-11', false],
      ['notEquals', '2024-06-11', true],
      ['notEquals', '2024-06-10', false],
      ['greaterThan', '2024-06-09', true],
      ['greaterThan', '2024-06-10', false],
      ['greaterThanOrEqual', '2024-06-10', true],
      ['greaterThanOrEqual', '2024-06-11', false],
      ['lessThan', '2024-06-10', false],
      ['lessThan', '2024-06-11', true],
      ['lessThanOrEqual', '2024-06-10', true],
      ['lessThanOrEqual', '2024-06-09', false],
      ['exists', undefined, true],
      ['notExists', undefined, false],
      ['within', 7, true, 'days'],
      ['within', 5, false, 'days'],
      ['olderThan', 5, true, 'days'],
      ['olderThan', 7, false, 'days'],
    ],
  },
  'updatedAt (standard date = 2024-06-15T11:30:00Z)': {
    field: 'updatedAt',
    rows: [
      ['equals', '2024-06-15', true],
      ['greaterThan', '2024-06-15T11:00:00Z', true],
      ['within', 30, true, 'minutes'],
      ['within', 29, false, 'minutes'],
      ['olderThan', 29, true, 'minutes'],
      ['olderThan', 30, false, 'minutes'],
    ],
  },
  'mixed types: text stored under a number field (data.code = "42", type number)': {
    field: 'data.code',
    rows: [
      ['equals', 42, true],
      ['equals', '42.0', true],
      ['greaterThan', 41, true],
      ['lessThan', 41, false],
    ],
  },
  'mixed types: non-numeric text under a number field (data.nick = "abc")': {
    field: 'data.nick',
    rows: [
      ['equals', 'abc', false],
      ['notEquals', 'abc', true],
      ['greaterThan', 0, false],
      ['contains', 'a', false],
      ['exists', undefined, true],
    ],
  },
  'text type governs (data.zip = "02139", type string)': {
    field: 'data.zip',
    rows: [
      ['equals', '02139', true],
      ['equals', 2139, false],
      ['greaterThan', 2000, false],
      ['contains', 213, true],
    ],
  },
  'a date under a text field (data.when, type string): within/olderThan read it as a date': {
    field: 'data.when',
    rows: [
      ['equals', '2024-06-15', false],
      ['equals', '2024-06-15T11:00:00Z', true],
      ['greaterThan', '2024-01-01', false],
      ['within', 1, true, 'hours'],
      ['olderThan', 30, true, 'minutes'],
    ],
  },
  'an unreadable value under a date field (data.broken = "soon")': {
    field: 'data.broken',
    rows: [
      ['equals', '2024-06-15', false],
      ['notEquals', '2024-06-15', true],
      ['greaterThan', '2000-01-01', false],
      ['within', 36_500, false, 'days'],
      ['olderThan', 1, false, 'minutes'],
    ],
  },
  'no type record (data.loose = 5): the value’s own type is used': {
    field: 'data.loose',
    rows: [
      ['greaterThan', 4, true],
      ['equals', '5', true],
    ],
  },
  'a scalar under a field recorded as an array (data.flag = "x")': {
    field: 'data.flag',
    rows: [
      ['contains', 'X', true],
      ['equals', 'x', true],
      ['equals', ['x'], false],
    ],
  },
  'a date in the future (data.future = 2024-06-16)': {
    field: 'data.future',
    rows: [
      ['within', 10, false, 'days'],
      ['olderThan', 1, false, 'minutes'],
      ['greaterThan', '2024-06-15', true],
    ],
  },
};

describe('evaluateCondition: every value operator on every kind of value', () => {
  for (const [kind, { field, rows }] of Object.entries(matrix)) {
    describe(kind, () => {
      it.each(rows.map(([operator, value, expected, unit]) => ({ operator, value, expected, unit })))(
        '$operator $value $unit -> $expected',
        ({ operator, value, expected, unit }) => {
          const filter: FilterInput = { field, operator, value, ...(unit ? { unit } : {}) };
          expect(matches(filter)).toBe(expected);
        },
      );
    });
  }

  it('covers every value operator on every kind of data value', () => {
    const ops = [
      'equals',
      'notEquals',
      'contains',
      'notContains',
      'greaterThan',
      'greaterThanOrEqual',
      'lessThan',
      'lessThanOrEqual',
      'exists',
      'notExists',
      'within',
      'olderThan',
    ];
    for (const field of [
      'data.plan',
      'data.age',
      'data.vip',
      'data.lastSeen',
      'data.birthday',
      'data.tags',
      'data.profile',
      'data.nope',
    ]) {
      const entry = Object.values(matrix).find((m) => m.field === field)!;
      expect(new Set(entry.rows.map(([op]) => op)), field).toEqual(new Set(ops));
    }
  });

  it('subscribed false matches equals false', () => {
    const who: ConditionSubject = { ...subject, subscribed: false };
    expect(matches({ field: 'subscribed', operator: 'equals', value: false }, who)).toBe(true);
    expect(matches({ field: 'subscribed', operator: 'notEquals', value: true }, who)).toBe(true);
  });
});

describe('aliases', () => {
  const pairs = [
    ['gt', 'greaterThan'],
    ['gte', 'greaterThanOrEqual'],
    ['lt', 'lessThan'],
    ['lte', 'lessThanOrEqual'],
  ] as const;
  const probes: [string, unknown][] = [
    ['data.age', 35],
    ['data.age', 36],
    ['data.age', 37],
    ['data.lastSeen', '2024-06-15'],
    ['data.lastSeen', '2024-06-15T10:00:00Z'],
    ['data.birthday', '1988-12-10'],
    ['createdAt', '2024-06-10'],
    ['data.plan', 1],
    ['data.nope', 1],
  ];
  for (const [alias, long] of pairs) {
    it(`${alias} is ${long}`, () => {
      for (const [field, value] of probes) {
        expect(matches({ field, operator: alias, value }), `${field} ${alias} ${value}`).toBe(
          matches({ field, operator: long, value }),
        );
      }
    });
  }

  it('keeps the spelling as sent in the parsed condition', () => {
    const parsed = parseCondition({
      logic: 'AND',
      groups: [{ filters: [{ field: 'data.age', operator: 'gte', value: 1 }] }],
    });
    expect(parsed.groups[0]!.filters[0]!.operator).toBe('gte');
  });
});

describe('negative operators are exact complements of the positive ones', () => {
  const fields = [
    'email',
    'subscribed',
    'createdAt',
    'updatedAt',
    ...Object.keys(subject.data).map((k) => `data.${k}`),
    'data.profile.tier',
    'data.profile.since',
    'data.nope',
  ];
  const values: unknown[] = ['Pro', 'pro', 36, '36', true, 'true', '2024-06-15', 'news', 3, 'gold', 'abc'];
  it.each(fields)('%s', (field) => {
    let checked = 0;
    for (const [pos, neg] of [
      ['equals', 'notEquals'],
      ['contains', 'notContains'],
      ['exists', 'notExists'],
    ] as const) {
      for (const value of pos === 'exists' ? [undefined] : values) {
        let a: boolean;
        try {
          a = matches({ field, operator: pos, value });
        } catch {
          continue; // A value the field refuses (text for subscribed ...): parse tests cover it.
        }
        expect(matches({ field, operator: neg, value }), `${field} ${neg} ${String(value)}`).toBe(!a);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe('events, email activity and segments', () => {
  const rows: [FilterInput, boolean][] = [
    [{ field: 'event.signup', operator: 'triggered' }, true],
    [{ field: 'event.never', operator: 'triggered' }, false],
    [{ field: 'event.zero', operator: 'triggered' }, false],
    [{ field: 'event.signup', operator: 'notTriggered' }, false],
    [{ field: 'event.never', operator: 'notTriggered' }, true],
    [{ field: 'event.zero', operator: 'notTriggered' }, true],
    [{ field: 'event.signup', operator: 'exists' }, true],
    [{ field: 'event.never', operator: 'exists' }, false],
    [{ field: 'event.signup', operator: 'notExists' }, false],
    [{ field: 'event.never', operator: 'notExists' }, true],
    // Last signup 2024-06-14T12:00Z, exactly one day before now: the window includes its start.
    [{ field: 'event.signup', operator: 'triggeredWithin', value: 1, unit: 'days' }, true],
    [{ field: 'event.signup', operator: 'triggeredWithin', value: 24, unit: 'hours' }, true],
    [{ field: 'event.signup', operator: 'triggeredWithin', value: 23, unit: 'hours' }, false],
    [{ field: 'event.never', operator: 'triggeredWithin', value: 100, unit: 'days' }, false],
    [{ field: 'event.signup', operator: 'notTriggeredWithin', value: 23, unit: 'hours' }, true],
    [{ field: 'event.signup', operator: 'notTriggeredWithin', value: 1, unit: 'days' }, false],
    [{ field: 'event.never', operator: 'notTriggeredWithin', value: 1, unit: 'days' }, true],
    // First signup 2024-06-01T00:00Z, 14.5 days before now.
    [{ field: 'event.signup', operator: 'triggeredOlderThan', value: 14, unit: 'days' }, true],
    [{ field: 'event.signup', operator: 'triggeredOlderThan', value: 15, unit: 'days' }, false],
    [{ field: 'event.signup', operator: 'triggeredOlderThan', value: 348, unit: 'hours' }, false],
    [{ field: 'event.signup', operator: 'triggeredOlderThan', value: 347, unit: 'hours' }, true],
    [{ field: 'event.never', operator: 'triggeredOlderThan', value: 1, unit: 'minutes' }, false],
    // Summaries may carry Date objects.
    [{ field: 'event.dated', operator: 'triggeredWithin', value: 60, unit: 'minutes' }, true],
    [{ field: 'event.dated', operator: 'triggeredOlderThan', value: 59, unit: 'minutes' }, true],
    [{ field: 'event.dated', operator: 'triggeredOlderThan', value: 60, unit: 'minutes' }, false],
    [{ field: 'event.user.signed-up v2', operator: 'triggered' }, false],
    // Opened: first 2024-05-01, last 2024-06-15T06:00Z.
    [{ field: 'email.opened', operator: 'triggered' }, true],
    [{ field: 'email.clicked', operator: 'triggered' }, false],
    [{ field: 'email.opened', operator: 'notTriggered' }, false],
    [{ field: 'email.bounced', operator: 'notTriggered' }, true],
    [{ field: 'email.opened', operator: 'exists' }, true],
    [{ field: 'email.sent', operator: 'notExists' }, true],
    [{ field: 'email.opened', operator: 'triggeredWithin', value: 6, unit: 'hours' }, true],
    [{ field: 'email.opened', operator: 'triggeredWithin', value: 5, unit: 'hours' }, false],
    [{ field: 'email.opened', operator: 'notTriggeredWithin', value: 5, unit: 'hours' }, true],
    [{ field: 'email.delivered', operator: 'notTriggeredWithin', value: 5, unit: 'hours' }, true],
    [{ field: 'email.opened', operator: 'triggeredOlderThan', value: 30, unit: 'days' }, true],
    [{ field: 'email.opened', operator: 'triggeredOlderThan', value: 50, unit: 'days' }, false],
    [{ field: 'email.complained', operator: 'triggeredOlderThan', value: 1, unit: 'days' }, false],
    [{ field: 'segment.seg-a', operator: 'memberOfSegment' }, true],
    [{ field: 'segment.seg-b', operator: 'memberOfSegment' }, false],
    [{ field: 'segment.seg-a', operator: 'notMemberOfSegment' }, false],
    [{ field: 'segment.seg-b', operator: 'notMemberOfSegment' }, true],
  ];
  it.each(rows.map(([filter, expected]) => ({ ...filter, expected })))(
    '$field $operator $value $unit -> $expected',
    ({ expected, ...filter }) => {
      expect(matches(filter)).toBe(expected);
    },
  );

  it('asks only for the facts used, and fails loudly (not a 4xx) when one is missing', () => {
    const bare = { now: NOW, fieldTypes };
    expect(matches({ field: 'data.plan', operator: 'exists' }, subject, bare)).toBe(true);
    expect(() => matches({ field: 'event.signup', operator: 'triggered' }, subject, bare)).toThrow(
      /ctx\.events/,
    );
    expect(() => matches({ field: 'email.opened', operator: 'triggered' }, subject, bare)).toThrow(
      /ctx\.emails/,
    );
    expect(() => matches({ field: 'segment.seg-a', operator: 'memberOfSegment' }, subject, bare)).toThrow(
      /ctx\.memberOf/,
    );
    expect(
      matches({ field: 'event.signup', operator: 'triggered' }, subject, { ...bare, events: facts.events }),
    ).toBe(true);
  });
});

describe('logic, groups and nesting', () => {
  const T = { field: 'data.plan', operator: 'equals', value: 'Pro' };
  const F = { field: 'data.plan', operator: 'equals', value: 'Basic' };
  const run = (c: unknown) => evaluateCondition(parseCondition(c), subject, ctx);

  it.each([
    ['AND', [[T], [T]], true],
    ['AND', [[T], [F]], false],
    ['OR', [[T], [F]], true],
    ['OR', [[F], [F]], false],
    ['AND', [[T, T, T]], true],
    ['OR', [[T, F]], false],
    ['OR', [[F], [T, T]], true],
  ] as const)('%s of groups %j -> %s', (logic, groups, expected) => {
    expect(run({ logic, groups: groups.map((filters) => ({ filters })) })).toBe(expected);
  });

  it('ANDs a group’s filters with its nested condition', () => {
    const orT = { logic: 'OR', groups: [{ filters: [F] }, { filters: [T] }] };
    const orF = { logic: 'OR', groups: [{ filters: [F] }, { filters: [F] }] };
    expect(run({ logic: 'AND', groups: [{ filters: [T], conditions: orT }] })).toBe(true);
    expect(run({ logic: 'AND', groups: [{ filters: [T], conditions: orF }] })).toBe(false);
    expect(run({ logic: 'AND', groups: [{ filters: [F], conditions: orT }] })).toBe(false);
    expect(run({ logic: 'OR', groups: [{ filters: [F], conditions: orT }, { filters: [T] }] })).toBe(true);
    expect(run({ logic: 'AND', groups: [{ filters: [], conditions: orT }] })).toBe(true);
  });

  it('evaluates a tree five levels deep', () => {
    expect(run(nested(5, T))).toBe(true);
    expect(run(nested(5, F))).toBe(false);
  });

  it('evaluates the same parsed condition on many contacts', () => {
    const condition = parseCondition({
      logic: 'AND',
      groups: [{ filters: [{ field: 'data.age', operator: 'gte', value: 18 }] }],
    });
    const ages = [10, 17, 18, 40, undefined];
    const got = ages.map((age) =>
      evaluateCondition(condition, { ...subject, data: age === undefined ? {} : { age } }, ctx),
    );
    expect(got).toEqual([false, false, true, true, false]);
  });
});
