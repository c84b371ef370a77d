/**
 * A campaign's counters end exact, through HTTP against the local runtime, with every queue
 * message delivered twice (`redeliverEachMessage`, as SQS may) and each provider call taking a
 * little time (so that a redelivered fan-out message runs a batch beside its continuation):
 *
 * - duplicate delivery alone: every recipient mailed once and every counter (`sentCount`,
 *   `deliveredCount`, `totalRecipients`, the rates, `unknownCount`) exact once the send is SENT
 *   and the event tally has run, with no clock moved past any grace period;
 * - a worker that dies between a recipient's claim and the provider call (its claim written, SES
 *   never called): that recipient is `unknown` in the stats (`unknownCount`), not mailed, until
 *   the settle comes a grace period later; the settle finds it on the run, claims it again and
 *   mails it, once, and every counter ends exact.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { jobs, normalizers } from '../../functions/queues/jobs';
import { campaignJobs } from '../../shared/campaigns/jobs';
import { CAMPAIGN_SEND_JOB } from '../../shared/campaigns/messages';
import { fastTimings } from '../../shared/composition/local';
import { runTally, TALLY_SETTLE_MS } from '../../shared/events/tally';
import { jobsWorker } from '../../shared/jobs/registry';
import type { Deps, RawEmail } from '../../shared/ports';
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
import { type StoreCall, watchedDeps } from './helpers/faults';
import { type Json, useLocalRuntime } from './helpers/local';

/** The address whose worker dies right after its claim lands (once), if any. */
let dieAfterClaimOf: string | undefined;
let died = 0;
/** Told of each settle message before the worker runs it (queue delays are short here). */
let beforeSettle: ((message: Json) => Promise<void>) | undefined;
const claimOf = (call: StoreCall, to: string) =>
  call.op === 'put' && call.key?.sk === '#MSG' && call.item?.to === to && call.item?.status === 'SENDING';

const workerJobs = [
  ...jobs.filter((j) => j.type !== CAMPAIGN_SEND_JOB),
  ...campaignJobs({ chunkSize: 10, budgetMs: 0 }),
];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const rt = useLocalRuntime({
  env: { SES_MAX_SEND_RATE: '100000' },
  timings: { ...fastTimings, redeliverEachMessage: true },
  handlers: {
    queues: {
      jobs: (deps: Deps) => {
        // Each provider call takes 20 ms, half before the sink accepts the message.
        const mailer = {
          maxSendRate: async () => undefined,
          sendRaw: async (email: RawEmail) => {
            await sleep(10);
            const out = await deps.mailer.sendRaw(email);
            await sleep(10);
            return out;
          },
        };
        const watched = watchedDeps(
          { ...deps, mailer },
          {
            after: (call) => {
              if (dieAfterClaimOf && claimOf(call, dieAfterClaimOf)) {
                dieAfterClaimOf = undefined;
                died++;
                throw new Error('simulated worker crash after the claim');
              }
            },
          },
        );
        const worker = jobsWorker(watched, workerJobs, normalizers);
        return async (event: SQSEvent) => {
          for (const record of event.Records) {
            const body = JSON.parse(record.body);
            if (body.type === CAMPAIGN_SEND_JOB && body.settle) await beforeSettle?.(body);
          }
          return worker(event);
        };
      },
    },
  },
});

async function send(p: CampaignProject, id: string) {
  const res = await p.api('POST', `/campaigns/${id}/send`, { body: {} });
  expect(res.status, res.text).toBe(200);
  await rt.drain({ timeoutMs: 120_000 });
}

const stats = async (p: CampaignProject, id: string) => {
  const res = await p.api('GET', `/campaigns/${id}/stats`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
};

/** Moves the clock past the event tally's settle time and runs it: engagement counted. */
async function tally(p: CampaignProject) {
  await rt.runtime.clock.advance(TALLY_SETTLE_MS / 1000 + 1);
  await rt.drain({ timeoutMs: 60_000 });
  await runTally(rt.deps, p.projectId);
}

describe('every queue message delivered twice', () => {
  it('a campaign of 400 ends with every recipient mailed once and every counter exact', {
    timeout: 180_000,
  }, async () => {
    const N = 400;
    const p = await campaignProject(rt, 'dup');
    const emails = Array.from({ length: N }, (_, i) => `d${i}@dup.settle.test`);
    await seedProjectContacts(
      rt,
      p.projectId,
      emails.map((email) => ({ email })),
    );
    const c = await createCampaign(p, campaignBody(p.from));
    await send(p, c.id);
    const counts = await mailCounts(rt);
    expect(emails.filter((e) => (counts.get(e) ?? 0) !== 1)).toEqual([]);
    await tally(p);
    expect((await p.api('GET', `/campaigns/${c.id}`)).body).toMatchObject({
      status: 'SENT',
      totalRecipients: N,
      sentCount: N,
      deliveredCount: N,
    });
    expect(await stats(p, c.id)).toMatchObject({
      totalRecipients: N,
      sentCount: N,
      deliveredCount: N,
      unknownCount: 0,
      bouncedCount: 0,
      deliveryRate: 100,
      bounceRate: 0,
    });
    expect(await campaignRun(rt, p.projectId, c.id)).toMatchObject({
      recipients: N,
      sent: N,
      failed: 0,
      skipped: 0,
      unknown: 0,
      unknownIds: [],
    });
    expect(rt.queue.deadLetters()).toEqual([]);
  });
});

describe('a worker that dies between a claim and the provider call', () => {
  it('leaves the recipient unknown until the grace period is over, then it is mailed once and counted', {
    timeout: 120_000,
  }, async () => {
    const p = await campaignProject(rt, 'lost');
    const emails = Array.from({ length: 12 }, (_, i) => `l${i}@lost.settle.test`);
    const contacts = await seedProjectContacts(
      rt,
      p.projectId,
      emails.map((email) => ({ email })),
    );
    const c = await createCampaign(p, campaignBody(p.from));
    const lost = emails[7]!;
    died = 0;
    dieAfterClaimOf = lost;
    // What the campaign shows when its settle comes, a grace period after the batch's checkpoint
    // (a few seconds here: one second of queue delay lasts 10 ms).
    const seen: { settles: number; mailed?: number; campaign?: Json; stats?: Json; settle?: Json } = {
      settles: 0,
    };
    beforeSettle = async (message) => {
      if (seen.settles++ > 0) return;
      seen.settle = message.settle;
      seen.mailed = (await mailCounts(rt)).get(lost) ?? 0;
      seen.campaign = (await p.api('GET', `/campaigns/${c.id}`)).body;
      seen.stats = await stats(p, c.id);
    };
    await send(p, c.id);
    beforeSettle = undefined;
    expect(died, 'the worker died after the claim').toBe(1);

    // Until the settle, SES never got it: not mailed, and shown unknown (not sent).
    expect(seen.settle).toMatchObject({ ids: [contacts[7]!.id] });
    expect(seen.mailed).toBe(0);
    expect(seen.campaign).toMatchObject({ status: 'SENT', totalRecipients: 12, sentCount: 11 });
    expect(seen.stats).toMatchObject({ totalRecipients: 12, sentCount: 11, unknownCount: 1 });

    // The settle (delivered twice too) sent it, once.
    const counts = await mailCounts(rt);
    expect(emails.map((e) => counts.get(e) ?? 0)).toEqual(emails.map(() => 1));
    await tally(p);
    expect(await stats(p, c.id)).toMatchObject({
      totalRecipients: 12,
      sentCount: 12,
      deliveredCount: 12,
      unknownCount: 0,
      deliveryRate: 100,
    });
    expect(await campaignRun(rt, p.projectId, c.id)).toMatchObject({
      recipients: 12,
      sent: 12,
      failed: 0,
      unknown: 0,
      unknownIds: [],
    });
    const events = await Promise.all(contacts.map((x) => contactEvents(rt, x.id, p.projectId)));
    expect(events.map((list) => list.filter((e) => e.name === 'email.sent').length)).toEqual(
      contacts.map(() => 1),
    );
    expect(rt.queue.deadLetters()).toEqual([]);
  });
});
