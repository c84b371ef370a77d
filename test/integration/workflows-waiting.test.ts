/**
 * WAITING executions through HTTP against the local runtime: an execution in a DELAY or a
 * WAIT_FOR_EVENT is WAITING with the step and the time it resumes (`resumesAt`), listed by
 * `?status=WAITING` with its total, and, while its wait has a due time, by `GET /activity/upcoming`
 * beside the scheduled campaigns, soonest first. Each test has a project of its own (upcoming is
 * project-wide). Last, executions stored as an earlier version stored them (a DELAY RUNNING, in the
 * RUNNING or WAITING index partition) keep working.
 */
import { describe, expect, it } from 'vitest';
import { seedVerifiedDomain } from '../../shared/domains/repository';
import { createProject } from '../../shared/projects/repository';
import { keyAttributes, keys } from '../../shared/table';
import { campaignBody, createCampaign } from './helpers/campaigns';
import { type Json, useLocalRuntime } from './helpers/local';
import {
  advanceClock,
  execution,
  executionDelayed,
  executionIn,
  executions,
  executionsWith,
  linearWorkflow,
} from './helpers/workflows';

const rt = useLocalRuntime();
const HOUR = 3_600;
const DAY = 86_400;

let n = 0;

/** A project of the test's own, with a verified sender domain (campaigns) and its public key. */
async function campaignProject(runtime: typeof rt, tag: string) {
  const { project, secretKey, publicKey } = await createProject(runtime.deps, { name: tag });
  const domain = `${tag}${++n}.waiting.test`;
  await seedVerifiedDomain(runtime.deps, project.id, domain);
  return {
    projectId: project.id,
    publicKey,
    from: `news@${domain}`,
    api: (method: string, path: string, options: Parameters<typeof rt.api>[2] = {}) =>
      runtime.api(method, path, { key: secretKey, ...options }),
  };
}
type CampaignProject = Awaited<ReturnType<typeof campaignProject>>;

async function contact(p: CampaignProject): Promise<string> {
  const res = await p.api('POST', '/contacts', { body: { email: `waiting${++n}@waiting.test` } });
  expect(res.status, res.text).toBeLessThan(300);
  return String(res.body.id);
}

async function start(p: CampaignProject, workflowId: string, contactId?: string): Promise<string> {
  const res = await p.api('POST', `/workflows/${workflowId}/executions`, {
    body: { contactId: contactId ?? (await contact(p)) },
  });
  expect(res.status, res.text).toBe(201);
  return String(res.body.id);
}

async function upcoming(p: CampaignProject, query: Record<string, string | number> = {}): Promise<Json[]> {
  const res = await p.api('GET', '/activity/upcoming', { query });
  expect(res.status, res.text).toBe(200);
  return res.body.activities as Json[];
}

async function scheduleCampaign(p: CampaignProject, name: string, inSeconds: number): Promise<Json> {
  const campaign = await createCampaign(p, campaignBody(p.from, { name }));
  const at = new Date(rt.deps.clock.now().getTime() + inSeconds * 1000).toISOString();
  const res = await p.api('POST', `/campaigns/${campaign.id}/send`, { body: { scheduledFor: at } });
  expect(res.status, res.text).toBe(200);
  return { ...campaign, at };
}

describe('an execution in a DELAY', () => {
  it('is WAITING with its step and resume time, listed and counted, and upcoming beside campaigns', async () => {
    const p = await campaignProject(rt, 'wait-delay');
    const flow = await linearWorkflow(p, { name: 'Nurture', triggerType: 'MANUAL' }, [
      { type: 'DELAY', config: { amount: 2, unit: 'days' } },
      { type: 'EXIT', config: {} },
    ]);
    const short = await linearWorkflow(p, { name: 'Reminder', triggerType: 'MANUAL' }, [
      { type: 'DELAY', config: { amount: 3, unit: 'hours' } },
      { type: 'EXIT', config: {} },
    ]);
    const id = await start(p, flow.id);
    const soon = await start(p, short.id);
    const x = await executionDelayed(p, flow.id, id);
    expect(x).toMatchObject({ status: 'WAITING', currentStepId: flow.steps[0], completedAt: null });
    expect(x.history.at(-1).result).toBe(`delayed until ${x.resumesAt}`);
    const y = await executionDelayed(p, short.id, soon);

    const waiting = await executionsWith(p, flow.id, 'WAITING');
    expect(waiting.map((e) => e.id)).toEqual([id]);
    const list = await executions(p, flow.id, '?status=WAITING');
    expect(list).toMatchObject({ total: 1, totalPages: 1 });
    expect(list.data[0]).toMatchObject({ id, status: 'WAITING', resumesAt: x.resumesAt });
    expect(await executions(p, flow.id, '?status=RUNNING')).toMatchObject({ total: 0, data: [] });
    expect((await executions(p, flow.id)).total).toBe(1);

    // Beside the scheduled campaigns, soonest first: the 3-hour delay, the campaign in a day, the
    // 2-day delay; a campaign 40 days out only with daysAhead beyond it.
    const tomorrow = await scheduleCampaign(p, 'Tomorrow', DAY);
    const far = await scheduleCampaign(p, 'Far', 40 * DAY);
    expect(await upcoming(p)).toEqual([
      {
        type: 'workflow.waiting',
        at: y.resumesAt,
        workflowId: short.id,
        executionId: soon,
        name: 'Reminder',
      },
      {
        type: 'campaign.scheduled',
        at: tomorrow.at,
        campaignId: tomorrow.id,
        executionId: null,
        name: 'Tomorrow',
      },
      { type: 'workflow.waiting', at: x.resumesAt, workflowId: flow.id, executionId: id, name: 'Nurture' },
    ]);
    expect((await upcoming(p, { daysAhead: 41 })).map((a) => a.name)).toEqual([
      'Reminder',
      'Tomorrow',
      'Nurture',
      'Far',
    ]);
    expect(far.id).toBeDefined();
    expect((await upcoming(p, { limit: 2 })).map((a) => a.name)).toEqual(['Reminder', 'Tomorrow']);
    // daysAhead 1: the 3-hour delay and the campaign at 24 hours, not the 2-day delay.
    expect((await upcoming(p, { daysAhead: 1 })).map((a) => a.name)).toEqual(['Reminder', 'Tomorrow']);

    // Once the short delay has ended, that execution has moved on and is no longer upcoming.
    await advanceClock(p, 3 * HOUR + 60);
    await executionIn(p, short.id, soon, 'EXITED');
    expect((await upcoming(p)).map((a) => a.name)).toEqual(['Tomorrow', 'Nurture']);
    expect(await executions(p, short.id, '?status=WAITING')).toMatchObject({ total: 0, data: [] });
    const exited = await execution(p, short.id, soon);
    expect(exited).toMatchObject({ status: 'EXITED', currentStepId: null, resumesAt: null });
    expect((await executions(p, short.id, '?status=EXITED')).total).toBe(1);
  });

  it('is no longer upcoming once cancelled', async () => {
    const p = await campaignProject(rt, 'wait-cancel');
    const flow = await linearWorkflow(p, { triggerType: 'MANUAL' }, [
      { type: 'DELAY', config: { amount: 5, unit: 'hours' } },
      { type: 'EXIT', config: {} },
    ]);
    const id = await start(p, flow.id);
    await executionDelayed(p, flow.id, id);
    expect((await upcoming(p)).map((a) => a.executionId)).toEqual([id]);
    expect((await p.api('DELETE', `/workflows/${flow.id}/executions/${id}`)).status).toBe(200);
    expect(await upcoming(p)).toEqual([]);
    expect(await executions(p, flow.id, '?status=WAITING')).toMatchObject({ total: 0, data: [] });
    expect((await executions(p, flow.id, '?status=CANCELLED')).total).toBe(1);
  });

  it('refuses bad upcoming queries with the error envelope', async () => {
    const p = await campaignProject(rt, 'wait-bad');
    for (const query of [{ daysAhead: 91 }, { daysAhead: 0 }, { limit: 101 }, { limit: 'x' }] as const) {
      const res = await p.api('GET', '/activity/upcoming', { query });
      expect(res.status, JSON.stringify(query)).toBe(422);
      expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    }
  });
});

describe('an execution in a WAIT_FOR_EVENT', () => {
  it('with a timeout is upcoming at its timeout, and no longer once its event has come', async () => {
    const p = await campaignProject(rt, 'wait-event');
    const flow = await linearWorkflow(p, { name: 'Checkout', triggerType: 'MANUAL' }, [
      { type: 'WAIT_FOR_EVENT', config: { eventName: 'paid', timeout: 2 * HOUR } },
      { type: 'EXIT', config: {} },
    ]);
    const contactId = await contact(p);
    const id = await start(p, flow.id, contactId);
    const x = await executionIn(p, flow.id, id, 'WAITING');
    expect(x.currentStepId).toBe(flow.steps[0]);
    const timeoutAt = Date.parse(x.history[0].at) + 2 * HOUR * 1000;
    expect(Math.abs(Date.parse(x.resumesAt) - timeoutAt)).toBeLessThan(1000);
    expect(await upcoming(p)).toEqual([
      { type: 'workflow.waiting', at: x.resumesAt, workflowId: flow.id, executionId: id, name: 'Checkout' },
    ]);
    expect((await executions(p, flow.id, '?status=WAITING')).total).toBe(1);

    const email = (await p.api('GET', `/contacts/${contactId}`)).body.email;
    const tracked = await p.api('POST', '/v1/track', { body: { email, event: 'paid' }, key: p.publicKey });
    expect(tracked.status, tracked.text).toBe(200);
    await executionIn(p, flow.id, id, 'EXITED');
    expect(await upcoming(p)).toEqual([]);
    expect((await executions(p, flow.id, '?status=WAITING')).total).toBe(0);
    expect((await executions(p, flow.id, '?status=EXITED')).total).toBe(1);
  });

  it('without a timeout is WAITING with no resume time, and not upcoming', async () => {
    const p = await campaignProject(rt, 'wait-forever');
    const flow = await linearWorkflow(p, { triggerType: 'MANUAL' }, [
      { type: 'WAIT_FOR_EVENT', config: { eventName: 'never' } },
      { type: 'EXIT', config: {} },
    ]);
    const id = await start(p, flow.id);
    const x = await executionIn(p, flow.id, id, 'WAITING');
    expect(x).toMatchObject({ currentStepId: flow.steps[0], resumesAt: null });
    expect((await executions(p, flow.id, '?status=WAITING')).data.map((e: Json) => e.id)).toEqual([id]);
    expect(await upcoming(p, { daysAhead: 90 })).toEqual([]);
  });
});

describe('executions stored by an earlier version', () => {
  const index = keyAttributes('executionsByStatus');

  /** Rewrites the execution's item and the workflow's counts as the earlier version kept them. */
  async function asEarlierVersion(p: CampaignProject, workflowId: string, id: string, status: string) {
    await rt.deps.store.write({
      update: keys.execution(p.projectId, workflowId, id),
      expression: 'SET #status = :status, #gpk = :gpk REMOVE counted',
      names: { '#status': 'status', '#gpk': index.partitionKey },
      values: { ':status': status, ':gpk': keys.executionsIndex(p.projectId, workflowId, status) },
    });
    await rt.deps.store.write({
      update: keys.executionCounts(p.projectId, workflowId),
      expression: `SET RUNNING = :running, WAITING = :waiting`,
      values: { ':running': status === 'RUNNING' ? 1 : 0, ':waiting': status === 'WAITING' ? 1 : 0 },
    });
    const item = await rt.deps.store.get(keys.execution(p.projectId, workflowId, id), { consistent: true });
    expect(item?.[index.partitionKey]).toBe(keys.executionsIndex(p.projectId, workflowId, status));
  }

  it('a DELAY kept RUNNING in the RUNNING partition is WAITING, listed, blocks a delete, and completes', async () => {
    const p = await campaignProject(rt, 'wait-old-delay');
    const flow = await linearWorkflow(p, { triggerType: 'MANUAL' }, [
      { type: 'DELAY', config: { amount: 1, unit: 'hours' } },
    ]);
    const id = await start(p, flow.id);
    await executionDelayed(p, flow.id, id);
    await asEarlierVersion(p, flow.id, id, 'RUNNING');

    expect(await execution(p, flow.id, id)).toMatchObject({
      status: 'WAITING',
      currentStepId: flow.steps[0],
    });
    const listed = await executions(p, flow.id, '?status=WAITING');
    expect(listed.data.map((e: Json) => e.id)).toEqual([id]);
    expect((await executions(p, flow.id)).data.map((e: Json) => e.id)).toEqual([id]);
    // Still counted RUNNING, as the earlier version counted it, until it ends.
    expect(listed.total).toBe(0);
    expect((await executions(p, flow.id, '?status=RUNNING')).total).toBe(1);
    expect((await p.api('DELETE', `/workflows/${flow.id}`)).status).toBe(409);

    await advanceClock(p, HOUR + 60);
    await executionIn(p, flow.id, id, 'COMPLETED');
    await rt.drain();
    expect(await executions(p, flow.id, '?status=COMPLETED')).toMatchObject({ total: 1 });
    expect((await executions(p, flow.id, '?status=COMPLETED')).data.map((e: Json) => e.id)).toEqual([id]);
    expect((await executions(p, flow.id, '?status=RUNNING')).total).toBe(0);
    expect((await executions(p, flow.id, '?status=WAITING')).total).toBe(0);
    const item = await rt.deps.store.get(keys.execution(p.projectId, flow.id, id), { consistent: true });
    expect(item?.[index.partitionKey]).toBe(keys.executionsIndex(p.projectId, flow.id, 'COMPLETED'));
  });

  it('a wait in the WAITING partition is listed, cancelled by cancel-all, and moves out of it', async () => {
    const p = await campaignProject(rt, 'wait-old-event');
    const flow = await linearWorkflow(p, { triggerType: 'MANUAL' }, [
      { type: 'WAIT_FOR_EVENT', config: { eventName: 'never' } },
      { type: 'EXIT', config: {} },
    ]);
    const id = await start(p, flow.id);
    await executionIn(p, flow.id, id, 'WAITING');
    await asEarlierVersion(p, flow.id, id, 'WAITING');
    expect((await executionsWith(p, flow.id, 'WAITING')).map((e) => e.id)).toEqual([id]);
    expect((await executions(p, flow.id, '?status=WAITING')).total).toBe(1);

    const all = await p.api('POST', `/workflows/${flow.id}/executions/cancel-all`);
    expect(all.body).toMatchObject({ cancelled: 1 });
    expect((await executions(p, flow.id, '?status=WAITING')).total).toBe(0);
    expect((await executions(p, flow.id, '?status=CANCELLED')).data.map((e: Json) => e.id)).toEqual([id]);
    const item = await rt.deps.store.get(keys.execution(p.projectId, flow.id, id), { consistent: true });
    expect(item?.[index.partitionKey]).toBe(keys.executionsIndex(p.projectId, flow.id, 'CANCELLED'));
  });
});
