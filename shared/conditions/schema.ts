/**
 * The condition tree of segments, campaign audiences and workflow CONDITION steps
 * (docs/conditions.md): its vocabulary, its types and the zod schema
 * of its shape. The shape is checked here; what a filter means (its field, whether the operator
 * fits it, the value and unit it needs) is checked by `filters.ts`, and `parse.ts` joins the two.
 *
 *   condition = {logic: 'AND' | 'OR', groups: [group, ...]}
 *   group     = {filters: [filter, ...], conditions?: condition}
 *   filter    = {field, operator, value?, unit?}
 */
import * as z from 'zod/mini';

/** How a condition combines its groups. Inside a group, filters and `conditions` are always ANDed. */
export const LOGICS = ['AND', 'OR'] as const;
export type Logic = (typeof LOGICS)[number];

/** Deepest nesting of conditions: the top-level condition is level 1. */
export const MAX_CONDITION_DEPTH = 5;
/** Bounds that keep a definition (and the work of evaluating it per contact) small. */
export const MAX_GROUPS = 100;
export const MAX_FILTERS_PER_GROUP = 100;
export const MAX_FIELD_LENGTH = 300;

export const TIME_UNITS = ['minutes', 'hours', 'days'] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];

/** Email activity of a contact, filtered on as `email.<kind>`. */
export const EMAIL_ACTIVITIES = ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained'] as const;
export type EmailActivity = (typeof EMAIL_ACTIVITIES)[number];

/**
 * The contact's own fields and their types. The same as `STANDARD_FIELDS` of
 * `shared/contacts/fields.ts` (a unit test keeps them equal), repeated so that evaluating a
 * condition does not load the contacts service and its store.
 */
export const STANDARD_FIELD_TYPES = {
  email: 'string',
  subscribed: 'boolean',
  createdAt: 'date',
  updatedAt: 'date',
} as const;
export type StandardField = keyof typeof STANDARD_FIELD_TYPES;

/** Operators on a contact field (`email`, `subscribed`, `createdAt`, `updatedAt`, `data.*`). */
export const VALUE_OPERATORS = [
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
] as const;

/** Operators on an activity field (`event.<name>`, `email.<kind>`). */
export const ACTIVITY_OPERATORS = [
  'triggered',
  'notTriggered',
  'triggeredWithin',
  'triggeredOlderThan',
  'notTriggeredWithin',
] as const;

/** Operators on a membership field (`segment.<id>`). */
export const MEMBERSHIP_OPERATORS = ['memberOfSegment', 'notMemberOfSegment'] as const;

/** Shorter spellings, kept as sent in a parsed condition and resolved when it is evaluated. */
export const OPERATOR_ALIASES = {
  gt: 'greaterThan',
  gte: 'greaterThanOrEqual',
  lt: 'lessThan',
  lte: 'lessThanOrEqual',
} as const;

export const OPERATORS = [
  ...VALUE_OPERATORS,
  ...ACTIVITY_OPERATORS,
  ...MEMBERSHIP_OPERATORS,
  ...(Object.keys(OPERATOR_ALIASES) as (keyof typeof OPERATOR_ALIASES)[]),
] as const;
export type Operator = (typeof OPERATORS)[number];
export type CanonicalOperator = Exclude<Operator, keyof typeof OPERATOR_ALIASES>;

/** Operators that take a number `value` and a `unit` (a span of time back from now). */
export const TIMED_OPERATORS: ReadonlySet<Operator> = new Set([
  'within',
  'olderThan',
  'triggeredWithin',
  'triggeredOlderThan',
  'notTriggeredWithin',
]);

/** Operators that take no `value` (null or an empty string are accepted as none). */
export const VALUELESS_OPERATORS: ReadonlySet<Operator> = new Set([
  'exists',
  'notExists',
  'triggered',
  'notTriggered',
  'memberOfSegment',
  'notMemberOfSegment',
]);

/** `gt` -> `greaterThan`; other operators are their own canonical spelling. */
export function canonicalOperator(operator: Operator): CanonicalOperator {
  return Object.hasOwn(OPERATOR_ALIASES, operator)
    ? OPERATOR_ALIASES[operator as keyof typeof OPERATOR_ALIASES]
    : (operator as CanonicalOperator);
}

export type Scalar = string | number | boolean;
export type FilterValue = Scalar | readonly Scalar[];

/** A checked filter: `operator` as sent (an alias stays an alias), `value` and `unit` only when used. */
export interface Filter {
  readonly field: string;
  readonly operator: Operator;
  readonly value?: FilterValue;
  readonly unit?: TimeUnit;
}

export interface Group {
  readonly filters: readonly Filter[];
  readonly conditions?: Condition;
}

export interface Condition {
  readonly logic: Logic;
  readonly groups: readonly Group[];
}

/** A filter's shape before its meaning is checked (`filters.ts`). Unknown keys are dropped. */
export const rawFilterSchema = z.object({
  field: z
    .string({ error: (iss) => (iss.input === undefined ? 'field is required' : 'field must be a string') })
    .check(
      z.minLength(1, { error: 'field must not be empty' }),
      z.maxLength(MAX_FIELD_LENGTH, { error: `field must be at most ${MAX_FIELD_LENGTH} characters` }),
    ),
  operator: z.enum(OPERATORS, {
    error: (iss) =>
      iss.input === undefined
        ? 'operator is required'
        : `Unknown operator; expected one of ${OPERATORS.join(', ')}`,
  }),
  value: z.optional(z.unknown()),
  unit: z.optional(z.unknown()),
});
export type RawFilter = z.infer<typeof rawFilterSchema>;

export interface RawGroup {
  readonly filters: readonly RawFilter[];
  readonly conditions?: RawCondition | undefined;
}

export interface RawCondition {
  readonly logic: Logic;
  readonly groups: readonly RawGroup[];
}

/**
 * The shape of a condition tree (nesting depth is checked before it, by `parse.ts`). Its groups
 * are read through a getter, since a group nests a condition in turn: the group's schema cannot
 * hold the getter, as zod/mini's `.check()` resolves the shape it copies.
 */
export const rawConditionSchema: z.ZodMiniType<RawCondition> = z.object({
  logic: z.enum(LOGICS, {
    error: (iss) => (iss.input === undefined ? 'logic is required' : 'logic must be AND or OR'),
  }),
  get groups() {
    return z
      .array(rawGroupSchema, { error: 'groups must be an array of groups' })
      .check(
        z.minLength(1, { error: 'A condition needs at least one group' }),
        z.maxLength(MAX_GROUPS, { error: `A condition holds at most ${MAX_GROUPS} groups` }),
      );
  },
});

// Named in the API reference (shared/openapi), where the tree refers to itself by this name.
z.globalRegistry.add(rawConditionSchema, { id: 'Condition' });

export const rawGroupSchema = z
  .object({
    filters: z.array(rawFilterSchema, { error: 'filters must be an array of filters' }).check(
      z.maxLength(MAX_FILTERS_PER_GROUP, {
        error: `A group holds at most ${MAX_FILTERS_PER_GROUP} filters`,
      }),
    ),
    conditions: z.optional(rawConditionSchema),
  })
  .check(
    z.superRefine((group, ctx) => {
      // An empty group would match everyone (AND of nothing): refused rather than guessed at.
      if (group.filters.length === 0 && group.conditions === undefined) {
        ctx.addIssue({
          code: 'too_small',
          origin: 'array',
          minimum: 1,
          inclusive: true,
          path: ['filters'],
          input: group.filters,
          message: 'A group needs at least one filter or a nested condition',
        });
      }
    }),
  );
