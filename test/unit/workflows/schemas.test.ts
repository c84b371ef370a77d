import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import {
  checkStepLiquid,
  eventNameProblem,
  parseAddStep,
  parseAddTransition,
  parseCreateWorkflow,
  parseDeleteStepQuery,
  parseFieldsQuery,
  parseListWorkflowsQuery,
  parsePatchStep,
  parsePatchWorkflow,
  parseStepConfig,
} from '../../../shared/workflows/schemas';

/** The error `run` throws (sync or async). */
async function thrown(run: () => unknown): Promise<AppError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected an error');
}

/** `field code` of each issue of the 422 `run` throws. */
async function issues(run: () => unknown): Promise<string[]> {
  const error = await thrown(run);
  expect(error.statusCode).toBe(422);
  return (error.extra.errors ?? []).map((i) => `${i.field} ${i.code}`);
}

const UUID = '00000000-0000-4000-8000-000000000000';

describe('eventNameProblem', () => {
  it.each([
    'signup',
    'Order Placed',
    'a.b.c',
    'email.sent',
    'email.anything_else',
    'contact.subscribed',
    'contact.unsubscribed',
    'segment.vip.entry',
    'segment.pro-users-2.exit',
  ])('accepts %s', (name) => expect(eventNameProblem(name)).toBeUndefined());

  it.each([
    ['', 'empty'],
    ['x'.repeat(101), '100'],
    ['tab\there', 'control'],
    [' lead', 'white space'],
    ['Email.Sent', 'lower case'],
    ['email.', 'lower case'],
    ['CONTACT.SUBSCRIBED', 'lower case'],
    ['segment.Pro.entry', 'lower case'],
    ['segment.a b.exit', 'lower case'],
  ])('refuses %j', (name, why) => expect(eventNameProblem(name)).toContain(why));
});

describe('parseCreateWorkflow', () => {
  it('answers the flat 400 for a missing name, a 422 otherwise', async () => {
    for (const raw of [undefined, null, [], {}, { name: '' }, { name: null }]) {
      const error = await thrown(() => parseCreateWorkflow(raw));
      expect(error.statusCode).toBe(400);
      expect(error.extra.flat).toBe(true);
      expect(error.message).toBe('name is required');
    }
    expect(await issues(() => parseCreateWorkflow({ name: 'x'.repeat(101), eventName: 5 }))).toEqual([
      'name too_big',
      'eventName invalid_type',
    ]);
    expect(parseCreateWorkflow({ name: ' Hi ', ignored: true })).toEqual({
      name: 'Hi',
      description: null,
      eventName: null,
    });
  });
});

describe('parsePatchWorkflow', () => {
  it('keeps only what was sent; null clears the description and the entry step', () => {
    expect(parsePatchWorkflow({})).toEqual({});
    expect(parsePatchWorkflow({ description: null, entryStepId: null, triggerConfig: {} })).toEqual({
      description: null,
      entryStepId: null,
      triggerConfig: { eventName: null },
    });
    expect(parsePatchWorkflow({ enabled: true, allowReentry: false, triggerType: 'MANUAL' })).toEqual({
      enabled: true,
      allowReentry: false,
      triggerType: 'MANUAL',
    });
  });
});

describe('parseStepConfig', () => {
  it('drops unknown keys and fills defaults', () => {
    expect(parseStepConfig('WEBHOOK', { url: ' https://x.example/a ', extra: 1 })).toEqual({
      url: 'https://x.example/a',
      method: 'POST',
      headers: {},
    });
    expect(parseStepConfig('SEND_EMAIL', { templateId: UUID })).toEqual({
      templateId: UUID,
      recipient: { type: 'CONTACT' },
    });
    expect(parseStepConfig('EXIT', null)).toEqual({});
  });

  it('names every offending field of a config under config.', async () => {
    expect(await issues(() => parseStepConfig('DELAY', { amount: -2, unit: 'years' }))).toEqual([
      'config.amount too_small',
      'config.unit invalid_value',
    ]);
    expect(await issues(() => parseStepConfig('DELAY', [1]))).toEqual(['config invalid_type']);
    expect(
      await issues(() =>
        parseStepConfig('WEBHOOK', {
          url: 'mailto:x@y.z',
          method: 'GET',
          body: 'b',
          headers: { Host: 'evil', 'x-a': '1', 'X-A': '2', 'ok\u00e9': 'v' },
        }),
      ),
    ).toEqual([
      'config.url invalid_string',
      'config.headers.Host reserved_header',
      'config.headers.X-A duplicate',
      'config.headers.oké invalid_string',
      'config.body invalid_type',
    ]);
    expect(await issues(() => parseStepConfig('CONDITION', { condition: { logic: 'AND' } }))).toEqual([
      'config.condition.groups invalid_type',
    ]);
    expect(await issues(() => parseStepConfig('UPDATE_CONTACT', { data: { email: 'x@y.z' } }))).toEqual([
      'config.data too_small',
    ]);
  });

  it('stores the condition as parsed', () => {
    const condition = {
      logic: 'AND',
      groups: [{ filters: [{ field: 'data.n', operator: 'gt', value: 3 }] }],
    };
    expect(parseStepConfig('CONDITION', { condition })).toEqual({ condition });
  });
});

describe('checkStepLiquid', () => {
  it('compiles a WEBHOOK url and body as Liquid, and nothing of other steps', async () => {
    await checkStepLiquid('WEBHOOK', {
      url: 'https://x.example/{{ id }}',
      method: 'POST',
      headers: {},
      body: '{{ x ?? "y" }}',
    });
    expect(
      await issues(() =>
        checkStepLiquid('WEBHOOK', {
          url: 'https://x.example/{{',
          method: 'POST',
          headers: {},
          body: '{% nope %}',
        }),
      ),
    ).toEqual(['config.url invalid_liquid', 'config.body invalid_liquid']);
    await checkStepLiquid('EXIT', { reason: '{{ not checked' });
  });
});

describe('step and transition bodies', () => {
  it('parses a step: type first, then the config for that type', async () => {
    expect(parseAddStep({ type: 'DELAY', name: '', config: { amount: 1, unit: 'days' } })).toEqual({
      type: 'DELAY',
      name: null,
      config: { amount: 1, unit: 'days' },
    });
    expect(await issues(() => parseAddStep({ type: 'NOPE', name: 3 }))).toEqual([
      'type invalid_value',
      'name invalid_type',
    ]);
    expect(parsePatchStep({ name: '  ', config: { a: 1 } })).toEqual({ name: null, config: { a: 1 } });
    expect(parsePatchStep({})).toEqual({});
  });

  it('parses a transition; branch defaults to null', async () => {
    const [a, b] = ['6f1c1d3e-5b7a-4c1e-9d2f-0a1b2c3d4e5f', '7a2d2e4f-6c8b-4d2f-8e3a-1b2c3d4e5f60'];
    expect(parseAddTransition({ fromStepId: a, toStepId: b })).toEqual({
      fromStepId: a,
      toStepId: b,
      branch: null,
    });
    // Step ids are UUIDs: an empty or over-long one is refused before any read.
    expect(await issues(() => parseAddTransition({ fromStepId: '', branch: 'maybe' }))).toEqual([
      'fromStepId invalid_string',
      'toStepId invalid_type',
      'branch invalid_value',
    ]);
    expect(await issues(() => parseAddTransition({ fromStepId: 'a'.repeat(5000), toStepId: b }))).toEqual([
      'fromStepId invalid_string',
    ]);
  });
});

describe('query parameters', () => {
  it('reads splice, the list query and the fields query', async () => {
    expect(parseDeleteStepQuery({})).toEqual({ splice: false });
    expect(parseDeleteStepQuery({ splice: 'true' })).toEqual({ splice: true });
    expect(await issues(() => parseDeleteStepQuery({ splice: '1' }))).toEqual(['query.splice invalid_value']);
    expect(parseListWorkflowsQuery({})).toEqual({ page: 1, pageSize: 20, sort: 'createdAt', dir: 'desc' });
    expect(
      parseListWorkflowsQuery({ pageSize: '500', sort: 'bogus', enabled: 'false', search: ' a ' }),
    ).toEqual({
      page: 1,
      pageSize: 100,
      search: 'a',
      enabled: false,
      sort: 'createdAt',
      dir: 'desc',
    });
    expect(parseFieldsQuery({ eventName: 'email.sent' })).toEqual({ eventName: 'email.sent' });
    expect(await issues(() => parseFieldsQuery({ workflowId: 'x' }))).toEqual([
      'query.workflowId invalid_string',
    ]);
  });
});
