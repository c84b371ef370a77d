/**
 * Condition trees, one engine: parsed (`parseCondition`, 422 naming each problem's path) and
 * evaluated (`evaluateCondition`) the same way for segments, campaign audiences and workflow
 * CONDITION steps.
 */

export type { DateSpan } from './dates';
export type {
  ActivitySummary,
  ConditionSubject,
  ContactFacts,
  EvaluationContext,
} from './evaluate';
export { evaluateCondition } from './evaluate';
export type { FieldKind, FieldRef } from './filters';
export { classifyField, operatorsFor } from './filters';
export type { NeededFacts } from './inspect';
export {
  conditionFilters,
  needsFacts,
  referencedEmailActivities,
  referencedEvents,
  referencedFields,
  referencedSegments,
  usesRelativeTime,
} from './inspect';
export { parseCondition } from './parse';
export type {
  CanonicalOperator,
  Condition,
  EmailActivity,
  Filter,
  FilterValue,
  Group,
  Logic,
  Operator,
  TimeUnit,
} from './schema';
export {
  canonicalOperator,
  EMAIL_ACTIVITIES,
  LOGICS,
  MAX_CONDITION_DEPTH,
  OPERATORS,
  TIME_UNITS,
} from './schema';
