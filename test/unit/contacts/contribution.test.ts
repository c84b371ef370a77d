import { describe, expect, it } from 'vitest';
import {
  contributionOf,
  MAX_VALUE_KEY_BYTES,
  StatsDelta,
  sortCounts,
  TRACKED_VALUES,
  ValueSketch,
  valueKey,
} from '../../../shared/contacts/contribution';
import type { ContactRecord } from '../../../shared/contacts/repository';
import { mergeCounts } from '../../../shared/contacts/stats';

const contact = (over: Partial<ContactRecord> = {}): ContactRecord => ({
  id: 'c1',
  email: 'a@example.org',
  emailLower: 'a@example.org',
  subscribed: true,
  snoozedUntil: null,
  data: {},
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: '2024-01-01T00:00:00.000Z',
  version: 1,
  ...over,
});

const plain = (d: StatsDelta) => ({
  total: d.total,
  subscribed: d.subscribed,
  coverage: Object.fromEntries(d.coverage),
  values: Object.fromEntries([...d.values].map(([p, m]) => [p, Object.fromEntries(m)])),
});

describe('contributionOf', () => {
  it('counts every leaf path of a live contact, nested objects flattened, arrays as one leaf', () => {
    const c = contributionOf(
      contact({ data: { plan: 'pro', profile: { tier: 'gold', since: 2020 }, tags: ['a', 'b'], empty: {} } }),
    );
    expect(c.live).toBe(true);
    expect(Object.fromEntries(c.leaves)).toEqual({
      plan: '"pro"',
      'profile.tier': '"gold"',
      'profile.since': '2020',
      tags: '["a","b"]',
    });
  });

  it('counts nothing for a missing contact or a tombstone', () => {
    expect(contributionOf(undefined).live).toBe(false);
    expect(contributionOf(contact({ deletedAt: '2024-01-02T00:00:00.000Z', data: { a: 1 } }))).toMatchObject({
      live: false,
    });
  });

  it('does not track a value longer than the key limit (its coverage still counts)', () => {
    expect(valueKey('x'.repeat(MAX_VALUE_KEY_BYTES - 2))).toBeDefined();
    expect(valueKey('x'.repeat(MAX_VALUE_KEY_BYTES - 1))).toBeUndefined();
    const d = new StatsDelta().add(undefined, contact({ data: { bio: 'y'.repeat(500) } }));
    expect(plain(d)).toEqual({ total: 1, subscribed: 1, coverage: { bio: 1 }, values: {} });
  });
});

describe('StatsDelta', () => {
  it('is empty for a change that changes nothing counted', () => {
    const before = contact({ data: { plan: 'pro' } });
    const after = { ...before, email: 'b@example.org', snoozedUntil: '2030-01-01T00:00:00Z', version: 2 };
    expect(new StatsDelta().add(before, after).isEmpty).toBe(true);
  });

  it('counts a create, an update and a delete', () => {
    const created = contact({ data: { plan: 'free', seats: 1 } });
    expect(plain(new StatsDelta().add(undefined, created))).toEqual({
      total: 1,
      subscribed: 1,
      coverage: { plan: 1, seats: 1 },
      values: { plan: { '"free"': 1 }, seats: { '1': 1 } },
    });
    const updated = { ...created, subscribed: false, data: { plan: 'pro', region: 'eu' } };
    const change = new StatsDelta().add(created, updated);
    expect(plain(change)).toEqual({
      total: 0,
      subscribed: -1,
      coverage: { seats: -1, region: 1 },
      values: { plan: { '"free"': -1, '"pro"': 1 }, seats: { '1': -1 }, region: { '"eu"': 1 } },
    });
    expect(change.changesStats).toBe(true);
    const tombstone = { ...updated, deletedAt: '2024-02-01T00:00:00.000Z' };
    expect(plain(new StatsDelta().add(updated, tombstone))).toEqual({
      total: -1,
      subscribed: 0,
      coverage: { plan: -1, region: -1 },
      values: { plan: { '"pro"': -1 }, region: { '"eu"': -1 } },
    });
  });

  it('sums a chunk of changes, cancelling what comes and goes', () => {
    const a = contact({ id: 'a', data: { plan: 'free' } });
    const a2 = { ...a, data: { plan: 'pro' } };
    const b = contact({ id: 'b', subscribed: false, data: { plan: 'pro' } });
    const d = new StatsDelta().add(undefined, a).add(a, a2).add(undefined, b);
    expect(plain(d)).toEqual({
      total: 2,
      subscribed: 1,
      coverage: { plan: 2 },
      values: { plan: { '"pro"': 2 } },
    });
    // A value change only: the stats item does not change.
    const only = new StatsDelta().add(a, a2);
    expect(only.changesStats).toBe(false);
    expect(only.isEmpty).toBe(false);
  });
});

describe('mergeCounts (a value counter read and put)', () => {
  const counts = (o: Record<string, number>) => new Map(Object.entries(o));

  it('changes tracked values, drops them at zero, ignores decrements of untracked ones', () => {
    const out = mergeCounts(counts({ a: 2, b: 1 }), counts({ a: -1, b: -1, z: -1, c: 3 }), false);
    expect(Object.fromEntries(out.counts)).toEqual({ a: 1, c: 3 });
    expect(out.capped).toBe(false);
  });

  it('admits new values, largest first, while fewer than the cap are tracked; then it is capped', () => {
    const full = counts(
      Object.fromEntries(Array.from({ length: TRACKED_VALUES - 1 }, (_, i) => [`v${i}`, 1])),
    );
    const out = mergeCounts(full, counts({ small: 1, big: 5 }), false);
    expect(out.counts.get('big')).toBe(5);
    expect(out.counts.has('small')).toBe(false);
    expect(out.counts.size).toBe(TRACKED_VALUES);
    expect(out.capped).toBe(true);
  });
});

describe('ValueSketch (a recount of values)', () => {
  it('is exact while it has room', () => {
    const s = new ValueSketch();
    for (const v of ['a', 'b', 'a', 'c', 'a', 'b']) s.add(v);
    expect(sortCounts(s.counts)).toEqual([
      ['a', 3],
      ['b', 2],
      ['c', 1],
    ]);
    expect(s.top(2)).toEqual({
      counts: new Map([
        ['a', 3],
        ['b', 2],
      ]),
      capped: true,
    });
    expect(s.top().capped).toBe(false);
  });

  it('keeps the values more frequent than 1 in its slots when there are more than it has room for', () => {
    // 1,450 values in 10 slots: 'hot' (250) and 'warm' (200) are each more than a tenth.
    const s = new ValueSketch(new Map(), false, 10);
    for (let i = 0; i < 1000; i++) {
      s.add(`rare${i}`);
      if (i % 4 === 0) s.add('hot');
      if (i % 5 === 0) s.add('warm');
    }
    const top = [...s.top(2).counts.keys()];
    expect(top).toEqual(['hot', 'warm']);
    expect(s.capped).toBe(true);
    expect(s.counts.size).toBe(10);
  });
});
