/**
 * Parses a condition tree or throws one 422 VALIDATION_ERROR listing what is wrong, each issue at
 * its path from the root the caller names (`condition`, `audienceCondition`, `config.condition`).
 *
 * Three passes, each only if the one before found nothing: nesting depth (first, so that a tree
 * nested thousands deep never reaches the recursive schema), shape (`schema.ts`), then the
 * meaning of every filter (`filters.ts`).
 */
import { type FieldIssue, validationError } from '../errors';
import { toFieldIssues } from '../http/validation';
import { checkFilter } from './filters';
import {
  type Condition,
  type Filter,
  type Group,
  MAX_CONDITION_DEPTH,
  type RawCondition,
  rawConditionSchema,
} from './schema';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses a condition tree; throws 422 VALIDATION_ERROR naming the path of each problem. */
export function parseCondition(input: unknown, path = 'condition'): Condition {
  const depthIssue = checkDepth(input, path);
  if (depthIssue) throw validationError([depthIssue]);
  const shape = rawConditionSchema.safeParse(input, { reportInput: true });
  if (!shape.success) throw validationError(toFieldIssues(shape.error, path.split('.')));
  const issues: FieldIssue[] = [];
  const condition = checkCondition(shape.data, path, issues);
  if (issues.length > 0) throw validationError(issues);
  return condition;
}

/** The first condition nested deeper than `MAX_CONDITION_DEPTH` (the root is level 1), if any. */
function checkDepth(input: unknown, path: string): FieldIssue | undefined {
  const pending: [unknown, string, number][] = [[input, path, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, at, depth] = next;
    if (!isObject(node)) continue;
    if (depth > MAX_CONDITION_DEPTH) {
      return {
        field: at,
        message: `Conditions nest at most ${MAX_CONDITION_DEPTH} levels deep`,
        code: 'too_big',
        received: depth,
      };
    }
    if (!Array.isArray(node.groups)) continue;
    node.groups.forEach((group, i) => {
      if (isObject(group) && group.conditions !== undefined) {
        pending.push([group.conditions, `${at}.groups.${i}.conditions`, depth + 1]);
      }
    });
  }
  return undefined;
}

function checkCondition(raw: RawCondition, at: string, issues: FieldIssue[]): Condition {
  const groups = raw.groups.map((group, g): Group => {
    const groupAt = `${at}.groups.${g}`;
    const filters: Filter[] = [];
    group.filters.forEach((f, i) => {
      const checked = checkFilter(f, `${groupAt}.filters.${i}`);
      issues.push(...checked.issues);
      if (checked.filter) filters.push(checked.filter);
    });
    if (group.conditions === undefined) return { filters };
    return { filters, conditions: checkCondition(group.conditions, `${groupAt}.conditions`, issues) };
  });
  return { logic: raw.logic, groups };
}
