/**
 * Crash safety of a campaign's fan-out, through HTTP against the local runtime. The jobs worker
 * runs the fan-out in batches of 5 (one batch a message) over a store that fails one chosen
 * request, once, as a worker that dies there would (12 recipients: two ranges of two batches of 5
 * at most, sent by two lanes); the queue delivers the message again and the
 * send must end as an uninterrupted one does: every recipient mailed exactly once, nobody
 * skipped, every count added once, every `email.sent` event stored once. A failure is injected
 * between each pair of the fan-out's writes: the run's creation, a range's item and its claim,
 * the rate reservation, a recipient's claim, an `email.sent` event (a recipient's outcome), a
 * batch's checkpoint and a range's last one, the run's end and the campaign's end.
 *
 * The one window no store fault reaches is between a claim and the provider's answer: a worker
 * that dies there leaves the record SENDING with no `email.sent`, and that recipient is not sent
 * again while it may have been mailed: it counts as `unknown` until SES's Send event for it
 * settles it (after a grace period no live sender outlasts) with that same event, and the
 * campaign's settle turns the count into `sent`. The failure of the event's write right after the provider call is that
 * case, seen from the store.
 * test/crash/campaign.test.ts kills the runtime process there for real.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { jobs, normalizers } from '../../functions/queues/jobs';
import { RetryableSendError } from '../../shared/adapters/aws/send-errors';
import { campaignJobs } from '../../shared/campaigns/jobs';
import { CAMPAIGN_SEND_JOB } from '../../shared/campaigns/messages';
import { SENDING_GRACE_MS } from '../../shared/email-events/repository';
import { runTally, TALLY_SETTLE_MS } from '../../shared/events/tally';
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
import { contactEvents } from './helpers/contacts';
import { type StoreCall, StoreFaults } from './helpers/faults';
import { useLocalRuntime } from './helpers/local';

const faults = new StoreFaults('simulated worker crash');

/** Addresses SES "throttles", and how many more times each. */
const throttled = new Map<string, number>();

const workerJobs = [
  ...jobs.filter((j) => j.type !== CAMPAIGN_SEND_JOB),
  ...campaignJobs({
    chunkSize: 5,
    budgetMs: 0,
    delivery: { attempts: 2, backoffMs: 5 },
    throttledDelaySeconds: 1,
  }),
];

const rt = useLocalRuntime({
  env: { SES_MAX_SEND_RATE: '100000' },
  handlers: {
    queues: {
      jobs: (deps: Deps) => {
        const mailer = {
          maxSendRate: async () => undefined,
          sendRaw: async (email: RawEmail) => {
            const left = throttled.get(email.to[0]!) ?? 0;
            if (left > 0) {
              throttled.set(email.to[0]!, left - 1);
              throw new RetryableSendError('RATE_EXCEEDED', 'Maximum sending rate exceeded.');
            }
            return deps.mailer.sendRaw(email);
          },
        };
        const worker = jobsWorker({ ...faults.inject(deps), mailer }, workerJobs, normalizers);
        return (event: SQSEvent) => worker(event);
      },
    },
  },
});

const sk = (call: StoreCall) => String(call.key?.sk ?? '');
const pk = (call: StoreCall) => String(call.key?.pk ?? '');
const expr = (call: StoreCall) => String(call.expression ?? '');
const sentEvent = (c: StoreCall) =>
  c.op === 'put' && sk(c).startsWith('EV#') && c.item?.name === 'email.sent';

const crashes: [string, (call: StoreCall) => boolean, number, number][] = [
  // [when, the request that fails, which one of them, recipients left unknown]
  ['creating the run', (c) => c.op === 'put' && sk(c) === '#RUN', 1, 0],
  ['reserving send slots', (c) => c.op === 'update' && pk(c).startsWith('SENDRATE#'), 2, 0],
  ['claiming a recipient', (c) => c.op === 'put' && sk(c) === '#MSG', 7, 0],
  ['storing the first email.sent event, after the provider call', sentEvent, 1, 1],
  ['storing an email.sent event, after the provider call', sentEvent, 7, 1],
  [
    'holding the claim of a range',
    (c) => c.op === 'update' && sk(c) === '#RUN' && expr(c).includes('claimNo'),
    1,
    0,
  ],
  ['writing a range', (c) => c.op === 'put' && sk(c).startsWith('RANGE#'), 1, 0],
  ['claiming a range', (c) => c.op === 'update' && sk(c) === '#RUN' && expr(c).includes('#position'), 1, 0],
  [
    'claiming the second range',
    (c) => c.op === 'update' && sk(c) === '#RUN' && expr(c).includes('#position'),
    2,
    0,
  ],
  [
    'checkpointing a batch',
    (c) => c.op === 'update' && sk(c) === '#RUN' && expr(c).includes('ranges.#no.#batch = :next'),
    1,
    0,
  ],
  [
    "checkpointing a range's last batch",
    (c) => c.op === 'update' && sk(c) === '#RUN' && expr(c).includes('REMOVE ranges'),
    1,
    0,
  ],
  [
    'the last checkpoint',
    (c) => c.op === 'update' && sk(c) === '#RUN' && expr(c).includes('REMOVE ranges'),
    2,
    0,
  ],
  ['finishing the run', (c) => c.op === 'update' && sk(c) === '#RUN' && expr(c).includes(':finished'), 1, 0],
  ['ending the campaign', (c) => c.op === 'update' && sk(c).startsWith('CAMPAIGN#'), 1, 0],
];

describe('a fan-out that crashes', () => {
  for (const [when, match, nth, unknown] of crashes) {
    it(`while ${when} resumes on redelivery: each recipient mailed once, counted once`, async () => {
      const p = await campaignProject(rt, 'crash');
      const emails = Array.from({ length: 12 }, (_, i) => `r${i}@${p.projectId.slice(0, 8)}.crash.test`);
      const contacts = await seedProjectContacts(
        rt,
        p.projectId,
        emails.map((email) => ({ email })),
      );
      const c = await createCampaign(p, campaignBody(p.from));
      faults.failAt(match, nth);
      const done = await sendNow(rt, p, c.id);
      expect(faults.fired, 'the fault fired').toBe(true);
      faults.clear();

      const counts = await mailCounts(rt);
      expect(emails.map((e) => counts.get(e) ?? 0)).toEqual(emails.map(() => 1));
      expect(done).toMatchObject({ status: 'SENT', totalRecipients: 12 });
      const run = await campaignRun(rt, p.projectId, c.id);
      expect(run).toMatchObject({ state: 'finished', recipients: 12, failed: 0 });
      // The fan-out counted the recipient whose outcome it lost as unknown, unless its SES Send
      // event settled it while the runner that found its claim waited for its outcome (the queue's
      // delays are short here: the grace period lasts a few seconds).
      expect(run!.sent + run!.unknown).toBe(12);
      expect(run!.unknown).toBeLessThanOrEqual(unknown);
      expect((await p.api('GET', `/campaigns/${c.id}/stats`)).body.data.unknownCount).toBe(run!.unknown);

      // Its SES Send event settles it once no sender can be alive, and the campaign's settle moves
      // the count.
      await rt.runtime.clock.advance(SENDING_GRACE_MS / 1000 + 1);
      await rt.drain({ timeoutMs: 30_000 });
      await rt.runtime.clock.advance(TALLY_SETTLE_MS / 1000 + 1);
      await runTally(rt.deps, p.projectId);
      expect((await p.api('GET', `/campaigns/${c.id}`)).body).toMatchObject({ sentCount: 12 });
      expect(await campaignRun(rt, p.projectId, c.id)).toMatchObject({
        sent: 12,
        unknown: 0,
        unknownIds: [],
      });
      expect((await p.api('GET', `/campaigns/${c.id}/stats`)).body.data).toMatchObject({ unknownCount: 0 });
      const events = await Promise.all(contacts.map((x) => contactEvents(rt, x.id, p.projectId)));
      const sentEvents = events.map((list) => list.filter((e) => e.name === 'email.sent').length);
      expect(sentEvents).toEqual(contacts.map(() => 1));
      expect(rt.queue.deadLetters()).toEqual([]);
    });
  }
});

describe('a fan-out that SES throttles', () => {
  it('retries with backoff, then gives the claim back and resumes the batch later: each mailed once', async () => {
    const p = await campaignProject(rt, 'throttle');
    const emails = Array.from({ length: 8 }, (_, i) => `t${i}@${p.projectId.slice(0, 8)}.throttle.test`);
    await seedProjectContacts(
      rt,
      p.projectId,
      emails.map((email) => ({ email })),
    );
    // One recipient throttled once (retried within the delivery policy), one five times (past the
    // policy's two attempts twice over: its claim is given back and its batch runs again later).
    throttled.set(emails[1]!, 1);
    throttled.set(emails[6]!, 5);
    const c = await createCampaign(p, campaignBody(p.from));
    const done = await sendNow(rt, p, c.id);
    expect(throttled.get(emails[6]!)).toBe(0);
    const counts = await mailCounts(rt);
    expect(emails.map((e) => counts.get(e) ?? 0)).toEqual(emails.map(() => 1));
    expect(done).toMatchObject({ status: 'SENT', totalRecipients: 8, sentCount: 8 });
    expect(await campaignRun(rt, p.projectId, c.id)).toMatchObject({
      recipients: 8,
      sent: 8,
      failed: 0,
      unknown: 0,
    });
    expect(rt.queue.deadLetters()).toEqual([]);
  });
});
