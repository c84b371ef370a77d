/**
 * What one contact adds to its project's counters (shared/contacts/stats.ts), and the difference a
 * change makes to them: pure functions, used by every writer of contacts and by the recount.
 *
 * A live contact counts once in `total`, once in `subscribed` when subscribed, once in the
 * coverage of every leaf path of its data (nested objects flattened with dots, an array is one
 * leaf), and once in the value counter of each leaf path, under its value's JSON text. A tombstone
 * (a deleted contact waiting for its purge) counts nowhere, so the purge changes no counter.
 */
import type { ContactData, DataValue } from './data';
import type { ContactRecord } from './repository';

/** Values tracked per field path by the value counters; past it, a field's counts are partial. */
export const TRACKED_VALUES = 100;
/** A value whose JSON text is longer than this (bytes) is not tracked (its coverage still counts). */
export const MAX_VALUE_KEY_BYTES = 100;

/** The key of a value in its field's counter, or undefined when it is not tracked (too long). */
export function valueKey(value: DataValue): string | undefined {
  const key = JSON.stringify(value);
  return Buffer.byteLength(key) > MAX_VALUE_KEY_BYTES ? undefined : key;
}

/** A tracked value back from its key. */
export const valueOfKey = (key: string): unknown => JSON.parse(key);

const isPlainObject = (v: unknown): v is ContactData =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** What one contact counts for. */
export interface Contribution {
  readonly live: boolean;
  readonly subscribed: boolean;
  /** Leaf path -> value key (undefined: a value too long to track). */
  readonly leaves: ReadonlyMap<string, string | undefined>;
}

const NOTHING: Contribution = { live: false, subscribed: false, leaves: new Map() };

export function contributionOf(contact: ContactRecord | undefined): Contribution {
  if (!contact || contact.deletedAt) return NOTHING;
  const leaves = new Map<string, string | undefined>();
  const walk = (data: ContactData, prefix: string) => {
    for (const [k, v] of Object.entries(data)) {
      const path = prefix ? `${prefix}.${k}` : k;
      if (isPlainObject(v)) walk(v, path);
      else leaves.set(path, valueKey(v));
    }
  };
  walk(contact.data, '');
  return { live: true, subscribed: contact.subscribed, leaves };
}

const bump = <K>(map: Map<K, number>, key: K, by: number) => {
  const n = (map.get(key) ?? 0) + by;
  if (n === 0) map.delete(key);
  else map.set(key, n);
};

/**
 * Changes to a project's counters, summed over any number of contact changes (one request's
 * change, or a whole chunk of an import, a bulk job or a field strip). Empty parts are dropped, so
 * a change that leaves a contact's contribution as it was adds nothing.
 */
export class StatsDelta {
  total = 0;
  subscribed = 0;
  /** Leaf path -> change of the number of contacts that have it. */
  readonly coverage = new Map<string, number>();
  /** Leaf path -> value key -> change of the number of contacts with that value. */
  readonly values = new Map<string, Map<string, number>>();
  /** Segment id -> change of its member count (shared/segments/membership.ts). */
  readonly members = new Map<string, number>();

  /** Adds the change of one contact from `before` to `after` (either missing or a tombstone). */
  add(before: ContactRecord | undefined, after: ContactRecord | undefined): this {
    this.addContribution(contributionOf(before), -1);
    this.addContribution(contributionOf(after), 1);
    return this;
  }

  /** Adds (`sign` 1) or takes away (-1) a contribution. */
  addContribution(c: Contribution, sign: 1 | -1): this {
    if (!c.live) return this;
    this.total += sign;
    if (c.subscribed) this.subscribed += sign;
    for (const [path, key] of c.leaves) {
      bump(this.coverage, path, sign);
      if (key === undefined) continue;
      const counts = this.values.get(path) ?? new Map<string, number>();
      bump(counts, key, sign);
      if (counts.size === 0) this.values.delete(path);
      else this.values.set(path, counts);
    }
    return this;
  }

  /** Whether the stats item changes (total, subscribed or coverage). */
  get changesStats(): boolean {
    return this.total !== 0 || this.subscribed !== 0 || this.coverage.size > 0;
  }

  get isEmpty(): boolean {
    return !this.changesStats && this.values.size === 0 && [...this.members.values()].every((n) => n === 0);
  }
}

/**
 * Bounded value counts of one field for a recount: exact while at most `slots` distinct values are
 * seen; past that, the least counted value makes room for a new one, which inherits its count
 * (the Space-Saving algorithm), so the most frequent values stay, with counts that may be too high
 * by what they inherited. `capped` says whether that happened, or a value was too long to track.
 */
export class ValueSketch {
  constructor(
    readonly counts: Map<string, number> = new Map(),
    public capped = false,
    private readonly slots = 2 * TRACKED_VALUES,
  ) {}

  add(key: string | undefined): void {
    if (key === undefined) {
      this.capped = true;
      return;
    }
    const n = this.counts.get(key);
    if (n !== undefined) {
      this.counts.set(key, n + 1);
      return;
    }
    if (this.counts.size < this.slots) {
      this.counts.set(key, 1);
      return;
    }
    let minKey = '';
    let min = Number.POSITIVE_INFINITY;
    for (const [k, c] of this.counts) {
      if (c < min) {
        min = c;
        minKey = k;
      }
    }
    this.counts.delete(minKey);
    this.counts.set(key, min + 1);
    this.capped = true;
  }

  /** The `limit` most counted values (most first, then by key), and whether the list is partial. */
  top(limit = TRACKED_VALUES): { counts: Map<string, number>; capped: boolean } {
    const sorted = sortCounts(this.counts);
    return { counts: new Map(sorted.slice(0, limit)), capped: this.capped || sorted.length > limit };
  }
}

/** Counts most first; equal counts by key, so that lists are stable. */
export function sortCounts(counts: Iterable<[string, number]>): [string, number][] {
  return [...counts]
    .filter(([, n]) => n > 0)
    .sort(([ka, a], [kb, b]) => b - a || (ka < kb ? -1 : ka > kb ? 1 : 0));
}
