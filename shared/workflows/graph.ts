/**
 * The workflow graph: what enabling checks (docs/workflows.md: an entry step, every step
 * reachable from it, every SEND_EMAIL template existing, no cycle), the rules a new transition must
 * keep, and removing a step with or without splicing its neighbours together. Pure functions over
 * the definition; template existence is read by the caller and passed in.
 */
import { type FieldIssue, validationError } from '../errors';
import {
  BRANCHES,
  type Branch,
  type SendEmailConfig,
  type Step,
  type StepType,
  type Transition,
  type WaitForEventConfig,
  type Workflow,
} from './model';
import { eventNameProblem } from './schemas';

type Graph = Pick<Workflow, 'steps' | 'transitions' | 'entryStepId'>;

/** The branches transitions from a step of `type` take; `[null]` for the types without branches. */
export function branchesOf(type: StepType): readonly (Branch | null)[] {
  return (BRANCHES as Partial<Record<StepType, readonly Branch[]>>)[type] ?? [null];
}

const label = (step: Step) => (step.name ? `"${step.name}" (${step.id})` : `${step.type} step ${step.id}`);

/** Steps reachable from `from` (itself included) by following transitions. */
export function reachableFrom(graph: Pick<Workflow, 'transitions'>, from: string): Set<string> {
  const seen = new Set<string>([from]);
  const pending = [from];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    for (const t of graph.transitions) {
      if (t.fromStepId === id && !seen.has(t.toStepId)) {
        seen.add(t.toStepId);
        pending.push(t.toStepId);
      }
    }
  }
  return seen;
}

/** Whether adding a transition `from -> to` would close a cycle (a path `to -> ... -> from` exists). */
export function closesCycle(graph: Pick<Workflow, 'transitions'>, from: string, to: string): boolean {
  return from === to || reachableFrom(graph, to).has(from);
}

/** The steps on some cycle (each cycle reported by one of its steps), in step order. */
export function stepsOnCycles(graph: Pick<Workflow, 'steps' | 'transitions'>): string[] {
  // Iterative depth-first search with colours: a transition to a step still on the stack closes a cycle.
  const colour = new Map<string, 'grey' | 'black'>();
  const found = new Set<string>();
  const out = new Map<string, string[]>();
  for (const t of graph.transitions) out.set(t.fromStepId, [...(out.get(t.fromStepId) ?? []), t.toStepId]);
  for (const root of graph.steps) {
    if (colour.has(root.id)) continue;
    const stack: { id: string; next: number }[] = [{ id: root.id, next: 0 }];
    colour.set(root.id, 'grey');
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const targets = out.get(top.id) ?? [];
      if (top.next >= targets.length) {
        colour.set(top.id, 'black');
        stack.pop();
        continue;
      }
      const to = targets[top.next++]!;
      const c = colour.get(to);
      if (c === 'grey') found.add(to);
      else if (c === undefined) {
        colour.set(to, 'grey');
        stack.push({ id: to, next: 0 });
      }
    }
  }
  return graph.steps.filter((s) => found.has(s.id)).map((s) => s.id);
}

/** Template ids the workflow's SEND_EMAIL steps send, each once. */
export function sendEmailTemplateIds(graph: Pick<Workflow, 'steps'>): string[] {
  const ids = new Set<string>();
  for (const step of graph.steps) {
    if (step.type === 'SEND_EMAIL') ids.add((step.config as SendEmailConfig).templateId);
  }
  return [...ids];
}

const problem = (field: string, message: string, code: string, received?: unknown): FieldIssue => ({
  field,
  message,
  code,
  ...(received === undefined ? {} : { received }),
});

/**
 * Everything that keeps a workflow from running, each a field issue (an empty list when it can be
 * enabled): the trigger (an EVENT trigger names a usable event), an entry step that exists, every
 * step reachable from it, no cycle, transitions whose steps exist and whose branches fit the step
 * they leave (one per branch, none from EXIT), a `timeout` branch only after a wait that has a
 * timeout, and every SEND_EMAIL template among `existingTemplates`.
 */
export function enablingProblems(
  workflow: Pick<Workflow, 'triggerType' | 'triggerConfig'> & Graph,
  existingTemplates: ReadonlySet<string>,
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (workflow.triggerType === 'EVENT') {
    const name = workflow.triggerConfig.eventName;
    if (!name)
      issues.push(
        problem(
          'triggerConfig.eventName',
          'An EVENT-triggered workflow needs the name of the event that starts it (or triggerType MANUAL)',
          'missing_event_name',
        ),
      );
    else {
      const why = eventNameProblem(name);
      if (why)
        issues.push(problem('triggerConfig.eventName', `eventName ${why}`, 'invalid_event_name', name));
    }
  }

  const byId = new Map(workflow.steps.map((s) => [s.id, s]));
  const index = new Map(workflow.steps.map((s, i) => [s.id, i]));
  if (workflow.steps.length === 0) issues.push(problem('steps', 'The workflow has no steps', 'no_steps'));
  if (workflow.entryStepId === null) {
    if (workflow.steps.length > 0)
      issues.push(
        problem(
          'entryStepId',
          'No entry step: set entryStepId to the step executions start at',
          'missing_entry_step',
        ),
      );
  } else if (!byId.has(workflow.entryStepId)) {
    issues.push(
      problem('entryStepId', 'The entry step does not exist', 'unknown_step', workflow.entryStepId),
    );
  }

  const seenBranch = new Set<string>();
  workflow.transitions.forEach((t, i) => {
    const at = `transitions.${i}`;
    const from = byId.get(t.fromStepId);
    const to = byId.get(t.toStepId);
    if (!from)
      issues.push(
        problem(
          `${at}.fromStepId`,
          'The transition leaves a step that does not exist',
          'unknown_step',
          t.fromStepId,
        ),
      );
    if (!to)
      issues.push(
        problem(
          `${at}.toStepId`,
          'The transition leads to a step that does not exist',
          'unknown_step',
          t.toStepId,
        ),
      );
    if (!from) return;
    if (from.type === 'EXIT') {
      issues.push(
        problem(at, `${label(from)} is an EXIT step: it has no outgoing transitions`, 'invalid_transition'),
      );
      return;
    }
    if (!branchesOf(from.type).includes(t.branch))
      issues.push(problem(`${at}.branch`, branchMessage(from, t.branch), 'invalid_branch', t.branch));
    const key = `${t.fromStepId}#${t.branch}`;
    if (seenBranch.has(key))
      issues.push(
        problem(at, `${label(from)} has two transitions for the same branch`, 'duplicate_transition'),
      );
    seenBranch.add(key);
    if (
      from.type === 'WAIT_FOR_EVENT' &&
      t.branch === 'timeout' &&
      (from.config as WaitForEventConfig).timeout === undefined
    )
      issues.push(
        problem(
          at,
          `${label(from)} has a timeout branch but no timeout: set config.timeout or remove the transition`,
          'timeout_branch_without_timeout',
        ),
      );
  });

  const cycles = stepsOnCycles(workflow);
  for (const id of cycles) {
    const step = byId.get(id)!;
    issues.push(
      problem(
        `steps.${index.get(id)}`,
        `${label(step)} is on a cycle: a step cannot lead back to itself`,
        'cycle',
        id,
      ),
    );
  }

  if (workflow.entryStepId !== null && byId.has(workflow.entryStepId)) {
    const reachable = reachableFrom(workflow, workflow.entryStepId);
    workflow.steps.forEach((step, i) => {
      if (!reachable.has(step.id))
        issues.push(
          problem(
            `steps.${i}`,
            `${label(step)} cannot be reached from the entry step`,
            'unreachable_step',
            step.id,
          ),
        );
    });
  }

  workflow.steps.forEach((step, i) => {
    if (step.type !== 'SEND_EMAIL') return;
    const templateId = (step.config as SendEmailConfig).templateId;
    if (!existingTemplates.has(templateId))
      issues.push(
        problem(
          `steps.${i}.config.templateId`,
          `${label(step)} sends template ${templateId}, which does not exist`,
          'unknown_template',
          templateId,
        ),
      );
  });
  return issues;
}

function branchMessage(from: Step, branch: Branch | null): string {
  const allowed = branchesOf(from.type).filter((b): b is Branch => b !== null);
  if (allowed.length === 0) return `Transitions from a ${from.type} step take no branch`;
  return branch === null
    ? `Transitions from a ${from.type} step need a branch: ${allowed.join(' or ')}`
    : `Transitions from a ${from.type} step take branch ${allowed.join(' or ')}, not ${branch}`;
}

/**
 * Checks a new transition against the graph (field issues for a 422; a second transition for the
 * same step and branch is the caller's 409, see `duplicateOf`, and a cycle `cycleIssues`): both
 * steps exist, not a self-transition, none from an EXIT step, the branch fits the step it leaves.
 */
export function transitionIssues(graph: Graph, input: Omit<Transition, 'id'>): FieldIssue[] {
  const from = graph.steps.find((s) => s.id === input.fromStepId);
  const to = graph.steps.find((s) => s.id === input.toStepId);
  const issues: FieldIssue[] = [];
  if (!from)
    issues.push(
      problem('fromStepId', 'No step of this workflow has this id', 'unknown_step', input.fromStepId),
    );
  if (!to)
    issues.push(problem('toStepId', 'No step of this workflow has this id', 'unknown_step', input.toStepId));
  if (!from || !to) return issues;
  if (from.id === to.id)
    return [problem('toStepId', 'A step cannot lead to itself', 'self_transition', to.id)];
  if (from.type === 'EXIT')
    return [
      problem(
        'fromStepId',
        'An EXIT step ends the execution: it has no outgoing transitions',
        'invalid_transition',
        from.id,
      ),
    ];
  if (!branchesOf(from.type).includes(input.branch))
    issues.push(
      problem('branch', branchMessage(from, input.branch), 'invalid_branch', input.branch ?? undefined),
    );
  return issues;
}

/** 422 issue when a transition `from -> to` (both existing, checked by `transitionIssues`) would close a cycle. */
export function cycleIssues(graph: Graph, input: Omit<Transition, 'id' | 'branch'>): FieldIssue[] {
  if (!closesCycle(graph, input.fromStepId, input.toStepId)) return [];
  const from = graph.steps.find((s) => s.id === input.fromStepId)!;
  const to = graph.steps.find((s) => s.id === input.toStepId)!;
  return [
    problem(
      'toStepId',
      `${label(to)} already leads to ${label(from)}: this transition would close a cycle`,
      'cycle',
      to.id,
    ),
  ];
}

/** The transition that already leaves `fromStepId` on `branch`, if any. */
export function duplicateOf(graph: Pick<Workflow, 'transitions'>, fromStepId: string, branch: Branch | null) {
  return graph.transitions.find((t) => t.fromStepId === fromStepId && t.branch === branch);
}

/**
 * The graph without `stepId` and the transitions touching it. With `splice`, every transition
 * into the step is reconnected to the step's successor (a step with two outgoing transitions has
 * no single successor: 422), and an entry step's successor becomes the entry. Without, incoming
 * transitions go too, and a deleted entry step leaves no entry (null).
 */
export function removeStep(graph: Graph, stepId: string, splice: boolean): Graph {
  const outgoing = graph.transitions.filter((t) => t.fromStepId === stepId);
  if (splice && outgoing.length > 1) {
    const step = graph.steps.find((s) => s.id === stepId)!;
    throw validationError(
      [
        problem(
          'query.splice',
          `${label(step)} has ${outgoing.length} outgoing transitions (${outgoing.map((t) => t.branch).join(', ')}), so there is no single step to reconnect its incoming transitions to: delete a transition first, or delete without splice`,
          'cannot_splice',
        ),
      ],
      'The step cannot be spliced out',
    );
  }
  const successor = splice ? outgoing[0]?.toStepId : undefined;
  const transitions: Transition[] = [];
  for (const t of graph.transitions) {
    if (t.fromStepId === stepId) continue;
    if (t.toStepId !== stepId) transitions.push(t);
    // Kept under its id and branch, now leading past the deleted step. The graph has no cycle, so
    // the successor is never the transition's own step.
    else if (successor !== undefined && successor !== t.fromStepId)
      transitions.push({ ...t, toStepId: successor });
  }
  return {
    steps: graph.steps.filter((s) => s.id !== stepId),
    transitions,
    entryStepId: graph.entryStepId === stepId ? (successor ?? null) : graph.entryStepId,
  };
}
