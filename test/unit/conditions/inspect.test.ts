import { describe, expect, it } from 'vitest';
import {
  conditionFilters,
  needsFacts,
  parseCondition,
  referencedEmailActivities,
  referencedEvents,
  referencedFields,
  referencedSegments,
  usesRelativeTime,
} from '../../../shared/conditions';
import { type FilterInput, one } from './helpers';

const tree = parseCondition({
  logic: 'OR',
  groups: [
    {
      filters: [
        { field: 'email', operator: 'contains', value: '@acme' },
        { field: 'data.plan', operator: 'equals', value: 'pro' },
        { field: 'event.signup', operator: 'triggered' },
      ],
    },
    {
      filters: [{ field: 'data.plan', operator: 'exists' }],
      conditions: {
        logic: 'AND',
        groups: [
          {
            filters: [
              { field: 'data.profile.tier', operator: 'equals', value: 'gold' },
              { field: 'email.opened', operator: 'exists' },
              { field: 'segment.seg-a', operator: 'memberOfSegment' },
              { field: 'event.order.placed', operator: 'notTriggered' },
              { field: 'event.signup', operator: 'notTriggered' },
              { field: 'createdAt', operator: 'gt', value: '2024-01-01' },
            ],
          },
        ],
      },
    },
  ],
});

describe('what a condition refers to', () => {
  it('walks every filter in document order', () => {
    expect([...conditionFilters(tree)].map((f) => f.field)).toEqual([
      'email',
      'data.plan',
      'event.signup',
      'data.plan',
      'data.profile.tier',
      'email.opened',
      'segment.seg-a',
      'event.order.placed',
      'event.signup',
      'createdAt',
    ]);
  });

  it('lists the contact fields, each once', () => {
    expect(referencedFields(tree)).toEqual(['email', 'data.plan', 'data.profile.tier', 'createdAt']);
  });

  it('lists events, email activities and segments, each once', () => {
    expect(referencedEvents(tree)).toEqual(['signup', 'order.placed']);
    expect(referencedEmailActivities(tree)).toEqual(['opened']);
    expect(referencedSegments(tree)).toEqual(['seg-a']);
  });

  it('says which facts evaluation needs', () => {
    expect(needsFacts(tree)).toEqual({ events: true, emails: true, segments: true });
    expect(needsFacts(parseCondition(one({ field: 'data.plan', operator: 'exists' })))).toEqual({
      events: false,
      emails: false,
      segments: false,
    });
    expect(needsFacts(parseCondition(one({ field: 'email', operator: 'exists' })))).toEqual({
      events: false,
      emails: false,
      segments: false,
    });
    expect(needsFacts(parseCondition(one({ field: 'email.sent', operator: 'triggered' })))).toEqual({
      events: false,
      emails: true,
      segments: false,
    });
  });
});

describe('usesRelativeTime', () => {
  const relative: FilterInput[] = [
    { field: 'createdAt', operator: 'within', value: 1, unit: 'days' },
    { field: 'data.seen', operator: 'olderThan', value: 1, unit: 'days' },
    { field: 'event.a', operator: 'triggeredWithin', value: 1, unit: 'days' },
    { field: 'event.a', operator: 'triggeredOlderThan', value: 1, unit: 'days' },
    { field: 'email.opened', operator: 'notTriggeredWithin', value: 1, unit: 'days' },
  ];
  const fixed: FilterInput[] = [
    { field: 'createdAt', operator: 'gt', value: '2024-01-01' },
    { field: 'data.seen', operator: 'exists' },
    { field: 'event.a', operator: 'triggered' },
    { field: 'event.a', operator: 'exists' },
    { field: 'segment.s', operator: 'memberOfSegment' },
  ];
  it.each(relative)('true with $operator', (filter) => {
    expect(usesRelativeTime(parseCondition(one(filter)))).toBe(true);
  });
  it.each(fixed)('false with $operator', (filter) => {
    expect(usesRelativeTime(parseCondition(one(filter)))).toBe(false);
  });
  it('looks into nested conditions', () => {
    const deep = parseCondition({
      logic: 'AND',
      groups: [{ filters: [], conditions: one(relative[0]!) }],
    });
    expect(usesRelativeTime(deep)).toBe(true);
    expect(usesRelativeTime(tree)).toBe(false);
  });
});
