import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import {
  branchesOf,
  closesCycle,
  cycleIssues,
  duplicateOf,
  enablingProblems,
  reachableFrom,
  removeStep,
  sendEmailTemplateIds,
  stepsOnCycles,
  transitionIssues,
} from '../../../shared/workflows/graph';
import type { Branch, Step, StepType, Transition, Workflow } from '../../../shared/workflows/model';

const CONFIGS: Record<StepType, Step['config']> = {
  SEND_EMAIL: { templateId: 'tpl', recipient: { type: 'CONTACT' } },
  DELAY: { amount: 1, unit: 'days' },
  WAIT_FOR_EVENT: { eventName: 'purchase', timeout: 60 },
  CONDITION: { condition: { logic: 'AND', groups: [] } },
  WEBHOOK: { url: 'https://x.example', method: 'POST', headers: {} },
  UPDATE_CONTACT: { data: { plan: 'pro' } },
  EXIT: {},
};

const step = (id: string, type: StepType = 'DELAY', config: Step['config'] = CONFIGS[type]): Step => ({
  id,
  type,
  name: null,
  config,
});
const t = (
  fromStepId: string,
  toStepId: string,
  branch: Branch | null = null,
  id = `${fromStepId}-${toStepId}`,
): Transition => ({
  id,
  fromStepId,
  toStepId,
  branch,
});

type Def = Pick<Workflow, 'triggerType' | 'triggerConfig' | 'steps' | 'transitions' | 'entryStepId'>;
const workflow = (steps: Step[], transitions: Transition[], extra: Partial<Def> = {}): Def => ({
  triggerType: 'EVENT',
  triggerConfig: { eventName: 'signup' },
  steps,
  transitions,
  entryStepId: steps[0]?.id ?? null,
  ...extra,
});

const codes = (issues: { field: string; code: string }[]) => issues.map((i) => `${i.field} ${i.code}`);

describe('branchesOf', () => {
  it('gives CONDITION yes/no, WAIT_FOR_EVENT event/timeout and the others none', () => {
    expect(branchesOf('CONDITION')).toEqual(['yes', 'no']);
    expect(branchesOf('WAIT_FOR_EVENT')).toEqual(['event', 'timeout']);
    for (const type of ['SEND_EMAIL', 'DELAY', 'WEBHOOK', 'UPDATE_CONTACT', 'EXIT'] as const)
      expect(branchesOf(type)).toEqual([null]);
  });
});

describe('reachability and cycles', () => {
  const g = workflow([step('a'), step('b'), step('c'), step('d')], [t('a', 'b'), t('b', 'c')]);

  it('follows transitions from a step', () => {
    expect([...reachableFrom(g, 'a')].sort()).toEqual(['a', 'b', 'c']);
    expect([...reachableFrom(g, 'd')]).toEqual(['d']);
  });

  it('knows when a new transition would close a cycle', () => {
    expect(closesCycle(g, 'c', 'a')).toBe(true);
    expect(closesCycle(g, 'b', 'b')).toBe(true);
    expect(closesCycle(g, 'a', 'c')).toBe(false);
    expect(closesCycle(g, 'd', 'a')).toBe(false);
    expect(codes(cycleIssues(g, { fromStepId: 'c', toStepId: 'a' }))).toEqual(['toStepId cycle']);
    expect(cycleIssues(g, { fromStepId: 'a', toStepId: 'd' })).toEqual([]);
  });

  it('finds the steps on cycles, each cycle once', () => {
    expect(stepsOnCycles(g)).toEqual([]);
    const cyclic = workflow(
      [step('a'), step('b'), step('c'), step('d'), step('e')],
      [t('a', 'b'), t('b', 'c'), t('c', 'a'), t('d', 'd'), t('a', 'e')],
    );
    expect(stepsOnCycles(cyclic)).toEqual(['a', 'd']);
  });

  it('handles long chains without recursion', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `s${i}`);
    const chain = workflow(
      ids.map((id) => step(id)),
      ids.slice(1).map((id, i) => t(ids[i]!, id)),
    );
    expect(reachableFrom(chain, 's0').size).toBe(5000);
    expect(stepsOnCycles(chain)).toEqual([]);
  });
});

describe('enablingProblems', () => {
  const templates = new Set(['tpl']);

  it('passes a valid graph', () => {
    const g = workflow(
      [
        step('send', 'SEND_EMAIL'),
        step('cond', 'CONDITION'),
        step('wait', 'WAIT_FOR_EVENT'),
        step('end', 'EXIT'),
      ],
      [t('send', 'cond'), t('cond', 'wait', 'yes'), t('cond', 'end', 'no'), t('wait', 'end', 'timeout')],
    );
    expect(enablingProblems(g, templates)).toEqual([]);
    expect(
      enablingProblems({ ...g, triggerType: 'MANUAL', triggerConfig: { eventName: null } }, templates),
    ).toEqual([]);
  });

  it('lists every problem at once', () => {
    const g = workflow(
      [
        step('a', 'SEND_EMAIL', { templateId: 'gone', recipient: { type: 'CONTACT' } }),
        step('b'),
        step('c'),
        step('orphan'),
        step('end', 'EXIT'),
        step('wait', 'WAIT_FOR_EVENT', { eventName: 'purchase' }),
      ],
      [
        t('a', 'b'),
        t('b', 'c'),
        t('c', 'b'),
        t('end', 'a'),
        t('a', 'wait', 'yes', 'bad-branch'),
        t('wait', 'end', 'timeout'),
        t('c', 'missing'),
      ],
      { triggerConfig: { eventName: null } },
    );
    expect(codes(enablingProblems(g, templates))).toEqual([
      'triggerConfig.eventName missing_event_name',
      'transitions.3 invalid_transition',
      'transitions.4.branch invalid_branch',
      'transitions.5 timeout_branch_without_timeout',
      'transitions.6.toStepId unknown_step',
      'transitions.6 duplicate_transition',
      // a -> wait -> end -> a, and b -> c -> b.
      'steps.0 cycle',
      'steps.1 cycle',
      'steps.3 unreachable_step',
      'steps.0.config.templateId unknown_template',
    ]);
  });

  it('needs steps, an existing entry step and a usable event name', () => {
    expect(codes(enablingProblems(workflow([], []), templates))).toEqual(['steps no_steps']);
    expect(codes(enablingProblems(workflow([step('a')], [], { entryStepId: null }), templates))).toEqual([
      'entryStepId missing_entry_step',
    ]);
    expect(codes(enablingProblems(workflow([step('a')], [], { entryStepId: 'zzz' }), templates))).toEqual([
      'entryStepId unknown_step',
    ]);
    expect(
      codes(
        enablingProblems(
          workflow([step('a')], [], { triggerConfig: { eventName: 'Email.Sent' } }),
          templates,
        ),
      ),
    ).toEqual(['triggerConfig.eventName invalid_event_name']);
  });
});

describe('transitionIssues and duplicateOf', () => {
  const g = workflow(
    [step('a'), step('cond', 'CONDITION'), step('wait', 'WAIT_FOR_EVENT'), step('end', 'EXIT')],
    [t('a', 'cond'), t('cond', 'end', 'yes')],
  );
  const check = (fromStepId: string, toStepId: string, branch: Branch | null = null) =>
    codes(transitionIssues(g, { fromStepId, toStepId, branch }));

  it('accepts transitions that fit', () => {
    expect(check('cond', 'wait', 'no')).toEqual([]);
    expect(check('wait', 'end', 'event')).toEqual([]);
    expect(check('wait', 'end', 'timeout')).toEqual([]);
  });

  it('refuses unknown steps, self-transitions, EXIT steps and wrong branches', () => {
    expect(check('x', 'y')).toEqual(['fromStepId unknown_step', 'toStepId unknown_step']);
    expect(check('a', 'a')).toEqual(['toStepId self_transition']);
    expect(check('end', 'a')).toEqual(['fromStepId invalid_transition']);
    expect(check('cond', 'wait')).toEqual(['branch invalid_branch']);
    expect(check('cond', 'wait', 'event')).toEqual(['branch invalid_branch']);
    expect(check('wait', 'end')).toEqual(['branch invalid_branch']);
    expect(check('a', 'end', 'yes')).toEqual(['branch invalid_branch']);
  });

  it('finds the transition already on a step and branch', () => {
    expect(duplicateOf(g, 'cond', 'yes')?.id).toBe('cond-end');
    expect(duplicateOf(g, 'cond', 'no')).toBeUndefined();
    expect(duplicateOf(g, 'a', null)?.id).toBe('a-cond');
  });
});

describe('removeStep', () => {
  const chain = workflow([step('a'), step('b'), step('c')], [t('a', 'b'), t('b', 'c')]);

  it('without splice, drops the step and the transitions touching it', () => {
    expect(removeStep(chain, 'b', false)).toEqual({
      steps: [step('a'), step('c')],
      transitions: [],
      entryStepId: 'a',
    });
    expect(removeStep(chain, 'a', false).entryStepId).toBeNull();
  });

  it('with splice, reconnects incoming transitions to the successor, keeping their ids and branches', () => {
    const g = workflow(
      [step('cond', 'CONDITION'), step('b'), step('c'), step('d')],
      [t('cond', 'b', 'yes', 'y'), t('cond', 'd', 'no', 'n'), t('b', 'c')],
    );
    expect(removeStep(g, 'b', true).transitions).toEqual([
      t('cond', 'c', 'yes', 'y'),
      t('cond', 'd', 'no', 'n'),
    ]);
    expect(removeStep(chain, 'a', true)).toMatchObject({ entryStepId: 'b', transitions: [t('b', 'c')] });
    // A step with no successor: its incoming transitions go.
    expect(removeStep(chain, 'c', true).transitions).toEqual([t('a', 'b')]);
  });

  it('refuses to splice a step with two outgoing transitions', () => {
    const g = workflow(
      [step('a'), step('cond', 'CONDITION'), step('y'), step('n')],
      [t('a', 'cond'), t('cond', 'y', 'yes'), t('cond', 'n', 'no')],
    );
    let thrown: unknown;
    try {
      removeStep(g, 'cond', true);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).statusCode).toBe(422);
    expect(codes([...((thrown as AppError).extra.errors ?? [])])).toEqual(['query.splice cannot_splice']);
    expect(removeStep(g, 'cond', false).transitions).toEqual([]);
  });
});

describe('sendEmailTemplateIds', () => {
  it('lists each template once', () => {
    const g = workflow([step('a', 'SEND_EMAIL'), step('b', 'SEND_EMAIL'), step('c')], []);
    expect(sendEmailTemplateIds(g)).toEqual(['tpl']);
  });
});
