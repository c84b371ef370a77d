/**
 * Crash safety of the monthly caps' counters (docs/billing.md), through HTTP against the local
 * runtime: the jobs worker runs over a store that fails one chosen request, once, as a worker that
 * dies there would, and the queue delivers its message again. Whatever the crash, nobody is mailed
 * twice, every recipient is settled, the cap is never passed, and the counter is never below what
 * went out; it is above it by at most what the crash's window allows (one batch of a fan-out, one
 * email of a workflow step), never by a redelivery.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { jobs, normalizers } from '../../functions/queues/jobs';
import { PermanentSendError } from '../../shared/adapters/aws/send-errors';
import { periodOf } from '../../shared/billing/caps';
import { getBillingUsage, putBillingLimits } from '../../shared/billing/repository';
import { campaignJobs } from '../../shared/campaigns/jobs';
import { CAMPAIGN_SEND_JOB } from '../../shared/campaigns/messages';
import { jobsWorker } from '../../shared/jobs/registry';
import type { Deps, RawEmail } from '../../shared/ports';
import {
  campaignBody,
  campaignProject,
  campaignRun,
  createCampaign,
  mailCounts,
  seedProjectContacts,
  sendNow,
} from './helpers/campaigns';
import { type StoreCall, StoreFaults } from './helpers/faults';
import { useLocalRuntime } from './helpers/local';
import { createTemplate, executionIn, linearWorkflow } from './helpers/workflows';

const faults = new StoreFaults('simulated worker crash');
/** Addresses the provider refuses. */
const refused = new Set<string>();
const BATCH = 5;

const workerJobs = [
  ...jobs.filter((j) => j.type !== CAMPAIGN_SEND_JOB),
  ...campaignJobs({ chunkSize: BATCH, budgetMs: 0 }),
];

const rt = useLocalRuntime({
  env: { SES_MAX_SEND_RATE: '100000' },
  handlers: {
    queues: {
      jobs: (deps: Deps) => {
        const mailer = {
          maxSendRate: async () => undefined,
          sendRaw: async (email: RawEmail) => {
            if (refused.has(email.to[0]!)) throw new PermanentSendError('MESSAGE_REJECTED', 'Rejected');
            return deps.mailer.sendRaw(email);
          },
        };
        const worker = jobsWorker({ ...faults.inject(deps), mailer }, workerJobs, normalizers);
        return (event: SQSEvent) => worker(event);
      },
    },
  },
});

const pk = (call: StoreCall) => String(call.key?.pk ?? '');
const sk = (call: StoreCall) => String(call.key?.sk ?? '');
const expr = (call: StoreCall) => String(call.expression ?? '');
const usageWrite = (c: StoreCall) => c.op === 'update' && pk(c).endsWith('#USAGE');

const usage = async (projectId: string) =>
  getBillingUsage(rt.deps, projectId, periodOf(rt.deps.clock.now()).month, { consistent: true });

const CAP = 8;
const crashes: [string, (call: StoreCall) => boolean, number, number][] = [
  // [when, the request that fails, which one of them, the most the counter may be above what was sent]
  ['reserving a batch', (c) => usageWrite(c) && expr(c).includes(':count'), 2, 0],
  [
    'noting a batch reservation on the run',
    (c) => c.op === 'update' && expr(c).includes('capBatch'),
    1,
    BATCH,
  ],
  ['giving back what a batch did not send', (c) => usageWrite(c) && expr(c).includes(':minus'), 1, 1],
];

describe('a capped fan-out that crashes', () => {
  for (const [when, match, nth, over] of crashes) {
    it(`while ${when} never passes the cap, mails nobody twice and counts no less than it sent`, async () => {
      const p = await campaignProject(rt, 'capcrash');
      const emails = Array.from({ length: 12 }, (_, i) => `r${i}@${p.projectId.slice(0, 8)}.capcrash.test`);
      await seedProjectContacts(
        rt,
        p.projectId,
        emails.map((email) => ({ email })),
      );
      // One refused address in the first batch: a release to give back.
      refused.add(emails[1]!);
      await putBillingLimits(
        rt.deps,
        p.projectId,
        { transactional: null, campaigns: CAP, workflows: null },
        {
          at: rt.deps.clock.now().toISOString(),
          by: 'test',
        },
      );
      const c = await createCampaign(p, campaignBody(p.from));
      faults.failAt(match, nth);
      const done = await sendNow(rt, p, c.id);
      expect(faults.fired, 'the fault fired').toBe(true);
      faults.clear();
      refused.clear();

      const counts = await mailCounts(rt);
      const mailed = emails.filter((e) => (counts.get(e) ?? 0) > 0);
      expect(
        emails.every((e) => (counts.get(e) ?? 0) <= 1),
        'nobody mailed twice',
      ).toBe(true);
      expect(done).toMatchObject({ status: 'SENT', totalRecipients: 12 });
      const run = await campaignRun(rt, p.projectId, c.id);
      expect(run!.sent).toBe(mailed.length);
      expect(run!.sent + run!.failed).toBe(12);
      const counted = (await usage(p.projectId)).campaigns;
      expect(counted).toBeLessThanOrEqual(CAP);
      expect(counted).toBeGreaterThanOrEqual(mailed.length);
      expect(counted - mailed.length).toBeLessThanOrEqual(over);
      // Uninterrupted, the first batch sends 4 (one refused) and gives one back: 8 go out.
      if (over === 0) expect(mailed).toHaveLength(CAP);
    });
  }
});

describe('a capped workflow step that crashes', () => {
  it('while reserving its email gives its claim back: the retry sends it and counts it once', async () => {
    const p = await campaignProject(rt, 'flowcrash');
    await putBillingLimits(
      rt.deps,
      p.projectId,
      { transactional: null, campaigns: null, workflows: 1 },
      { at: rt.deps.clock.now().toISOString(), by: 'test' },
    );
    const templateId = await createTemplate(p, p.from);
    const { id: wf } = await linearWorkflow(p, { triggerType: 'MANUAL' }, [
      { type: 'SEND_EMAIL', config: { templateId, recipient: { type: 'CONTACT' } } },
    ]);
    const email = `flow@${p.projectId.slice(0, 8)}.capcrash.test`;
    const contact = await p.api('POST', '/contacts', { body: { email, subscribed: true } });
    faults.failAt((c) => usageWrite(c) && sk(c) !== '', 1);
    const started = await p.api('POST', `/workflows/${wf}/executions`, {
      body: { contactId: contact.body.id },
    });
    expect(started.status, started.text).toBe(201);
    const done = await executionIn(p, wf, started.body.id, 'COMPLETED');
    expect(faults.fired, 'the fault fired').toBe(true);
    faults.clear();
    expect(done.history).toEqual([expect.objectContaining({ type: 'SEND_EMAIL', result: 'sent' })]);
    await rt.drain({ timeoutMs: 30_000 });
    expect((await mailCounts(rt)).get(email)).toBe(1);
    expect((await usage(p.projectId)).workflows).toBe(1);
  });
});
