/**
 * What a parsed condition refers to, without evaluating it: for field and event usage reports,
 * for loading only the facts a condition needs, and for knowing which segments drift with time.
 */
import { classifyField, effectiveOperator, type FieldRef } from './filters';
import { type Condition, type EmailActivity, type Filter, TIMED_OPERATORS } from './schema';

/** Every filter of the tree, depth first, in document order. */
export function* conditionFilters(condition: Condition): Generator<Filter> {
  for (const group of condition.groups) {
    yield* group.filters;
    if (group.conditions) yield* conditionFilters(group.conditions);
  }
}

function* refs(condition: Condition): Generator<[Filter, FieldRef]> {
  for (const filter of conditionFilters(condition)) {
    const ref = classifyField(filter.field);
    if ('ok' in ref) yield [filter, ref.ok];
  }
}

const unique = <T>(items: Iterable<T>): T[] => [...new Set(items)];

/**
 * The contact fields the condition filters on, as written (`email`, `createdAt`, `data.plan`),
 * each once. Event, email activity and segment fields are not contact fields: see
 * `referencedEvents`, `referencedEmailActivities` and `referencedSegments`.
 */
export function referencedFields(condition: Condition): string[] {
  return unique(
    [...refs(condition)].filter(([, r]) => r.kind === 'standard' || r.kind === 'data').map(([f]) => f.field),
  );
}

/** The event names of `event.<name>` filters, each once. */
export function referencedEvents(condition: Condition): string[] {
  return unique([...refs(condition)].flatMap(([, r]) => (r.kind === 'event' ? [r.name] : [])));
}

/** The email activities of `email.<activity>` filters, each once. */
export function referencedEmailActivities(condition: Condition): EmailActivity[] {
  return unique([...refs(condition)].flatMap(([, r]) => (r.kind === 'email' ? [r.activity] : [])));
}

/** The segment ids of `segment.<id>` filters, each once. */
export function referencedSegments(condition: Condition): string[] {
  return unique([...refs(condition)].flatMap(([, r]) => (r.kind === 'segment' ? [r.id] : [])));
}

/**
 * True when a filter is relative to now (`within`, `olderThan`, `triggeredWithin`,
 * `triggeredOlderThan`, `notTriggeredWithin`): who matches changes as time passes, with no write
 * to any contact, so such a segment needs evaluating again on a schedule.
 */
export function usesRelativeTime(condition: Condition): boolean {
  for (const [filter, ref] of refs(condition)) {
    if (TIMED_OPERATORS.has(effectiveOperator(ref, filter.operator))) return true;
  }
  return false;
}

/** The kinds of facts (`EvaluationContext`) evaluating the condition asks for. */
export interface NeededFacts {
  readonly events: boolean;
  readonly emails: boolean;
  readonly segments: boolean;
}

export function needsFacts(condition: Condition): NeededFacts {
  const kinds = new Set([...refs(condition)].map(([, r]) => r.kind));
  return { events: kinds.has('event'), emails: kinds.has('email'), segments: kinds.has('segment') };
}
