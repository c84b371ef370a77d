/**
 * Disabled projects (docs/accounts.md, "Disabled projects"; shared/projects/operator.ts,
 * shared/projects/state.ts) against the local runtime:
 *
 * - the operator's disable makes the project's keys and sessions answer 403 PROJECT_DISABLED once
 *   the per-instance caches have expired (a minute), lists it as disabled, and enable undoes it;
 * - operator and billing share the flag: an operator disable is not lifted by billing's re-enable,
 *   an operator enable lifts billing's;
 * - scheduled work does not run: a scheduled campaign that fires becomes a DRAFT again and sends
 *   nothing; a workflow delay that ends is held (the execution does not advance) and goes on once
 *   the project is enabled; a fan-out and a bulk job started just as the project was disabled are
 *   held and failed; periodic segment work skips it; work held past a week is given up;
 * - `npm run sesame -- project disable|enable`, run as a child process against a data folder.
 *
 * Every queue message is delivered twice (`redeliverEachMessage`): a held message makes one
 * schedule, not two.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { quietLogger } from '../../shared/adapters/local/log';
import { disableForBilling, enableAfterBilling } from '../../shared/billing/subscription';
import { getCampaignRecord } from '../../shared/campaigns/repository';
import { fastTimings, startLocal } from '../../shared/local/runtime';
import { disableProject, enableProject, OperatorInputError } from '../../shared/projects/operator';
import { PROJECT_STATE_TTL_MS } from '../../shared/projects/state';
import { runPeriodicSegments } from '../../shared/segments/periodic';
import { keys } from '../../shared/table';
import { getExecutionRecord } from '../../shared/workflows/executions-repository';
import type { ApiClient } from './helpers/api';
import { campaignBody, campaignProject, createCampaign } from './helpers/campaigns';
import { uniqueEmail } from './helpers/contacts';
import { callApi, type Json, useLocalRuntime } from './helpers/local';
import { waitUntil } from './helpers/wait';
import { createTemplate, executionDelayed, executionIn, linearWorkflow } from './helpers/workflows';

const rt = useLocalRuntime({ timings: { ...fastTimings, redeliverEachMessage: true } });
const PASSWORD = 'correct horse battery';
/** Past every per-instance cache of projects (the authenticator's and background work's). */
const PAST_CACHES_S = PROJECT_STATE_TTL_MS / 1000 + 1;

async function signup() {
  const email = uniqueEmail('disable');
  const res = await rt.api('POST', '/auth/signup', { key: null, body: { email, password: PASSWORD } });
  expect(res.status, res.text).toBe(201);
  const cookie = /sesame_session=[^;]*/.exec(res.headers['set-cookie'] ?? '')![0];
  return {
    projectId: res.body.project.id as string,
    keys: res.body.keys as { secretKey: string; publicKey: string },
    as: { key: null, headers: { cookie } },
    cookie,
  };
}

const projectItem = (pid: string) => rt.deps.store.get(keys.project(pid), { consistent: true });
const mailsTo = async (email: string) => (await rt.mails({ to: email })).length;

describe('the operator disables and enables a project', () => {
  it('answers 403 PROJECT_DISABLED to its keys and sessions, lists it disabled, and enable undoes it', async () => {
    const u = await signup();
    const pid = u.projectId;
    expect((await rt.api('GET', '/contacts', { key: u.keys.secretKey })).status).toBe(200);

    const out = await disableProject(rt.deps, { projectId: pid, reason: ' chargeback ' });
    expect(out).toMatchObject({
      id: pid,
      disabled: true,
      disabledBy: 'operator',
      disabledReason: 'chargeback',
      wasDisabledBy: null,
    });
    await rt.runtime.clock.advance(PAST_CACHES_S);
    const refused = [
      await rt.api('GET', '/contacts', { key: u.keys.secretKey }),
      await rt.api('POST', '/v1/track', { key: u.keys.publicKey, body: { email: 'a@b.co', event: 'x' } }),
      await rt.api('GET', '/contacts', { key: null, headers: { cookie: u.cookie, 'x-project-id': pid } }),
    ];
    for (const res of refused) {
      expect(res.status, res.text).toBe(403);
      expect(res.body.error.code).toBe('PROJECT_DISABLED');
    }
    const listed = await rt.api('GET', '/users/@me/projects', u.as);
    expect(listed.body).toEqual([expect.objectContaining({ id: pid, disabled: true })]);

    const on = await enableProject(rt.deps, { projectId: pid });
    expect(on).toMatchObject({
      disabled: false,
      disabledBy: null,
      disabledReason: null,
      wasDisabledBy: 'operator',
    });
    expect(await projectItem(pid)).not.toHaveProperty('disabledAt');
    await rt.runtime.clock.advance(PAST_CACHES_S);
    expect((await rt.api('GET', '/contacts', { key: u.keys.secretKey })).status).toBe(200);
    expect((await rt.api('GET', '/users/@me/projects', u.as)).body[0].disabled).toBe(false);
  });

  it('shares the flag with billing: billing does not lift an operator disable; the operator lifts billing’s', async () => {
    const { projectId: pid } = await signup();
    const now = rt.deps.clock.now();
    expect(await disableForBilling(rt.deps, pid, now)).toBe(true);
    expect(await projectItem(pid)).toMatchObject({ disabled: true, disabledBy: 'billing' });
    // The operator takes it over; billing's re-enable then changes nothing.
    expect((await disableProject(rt.deps, { projectId: pid })).wasDisabledBy).toBe('billing');
    expect(await enableAfterBilling(rt.deps, pid)).toBe(false);
    expect(await projectItem(pid)).toMatchObject({ disabled: true, disabledBy: 'operator' });
    // Billing's own disable leaves the operator's in place.
    expect(await disableForBilling(rt.deps, pid, now)).toBe(false);
    expect(await projectItem(pid)).toMatchObject({ disabledBy: 'operator' });
    await enableProject(rt.deps, { projectId: pid });
    // Disabled by billing, enabled by the operator: cleared whoever set it.
    await disableForBilling(rt.deps, pid, now);
    expect((await enableProject(rt.deps, { projectId: pid })).wasDisabledBy).toBe('billing');
    const item = await projectItem(pid);
    expect(item?.disabled).toBe(false);
    expect(item).not.toHaveProperty('disabledBy');
  });

  it('refuses an unknown project and bad input, writing nothing', async () => {
    await expect(disableProject(rt.deps, { projectId: 'nope' })).rejects.toThrow(
      new OperatorInputError('no project nope'),
    );
    await expect(enableProject(rt.deps, { projectId: 'a/b' })).rejects.toThrow(
      new OperatorInputError('project must be a project id'),
    );
    await expect(
      disableProject(rt.deps, { projectId: rt.projectId, reason: 'x'.repeat(501) }),
    ).rejects.toThrow(OperatorInputError);
    expect(await projectItem('nope')).toBeUndefined();
    expect((await projectItem(rt.projectId))?.disabled).toBe(false);
  });
});

describe('scheduled work of a disabled project', () => {
  it('does not run: a scheduled campaign becomes a DRAFT, a workflow delay is held until the project is enabled', async () => {
    const p = await campaignProject(rt, 'held');
    const [a, b] = [uniqueEmail('held-a'), uniqueEmail('held-b')];
    const contactA = (await p.api('POST', '/contacts', { body: { email: a, data: { plan: 'pro' } } })).body
      .id;
    await p.api('POST', '/contacts', { body: { email: b, data: { plan: 'pro' } } });
    const templateId = await createTemplate(p, p.from);
    const { id: workflowId } = await linearWorkflow(p, { triggerType: 'MANUAL' }, [
      { type: 'DELAY', config: { amount: 1, unit: 'hours' } },
      { type: 'SEND_EMAIL', config: { templateId, recipient: { type: 'CONTACT' } } },
    ]);
    const started = await p.api('POST', `/workflows/${workflowId}/executions`, {
      body: { contactId: contactA },
    });
    expect(started.status, started.text).toBe(201);
    await executionDelayed(p, workflowId, started.body.id);
    const execution = () =>
      getExecutionRecord(rt.deps, p.projectId, workflowId, started.body.id, { consistent: true });
    const inDelay = await execution();
    const campaign = await createCampaign(p, campaignBody(p.from));
    const inTwoHours = new Date(rt.deps.clock.now().getTime() + 2 * 3_600_000).toISOString();
    expect(
      (await p.api('POST', `/campaigns/${campaign.id}/send`, { body: { scheduledFor: inTwoHours } })).status,
    ).toBe(200);
    const tracked = await p.api('POST', '/segments', {
      body: {
        name: 'Tracked',
        trackMembership: true,
        condition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
        },
      },
    });
    expect(tracked.status, tracked.text).toBe(201);
    await rt.drain();
    expect((await runPeriodicSegments(rt.deps)).computes).toBe(1);

    await disableProject(rt.deps, { projectId: p.projectId, reason: 'unpaid' });
    await rt.runtime.clock.advance(PAST_CACHES_S);
    expect((await p.api('GET', '/contacts')).status).toBe(403);
    // Periodic segment work skips the project.
    expect((await runPeriodicSegments(rt.deps)).computes).toBe(0);

    // Past the delay's end and the campaign's time.
    await rt.runtime.clock.advance(2 * 3600 + 60);
    await rt.drain();
    const draft = await getCampaignRecord(rt.deps, p.projectId, campaign.id, { consistent: true });
    expect(draft).toMatchObject({ status: 'DRAFT', scheduledFor: null, scheduleToken: null });
    // The execution has not moved.
    expect(await execution()).toMatchObject({
      status: 'WAITING',
      seq: inDelay?.seq,
      currentStepId: inDelay?.currentStepId,
    });
    // One hold schedule, though every message came twice.
    const holds = rt.scheduler.list().filter((s) => s.name.startsWith(`hold-step-${started.body.id}-`));
    expect(holds).toHaveLength(1);
    // Held again when it comes back while still disabled.
    await rt.runtime.clock.advance(901);
    await rt.drain();
    expect(
      rt.scheduler.list().filter((s) => s.name.startsWith(`hold-step-${started.body.id}-`)),
    ).toHaveLength(1);
    expect(await mailsTo(a)).toBe(0);
    expect(await mailsTo(b)).toBe(0);

    // Enabled: the held step runs at its next look, and the execution completes; the campaign
    // stays a DRAFT (it is not sent late).
    await enableProject(rt.deps, { projectId: p.projectId });
    await rt.runtime.clock.advance(901);
    await rt.drain();
    const done = await executionIn(p, workflowId, started.body.id, 'COMPLETED');
    expect(done.status).toBe('COMPLETED');
    expect(await mailsTo(a)).toBe(1);
    expect(await mailsTo(b)).toBe(0);
    expect((await getCampaignRecord(rt.deps, p.projectId, campaign.id))?.status).toBe('DRAFT');
    expect((await runPeriodicSegments(rt.deps)).computes).toBe(1);
    await rt.drain();
  });

  it('holds a fan-out and fails a bulk job that start as the project is disabled; the fan-out goes on once enabled', async () => {
    const p = await campaignProject(rt, 'fanout');
    const emails = [uniqueEmail('fan-a'), uniqueEmail('fan-b')];
    const ids: string[] = [];
    for (const email of emails) ids.push((await p.api('POST', '/contacts', { body: { email } })).body.id);
    const campaign = await createCampaign(p, campaignBody(p.from));
    // Disabled in the table while this instance still holds the key as valid (its cache lasts a
    // minute): the requests pass, their background work finds the project disabled.
    await disableProject(rt.deps, { projectId: p.projectId });
    expect((await p.api('POST', `/campaigns/${campaign.id}/send`, { body: {} })).status).toBe(200);
    const bulk = await p.api('POST', '/contacts/bulk-unsubscribe', { body: { contactIds: ids } });
    expect(bulk.status).toBe(202);
    await rt.drain();
    const job = await rt.deps.store.get(keys.bulkJob(p.projectId, bulk.body.jobId), { consistent: true });
    expect(job).toMatchObject({ status: 'failed', error: { code: 'PROJECT_DISABLED' } });
    const sending = await getCampaignRecord(rt.deps, p.projectId, campaign.id, { consistent: true });
    expect(sending?.status).toBe('SENDING');
    expect(rt.scheduler.list().map((s) => s.name)).toContain(`hold-campaign-${campaign.id}`);
    for (const email of emails) expect(await mailsTo(email)).toBe(0);

    await enableProject(rt.deps, { projectId: p.projectId });
    await rt.runtime.clock.advance(901);
    await rt.drain();
    await waitUntil('the campaign sent', async () => {
      const c = await getCampaignRecord(rt.deps, p.projectId, campaign.id, { consistent: true });
      return c?.status === 'SENT';
    });
    for (const email of emails) expect(await mailsTo(email)).toBe(1);
  });

  it('gives held work up once the project has been disabled for more than a week', async () => {
    const p = await campaignProject(rt, 'expired');
    const contactId = (await p.api('POST', '/contacts', { body: { email: uniqueEmail('expired') } })).body.id;
    const { id: workflowId } = await linearWorkflow(p, { triggerType: 'MANUAL' }, [
      { type: 'DELAY', config: { amount: 1, unit: 'hours' } },
      { type: 'EXIT', config: {} },
    ]);
    const started = await p.api('POST', `/workflows/${workflowId}/executions`, { body: { contactId } });
    await executionDelayed(p, workflowId, started.body.id);
    await disableProject(rt.deps, { projectId: p.projectId });
    // Disabled eight days before the delay ends.
    const longAgo = new Date(rt.deps.clock.now().getTime() - 8 * 86_400_000 + 3_600_000).toISOString();
    await rt.deps.store.write({
      update: keys.project(p.projectId),
      expression: 'SET disabledAt = :at',
      values: { ':at': longAgo },
    });
    await rt.runtime.clock.advance(3600 + PAST_CACHES_S);
    await rt.drain();
    const ended = await getExecutionRecord(rt.deps, p.projectId, workflowId, started.body.id, {
      consistent: true,
    });
    expect(ended?.status).toBe('FAILED');
    expect(ended?.error).toMatch(/^PROJECT_DISABLED/);
  });
});

describe('npm run sesame -- project disable|enable --local', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const dataDir = mkdtempSync(join(tmpdir(), 'sesame-disable-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { ...process.env };
  delete env.TABLE_NAME;
  delete env.SESAME_DATA_DIR;
  const sesame = (...args: string[]) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args], { cwd: root, env });
  const failure = (run: Promise<unknown>) =>
    run.then(() => undefined).catch((error: { code: number; stdout: string; stderr: string }) => error);

  /** The status of GET /contacts with `key` against a runtime over the data folder. */
  async function contactsStatus(key: string): Promise<{ status: number; body: Json }> {
    const runtime = await startLocal({
      dataDir,
      logger: quietLogger,
      timings: fastTimings,
      recurringSchedules: false,
    });
    try {
      const client: ApiClient = { api: (method, path, options) => callApi(runtime, method, path, options) };
      const res = await client.api('GET', '/contacts', { key });
      return { status: res.status, body: res.body };
    } finally {
      await runtime.stop();
    }
  }

  it('disables and enables the project in the data folder the local runtime reads', async () => {
    const created = await sesame('owner', 'create', '--local', dataDir, '--email', uniqueEmail('cli'));
    const printed = (label: string) => new RegExp(`^ {2}${label} +(\\S+)$`, 'm').exec(created.stdout)?.[1];
    const projectId = printed('Project id')!;
    const secretKey = printed('Secret key')!;

    const off = await sesame(
      'project',
      'disable',
      '--local',
      dataDir,
      '--project',
      projectId,
      '--reason',
      'abuse',
    );
    expect(off.stdout).toContain('Disabled the project "My project"');
    expect(off.stdout).toMatch(/^ {2}Disabled by +operator$/m);
    expect(off.stdout).toMatch(/^ {2}Reason +abuse$/m);
    const refused = await contactsStatus(secretKey);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('PROJECT_DISABLED');

    const on = await sesame('project', 'enable', '--local', dataDir, '--project', projectId);
    expect(on.stdout).toContain('(it was disabled by operator)');
    expect((await contactsStatus(secretKey)).status).toBe(200);
    const again = await sesame('project', 'enable', '--local', dataDir, '--project', projectId);
    expect(again.stdout).toContain('was not disabled: nothing changed');
  });

  it('exits 1 with one line for an unknown project or a bad command line', async () => {
    const unknown = await failure(
      sesame('project', 'disable', '--local', dataDir, '--project', 'no-such-project'),
    );
    expect(unknown?.code).toBe(1);
    expect(unknown?.stdout).toBe('');
    expect(unknown?.stderr).toBe('sesame: no project no-such-project\n');
    const missing = await failure(sesame('project', 'disable', '--local', dataDir));
    expect(missing?.code).toBe(1);
    expect(missing?.stderr).toMatch(/^sesame: --project <id> is required \(usage: .*\)\n$/);
    const reason = await failure(
      sesame('project', 'enable', '--local', dataDir, '--project', 'x', '--reason', 'y'),
    );
    expect(reason?.stderr).toMatch(/^sesame: --reason is an option of project disable/);
  });
});
