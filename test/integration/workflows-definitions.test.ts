/**
 * Workflow definitions through HTTP against the local runtime (decisions, "Workflows"): the
 * workflow record, steps and their configs (each bad config a 422 naming its field), transitions
 * and their branch rules, deleting steps with and without splicing, enabling with its graph
 * validation, the list, the fields endpoint, and the usage reports of templates, events and
 * fields that read workflow definitions. Executions are tested with the engine.
 */
import { describe, expect, it } from 'vitest';
import { seedVerifiedDomain } from '../../shared/domains/repository';
import { createProject } from '../../shared/projects/repository';
import { readInterest } from '../../shared/workflows/interest';
import { type ApiOptions, type Json, useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const DOMAIN = 'wf.example';

/** A fresh project with a verified sender domain, so lists start empty and templates can be made. */
async function fresh(name = 'workflows') {
  const p = await createProject(rt.deps, { name });
  await seedVerifiedDomain(rt.deps, p.project.id, DOMAIN);
  const api = (method: string, path: string, options: ApiOptions = {}) =>
    rt.api(method, path, { key: p.secretKey, ...options });
  const expectStatus = async (status: number, method: string, path: string, body?: unknown) => {
    const res = await api(method, path, body === undefined ? {} : { body });
    expect(res.status, res.text).toBe(status);
    return res.body as Json;
  };
  const workflow = (body: Json = { name: 'Onboarding', eventName: 'signup' }) =>
    expectStatus(201, 'POST', '/workflows', body);
  const step = (workflowId: string, body: Json) =>
    expectStatus(201, 'POST', `/workflows/${workflowId}/steps`, body);
  const transition = (workflowId: string, fromStepId: string, toStepId: string, branch?: string) =>
    expectStatus(201, 'POST', `/workflows/${workflowId}/transitions`, {
      fromStepId,
      toStepId,
      ...(branch ? { branch } : {}),
    });
  const get = (workflowId: string) => expectStatus(200, 'GET', `/workflows/${workflowId}`);
  const template = async () =>
    (
      await expectStatus(201, 'POST', '/templates', {
        name: 'Welcome',
        subject: 'Hi',
        body: '<p>Hi</p>',
        from: `news@${DOMAIN}`,
      })
    ).id as string;
  return { ...p, id: p.project.id, api, expectStatus, workflow, step, transition, get, template };
}

type Project = Awaited<ReturnType<typeof fresh>>;

/** The field errors of a 422 envelope, as `field code` pairs. */
function issues(res: { status: number; body: Json; text: string }): string[] {
  expect(res.status, res.text).toBe(422);
  expect(res.body.error.code).toBe('VALIDATION_ERROR');
  return (res.body.error.errors as Json[]).map((e) => `${e.field} ${e.code}`);
}

const fields = (res: { status: number; body: Json; text: string }) => issues(res).map((i) => i.split(' ')[0]);

const DELAY = { type: 'DELAY', config: { amount: 1, unit: 'days' } };
const EXIT = { type: 'EXIT', config: {} };

describe('POST /workflows', () => {
  it('creates a disabled, EVENT-triggered workflow with no steps and a webhook secret', async () => {
    const p = await fresh();
    const res = await p.api('POST', '/workflows', {
      body: { name: 'Onboarding', description: 'New users', eventName: 'signup' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Onboarding',
      description: 'New users',
      enabled: false,
      triggerType: 'EVENT',
      triggerConfig: { eventName: 'signup' },
      allowReentry: false,
      entryStepId: null,
      steps: [],
      transitions: [],
      webhookSecret: expect.stringMatching(/^whsec_[0-9a-f]{64}$/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(res.body.createdAt).toBe(res.body.updatedAt);
    expect(await p.get(res.body.id)).toEqual(res.body);
    // Each workflow has a secret of its own; no eventName is a null one.
    const other = await p.workflow({ name: 'Later' });
    expect(other.triggerConfig).toEqual({ eventName: null });
    expect(other.description).toBeNull();
    expect(other.webhookSecret).not.toBe(res.body.webhookSecret);
  });

  it('answers the flat 400 when the name is missing, and creates nothing', async () => {
    const p = await fresh();
    for (const body of [{}, { name: null }, { name: '' }, { eventName: 'signup' }]) {
      const res = await p.api('POST', '/workflows', { body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'name is required' });
    }
    expect(
      (await p.api('POST', '/workflows', { raw: '', headers: { 'content-type': 'application/json' } }))
        .status,
    ).toBe(400);
    expect((await p.expectStatus(200, 'GET', '/workflows')).total).toBe(0);
  });

  it('answers 422 for names, descriptions and event names out of bounds', async () => {
    const p = await fresh();
    const post = (body: Json) => p.api('POST', '/workflows', { body });
    expect(fields(await post({ name: 'n'.repeat(101) }))).toEqual(['name']);
    expect(fields(await post({ name: '   ' }))).toEqual(['name']);
    expect(fields(await post({ name: 7 }))).toEqual(['name']);
    expect(fields(await post({ name: 'x', description: 'd'.repeat(501) }))).toEqual(['description']);
    expect((await p.workflow({ name: 'n'.repeat(100), description: 'd'.repeat(500) })).name).toHaveLength(
      100,
    );
    for (const eventName of [
      'Email.Sent',
      'contact.Subscribed',
      'segment.Pro Users.entry',
      'a\u0001b',
      ' padded',
      'e'.repeat(101),
      '',
    ])
      expect(fields(await post({ name: 'x', eventName })), eventName).toEqual(['eventName']);
  });

  it('takes tracked names and the names the service emits as triggers', async () => {
    const p = await fresh();
    for (const eventName of [
      'signup',
      'Order Placed',
      'email.opened',
      'email.bounced',
      'contact.subscribed',
      'contact.unsubscribed',
      'segment.vip-users.entry',
      'segment.vip-users.exit',
    ])
      expect((await p.workflow({ name: 'x', eventName })).triggerConfig.eventName).toBe(eventName);
  });
});

describe('GET /workflows/{id} and DELETE /workflows/{id}', () => {
  it("answers 404 for unknown ids and another project's workflows, 422 for non-UUIDs", async () => {
    const p = await fresh();
    const w = await p.workflow();
    const res = await rt.api('GET', `/workflows/${w.id}`);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Workflow not found' });
    expect((await p.api('GET', `/workflows/${UNKNOWN}`)).status).toBe(404);
    expect(fields(await p.api('GET', '/workflows/nope'))).toEqual(['id']);
    for (const [method, path] of [
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/steps'],
      ['POST', '/transitions'],
    ] as const) {
      const body =
        path === '/steps' ? DELAY : path === '/transitions' ? { fromStepId: UNKNOWN, toStepId: UNKNOWN } : {};
      expect(
        (await p.api(method, `/workflows/${UNKNOWN}${path}`, { body })).status,
        `${method} ${path}`,
      ).toBe(404);
    }
  });

  it('deletes a workflow and forgets what it listened for', async () => {
    const p = await fresh();
    const w = await p.workflow({ name: 'Gone', eventName: 'signup' });
    await p.step(w.id, { type: 'WAIT_FOR_EVENT', config: { eventName: 'purchase' } });
    expect((await readInterest(rt.deps, p.id, { consistent: true })).get(w.id)).toEqual({
      trigger: null,
      waits: ['purchase'],
    });
    const res = await p.api('DELETE', `/workflows/${w.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: w.id, deleted: true });
    expect((await p.api('GET', `/workflows/${w.id}`)).status).toBe(404);
    expect((await p.api('DELETE', `/workflows/${w.id}`)).status).toBe(404);
    expect((await readInterest(rt.deps, p.id, { consistent: true })).has(w.id)).toBe(false);
  });
});

describe('GET /workflows', () => {
  it('is an offset list of summaries with search, filters and sorting', async () => {
    const p = await fresh();
    const a = await p.workflow({ name: 'Alpha welcome', description: 'first' });
    const b = await p.workflow({ name: 'beta', description: 'Welcome series' });
    const c = await p.workflow({ name: 'Gamma' });
    await p.step(a.id, DELAY);
    await p.step(a.id, EXIT);
    await p.expectStatus(200, 'PATCH', `/workflows/${c.id}`, { triggerType: 'MANUAL' });

    const all = await p.expectStatus(200, 'GET', '/workflows');
    expect(all).toMatchObject({ page: 1, pageSize: 20, total: 3, totalPages: 1 });
    // Newest first by default.
    expect(all.data.map((w: Json) => w.id)).toEqual([c.id, b.id, a.id]);
    const summary = all.data.find((w: Json) => w.id === a.id);
    expect(summary).toEqual({
      id: a.id,
      name: 'Alpha welcome',
      description: 'first',
      enabled: false,
      triggerType: 'EVENT',
      triggerConfig: { eventName: null },
      allowReentry: false,
      entryStepId: expect.any(String),
      stepCount: 2,
      createdAt: a.createdAt,
      updatedAt: expect.any(String),
    });

    const list = async (query: Record<string, string | number>) =>
      (await p.api('GET', '/workflows', { query })).body as Json;
    expect((await list({ search: 'WELCOME' })).data.map((w: Json) => w.id).sort()).toEqual(
      [a.id, b.id].sort(),
    );
    expect((await list({ sort: 'name', dir: 'asc' })).data.map((w: Json) => w.name)).toEqual([
      'Alpha welcome',
      'beta',
      'Gamma',
    ]);
    expect((await list({ triggerType: 'MANUAL' })).data.map((w: Json) => w.id)).toEqual([c.id]);
    expect((await list({ enabled: 'true' })).total).toBe(0);
    expect((await list({ enabled: 'false' })).total).toBe(3);
    const page2 = await list({ page: 2, pageSize: 2, sort: 'name', dir: 'asc' });
    expect(page2).toMatchObject({ page: 2, pageSize: 2, total: 3, totalPages: 2 });
    expect(page2.data.map((w: Json) => w.name)).toEqual(['Gamma']);
    expect(fields(await p.api('GET', '/workflows', { query: { page: 0 } }))).toEqual(['query.page']);
    expect(fields(await p.api('GET', '/workflows', { query: { enabled: 'yes' } }))).toEqual([
      'query.enabled',
    ]);
    // Another project sees none of them.
    expect((await rt.api('GET', '/workflows', { query: { search: 'Alpha welcome' } })).body.total).toBe(0);
  });
});

describe('PATCH /workflows/{id}', () => {
  it('changes metadata, trigger and re-entry; null clears the description', async () => {
    const p = await fresh();
    const w = await p.workflow({ name: 'Old', description: 'desc', eventName: 'signup' });
    const res = await p.api('PATCH', `/workflows/${w.id}`, {
      body: { name: 'New', description: null, allowReentry: true, triggerConfig: { eventName: 'purchase' } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      name: 'New',
      description: null,
      allowReentry: true,
      triggerType: 'EVENT',
      triggerConfig: { eventName: 'purchase' },
      enabled: false,
      webhookSecret: w.webhookSecret,
      createdAt: w.createdAt,
    });
    expect(await p.get(w.id)).toEqual(res.body);
    const manual = await p.expectStatus(200, 'PATCH', `/workflows/${w.id}`, { triggerType: 'MANUAL' });
    expect(manual).toMatchObject({ triggerType: 'MANUAL', triggerConfig: { eventName: 'purchase' } });
    // An empty body changes nothing but the time.
    expect(await p.expectStatus(200, 'PATCH', `/workflows/${w.id}`, {})).toMatchObject({ name: 'New' });
  });

  it('answers 422 for bad fields, and for an entry step that is not one of its steps', async () => {
    const p = await fresh();
    const w = await p.workflow();
    const patch = (body: Json) => p.api('PATCH', `/workflows/${w.id}`, { body });
    expect(fields(await patch({ name: '' }))).toEqual(['name']);
    expect(fields(await patch({ triggerType: 'WEBHOOK' }))).toEqual(['triggerType']);
    expect(fields(await patch({ triggerConfig: { eventName: 'Email.Opened' } }))).toEqual([
      'triggerConfig.eventName',
    ]);
    expect(fields(await patch({ triggerConfig: 'signup' }))).toEqual(['triggerConfig']);
    expect(fields(await patch({ enabled: 'yes', allowReentry: 1 })).sort()).toEqual([
      'allowReentry',
      'enabled',
    ]);
    expect(issues(await patch({ entryStepId: UNKNOWN }))).toEqual(['entryStepId unknown_step']);
    const first = await p.step(w.id, DELAY);
    const second = await p.step(w.id, EXIT);
    expect(
      (await p.expectStatus(200, 'PATCH', `/workflows/${w.id}`, { entryStepId: second.id })).entryStepId,
    ).toBe(second.id);
    expect(
      (await p.expectStatus(200, 'PATCH', `/workflows/${w.id}`, { entryStepId: null })).entryStepId,
    ).toBeNull();
    expect(
      (await p.expectStatus(200, 'PATCH', `/workflows/${w.id}`, { entryStepId: first.id })).entryStepId,
    ).toBe(first.id);
  });
});

describe('enabling', () => {
  /** entry SEND_EMAIL -> CONDITION (yes: DELAY -> EXIT, no: WAIT_FOR_EVENT (event: EXIT)). */
  async function valid(p: Project, body: Json = { name: 'Valid', eventName: 'signup' }) {
    const w = await p.workflow(body);
    const templateId = await p.template();
    const send = await p.step(w.id, {
      type: 'SEND_EMAIL',
      config: { templateId, recipient: { type: 'CONTACT' } },
    });
    const cond = await p.step(w.id, {
      type: 'CONDITION',
      config: {
        condition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
        },
      },
    });
    const delay = await p.step(w.id, DELAY);
    const wait = await p.step(w.id, {
      type: 'WAIT_FOR_EVENT',
      config: { eventName: 'purchase', timeout: 3600 },
    });
    const exit = await p.step(w.id, EXIT);
    const exit2 = await p.step(w.id, { type: 'EXIT', config: { reason: 'bought' } });
    await p.transition(w.id, send.id, cond.id);
    await p.transition(w.id, cond.id, delay.id, 'yes');
    await p.transition(w.id, cond.id, wait.id, 'no');
    await p.transition(w.id, delay.id, exit.id);
    await p.transition(w.id, wait.id, exit2.id, 'event');
    await p.transition(w.id, wait.id, exit.id, 'timeout');
    return { w, templateId, send, cond, delay, wait, exit, exit2 };
  }

  it('enables a valid graph, and records the trigger the workflow starts on', async () => {
    const p = await fresh();
    const { w } = await valid(p);
    const res = await p.api('PATCH', `/workflows/${w.id}`, { body: { enabled: true } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.enabled).toBe(true);
    expect((await readInterest(rt.deps, p.id, { consistent: true })).get(w.id)).toEqual({
      trigger: 'signup',
      waits: ['purchase'],
    });
    // Disabling always works, and the trigger is no longer listened for.
    expect((await p.expectStatus(200, 'PATCH', `/workflows/${w.id}`, { enabled: false })).enabled).toBe(
      false,
    );
    expect((await readInterest(rt.deps, p.id, { consistent: true })).get(w.id)?.trigger).toBeNull();
  });

  it('answers 422 listing every problem of the graph', async () => {
    const p = await fresh();
    const w = await p.workflow({ name: 'Broken' });
    const send = await p.step(w.id, { type: 'SEND_EMAIL', config: { templateId: UNKNOWN } });
    const orphan = await p.step(w.id, DELAY);
    const wait = await p.step(w.id, {
      type: 'WAIT_FOR_EVENT',
      config: { eventName: 'purchase', timeout: 60 },
    });
    const exit = await p.step(w.id, EXIT);
    await p.transition(w.id, send.id, wait.id);
    await p.transition(w.id, wait.id, exit.id, 'timeout');
    // The wait loses its timeout, so its timeout branch can never be taken.
    await p.expectStatus(200, 'PATCH', `/workflows/${w.id}/steps/${wait.id}`, {
      config: { eventName: 'purchase' },
    });
    const res = await p.api('PATCH', `/workflows/${w.id}`, { body: { enabled: true } });
    expect(res.body.error.message).toBe('The workflow cannot be enabled');
    expect(issues(res).sort()).toEqual(
      [
        'triggerConfig.eventName missing_event_name',
        'transitions.1 timeout_branch_without_timeout',
        'steps.1 unreachable_step',
        'steps.0.config.templateId unknown_template',
      ].sort(),
    );
    expect(res.body.error.errors.find((e: Json) => e.code === 'unreachable_step').received).toBe(orphan.id);
    expect((await p.get(w.id)).enabled).toBe(false);
  });

  it('needs an entry step and at least one step', async () => {
    const p = await fresh();
    const w = await p.workflow({ name: 'Empty', eventName: 'signup' });
    expect(issues(await p.api('PATCH', `/workflows/${w.id}`, { body: { enabled: true } }))).toEqual([
      'steps no_steps',
    ]);
    const s = await p.step(w.id, EXIT);
    await p.expectStatus(200, 'PATCH', `/workflows/${w.id}`, { entryStepId: null });
    expect(issues(await p.api('PATCH', `/workflows/${w.id}`, { body: { enabled: true } }))).toEqual([
      'entryStepId missing_entry_step',
    ]);
    // Entry and enabling in one request.
    const res = await p.expectStatus(200, 'PATCH', `/workflows/${w.id}`, {
      entryStepId: s.id,
      enabled: true,
    });
    expect(res).toMatchObject({ enabled: true, entryStepId: s.id });
  });

  it('takes a MANUAL workflow without an event name', async () => {
    const p = await fresh();
    const w = await p.workflow({ name: 'Manual' });
    await p.step(w.id, EXIT);
    expect(issues(await p.api('PATCH', `/workflows/${w.id}`, { body: { enabled: true } }))).toEqual([
      'triggerConfig.eventName missing_event_name',
    ]);
    const res = await p.expectStatus(200, 'PATCH', `/workflows/${w.id}`, {
      triggerType: 'MANUAL',
      enabled: true,
    });
    expect(res).toMatchObject({ triggerType: 'MANUAL', enabled: true });
    expect((await readInterest(rt.deps, p.id, { consistent: true })).get(w.id)?.trigger).toBeNull();
  });

  it('keeps an enabled workflow valid: a breaking change is 422 with a suggestion, a harmless one passes', async () => {
    const p = await fresh();
    const { w, delay, exit, templateId } = await valid(p);
    await p.expectStatus(200, 'PATCH', `/workflows/${w.id}`, { enabled: true });
    // A new step would be unreachable.
    const res = await p.api('POST', `/workflows/${w.id}/steps`, { body: DELAY });
    expect(issues(res)).toEqual(['steps.6 unreachable_step']);
    expect(res.body.error.message).toBe('The change would leave the enabled workflow unable to run');
    expect(res.body.error.suggestion).toMatch(/Disable the workflow/);
    expect((await p.get(w.id)).steps).toHaveLength(6);
    // So would an EVENT trigger without a name.
    expect(
      issues(await p.api('PATCH', `/workflows/${w.id}`, { body: { triggerConfig: { eventName: null } } })),
    ).toEqual(['triggerConfig.eventName missing_event_name']);
    // Splicing a step out keeps it valid.
    const gone = await p.api('DELETE', `/workflows/${w.id}/steps/${delay.id}`, { query: { splice: 'true' } });
    expect(gone.status, gone.text).toBe(200);
    // A rename is never checked, even when a template went missing meanwhile.
    await p.expectStatus(200, 'DELETE', `/templates/${templateId}`);
    expect((await p.expectStatus(200, 'PATCH', `/workflows/${w.id}`, { name: 'Renamed' })).name).toBe(
      'Renamed',
    );
    expect(
      issues(await p.api('PATCH', `/workflows/${w.id}/steps/${exit.id}`, { body: { name: 'End' } })),
    ).toEqual(['steps.0.config.templateId unknown_template']);
    // Asking again to enable it checks it again.
    const again = await p.api('PATCH', `/workflows/${w.id}`, { body: { enabled: true } });
    expect(issues(again)).toEqual(['steps.0.config.templateId unknown_template']);
    expect(again.body.error.message).toBe('The workflow cannot be enabled');
    // Disabled, it can be rebuilt freely.
    await p.expectStatus(200, 'PATCH', `/workflows/${w.id}`, { enabled: false });
    await p.step(w.id, DELAY);
  });
});

describe('POST /workflows/{id}/steps', () => {
  it('answers 201 {id, type, name, config}; the first step becomes the entry step', async () => {
    const p = await fresh();
    const w = await p.workflow();
    const res = await p.api('POST', `/workflows/${w.id}/steps`, { body: { ...DELAY, name: ' Wait a day ' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'DELAY',
      name: 'Wait a day',
      config: { amount: 1, unit: 'days' },
    });
    const second = await p.step(w.id, EXIT);
    expect(second).toEqual({ id: expect.any(String), type: 'EXIT', name: null, config: {} });
    const got = await p.get(w.id);
    expect(got.entryStepId).toBe(res.body.id);
    expect(got.steps).toEqual([res.body, second]);
    expect(got.updatedAt > w.updatedAt).toBe(true);
  });

  it('answers 422 for an unknown or missing type and a long name', async () => {
    const p = await fresh();
    const w = await p.workflow();
    const post = (body: Json) => p.api('POST', `/workflows/${w.id}/steps`, { body });
    expect(fields(await post({ type: 'SEND_SMS', config: {} }))).toEqual(['type']);
    expect(fields(await post({ config: {} }))).toEqual(['type']);
    expect(fields(await post({ ...DELAY, name: 'n'.repeat(101) }))).toEqual(['name']);
    expect(fields(await post({ type: 'DELAY', config: 'soon' }))).toEqual(['config']);
    expect((await p.get(w.id)).steps).toEqual([]);
  });

  /** The stored config of a step added with `config`, or the 422's `field code` list. */
  async function tryConfig(p: Project, workflowId: string, type: string, config: unknown) {
    const res = await p.api('POST', `/workflows/${workflowId}/steps`, { body: { type, config } });
    if (res.status === 201) return res.body.config as Json;
    return issues(res);
  }

  it('SEND_EMAIL: a template id and a CONTACT or CUSTOM recipient', async () => {
    const p = await fresh();
    const w = await p.workflow();
    const t = UNKNOWN;
    const send = (config: unknown) => tryConfig(p, w.id, 'SEND_EMAIL', config);
    expect(await send({ templateId: t, recipient: { type: 'CONTACT' } })).toEqual({
      templateId: t,
      recipient: { type: 'CONTACT' },
    });
    // CONTACT is the default recipient, and takes no address.
    expect(await send({ templateId: t })).toEqual({ templateId: t, recipient: { type: 'CONTACT' } });
    expect(await send({ templateId: t, recipient: { type: 'CONTACT', email: 'x@y.z' } })).toEqual({
      templateId: t,
      recipient: { type: 'CONTACT' },
    });
    expect(await send({ templateId: t, recipient: { type: 'CUSTOM', email: 'team@example.org' } })).toEqual({
      templateId: t,
      recipient: { type: 'CUSTOM', email: 'team@example.org' },
    });
    expect(await send({})).toEqual(['config.templateId invalid_type']);
    expect(await send({ templateId: 'welcome' })).toEqual(['config.templateId invalid_string']);
    expect(await send({ templateId: t, recipient: { type: 'CUSTOM' } })).toEqual([
      'config.recipient.email invalid_type',
    ]);
    expect(await send({ templateId: t, recipient: { type: 'CUSTOM', email: 'nope' } })).toEqual([
      'config.recipient.email invalid_string',
    ]);
    expect(await send({ templateId: t, recipient: { type: 'SEGMENT' } })).toEqual([
      'config.recipient.type invalid_value',
    ]);
  });

  it('DELAY: a positive whole amount of minutes, hours or days, at most 365 days', async () => {
    const p = await fresh();
    const w = await p.workflow();
    const delay = (config: unknown) => tryConfig(p, w.id, 'DELAY', config);
    expect(await delay({ amount: 365, unit: 'days' })).toEqual({ amount: 365, unit: 'days' });
    expect(await delay({ amount: 365 * 24, unit: 'hours' })).toEqual({ amount: 8760, unit: 'hours' });
    expect(await delay({ amount: 5, unit: 'minutes', extra: 1 })).toEqual({ amount: 5, unit: 'minutes' });
    expect(await delay({ amount: 366, unit: 'days' })).toEqual(['config.amount too_big']);
    expect(await delay({ amount: 365 * 24 + 1, unit: 'hours' })).toEqual(['config.amount too_big']);
    expect(await delay({ amount: 0, unit: 'days' })).toEqual(['config.amount too_small']);
    expect(await delay({ amount: 1.5, unit: 'days' })).toEqual(['config.amount invalid_type']);
    expect(await delay({ amount: '2', unit: 'days' })).toEqual(['config.amount invalid_type']);
    expect(await delay({ amount: 1, unit: 'weeks' })).toEqual(['config.unit invalid_value']);
    expect((await delay({})) as string[]).toEqual([
      'config.amount invalid_type',
      'config.unit invalid_value',
    ]);
  });

  it('WAIT_FOR_EVENT: an event name and an optional timeout in seconds, at most 365 days', async () => {
    const p = await fresh();
    const w = await p.workflow();
    const wait = (config: unknown) => tryConfig(p, w.id, 'WAIT_FOR_EVENT', config);
    expect(await wait({ eventName: 'purchase' })).toEqual({ eventName: 'purchase' });
    expect(await wait({ eventName: 'email.clicked', timeout: 365 * 86400 })).toEqual({
      eventName: 'email.clicked',
      timeout: 365 * 86400,
    });
    expect(await wait({})).toEqual(['config.eventName invalid_type']);
    expect(await wait({ eventName: 'Email.Clicked' })).toEqual(['config.eventName invalid_string']);
    expect(await wait({ eventName: 'purchase', timeout: 0 })).toEqual(['config.timeout too_small']);
    expect(await wait({ eventName: 'purchase', timeout: 2.5 })).toEqual(['config.timeout invalid_type']);
    expect(await wait({ eventName: 'purchase', timeout: 365 * 86400 + 1 })).toEqual([
      'config.timeout too_big',
    ]);
  });

  it('CONDITION: a condition tree, parsed as segments parse theirs, its problems under config.condition', async () => {
    const p = await fresh();
    const w = await p.workflow();
    const condition = {
      logic: 'OR',
      groups: [
        { filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] },
        { filters: [{ field: 'event.purchase', operator: 'triggeredWithin', value: 7, unit: 'days' }] },
      ],
    };
    expect(await tryConfig(p, w.id, 'CONDITION', { condition })).toEqual({ condition });
    expect(await tryConfig(p, w.id, 'CONDITION', {})).toEqual(['config.condition invalid_type']);
    expect(
      await tryConfig(p, w.id, 'CONDITION', {
        condition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'plan', operator: 'equals', value: 'x' }] }],
        },
      }),
    ).toEqual(['config.condition.groups.0.filters.0.field invalid_value']);
    expect(await tryConfig(p, w.id, 'CONDITION', { condition: { logic: 'XOR', groups: [] } })).toEqual(
      expect.arrayContaining(['config.condition.logic invalid_value']),
    );
  });

  it('WEBHOOK: a URL (Liquid allowed), a method, safe headers and a Liquid body', async () => {
    const p = await fresh();
    const w = await p.workflow();
    const hook = (config: Json) => tryConfig(p, w.id, 'WEBHOOK', config);
    expect(await hook({ url: 'https://hooks.example.org/in' })).toEqual({
      url: 'https://hooks.example.org/in',
      method: 'POST',
      headers: {},
    });
    expect(
      await hook({
        url: 'https://hooks.example.org/{{ data.team }}',
        method: 'PUT',
        headers: { Authorization: 'Bearer abc', 'X-Trace': '1' },
        body: '{"email": "{{ email }}"}',
      }),
    ).toEqual({
      url: 'https://hooks.example.org/{{ data.team }}',
      method: 'PUT',
      headers: { Authorization: 'Bearer abc', 'X-Trace': '1' },
      body: '{"email": "{{ email }}"}',
    });
    expect(await hook({})).toEqual(['config.url invalid_type']);
    expect(await hook({ url: 'ftp://files.example.org' })).toEqual(['config.url invalid_string']);
    expect(await hook({ url: 'hooks.example.org/in' })).toEqual(['config.url invalid_string']);
    expect(await hook({ url: 'https://user:pw@hooks.example.org' })).toEqual(['config.url invalid_string']);
    expect(await hook({ url: 'https://x.example/{{ id' })).toEqual(['config.url invalid_liquid']);
    expect(await hook({ url: 'https://x.example', body: '{% if %}' })).toEqual([
      'config.body invalid_liquid',
    ]);
    expect(await hook({ url: 'https://x.example', method: 'TRACE' })).toEqual([
      'config.method invalid_value',
    ]);
    expect(await hook({ url: 'https://x.example', method: 'GET', body: 'x' })).toEqual([
      'config.body invalid_type',
    ]);
    expect(await hook({ url: 'https://x.example', body: 5 })).toEqual(['config.body invalid_type']);
    expect(await hook({ url: 'https://x.example', headers: { 'Bad Name': 'x' } })).toEqual([
      'config.headers.Bad Name invalid_string',
    ]);
    expect(await hook({ url: 'https://x.example', headers: { 'X-A': 'a\r\nX-Injected: 1' } })).toEqual([
      'config.headers.X-A invalid_string',
    ]);
    expect(await hook({ url: 'https://x.example', headers: { 'X-A': 'a\u0000' } })).toEqual([
      'config.headers.X-A invalid_string',
    ]);
    expect(await hook({ url: 'https://x.example', headers: { 'X-A': 5 } })).toEqual([
      'config.headers.X-A invalid_type',
    ]);
    expect(await hook({ url: 'https://x.example', headers: { 'Sesame-Signature': 'forged' } })).toEqual([
      'config.headers.Sesame-Signature reserved_header',
    ]);
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`X-H${i}`, 'v']));
    expect(await hook({ url: 'https://x.example', headers: many })).toEqual(['config.headers too_big']);
    expect(
      Object.keys(
        (await hook({ url: 'https://x.example', headers: { ...many, 'X-H50': undefined } })).headers,
      ),
    ).toHaveLength(50);
  });

  it('UPDATE_CONTACT: data by the custom-data rules, or subscribed, or both', async () => {
    const p = await fresh();
    const w = await p.workflow();
    const update = (config: Json) => tryConfig(p, w.id, 'UPDATE_CONTACT', config);
    expect(await update({ data: { plan: 'pro', profile: { tier: 'gold' } } })).toEqual({
      data: { plan: 'pro', profile: { tier: 'gold' } },
    });
    expect(await update({ subscribed: false })).toEqual({ data: {}, subscribed: false });
    expect(await update({ data: { plan: null }, subscribed: true })).toEqual({
      data: { plan: null },
      subscribed: true,
    });
    expect(await update({})).toEqual(['config.data too_small']);
    expect(await update({ data: {} })).toEqual(['config.data too_small']);
    expect(await update({ data: 'pro' })).toEqual(['config.data invalid_type']);
    expect(await update({ data: { 'a.b': 1 } })).toEqual(['config.data.a.b invalid_key']);
    expect(await update({ data: { profile: { constructor: 'x' } } })).toEqual([
      'config.data.profile.constructor invalid_key',
    ]);
    expect(await update({ data: { plan: 'x' }, subscribed: 'yes' })).toEqual([
      'config.subscribed invalid_type',
    ]);
    expect(await update({ data: { blob: 'x'.repeat(70_000) } })).toEqual(['config.data too_big']);
  });

  it('EXIT: an optional reason of at most 500 characters', async () => {
    const p = await fresh();
    const w = await p.workflow();
    expect(await tryConfig(p, w.id, 'EXIT', undefined)).toEqual({});
    expect(await tryConfig(p, w.id, 'EXIT', { reason: 'r'.repeat(500) })).toEqual({
      reason: 'r'.repeat(500),
    });
    expect(await tryConfig(p, w.id, 'EXIT', { reason: 'r'.repeat(501) })).toEqual(['config.reason too_big']);
    expect(await tryConfig(p, w.id, 'EXIT', { reason: 3 })).toEqual(['config.reason invalid_type']);
  });

  it('holds at most 100 steps', async () => {
    const p = await fresh();
    const w = await p.workflow();
    for (let i = 0; i < 100; i++) await p.step(w.id, EXIT);
    expect(issues(await p.api('POST', `/workflows/${w.id}/steps`, { body: EXIT }))).toEqual([
      'steps too_big',
    ]);
  });
});

describe('PATCH /workflows/{id}/steps/{stepId}', () => {
  it('renames a step and replaces its config, checked for its type; the type never changes', async () => {
    const p = await fresh();
    const w = await p.workflow();
    const s = await p.step(w.id, { ...DELAY, name: 'Wait' });
    const patch = (body: Json, stepId = s.id) =>
      p.api('PATCH', `/workflows/${w.id}/steps/${stepId}`, { body });
    const res = await patch({ name: 'Wait longer', config: { amount: 2, unit: 'hours' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      id: s.id,
      type: 'DELAY',
      name: 'Wait longer',
      config: { amount: 2, unit: 'hours' },
    });
    expect((await p.get(w.id)).steps).toEqual([res.body]);
    expect((await patch({ name: null })).body.name).toBeNull();
    expect(issues(await patch({ config: { amount: -1, unit: 'hours' } }))).toEqual([
      'config.amount too_small',
    ]);
    expect(issues(await patch({ config: { amount: 1 } }))).toEqual(['config.unit invalid_value']);
    expect(issues(await patch({ type: 'EXIT' }))).toEqual(['type immutable']);
    expect((await patch({ type: 'DELAY', name: 'Same type' })).status).toBe(200);
    expect(issues(await patch({ name: 'n'.repeat(101) }))).toEqual(['name too_big']);
    const missing = await patch({ name: 'x' }, UNKNOWN);
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe('Step not found');
    expect(fields(await patch({ name: 'x' }, 'nope'))).toEqual(['stepId']);
    expect((await p.get(w.id)).steps[0].config).toEqual({ amount: 2, unit: 'hours' });
  });

  it('checks a WEBHOOK config again, Liquid included', async () => {
    const p = await fresh();
    const w = await p.workflow();
    const s = await p.step(w.id, { type: 'WEBHOOK', config: { url: 'https://x.example' } });
    const res = await p.api('PATCH', `/workflows/${w.id}/steps/${s.id}`, {
      body: { config: { url: 'https://x.example', body: '{{ unclosed' } },
    });
    expect(issues(res)).toEqual(['config.body invalid_liquid']);
  });
});

describe('POST /workflows/{id}/transitions', () => {
  async function graph(p: Project) {
    const w = await p.workflow();
    const delay = await p.step(w.id, DELAY);
    const cond = await p.step(w.id, {
      type: 'CONDITION',
      config: {
        condition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'subscribed', operator: 'equals', value: true }] }],
        },
      },
    });
    const wait = await p.step(w.id, {
      type: 'WAIT_FOR_EVENT',
      config: { eventName: 'purchase', timeout: 60 },
    });
    const exit = await p.step(w.id, EXIT);
    const post = (body: Json) => p.api('POST', `/workflows/${w.id}/transitions`, { body });
    return { w, delay, cond, wait, exit, post };
  }

  it('answers 201 {id, fromStepId, toStepId, branch}', async () => {
    const p = await fresh();
    const { w, delay, cond, wait, exit, post } = await graph(p);
    const res = await post({ fromStepId: delay.id, toStepId: cond.id });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      fromStepId: delay.id,
      toStepId: cond.id,
      branch: null,
    });
    const yes = await p.transition(w.id, cond.id, wait.id, 'yes');
    const no = await p.transition(w.id, cond.id, exit.id, 'no');
    const event = await p.transition(w.id, wait.id, exit.id, 'event');
    expect([yes.branch, no.branch, event.branch]).toEqual(['yes', 'no', 'event']);
    expect((await p.get(w.id)).transitions).toEqual([res.body, yes, no, event]);
  });

  it('answers 422 for unknown steps, a self-transition, one from EXIT, and branches that do not fit', async () => {
    const p = await fresh();
    const { delay, cond, wait, exit, post } = await graph(p);
    expect(issues(await post({ fromStepId: UNKNOWN, toStepId: UNKNOWN.replace(/0$/, '1') }))).toEqual([
      'fromStepId unknown_step',
      'toStepId unknown_step',
    ]);
    // Not a step id at all (steps are UUIDs): refused by the schema, before any read.
    expect(issues(await post({ fromStepId: delay.id, toStepId: 'nope' }))).toEqual([
      'toStepId invalid_string',
    ]);
    expect(issues(await post({ fromStepId: delay.id }))).toEqual(['toStepId invalid_type']);
    expect(issues(await post({ fromStepId: delay.id, toStepId: delay.id }))).toEqual([
      'toStepId self_transition',
    ]);
    expect(issues(await post({ fromStepId: exit.id, toStepId: delay.id }))).toEqual([
      'fromStepId invalid_transition',
    ]);
    expect(issues(await post({ fromStepId: cond.id, toStepId: exit.id }))).toEqual(['branch invalid_branch']);
    expect(issues(await post({ fromStepId: cond.id, toStepId: exit.id, branch: 'event' }))).toEqual([
      'branch invalid_branch',
    ]);
    expect(issues(await post({ fromStepId: wait.id, toStepId: exit.id }))).toEqual(['branch invalid_branch']);
    expect(issues(await post({ fromStepId: wait.id, toStepId: exit.id, branch: 'no' }))).toEqual([
      'branch invalid_branch',
    ]);
    expect(issues(await post({ fromStepId: delay.id, toStepId: exit.id, branch: 'yes' }))).toEqual([
      'branch invalid_branch',
    ]);
    expect(issues(await post({ fromStepId: delay.id, toStepId: exit.id, branch: 'maybe' }))).toEqual([
      'branch invalid_value',
    ]);
  });

  it('answers 409 for a second transition from the same step and branch, 422 for one that closes a cycle', async () => {
    const p = await fresh();
    const { w, delay, cond, wait, exit, post } = await graph(p);
    const first = await p.transition(w.id, delay.id, cond.id);
    const again = await post({ fromStepId: delay.id, toStepId: exit.id });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'TRANSITION_EXISTS',
      details: { transitionId: first.id, fromStepId: delay.id, branch: null },
    });
    await p.transition(w.id, cond.id, wait.id, 'yes');
    expect((await post({ fromStepId: cond.id, toStepId: exit.id, branch: 'yes' })).status).toBe(409);
    await p.transition(w.id, cond.id, exit.id, 'no');
    // wait -> delay would close delay -> cond -> wait -> delay.
    expect(issues(await post({ fromStepId: wait.id, toStepId: delay.id, branch: 'event' }))).toEqual([
      'toStepId cycle',
    ]);
    expect((await p.get(w.id)).transitions).toHaveLength(3);
  });
});

describe('DELETE /workflows/{id}/transitions/{transitionId}', () => {
  it('removes the transition; unknown ids are 404', async () => {
    const p = await fresh();
    const w = await p.workflow();
    const a = await p.step(w.id, DELAY);
    const b = await p.step(w.id, EXIT);
    const t = await p.transition(w.id, a.id, b.id);
    const res = await p.api('DELETE', `/workflows/${w.id}/transitions/${t.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: t.id, deleted: true });
    expect((await p.get(w.id)).transitions).toEqual([]);
    const again = await p.api('DELETE', `/workflows/${w.id}/transitions/${t.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error.message).toBe('Transition not found');
    expect(fields(await p.api('DELETE', `/workflows/${w.id}/transitions/x`))).toEqual(['transitionId']);
    // Now a new one may leave the step.
    await p.transition(w.id, a.id, b.id);
  });
});

describe('DELETE /workflows/{id}/steps/{stepId}', () => {
  /** a -> b -> c, a the entry step. */
  async function chain(p: Project) {
    const w = await p.workflow();
    const a = await p.step(w.id, DELAY);
    const b = await p.step(w.id, DELAY);
    const c = await p.step(w.id, EXIT);
    const ab = await p.transition(w.id, a.id, b.id);
    const bc = await p.transition(w.id, b.id, c.id);
    const del = (stepId: string, splice?: string) =>
      p.api('DELETE', `/workflows/${w.id}/steps/${stepId}`, { query: { splice } });
    return { w, a, b, c, ab, bc, del };
  }

  it('removes the step and every transition touching it', async () => {
    const p = await fresh();
    const { w, a, b, c, del } = await chain(p);
    const res = await del(b.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ id: b.id, deleted: true });
    const got = await p.get(w.id);
    expect(got.steps.map((s: Json) => s.id)).toEqual([a.id, c.id]);
    expect(got.transitions).toEqual([]);
    expect(got.entryStepId).toBe(a.id);
    // A deleted entry step leaves no entry.
    expect((await del(a.id, 'false')).status).toBe(200);
    expect((await p.get(w.id)).entryStepId).toBeNull();
    expect((await del(a.id)).status).toBe(404);
  });

  it('with splice=true, reconnects incoming transitions to the successor', async () => {
    const p = await fresh();
    const { w, a, c, b, ab, del } = await chain(p);
    expect((await del(b.id, 'true')).status).toBe(200);
    const got = await p.get(w.id);
    expect(got.transitions).toEqual([{ ...ab, toStepId: c.id }]);
    // The entry step spliced out: its successor becomes the entry.
    expect((await del(a.id, 'true')).status).toBe(200);
    const after = await p.get(w.id);
    expect(after.entryStepId).toBe(c.id);
    expect(after.transitions).toEqual([]);
    // A last step spliced out leaves its incoming transitions nowhere to go.
    const x = await p.step(w.id, DELAY);
    await p.transition(w.id, x.id, c.id);
    expect((await del(c.id, 'true')).status).toBe(200);
    expect(await p.get(w.id)).toMatchObject({ entryStepId: null, transitions: [] });
  });

  it('refuses to splice a step with two outgoing transitions, and a bad splice value', async () => {
    const p = await fresh();
    const w = await p.workflow();
    const start = await p.step(w.id, DELAY);
    const cond = await p.step(w.id, {
      type: 'CONDITION',
      config: {
        condition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'subscribed', operator: 'equals', value: true }] }],
        },
      },
    });
    const yes = await p.step(w.id, EXIT);
    const no = await p.step(w.id, EXIT);
    await p.transition(w.id, start.id, cond.id);
    await p.transition(w.id, cond.id, yes.id, 'yes');
    await p.transition(w.id, cond.id, no.id, 'no');
    const res = await p.api('DELETE', `/workflows/${w.id}/steps/${cond.id}`, { query: { splice: 'true' } });
    expect(issues(res)).toEqual(['query.splice cannot_splice']);
    expect(res.body.error.errors[0].message).toMatch(/2 outgoing transitions/);
    expect(
      fields(await p.api('DELETE', `/workflows/${w.id}/steps/${cond.id}`, { query: { splice: 'yes' } })),
    ).toEqual(['query.splice']);
    expect((await p.get(w.id)).steps).toHaveLength(4);
    // Without splice it goes, with its three transitions.
    expect((await p.api('DELETE', `/workflows/${w.id}/steps/${cond.id}`)).status).toBe(200);
    expect((await p.get(w.id)).transitions).toEqual([]);
  });
});

describe('GET /workflows/fields', () => {
  it('lists contact and custom fields, and no event without a name', async () => {
    const p = await fresh();
    await p.expectStatus(201, 'POST', '/contacts', {
      email: 'fields@wf.test',
      data: { plan: 'pro', seats: 3, since: '2024-01-01' },
    });
    const res = await p.api('GET', '/workflows/fields');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      contact: [
        { field: 'email', type: 'string' },
        { field: 'subscribed', type: 'boolean' },
        { field: 'createdAt', type: 'date' },
        { field: 'updatedAt', type: 'date' },
      ],
      custom: [
        { field: 'data.plan', type: 'string' },
        { field: 'data.seats', type: 'number' },
        { field: 'data.since', type: 'date' },
      ],
      event: null,
    });
  });

  it("names an event's data keys from its recent events, by name or by a workflow's trigger", async () => {
    const p = await fresh();
    const track = (email: string, data: Json) =>
      p.api('POST', '/events/track', { body: { email, event: 'purchase', data } });
    for (const [i, data] of [
      { amount: 10, sku: 'a', gift: { wrapped: true } },
      { amount: 12, sku: 'b', coupon: 'X' },
      { amount: 'n/a', sku: 'c' },
    ].entries())
      expect((await track(`buyer${i}@wf.test`, data)).status).toBe(200);
    await rt.drain();
    const expected = {
      name: 'purchase',
      sampled: 3,
      fields: [
        { field: 'data.event.amount', type: 'number' },
        { field: 'data.event.coupon', type: 'string' },
        { field: 'data.event.gift.wrapped', type: 'boolean' },
        { field: 'data.event.sku', type: 'string' },
      ],
    };
    const byName = await p.expectStatus(200, 'GET', '/workflows/fields?eventName=purchase');
    expect(byName.event).toEqual(expected);
    const w = await p.workflow({ name: 'Buyers', eventName: 'purchase' });
    expect((await p.expectStatus(200, 'GET', `/workflows/fields?workflowId=${w.id}`)).event).toEqual(
      expected,
    );
    expect((await p.expectStatus(200, 'GET', '/workflows/fields?eventName=never')).event).toEqual({
      name: 'never',
      sampled: 0,
      fields: [],
    });
    const manual = await p.workflow({ name: 'Manual' });
    expect((await p.expectStatus(200, 'GET', `/workflows/fields?workflowId=${manual.id}`)).event).toBeNull();
    expect((await p.api('GET', `/workflows/fields?workflowId=${UNKNOWN}`)).status).toBe(404);
    expect(fields(await p.api('GET', '/workflows/fields?workflowId=nope'))).toEqual(['query.workflowId']);
    expect(fields(await p.api('GET', '/workflows/fields?eventName=Email.Sent'))).toEqual(['query.eventName']);
  });
});

describe('usage reports read workflow definitions', () => {
  it('template usage lists the SEND_EMAIL steps that send it', async () => {
    const p = await fresh();
    const templateId = await p.template();
    const other = await p.template();
    const w = await p.workflow({ name: 'Welcome series', eventName: 'signup' });
    const s1 = await p.step(w.id, { type: 'SEND_EMAIL', config: { templateId } });
    await p.step(w.id, DELAY);
    await p.step(w.id, { type: 'SEND_EMAIL', config: { templateId: other } });
    const s4 = await p.step(w.id, {
      type: 'SEND_EMAIL',
      config: { templateId, recipient: { type: 'CUSTOM', email: 'team@example.org' } },
    });
    const res = await p.expectStatus(200, 'GET', `/templates/${templateId}/usage`);
    expect(res).toEqual({
      templateId,
      campaigns: [],
      workflows: [
        {
          id: w.id,
          name: 'Welcome series',
          steps: [
            { id: s1.id, type: 'SEND_EMAIL' },
            { id: s4.id, type: 'SEND_EMAIL' },
          ],
        },
      ],
    });
    await p.expectStatus(200, 'DELETE', `/workflows/${w.id}`);
    expect((await p.expectStatus(200, 'GET', `/templates/${templateId}/usage`)).workflows).toEqual([]);
  });

  it('event usage lists workflows triggered by the event or waiting for it', async () => {
    const p = await fresh();
    const trigger = await p.workflow({ name: 'On signup', eventName: 'signup' });
    const waiting = await p.workflow({ name: 'Waits for signup', eventName: 'lead' });
    await p.step(waiting.id, { type: 'WAIT_FOR_EVENT', config: { eventName: 'signup', timeout: 60 } });
    await p.workflow({ name: 'Unrelated', eventName: 'other' });
    const res = await p.expectStatus(200, 'GET', '/events/signup/usage');
    expect(res.workflows.sort((a: Json, b: Json) => a.name.localeCompare(b.name))).toEqual([
      { id: trigger.id, name: 'On signup' },
      { id: waiting.id, name: 'Waits for signup' },
    ]);
    expect((await p.expectStatus(200, 'GET', '/events/lead/usage')).workflows).toEqual([
      { id: waiting.id, name: 'Waits for signup' },
    ]);
  });

  it('field usage lists workflows whose CONDITION filters on the field or UPDATE_CONTACT writes it', async () => {
    const p = await fresh();
    await p.expectStatus(201, 'POST', '/contacts', {
      email: 'usage@wf.test',
      data: { plan: 'pro', tier: 'gold' },
    });
    const cond = await p.workflow({ name: 'Pro only' });
    await p.step(cond.id, {
      type: 'CONDITION',
      config: {
        condition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
        },
      },
    });
    const writer = await p.workflow({ name: 'Upgrader' });
    await p.step(writer.id, { type: 'UPDATE_CONTACT', config: { data: { tier: 'platinum' } } });
    expect((await p.expectStatus(200, 'GET', '/contacts/fields/data.plan/usage')).workflows).toEqual([
      { id: cond.id, name: 'Pro only' },
    ]);
    expect((await p.expectStatus(200, 'GET', '/contacts/fields/data.tier/usage')).workflows).toEqual([
      { id: writer.id, name: 'Upgrader' },
    ]);
  });
});
