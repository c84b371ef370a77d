/**
 * Controlling a send while its fan-out runs, through HTTP: cancel stops it between batches (the
 * recipients already sent stay counted, the rest are never sent), a SENDING campaign cannot be
 * deleted, contacts created after the send started are not in its audience, and a start message
 * that arrives before its request's write waits for it. The jobs worker runs the fan-out in
 * batches of 5, one batch a message, and a test can hold fan-out messages back.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { jobs, normalizers } from '../../functions/queues/jobs';
import { campaignJobs } from '../../shared/campaigns/jobs';
import { CAMPAIGN_SEND_JOB, campaignSendJobMessage } from '../../shared/campaigns/messages';
import { getCampaignRecord, replaceCampaign } from '../../shared/campaigns/repository';
import { enqueue, jobsWorker } from '../../shared/jobs/registry';
import type { Deps } from '../../shared/ports';
import {
  campaignBody,
  campaignProject,
  campaignRun,
  createCampaign,
  mailCounts,
  seedProjectContacts,
} from './helpers/campaigns';
import { useLocalRuntime } from './helpers/local';
import { waitUntil } from './helpers/wait';

/** Fan-out messages let through before the gate closes; undefined: no gate. */
let allowed: number | undefined;
const waiting: (() => void)[] = [];
let handled = 0;

function open() {
  allowed = undefined;
  for (const resolve of waiting.splice(0)) resolve();
}

const workerJobs = [
  ...jobs.filter((j) => j.type !== CAMPAIGN_SEND_JOB),
  ...campaignJobs({ chunkSize: 5, budgetMs: 0 }),
];

const rt = useLocalRuntime({
  env: { SES_MAX_SEND_RATE: '100000' },
  handlers: {
    queues: {
      jobs: (deps: Deps) => {
        const worker = jobsWorker(deps, workerJobs, normalizers);
        return async (event: SQSEvent) => {
          const fanOut = event.Records.some((r) => JSON.parse(r.body).type === CAMPAIGN_SEND_JOB);
          if (fanOut && allowed !== undefined) {
            if (allowed <= 0) await new Promise<void>((resolve) => waiting.push(resolve));
            else allowed--;
          }
          const out = await worker(event);
          if (fanOut) handled++;
          return out;
        };
      },
    },
  },
});

const emails = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}${i}@control.test`);

describe('cancel while SENDING', () => {
  it('stops the fan-out after the batch under way: the rest is never sent, the sent stay counted', async () => {
    const p = await campaignProject(rt, 'cancel');
    const all = emails('c', 23);
    await seedProjectContacts(
      rt,
      p.projectId,
      all.map((email) => ({ email })),
    );
    const c = await createCampaign(p, campaignBody(p.from));
    allowed = 2;
    handled = 0;
    const sent = await p.api('POST', `/campaigns/${c.id}/send`);
    expect(sent.body.data.status).toBe('SENDING');
    // Two batches of five go out, then the fan-out waits at the gate.
    await waitUntil('two fan-out messages', () => handled >= 2 && waiting.length > 0);
    expect((await p.api('GET', `/campaigns/${c.id}`)).body).toMatchObject({
      status: 'SENDING',
      sentCount: 10,
    });

    // A SENDING campaign cannot be deleted.
    const del = await p.api('DELETE', `/campaigns/${c.id}`);
    expect(del.status).toBe(409);
    expect(del.body.error.code).toBe('CAMPAIGN_SENDING');

    const cancelled = await p.api('POST', `/campaigns/${c.id}/cancel`);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'CANCELLED', sentCount: 10, totalRecipients: 10 });
    open();
    await rt.drain();

    const counts = await mailCounts(rt);
    const mailed = all.filter((e) => counts.get(e) === 1);
    expect(mailed).toHaveLength(10);
    expect(all.every((e) => (counts.get(e) ?? 0) <= 1)).toBe(true);
    const after = (await p.api('GET', `/campaigns/${c.id}`)).body;
    expect(after).toMatchObject({ status: 'CANCELLED', totalRecipients: 10, sentCount: 10, sentAt: null });
    expect(await campaignRun(rt, p.projectId, c.id)).toMatchObject({
      state: 'cancelled',
      recipients: 10,
      sent: 10,
    });
    // Cancelled is final: neither sendable nor cancellable again; it can be deleted.
    expect((await p.api('POST', `/campaigns/${c.id}/send`)).status).toBe(400);
    expect((await p.api('POST', `/campaigns/${c.id}/cancel`)).status).toBe(400);
    expect((await p.api('DELETE', `/campaigns/${c.id}`)).status).toBe(200);
  });

  it('before its fan-out started: nobody is mailed', async () => {
    const p = await campaignProject(rt, 'early');
    const all = emails('e', 7);
    await seedProjectContacts(
      rt,
      p.projectId,
      all.map((email) => ({ email })),
    );
    const c = await createCampaign(p, campaignBody(p.from));
    allowed = 0;
    await p.api('POST', `/campaigns/${c.id}/send`);
    await waitUntil('the fan-out at the gate', () => waiting.length > 0);
    expect((await p.api('POST', `/campaigns/${c.id}/cancel`)).body.status).toBe('CANCELLED');
    open();
    await rt.drain();
    const counts = await mailCounts(rt);
    expect(all.map((e) => counts.get(e) ?? 0)).toEqual(all.map(() => 0));
    expect((await p.api('GET', `/campaigns/${c.id}`)).body).toMatchObject({
      status: 'CANCELLED',
      totalRecipients: 0,
      sentCount: 0,
    });
  });
});

describe('the audience of a send', () => {
  it('leaves out contacts created after the send started', async () => {
    const p = await campaignProject(rt, 'late');
    const early = emails('early', 6);
    await seedProjectContacts(
      rt,
      p.projectId,
      early.map((email) => ({ email })),
    );
    const c = await createCampaign(p, campaignBody(p.from));
    allowed = 0;
    await p.api('POST', `/campaigns/${c.id}/send`);
    await waitUntil('the fan-out at the gate', () => waiting.length > 0);
    await rt.runtime.clock.advance(1);
    const late = await p.api('POST', '/contacts', { body: { email: 'late@control.test', subscribed: true } });
    expect(late.status).toBe(201);
    open();
    await rt.drain();
    const counts = await mailCounts(rt);
    expect(early.map((e) => counts.get(e) ?? 0)).toEqual(early.map(() => 1));
    expect(counts.get('late@control.test')).toBeUndefined();
    expect((await p.api('GET', `/campaigns/${c.id}`)).body).toMatchObject({
      status: 'SENT',
      totalRecipients: 6,
    });
  });
});

describe('a start message that arrives before its request wrote SENDING', () => {
  it('looks again a little later and then sends', async () => {
    const p = await campaignProject(rt, 'race');
    await seedProjectContacts(rt, p.projectId, [{ email: 'race@control.test' }]);
    const c = await createCampaign(p, campaignBody(p.from));
    const runId = '6c3e0f4a-0000-4000-8000-000000000001';
    allowed = 1;
    await enqueue(rt.deps, campaignSendJobMessage, {
      projectId: p.projectId,
      campaignId: c.id,
      runId,
      trigger: 'now',
    });
    // The first delivery finds a DRAFT and queues itself again; then the request's write lands.
    await waitUntil('the retry at the gate', () => waiting.length > 0);
    const record = (await getCampaignRecord(rt.deps, p.projectId, c.id, { consistent: true }))!;
    const at = rt.deps.clock.now().toISOString();
    const written = await replaceCampaign(
      rt.deps,
      { ...record, status: 'SENDING', runId, startedAt: at, updatedAt: at, version: record.version + 1 },
      { version: record.version, status: ['DRAFT'] },
    );
    expect(written).toBe(true);
    open();
    await rt.drain();
    expect((await mailCounts(rt)).get('race@control.test')).toBe(1);
    expect((await p.api('GET', `/campaigns/${c.id}`)).body.status).toBe('SENT');
  });

  it('gives up when the request never wrote it', async () => {
    const p = await campaignProject(rt, 'gone');
    await seedProjectContacts(rt, p.projectId, [{ email: 'never@control.test' }]);
    const c = await createCampaign(p, campaignBody(p.from));
    await enqueue(rt.deps, campaignSendJobMessage, {
      projectId: p.projectId,
      campaignId: c.id,
      runId: '6c3e0f4a-0000-4000-8000-000000000002',
      trigger: 'now',
    });
    await rt.drain();
    expect((await mailCounts(rt)).get('never@control.test')).toBeUndefined();
    expect((await p.api('GET', `/campaigns/${c.id}`)).body.status).toBe('DRAFT');
    expect(rt.queue.deadLetters()).toEqual([]);
  });
});
