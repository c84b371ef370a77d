/**
 * What a filter means: the kind of field it names, the operators that fit that kind, and the
 * value and unit each operator needs. Problems are field issues at the filter's path
 * (`condition.groups.0.filters.1.operator`), turned into one 422 by `parse.ts`.
 */
import type { FieldType } from '../contacts/data';
import { dataPathIssues } from '../contacts/data';
import type { FieldIssue } from '../errors';
import { isReservedEventName, MAX_EVENT_NAME_LENGTH, reservedEventIssue } from '../events/names';
import { MAX_SPAN, parseIsoDate } from './dates';
import {
  ACTIVITY_OPERATORS,
  type CanonicalOperator,
  canonicalOperator,
  EMAIL_ACTIVITIES,
  type EmailActivity,
  type Filter,
  type FilterValue,
  MEMBERSHIP_OPERATORS,
  type RawFilter,
  type Scalar,
  STANDARD_FIELD_TYPES,
  type StandardField,
  TIME_UNITS,
  TIMED_OPERATORS,
  type TimeUnit,
  VALUE_OPERATORS,
  VALUELESS_OPERATORS,
} from './schema';

/** A field name, classified. */
export type FieldRef =
  | { readonly kind: 'standard'; readonly field: StandardField; readonly type: FieldType }
  /** `path` without the `data.` prefix, as field type records name it. */
  | { readonly kind: 'data'; readonly path: string }
  | { readonly kind: 'event'; readonly name: string }
  | { readonly kind: 'email'; readonly activity: EmailActivity }
  | { readonly kind: 'segment'; readonly id: string };

export type FieldKind = FieldRef['kind'];

/** The longest array an `equals` value may be. */
export const MAX_VALUE_ITEMS = 100;
const SEGMENT_ID = /^[A-Za-z0-9_-]{1,100}$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it rejects
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** A number written as text (`42`, `-3.5`, `1e3`), as a form might send it. */
export const NUMERIC_TEXT = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

type Outcome<T> = { readonly ok: T } | { readonly issue: Omit<FieldIssue, 'field'> };

const isEmailActivity = (s: string): s is EmailActivity =>
  (EMAIL_ACTIVITIES as readonly string[]).includes(s);

/** Classifies a field name, or says why it names nothing a condition can filter on. */
export function classifyField(field: string): Outcome<FieldRef> {
  if (Object.hasOwn(STANDARD_FIELD_TYPES, field)) {
    const name = field as StandardField;
    return { ok: { kind: 'standard', field: name, type: STANDARD_FIELD_TYPES[name] } };
  }
  const dot = field.indexOf('.');
  const prefix = dot < 0 ? field : field.slice(0, dot);
  const rest = dot < 0 ? '' : field.slice(dot + 1);
  switch (dot < 0 ? undefined : prefix) {
    case 'data': {
      if (rest.split('.').some((part) => part.length === 0)) {
        return bad('invalid_value', `"${field}" is not a valid data path (data.<key>[.<key>...])`, field);
      }
      const forbidden = dataPathIssues(rest, '', field)[0];
      if (forbidden) return { issue: { message: forbidden.message, code: forbidden.code, received: field } };
      return { ok: { kind: 'data', path: rest } };
    }
    case 'event': {
      if (
        rest.length === 0 ||
        rest.length > MAX_EVENT_NAME_LENGTH ||
        CONTROL.test(rest) ||
        rest !== rest.trim()
      ) {
        return bad(
          'invalid_value',
          `"${field}" does not name an event: event.<name>, the name 1 to ${MAX_EVENT_NAME_LENGTH} characters as tracked`,
          field,
        );
      }
      if (rest.toLowerCase().startsWith('email.')) {
        return bad(
          'reserved_event',
          `"${field}" is not a tracked event: filter on email activity with email.<${EMAIL_ACTIVITIES.join('|')}>`,
          field,
        );
      }
      if (isReservedEventName(rest)) {
        const { message, code } = reservedEventIssue('', rest);
        return { issue: { message, code, received: field } };
      }
      return { ok: { kind: 'event', name: rest } };
    }
    case 'email':
      if (isEmailActivity(rest)) return { ok: { kind: 'email', activity: rest } };
      return bad(
        'invalid_value',
        `Unknown email activity "${rest}"; expected email.<${EMAIL_ACTIVITIES.join('|')}>`,
        field,
      );
    case 'segment':
      if (SEGMENT_ID.test(rest)) return { ok: { kind: 'segment', id: rest } };
      return bad('invalid_value', `"${field}" does not name a segment: segment.<id>`, field);
    default:
      return bad(
        'invalid_value',
        `Unknown field "${field}": expected email, subscribed, createdAt, updatedAt, data.<path>, event.<name>, email.<activity> or segment.<id> (custom data fields use the data. prefix)`,
        field,
      );
  }
}

const bad = (code: string, message: string, received: unknown): Outcome<never> => ({
  issue: { code, message, received },
});

const STANDARD_OPERATORS: Readonly<Record<FieldType, readonly CanonicalOperator[]>> = {
  string: ['equals', 'notEquals', 'contains', 'notContains', 'exists', 'notExists'],
  boolean: ['equals', 'notEquals', 'exists', 'notExists'],
  // Every value operator but the text ones.
  date: VALUE_OPERATORS.filter((op) => op !== 'contains' && op !== 'notContains'),
  number: VALUE_OPERATORS,
  array: VALUE_OPERATORS,
};

/**
 * The operators a field accepts, canonical spellings (aliases go with their operator). On
 * `event.*` and `email.*`, `exists` and `notExists` are accepted as `triggered` and `notTriggered`.
 */
export function operatorsFor(ref: FieldRef): readonly CanonicalOperator[] {
  switch (ref.kind) {
    case 'standard':
      return STANDARD_OPERATORS[ref.type];
    case 'data':
      return VALUE_OPERATORS;
    case 'event':
    case 'email':
      return [...ACTIVITY_OPERATORS, 'exists', 'notExists'];
    case 'segment':
      return MEMBERSHIP_OPERATORS;
  }
}

/** The operator a filter is evaluated with: aliases resolved, `exists` on activity as `triggered`. */
export function effectiveOperator(ref: FieldRef, operator: CanonicalOperator | Filter['operator']) {
  const op = canonicalOperator(operator);
  if (ref.kind === 'event' || ref.kind === 'email') {
    if (op === 'exists') return 'triggered';
    if (op === 'notExists') return 'notTriggered';
  }
  return op;
}

const isNone = (v: unknown) => v === undefined || v === null || v === '';
const isScalar = (v: unknown): v is Scalar =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return typeof v;
}

const shown = (v: unknown): unknown =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))
    ? v
    : typeName(v);

/**
 * Checks one filter whose shape `rawFilterSchema` accepted. `at` is the filter's path; every
 * issue names the part at fault (`<at>.field`, `.operator`, `.value` or `.unit`).
 */
export function checkFilter(raw: RawFilter, at: string): { filter?: Filter; issues: FieldIssue[] } {
  const field = classifyField(raw.field);
  if ('issue' in field) return { issues: [{ field: `${at}.field`, ...field.issue }] };
  const ref = field.ok;
  const op = canonicalOperator(raw.operator);
  const allowed = operatorsFor(ref);
  if (!allowed.includes(op)) {
    return {
      issues: [
        {
          field: `${at}.operator`,
          message: `Operator ${raw.operator} cannot be used on ${raw.field}; expected one of ${allowed.join(', ')}`,
          code: 'invalid_value',
          received: raw.operator,
        },
      ],
    };
  }
  const issues: FieldIssue[] = [];
  const timed = TIMED_OPERATORS.has(op);
  let unit: TimeUnit | undefined;
  if (timed) {
    if (raw.unit === undefined || raw.unit === null) {
      issues.push({
        field: `${at}.unit`,
        message: `${raw.operator} needs a unit: ${TIME_UNITS.join(', ')}`,
        code: 'invalid_type',
        received: typeName(raw.unit),
      });
    } else if (typeof raw.unit !== 'string' || !(TIME_UNITS as readonly string[]).includes(raw.unit)) {
      issues.push({
        field: `${at}.unit`,
        message: `unit must be one of ${TIME_UNITS.join(', ')}`,
        code: 'invalid_value',
        received: shown(raw.unit),
      });
    } else {
      unit = raw.unit as TimeUnit;
    }
  } else if (!isNone(raw.unit)) {
    issues.push({
      field: `${at}.unit`,
      message: `unit is only used with ${[...TIMED_OPERATORS].join(', ')}`,
      code: 'invalid_type',
      received: shown(raw.unit),
    });
  }
  const value = checkValue(ref, op, raw, unit);
  if ('issue' in value) return { issues: [...issues, { field: `${at}.value`, ...value.issue }] };
  if (issues.length > 0) return { issues };
  const filter: Filter = {
    field: raw.field,
    operator: raw.operator,
    ...(value.ok === undefined ? {} : { value: value.ok }),
    ...(unit === undefined ? {} : { unit }),
  };
  return { filter, issues };
}

function checkValue(
  ref: FieldRef,
  op: CanonicalOperator,
  raw: RawFilter,
  unit: TimeUnit | undefined,
): Outcome<FilterValue | undefined> {
  const v = raw.value;
  const name = raw.operator;
  if (VALUELESS_OPERATORS.has(op)) {
    return isNone(v) ? { ok: undefined } : bad('invalid_type', `${name} takes no value`, shown(v));
  }
  if (v === undefined || v === null) return bad('invalid_type', `${name} needs a value`, typeName(v));
  if (TIMED_OPERATORS.has(op)) {
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      return bad('invalid_type', `${name} needs a number of ${unit ?? 'units'} as its value`, shown(v));
    }
    if (v <= 0) return bad('too_small', 'value must be greater than 0', v);
    if (unit && v > MAX_SPAN[unit])
      return bad('too_big', `value must be at most ${MAX_SPAN[unit]} ${unit}`, v);
    return { ok: v };
  }
  const type = ref.kind === 'standard' ? ref.type : undefined;
  switch (op) {
    case 'equals':
    case 'notEquals':
      if (type === 'string') return typeof v === 'string' ? { ok: v } : expected(name, 'a string', v);
      if (type === 'boolean') return typeof v === 'boolean' ? { ok: v } : expected(name, 'true or false', v);
      if (type === 'date') return dateValue(name, v);
      if (isScalar(v)) return { ok: v };
      if (Array.isArray(v)) {
        if (v.length === 0 || v.length > MAX_VALUE_ITEMS || !v.every(isScalar)) {
          return bad(
            'invalid_type',
            `An array value of ${name} holds 1 to ${MAX_VALUE_ITEMS} strings, numbers or booleans`,
            'array',
          );
        }
        return { ok: [...v] };
      }
      return expected(name, 'a string, number, boolean or array of them', v);
    case 'contains':
    case 'notContains':
      if (type === 'string') {
        return typeof v === 'string' && v.length > 0 ? { ok: v } : expected(name, 'a non-empty string', v);
      }
      if (isScalar(v) && v !== '') return { ok: v };
      return expected(name, 'a non-empty string, a number or a boolean', v);
    default:
      // The ordered comparisons.
      if (type === 'date') return dateValue(name, v);
      if (typeof v === 'number' && Number.isFinite(v)) return { ok: v };
      if (typeof v === 'string' && (NUMERIC_TEXT.test(v.trim()) || parseIsoDate(v, true))) return { ok: v };
      if (typeof v === 'string') {
        return bad(
          'invalid_string',
          `${name} compares numbers and dates: expected a number or an ISO 8601 date (YYYY-MM-DD or a date-time with a zone such as 2024-03-01T10:00:00Z)`,
          v,
        );
      }
      return expected(name, 'a number or an ISO 8601 date', v);
  }
}

function dateValue(name: string, v: unknown): Outcome<FilterValue> {
  if (typeof v === 'string' && parseIsoDate(v, true)) return { ok: v };
  if (typeof v !== 'string') return expected(name, 'an ISO 8601 date', v);
  return bad(
    'invalid_string',
    `${name} needs an ISO 8601 date: YYYY-MM-DD or a date-time with a zone such as 2024-03-01T10:00:00Z`,
    v,
  );
}

const expected = (name: string, what: string, v: unknown) =>
  bad('invalid_type', `${name} needs ${what} as its value`, shown(v));
