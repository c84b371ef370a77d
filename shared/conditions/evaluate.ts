/**
 * Evaluates a parsed condition tree on one contact: pure and synchronous. Everything beyond the
 * contact's own fields (its events, email activity and segment memberships) comes from the
 * caller as facts, so that the segment engine can answer them from per-contact summaries and a
 * workflow from its execution context.
 *
 * Semantics (also in the docs):
 * - A contact field compares by the project's inferred type of the field (`ctx.fieldTypes`;
 *   for a path without a type record, the type inferred from the contact's own value; the
 *   standard fields have fixed types): numbers numerically (a numeric string counts as its
 *   number), booleans (`"true"`/`"false"` count), dates as instants, anything else as text.
 * - Text: `equals` is exact, except on `email` where case does not matter; `contains` is a
 *   case-insensitive substring. On an array value, `contains` is membership (an element equal
 *   to the value, ignoring case) and `equals` needs an array value with the same elements in
 *   any order. An object value (`data.profile` when it holds `{tier: ...}`) only `exists`.
 * - Dates: a stored date is an instant (a `YYYY-MM-DD` value is its UTC midnight). A filter
 *   value `YYYY-MM-DD` covers that UTC day: `equals` is within the day, `greaterThan` after
 *   it, `greaterThanOrEqual` from its start, `lessThan` before it, `lessThanOrEqual` up to its
 *   end. A date-time value is one instant (to the millisecond).
 * - `within N unit`: the date is between now − N and now, both included (a future date is not
 *   within). `olderThan N unit`: the date is before now − N. Both read the stored value as an
 *   ISO 8601 date whatever the field's type (a custom-data rule); anything else never
 *   matches either.
 * - A missing field, or a value that cannot be compared as the field's type (a mixed-type
 *   value, an ordering on text), matches no operator except `notEquals`, `notContains` and
 *   `notExists`: each negative operator is exactly the complement of its positive one.
 * - Events and email activity: `triggered` when the contact has at least one;
 *   `triggeredWithin N` when the last one is at or after now − N (so it needs `lastAt`);
 *   `triggeredOlderThan N` when the first one is before now − N (so it needs `firstAt`);
 *   `notTriggered` and `notTriggeredWithin` are the complements (a contact that never
 *   triggered it matches both). `exists` and `notExists` on these fields mean `triggered` and
 *   `notTriggered`.
 */
import type { ContactData, DataValue, FieldType } from '../contacts/data';
import { getPath, inferType } from '../contacts/data';
import { type DateSpan, parseIsoDate, toInstant, UNIT_MS } from './dates';
import { classifyField, effectiveOperator, type FieldRef, NUMERIC_TEXT } from './filters';
import type { CanonicalOperator, Condition, EmailActivity, Filter, Group, Scalar } from './schema';

/** The contact as a condition sees it (a `Contact` record is one). */
export interface ConditionSubject {
  readonly email: string;
  readonly subscribed: boolean;
  /** ISO 8601 instants. */
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly data: ContactData;
}

/** What is known of a contact's events of one name, or of one kind of its email activity. */
export interface ActivitySummary {
  readonly count: number;
  /** The first occurrence (ISO 8601): used by `triggeredOlderThan`. */
  readonly firstAt: string | Date;
  /** The last occurrence (ISO 8601): used by `triggeredWithin` and `notTriggeredWithin`. */
  readonly lastAt: string | Date;
}

/**
 * Facts about the contact beyond its fields. Only those a condition uses are asked for
 * (`needsFacts` says which), and a context may leave out the others.
 */
export interface ContactFacts {
  /** The contact's tracked events named `name`; undefined when it has none. */
  readonly events: (name: string) => ActivitySummary | undefined;
  /** The contact's email activity of one kind (emails sent, opened ...); undefined when none. */
  readonly emails: (activity: EmailActivity) => ActivitySummary | undefined;
  /** Whether the contact is a member of the segment. */
  readonly memberOf: (segmentId: string) => boolean;
}

export interface EvaluationContext extends Partial<ContactFacts> {
  readonly now: Date;
  /** The project's inferred custom field types, by path without `data.` (`plan`, `profile.tier`). */
  readonly fieldTypes: ReadonlyMap<string, FieldType>;
}

/** True when the contact matches the condition. Throws (a bug, not a 4xx) when a needed fact is missing. */
export function evaluateCondition(
  condition: Condition,
  subject: ConditionSubject,
  ctx: EvaluationContext,
): boolean {
  const match = (group: Group) => matchGroup(group, subject, ctx);
  return condition.logic === 'AND' ? condition.groups.every(match) : condition.groups.some(match);
}

function matchGroup(group: Group, subject: ConditionSubject, ctx: EvaluationContext): boolean {
  for (const filter of group.filters) if (!matchFilter(prepare(filter), subject, ctx)) return false;
  return group.conditions === undefined || evaluateCondition(group.conditions, subject, ctx);
}

/** A filter with its field classified and its value read once, however many contacts it meets. */
interface Prepared {
  readonly ref: FieldRef;
  readonly op: CanonicalOperator;
  readonly spanMs: number;
  readonly items?: readonly Scalar[];
  readonly text?: string;
  readonly lower?: string;
  readonly num?: number;
  readonly bool?: boolean;
  readonly date?: DateSpan;
}

const prepared = new WeakMap<Filter, Prepared>();

function prepare(filter: Filter): Prepared {
  const cached = prepared.get(filter);
  if (cached) return cached;
  const classified = classifyField(filter.field);
  if ('issue' in classified) throw new Error(`Unparsed condition: ${classified.issue.message}`);
  const ref = classified.ok;
  const v = filter.value;
  const scalar = v === undefined || Array.isArray(v) ? undefined : (v as Scalar);
  const p: Prepared = {
    ref,
    op: effectiveOperator(ref, filter.operator),
    spanMs: typeof v === 'number' && filter.unit ? v * UNIT_MS[filter.unit] : 0,
    ...(Array.isArray(v) ? { items: v } : {}),
    ...(scalar === undefined
      ? {}
      : {
          text: String(scalar),
          lower: String(scalar).toLowerCase(),
          num: toNumber(scalar),
          bool: toBoolean(scalar),
          date: typeof scalar === 'string' ? parseIsoDate(scalar, true) : undefined,
        }),
  };
  prepared.set(filter, p);
  return p;
}

function matchFilter(p: Prepared, subject: ConditionSubject, ctx: EvaluationContext): boolean {
  const { ref } = p;
  switch (ref.kind) {
    case 'event':
      return matchActivity(p, need(ctx, 'events')(ref.name), ctx);
    case 'email':
      return matchActivity(p, need(ctx, 'emails')(ref.activity), ctx);
    case 'segment':
      if (p.op === 'memberOfSegment') return need(ctx, 'memberOf')(ref.id);
      if (p.op === 'notMemberOfSegment') return !need(ctx, 'memberOf')(ref.id);
      return unexpected(p);
    case 'standard':
      return matchValue(p, subject[ref.field], ref.type, ctx.now.getTime());
    case 'data': {
      const value = getPath(subject.data, ref.path);
      const type = value === undefined ? undefined : dataType(ctx, ref.path, value);
      return matchValue(p, value, type, ctx.now.getTime());
    }
  }
}

function need<K extends keyof ContactFacts>(ctx: EvaluationContext, fact: K): ContactFacts[K] {
  const f = ctx[fact];
  if (!f) throw new Error(`This condition needs ctx.${fact} (see needsFacts)`);
  return f as ContactFacts[K];
}

const unexpected = (p: Prepared): never => {
  throw new Error(`Operator ${p.op} does not apply to ${p.ref.kind} fields`);
};

/** The type a scalar value compares as: the project's record for the path, else its own. */
function dataType(ctx: EvaluationContext, path: string, value: DataValue): FieldType {
  const recorded = ctx.fieldTypes.get(path);
  const own = inferType(value);
  // A scalar under a path recorded as an array (mixed types) compares as what it is.
  return recorded === undefined || (recorded === 'array') !== Array.isArray(value) ? own : recorded;
}

function matchActivity(p: Prepared, summary: ActivitySummary | undefined, ctx: EvaluationContext): boolean {
  const has = summary !== undefined && summary.count > 0;
  const since = ctx.now.getTime() - p.spanMs;
  const recent = () => has && toMs(summary.lastAt) >= since;
  switch (p.op) {
    case 'triggered':
      return has;
    case 'notTriggered':
      return !has;
    case 'triggeredWithin':
      return recent();
    case 'notTriggeredWithin':
      return !recent();
    case 'triggeredOlderThan':
      return has && toMs(summary.firstAt) < since;
    default:
      return unexpected(p);
  }
}

const toMs = (at: string | Date) => (at instanceof Date ? at.getTime() : Date.parse(at));

const isPlainObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

function matchValue(p: Prepared, value: unknown, type: FieldType | undefined, now: number): boolean {
  const present = value !== undefined && value !== null;
  switch (p.op) {
    case 'exists':
      return present;
    case 'notExists':
      return !present;
    case 'equals':
      return present && equals(p, value, type);
    case 'notEquals':
      return !(present && equals(p, value, type));
    case 'contains':
      return present && contains(p, value, type);
    case 'notContains':
      return !(present && contains(p, value, type));
    case 'greaterThan':
    case 'greaterThanOrEqual':
    case 'lessThan':
    case 'lessThanOrEqual':
      return present && ordered(p, value, type);
    case 'within': {
      const t = toInstant(value);
      return t !== undefined && t >= now - p.spanMs && t <= now;
    }
    case 'olderThan': {
      const t = toInstant(value);
      return t !== undefined && t < now - p.spanMs;
    }
    default:
      return unexpected(p);
  }
}

function equals(p: Prepared, value: unknown, type: FieldType | undefined): boolean {
  if (Array.isArray(value)) return p.items !== undefined && sameItems(value, p.items);
  if (isPlainObject(value) || p.items !== undefined) return false;
  switch (type) {
    case 'number': {
      const n = toNumber(value);
      return n !== undefined && n === p.num;
    }
    case 'boolean': {
      const b = toBoolean(value);
      return b !== undefined && b === p.bool;
    }
    case 'date': {
      const t = toInstant(value);
      return t !== undefined && p.date !== undefined && t >= p.date.start && t < p.date.end;
    }
    default:
      if (p.ref.kind === 'standard' && p.ref.field === 'email')
        return String(value).toLowerCase() === p.lower;
      return String(value) === p.text;
  }
}

/** Same elements, any order (each compared exactly), as many of each. */
function sameItems(value: readonly unknown[], items: readonly Scalar[]): boolean {
  if (value.length !== items.length) return false;
  const left = [...items];
  for (const v of value) {
    const i = left.indexOf(v as Scalar);
    if (i < 0) return false;
    left.splice(i, 1);
  }
  return true;
}

function contains(p: Prepared, value: unknown, type: FieldType | undefined): boolean {
  if (Array.isArray(value)) {
    return value.some(
      (item) => !isPlainObject(item) && !Array.isArray(item) && String(item).toLowerCase() === p.lower,
    );
  }
  if (isPlainObject(value) || type !== 'string' || p.lower === undefined) return false;
  return String(value).toLowerCase().includes(p.lower);
}

function ordered(p: Prepared, value: unknown, type: FieldType | undefined): boolean {
  if (Array.isArray(value) || isPlainObject(value)) return false;
  if (type === 'number') {
    const n = toNumber(value);
    if (n === undefined || p.num === undefined) return false;
    return compare(p.op, n, p.num, p.num);
  }
  if (type === 'date') {
    const t = toInstant(value);
    if (t === undefined || p.date === undefined) return false;
    // Against a day: after it is from the next day's start, before it is before its start.
    return compare(p.op, t, p.date.start, p.date.end - 1);
  }
  return false;
}

/** Compares `x` with a value spanning `[first, last]` (one point when they are equal). */
function compare(op: CanonicalOperator, x: number, first: number, last: number): boolean {
  switch (op) {
    case 'greaterThan':
      return x > last;
    case 'greaterThanOrEqual':
      return x >= first;
    case 'lessThan':
      return x < first;
    case 'lessThanOrEqual':
      return x <= last;
    default:
      return false;
  }
}

function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && NUMERIC_TEXT.test(v.trim())) return Number(v.trim());
  return undefined;
}

function toBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true') return true;
    if (s === 'false') return false;
  }
  return undefined;
}
