/**
 * A large audience sent in ranges by parallel lanes (shared/campaigns/fanout.ts), through HTTP
 * against the local runtime, whose queue delivers every message once more after a worker
 * completes it (`redeliverEachMessage`, as SQS may). The fan-out runs in batches of 4, ranges of
 * 8 candidates and one batch a message, so 37 contacts make five ranges sent by four lanes. The
 * campaign ends SENT when its last range ends, whichever lane sends it, with every recipient
 * mailed once and every count exact; a range's batch that runs twice (its checkpoint lost, or
 * its runner stopped right after it) is counted once. A run an earlier, sequential fan-out started
 * goes on in ranges; a send whose project is disabled holds each lane, and each comes back.
 */
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { jobs, normalizers } from '../../functions/queues/jobs';
import { campaignJobs } from '../../shared/campaigns/jobs';
import { CAMPAIGN_SEND_JOB } from '../../shared/campaigns/messages';
import { getCampaignRecord } from '../../shared/campaigns/repository';
import { fastTimings } from '../../shared/composition/local';
import { jobsWorker } from '../../shared/jobs/registry';
import type { Deps } from '../../shared/ports';
import { disableProject, enableProject } from '../../shared/projects/operator';
import { HOLD_DELAY_S, PROJECT_STATE_TTL_MS } from '../../shared/projects/state';
import { keys } from '../../shared/table';
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
import { type CallMatch, type StoreCall, StoreFaults, watchedDeps } from './helpers/faults';
import { useLocalRuntime } from './helpers/local';
import { waitUntil } from './helpers/wait';

const N = 37;
const faults = new StoreFaults('simulated worker crash');
/** A request after whose success the worker "dies" (once), as one that stops right after it would. */
let dieAfter: { match: CallMatch; nth: number; seen: number; fired: boolean } | undefined;
/** Lanes of the fan-out messages handled, and recipient claims tried (a batch run again tries its claims again). */
const lanesSeen = new Set<number>();
let claimsTried = 0;
/** While set, fan-out messages wait for it before they run (those of the lanes `gated` accepts). */
let gate: Promise<void> | undefined;
let gated: (lane: number) => boolean = () => true;
/** Fan-out messages waiting at the gate, and the lanes of those handled since `lanesSeen` was cleared. */
let waiting = 0;

const workerJobs = [
  ...jobs.filter((j) => j.type !== CAMPAIGN_SEND_JOB),
  ...campaignJobs({ chunkSize: 4, rangeSize: 8, budgetMs: 0 }),
];

const rt = useLocalRuntime({
  env: { SES_MAX_SEND_RATE: '100000' },
  timings: { ...fastTimings, redeliverEachMessage: true },
  handlers: {
    queues: {
      jobs: (deps: Deps) => {
        const watched = watchedDeps(faults.inject(deps), {
          before: (call) => {
            if (call.op === 'put' && call.key?.sk === '#MSG') claimsTried++;
          },
          after: (call) => {
            const d = dieAfter;
            if (d && !d.fired && d.match(call) && ++d.seen === d.nth) {
              d.fired = true;
              throw new Error('simulated worker crash after a write');
            }
          },
        });
        const worker = jobsWorker(watched, workerJobs, normalizers);
        return async (event: SQSEvent) => {
          let lane: number | undefined;
          for (const r of event.Records) {
            const body = JSON.parse(r.body);
            if (body.type === CAMPAIGN_SEND_JOB && !body.settle) lane = body.lane ?? 0;
          }
          if (lane !== undefined && gate && gated(lane)) {
            waiting++;
            await gate;
            waiting--;
          }
          if (lane !== undefined) lanesSeen.add(lane);
          return worker(event);
        };
      },
    },
  },
});

const sk = (call: StoreCall) => String(call.key?.sk ?? '');
const expr = (call: StoreCall) => String(call.expression ?? '');
const batchCheckpoint: CallMatch = (c) =>
  c.op === 'update' && sk(c) === '#RUN' && expr(c).includes('ranges.#no.#batch = :next');
const rangeEnd: CallMatch = (c) => c.op === 'update' && sk(c) === '#RUN' && expr(c).includes('REMOVE ranges');

async function sendToAudience(
  tag: string,
  beforeItRuns?: (p: CampaignProject, campaignId: string) => Promise<void>,
) {
  const p = await campaignProject(rt, tag);
  const emails = Array.from({ length: N }, (_, i) => `r${i}@${p.projectId.slice(0, 8)}.ranges.test`);
  const contacts = await seedProjectContacts(
    rt,
    p.projectId,
    emails.map((email) => ({ email })),
  );
  const c = await createCampaign(p, campaignBody(p.from));
  lanesSeen.clear();
  claimsTried = 0;
  let open = () => {};
  if (beforeItRuns) gate = new Promise<void>((resolve) => (open = resolve));
  expect((await p.api('POST', `/campaigns/${c.id}/send`)).status).toBe(200);
  if (beforeItRuns) {
    await beforeItRuns(p, c.id);
    gate = undefined;
    open();
  }
  await rt.drain({ timeoutMs: 60_000 });
  return { p, campaignId: c.id, emails, contactIds: contacts.map((x) => x.id) };
}

async function expectExactlyOnce(p: CampaignProject, campaignId: string, emails: string[], ids: string[]) {
  const counts = await mailCounts(rt);
  expect(emails.map((e) => counts.get(e) ?? 0)).toEqual(emails.map(() => 1));
  expect((await p.api('GET', `/campaigns/${campaignId}`)).body).toMatchObject({
    status: 'SENT',
    totalRecipients: N,
    sentCount: N,
  });
  const run = await campaignRun(rt, p.projectId, campaignId);
  expect(run).toMatchObject({
    state: 'finished',
    recipients: N,
    sent: N,
    unknown: 0,
    failed: 0,
    skipped: 0,
    // Five ranges of 8 candidates claimed, none left being sent, four lanes started.
    batch: 5,
    listed: true,
    ranges: {},
    lanes: 4,
  });
  for (const id of ids) {
    const events = await contactEvents(rt, id, p.projectId);
    expect(events.filter((e) => e.name === 'email.sent')).toHaveLength(1);
  }
  expect(rt.queue.deadLetters()).toEqual([]);
}

describe('a large audience in ranges, every message delivered twice', () => {
  it('is sent by several lanes at once and ends SENT with every recipient mailed and counted once', async () => {
    const { p, campaignId, emails, contactIds } = await sendToAudience('lanes');
    expect([...lanesSeen].sort()).toEqual([0, 1, 2, 3]);
    await expectExactlyOnce(p, campaignId, emails, contactIds);
  });

  it("counts once a range's batch run again after its checkpoint was lost", async () => {
    faults.failAt(batchCheckpoint, 3);
    const { p, campaignId, emails, contactIds } = await sendToAudience('lost-checkpoint');
    expect(faults.fired, 'the fault fired').toBe(true);
    faults.clear();
    // The batch's claims were tried again: its recipients' outcomes read back, not sent again.
    expect(claimsTried).toBeGreaterThan(N);
    await expectExactlyOnce(p, campaignId, emails, contactIds);
  });

  it('counts once a range whose runner stopped right after its last checkpoint', async () => {
    dieAfter = { match: rangeEnd, nth: 2, seen: 0, fired: false };
    const { p, campaignId, emails, contactIds } = await sendToAudience('stopped-after');
    expect(dieAfter.fired, 'the worker stopped').toBe(true);
    dieAfter = undefined;
    await expectExactlyOnce(p, campaignId, emails, contactIds);
  });

  it('goes on in ranges with a run that an earlier version of the fan-out started (no ranges on its item)', async () => {
    const { p, campaignId, emails, contactIds } = await sendToAudience('legacy', async (p, campaignId) => {
      const campaign = (await rt.deps.store.get(keys.campaign(p.projectId, campaignId)))!;
      // The run as the sequential fan-out wrote it, at its start: no ranges, no lanes.
      await rt.deps.store.write({
        put: {
          ...keys.campaignRun(p.projectId, campaignId),
          entity: 'campaignRun',
          projectId: p.projectId,
          campaignId,
          runId: campaign.runId,
          state: 'running',
          startedAt: campaign.startedAt,
          batch: 0,
          position: '',
          listed: false,
          recipients: 0,
          sent: 0,
          failed: 0,
          skipped: 0,
          unknown: 0,
          error: null,
          updatedAt: campaign.startedAt,
        },
      });
    });
    await expectExactlyOnce(p, campaignId, emails, contactIds);
  });

  it('holds each lane of a send whose project is disabled, and every lane comes back once it is enabled', async () => {
    const p = await campaignProject(rt, 'disabled');
    const emails = Array.from({ length: N }, (_, i) => `d${i}@${p.projectId.slice(0, 8)}.ranges.test`);
    const contacts = await seedProjectContacts(
      rt,
      p.projectId,
      emails.map((email) => ({ email })),
    );
    const c = await createCampaign(p, campaignBody(p.from));
    // Lane 0 runs (and queues the other lanes); lanes 1 to 3 wait at the gate.
    let open = () => {};
    gate = new Promise<void>((resolve) => (open = resolve));
    gated = (lane) => lane > 0;
    expect((await p.api('POST', `/campaigns/${c.id}/send`)).status).toBe(200);
    await waitUntil('lanes 1 to 3 at the gate', () => waiting >= 3);
    // Disabled, and seen so once the state cached by this instance has expired.
    await disableProject(rt.deps, { projectId: p.projectId });
    await rt.runtime.clock.advance(PROJECT_STATE_TTL_MS / 1000 + 1);
    gate = undefined;
    gated = () => true;
    open();
    await rt.drain({ timeoutMs: 60_000 });
    const holds = rt.scheduler
      .list()
      .map((s) => s.name)
      .filter((name) => name.startsWith(`hold-campaign-${c.id}`))
      .sort();
    expect(holds).toEqual(
      [1, 2, 3]
        .map((lane) => `hold-campaign-${c.id}-${lane}`)
        .concat(`hold-campaign-${c.id}`)
        .sort(),
    );
    // (The project's keys are refused while it is disabled: the campaign is read from the table.)
    expect((await getCampaignRecord(rt.deps, p.projectId, c.id))?.status).toBe('SENDING');

    lanesSeen.clear();
    await enableProject(rt.deps, { projectId: p.projectId });
    await rt.runtime.clock.advance(HOLD_DELAY_S + 1);
    await rt.drain({ timeoutMs: 60_000 });
    expect([...lanesSeen].sort()).toEqual([0, 1, 2, 3]);
    const counts = await mailCounts(rt);
    expect(emails.map((e) => counts.get(e) ?? 0)).toEqual(emails.map(() => 1));
    expect(await getCampaignRecord(rt.deps, p.projectId, c.id)).toMatchObject({
      status: 'SENT',
      totalRecipients: N,
    });
    expect(await campaignRun(rt, p.projectId, c.id)).toMatchObject({ recipients: N, sent: N, ranges: {} });
    expect(contacts).toHaveLength(N);
  });
});
