import { describe, expect, it } from 'vitest';
import { parseCondition } from '../../../shared/conditions';
import { inDependencyOrder, liveSegment, needsPeriodicWork } from '../../../shared/segments/evaluation';

import { slugOf } from '../../../shared/segments/service';

const cond = (field: string, operator: string, value?: unknown, unit?: string) =>
  parseCondition({
    logic: 'AND',
    groups: [
      {
        filters: [{ field, operator, ...(value === undefined ? {} : { value }), ...(unit ? { unit } : {}) }],
      },
    ],
  });

describe('slugOf', () => {
  it.each([
    ['Pro Users!', 'pro-users'],
    ['  Trial -- users  ', 'trial-users'],
    ['Émigrés 2026', 'migr-s-2026'],
    ['***', 'segment'],
    ['a'.repeat(120), 'a'.repeat(80)],
  ])('%s -> %s', (name, slug) => expect(slugOf(name)).toBe(slug));
});

describe('inDependencyOrder', () => {
  it('puts each segment after the segments its condition references', () => {
    const a = liveSegment({
      id: 'a',
      version: 1,
      trackMembership: false,
      slug: 'a',
      name: 'a',
      condition: cond('segment.b', 'memberOfSegment'),
    });
    const b = liveSegment({
      id: 'b',
      version: 1,
      trackMembership: false,
      slug: 'b',
      name: 'b',
      condition: cond('segment.c', 'notMemberOfSegment'),
    });
    const c = liveSegment({
      id: 'c',
      version: 1,
      trackMembership: false,
      slug: 'c',
      name: 'c',
      condition: cond('data.plan', 'equals', 'pro'),
    });
    expect(inDependencyOrder([a, b, c]).map((s) => s.id)).toEqual(['c', 'b', 'a']);
    expect(inDependencyOrder([c, a, b]).map((s) => s.id)).toEqual(['c', 'b', 'a']);
  });
});

describe('needsPeriodicWork', () => {
  const base = { type: 'DYNAMIC' as const, trackMembership: false, builtAt: '2026-01-01T00:00:00.000Z' };
  it.each([
    ['a field condition, built', cond('data.plan', 'equals', 'pro'), {}, false],
    ['an unbuilt segment', cond('data.plan', 'equals', 'pro'), { builtAt: null }, true],
    ['a tracked segment', cond('data.plan', 'equals', 'pro'), { trackMembership: true }, true],
    ['an event condition', cond('event.signup', 'triggered'), {}, true],
    ['an email condition', cond('email.opened', 'triggeredWithin', 7, 'days'), {}, true],
    ['relative time', cond('createdAt', 'within', 7, 'days'), {}, true],
    ['a static segment', null, { type: 'STATIC' as const }, false],
  ])('%s: %s', (_name, condition, extra, expected) => {
    expect(needsPeriodicWork({ ...base, condition, ...extra })).toBe(expected);
  });
});
