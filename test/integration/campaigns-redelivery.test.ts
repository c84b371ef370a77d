/**
 * At-least-once, shown for campaigns: a runtime whose queue delivers every message once more
 * after a worker completes it (`redeliverEachMessage`, as SQS may), with the fan-out in batches of
 * 4, one batch a message. Sent now or by its schedule, the campaign mails each recipient once,
 * counts each once and stores each `email.sent` event once.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { jobs, normalizers } from '../../functions/queues/jobs';
import { campaignJobs } from '../../shared/campaigns/jobs';
import { CAMPAIGN_SEND_JOB } from '../../shared/campaigns/messages';
import { fastTimings } from '../../shared/composition/local';
import { jobsWorker } from '../../shared/jobs/registry';
import type { Deps } from '../../shared/ports';
import {
  type CampaignProject,
  campaignBody,
  campaignProject,
  campaignRun,
  createCampaign,
  mailCounts,
  seedProjectContacts,
} from './helpers/campaigns';
import { contactEvents } from './helpers/contacts';
import { useLocalRuntime } from './helpers/local';

const workerJobs = [
  ...jobs.filter((j) => j.type !== CAMPAIGN_SEND_JOB),
  ...campaignJobs({ chunkSize: 4, budgetMs: 0 }),
];

const rt = useLocalRuntime({
  env: { SES_MAX_SEND_RATE: '100000' },
  timings: { ...fastTimings, redeliverEachMessage: true },
  handlers: {
    queues: {
      jobs: (deps: Deps) => {
        const worker = jobsWorker(deps, workerJobs, normalizers);
        return (event: SQSEvent) => worker(event);
      },
    },
  },
});

async function expectOnce(p: CampaignProject, campaignId: string, emails: readonly string[], ids: string[]) {
  const counts = await mailCounts(rt);
  expect(emails.map((e) => counts.get(e) ?? 0)).toEqual(emails.map(() => 1));
  expect((await p.api('GET', `/campaigns/${campaignId}`)).body).toMatchObject({
    status: 'SENT',
    totalRecipients: emails.length,
    sentCount: emails.length,
  });
  expect(await campaignRun(rt, p.projectId, campaignId)).toMatchObject({
    recipients: emails.length,
    sent: emails.length,
    unknown: 0,
    failed: 0,
  });
  for (const id of ids) {
    const events = await contactEvents(rt, id, p.projectId);
    expect(events.filter((e) => e.name === 'email.sent')).toHaveLength(1);
  }
  expect(rt.queue.deadLetters()).toEqual([]);
}

describe('every queue message delivered twice', () => {
  it('a campaign sent now mails, counts and records each recipient once', async () => {
    const p = await campaignProject(rt, 'twice');
    const emails = Array.from({ length: 15 }, (_, i) => `t${i}@redeliver-campaign.test`);
    const contacts = await seedProjectContacts(
      rt,
      p.projectId,
      emails.map((email) => ({ email })),
    );
    const c = await createCampaign(p, campaignBody(p.from));
    expect((await p.api('POST', `/campaigns/${c.id}/send`)).status).toBe(200);
    await rt.drain({ timeoutMs: 30_000 });
    await expectOnce(
      p,
      c.id,
      emails,
      contacts.map((x) => x.id),
    );
  });

  it('a scheduled campaign, its schedule delivered twice too, is sent once', async () => {
    const p = await campaignProject(rt, 'twice-scheduled');
    const emails = Array.from({ length: 6 }, (_, i) => `s${i}@redeliver-campaign.test`);
    const contacts = await seedProjectContacts(
      rt,
      p.projectId,
      emails.map((email) => ({ email })),
    );
    const c = await createCampaign(p, campaignBody(p.from));
    const at = new Date(rt.deps.clock.now().getTime() + 600_000).toISOString();
    expect((await p.api('POST', `/campaigns/${c.id}/send`, { body: { scheduledFor: at } })).status).toBe(200);
    await rt.runtime.clock.advance(660);
    await rt.drain({ timeoutMs: 30_000 });
    await expectOnce(
      p,
      c.id,
      emails,
      contacts.map((x) => x.id),
    );
  });
});
