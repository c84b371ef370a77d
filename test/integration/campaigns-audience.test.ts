/**
 * The audience before sending, through HTTP (docs/campaigns.md, "The audience before sending"):
 * `POST /campaigns/{id}/audience` counts a draft's audience as a job, `GET` answers it, and the
 * count is what sending the campaign then mails: ALL, FILTERED and SEGMENT audiences, MARKETING
 * content leaving out unsubscribed, suppressed and snoozed contacts, TRANSACTIONAL content
 * including the unsubscribed. `POST /audiences` counts a condition tree alone, as a segment with
 * that condition has it. Bad input gets the error envelope and changes nothing.
 *
 * Every queue message is delivered twice (`redeliverEachMessage`, as SQS may) and the count reads
 * two candidates a chunk, one chunk a message: its counts come out exact all the same. The fan-out
 * reads its audience in ranges of four, so every audience here spans several pages of both.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { jobs, normalizers } from '../../functions/queues/jobs';
import { audienceCountJobs, campaignJobs } from '../../shared/campaigns/jobs';
import { AUDIENCE_COUNT_JOB, CAMPAIGN_SEND_JOB } from '../../shared/campaigns/messages';
import { fastTimings } from '../../shared/composition/local';
import { suppress } from '../../shared/email-events/repository';
import { jobsWorker } from '../../shared/jobs/registry';
import type { Deps } from '../../shared/ports';
import {
  type CampaignProject,
  campaignBody,
  campaignProject,
  createCampaign,
  seedProjectContacts,
  sendNow,
} from './helpers/campaigns';
import { type Json, useLocalRuntime } from './helpers/local';

// Small pages for the fan-out too (ranges of 4), so a SEGMENT audience's send crosses pages.
const workerJobs = [
  ...jobs.filter((j) => j.type !== AUDIENCE_COUNT_JOB && j.type !== CAMPAIGN_SEND_JOB),
  ...campaignJobs({ chunkSize: 2 }),
  ...audienceCountJobs({ chunkSize: 2, budgetMs: 0 }),
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

const DAY_MS = 86_400_000;
const inDays = (days: number) => new Date(rt.deps.clock.now().getTime() + days * DAY_MS).toISOString();
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

/** Starts a campaign's count (202), waits for the queue, and answers the count as GET has it. */
async function countCampaign(p: CampaignProject, campaignId: string): Promise<Json> {
  const started = await p.api('POST', `/campaigns/${campaignId}/audience`);
  expect(started.status, started.text).toBe(202);
  expect(started.body).toMatchObject({ id: campaignId, campaignId, status: 'queued', count: 0 });
  await rt.drain({ timeoutMs: 60_000 });
  const got = await p.api('GET', `/campaigns/${campaignId}/audience`);
  expect(got.status, got.text).toBe(200);
  expect(got.body.status).toBe('completed');
  return got.body;
}

async function countTree(p: CampaignProject, body: Record<string, unknown>): Promise<Json> {
  const started = await p.api('POST', '/audiences', { body });
  expect(started.status, started.text).toBe(202);
  expect(started.body).toMatchObject({ campaignId: null, status: 'queued', audienceType: 'FILTERED' });
  await rt.drain({ timeoutMs: 60_000 });
  const got = await p.api('GET', `/audiences/${started.body.id}`);
  expect(got.status, got.text).toBe(200);
  expect(got.body.status).toBe('completed');
  return got.body;
}

/** The tree counts stored for the project (a Scan: a test's look at the table, never the service's). */
async function treeCountItems(projectId: string): Promise<unknown[]> {
  const { db, tableName } = rt.runtime.dynamo;
  const out: unknown[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'begins_with(pk, :p)',
        ExpressionAttributeValues: { ':p': `P#${projectId}#AUDIENCE#` },
        ExclusiveStartKey: start,
      }),
    );
    out.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/** Addresses the campaign's send mailed (by its subject). */
async function mailedWith(subject: string): Promise<string[]> {
  return (await rt.mails())
    .filter((m) => m.subject === subject)
    .map((m) => m.to[0]!.toLowerCase())
    .sort();
}

/** A project with contacts of every kind the rules tell apart; answers them by name. */
async function mixedProject(tag: string) {
  const p = await campaignProject(rt, tag);
  const d = `${tag}.audience.test`;
  const [a, b, c, off, gone, offGone, dozing] = await seedProjectContacts(rt, p.projectId, [
    { email: `a@${d}` },
    { email: `b@${d}` },
    { email: `c@${d}` },
    { email: `off@${d}`, subscribed: false },
    { email: `gone@${d}` },
    // Unsubscribed by the bounce that suppressed it: left out as unsubscribed, the first rule.
    { email: `offgone@${d}`, subscribed: false },
    { email: `dozing@${d}` },
  ]);
  for (const email of [gone!.email, offGone!.email])
    await suppress(rt.deps, p.projectId, { email, reason: 'bounce', emailId: 'earlier', at: inDays(-1) });
  const snoozed = await p.api('PATCH', `/contacts/${dozing!.id}`, { body: { snoozedUntil: inDays(3) } });
  expect(snoozed.status, snoozed.text).toBe(200);
  return { p, a: a!, b: b!, c: c!, off: off!, gone: gone!, offGone: offGone!, dozing: dozing! };
}

describe('the audience of a campaign', () => {
  it('MARKETING, ALL: the count is what the send mails; the left out are counted by reason', async () => {
    const { p, a, b, c } = await mixedProject('mkt');
    const campaign = await createCampaign(p, campaignBody(p.from, { subject: 'Marketing all' }));
    const before = await p.api('GET', `/campaigns/${campaign.id}/audience`);
    expect(before.status, 'no count yet').toBe(404);
    expect(before.body.error.code).toBe('NOT_FOUND');

    const count = await countCampaign(p, campaign.id);
    expect(count).toMatchObject({
      type: 'MARKETING',
      audienceType: 'ALL',
      count: 3,
      matched: 7,
      excluded: { unsubscribed: 2, suppressed: 1, snoozed: 1 },
    });
    const recipients = [a, b, c].map((x) => ({ id: x.id, email: x.email }));
    expect(count.sample).toEqual(recipients);
    expect(Date.parse(count.computedAt)).toBeLessThanOrEqual(Date.parse(count.completedAt));

    const sent = await sendNow(rt, p, campaign.id);
    expect(sent).toMatchObject({ status: 'SENT', sentCount: count.count });
    expect(await mailedWith('Marketing all')).toEqual(recipients.map((r) => r.email).sort());
  });

  it('TRANSACTIONAL, ALL: unsubscribed and snoozed contacts are counted in, suppressed ones left out', async () => {
    const { p, gone, offGone } = await mixedProject('txn');
    const campaign = await createCampaign(
      p,
      campaignBody(p.from, { subject: 'Transactional all', type: 'TRANSACTIONAL' }),
    );
    const count = await countCampaign(p, campaign.id);
    expect(count).toMatchObject({
      type: 'TRANSACTIONAL',
      count: 5,
      matched: 7,
      excluded: { unsubscribed: 0, suppressed: 2, snoozed: 0 },
    });
    const sent = await sendNow(rt, p, campaign.id);
    expect(sent).toMatchObject({ status: 'SENT', sentCount: 5 });
    const mailed = await mailedWith('Transactional all');
    expect(mailed).toHaveLength(5);
    expect(mailed).not.toContain(gone.email);
    expect(mailed).not.toContain(offGone.email);
    expect(count.sample.map((s: Json) => s.email).sort()).toEqual(mailed);
  });

  it('FILTERED: a condition; the sample holds at most 10 recipients, all of them in the audience', async () => {
    const p = await campaignProject(rt, 'filtered');
    const d = 'filtered.audience.test';
    await seedProjectContacts(rt, p.projectId, [
      ...Array.from({ length: 13 }, (_, i) => ({ email: `pro${i}@${d}`, data: { plan: 'pro' } })),
      { email: `prooff@${d}`, subscribed: false, data: { plan: 'pro' } },
      ...Array.from({ length: 4 }, (_, i) => ({ email: `free${i}@${d}`, data: { plan: 'free' } })),
    ]);
    const condition = {
      logic: 'AND',
      groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
    };
    const campaign = await createCampaign(
      p,
      campaignBody(p.from, { subject: 'Pro only', audienceType: 'FILTERED', audienceCondition: condition }),
    );
    const count = await countCampaign(p, campaign.id);
    expect(count).toMatchObject({
      audienceType: 'FILTERED',
      count: 13,
      matched: 14,
      excluded: { unsubscribed: 1, suppressed: 0, snoozed: 0 },
    });
    expect(count.sample).toHaveLength(10);
    expect(new Set(count.sample.map((s: Json) => s.id)).size).toBe(10);
    await sendNow(rt, p, campaign.id);
    const mailed = await mailedWith('Pro only');
    expect(mailed).toHaveLength(count.count);
    for (const s of count.sample) expect(mailed).toContain(s.email);
    expect((await p.api('GET', `/campaigns/${campaign.id}`)).body.sentCount).toBe(count.count);
  });

  it('SEGMENT: the count is what the send mails, and a tree count of the segment’s condition agrees', async () => {
    const p = await campaignProject(rt, 'segment');
    const d = 'segment.audience.test';
    const contacts = await seedProjectContacts(rt, p.projectId, [
      { email: `vip1@${d}`, data: { tier: 'vip' } },
      { email: `vip2@${d}`, data: { tier: 'vip' } },
      { email: `vip3@${d}`, data: { tier: 'vip' } },
      { email: `vipoff@${d}`, subscribed: false, data: { tier: 'vip' } },
      { email: `vipgone@${d}`, data: { tier: 'vip' } },
      { email: `basic@${d}`, data: { tier: 'basic' } },
    ]);
    await suppress(rt.deps, p.projectId, {
      email: `vipgone@${d}`,
      reason: 'complaint',
      emailId: 'earlier',
      at: inDays(-1),
    });
    const dozing = contacts[2]!;
    expect(
      (await p.api('PATCH', `/contacts/${dozing.id}`, { body: { snoozedUntil: inDays(1) } })).status,
    ).toBe(200);
    const condition = {
      logic: 'AND',
      groups: [{ filters: [{ field: 'data.tier', operator: 'equals', value: 'vip' }] }],
    };
    const segment = await p.api('POST', '/segments', { body: { name: 'VIPs', condition } });
    expect(segment.status, segment.text).toBe(201);
    await rt.drain({ timeoutMs: 60_000 });
    const { memberCount } = (await p.api('GET', `/segments/${segment.body.id}`)).body;
    expect(memberCount).toBe(5);

    const campaign = await createCampaign(
      p,
      campaignBody(p.from, { subject: 'VIP news', audienceType: 'SEGMENT', segmentId: segment.body.id }),
    );
    const count = await countCampaign(p, campaign.id);
    expect(count).toMatchObject({
      audienceType: 'SEGMENT',
      segmentId: segment.body.id,
      count: 2,
      matched: memberCount,
      excluded: { unsubscribed: 1, suppressed: 1, snoozed: 1 },
    });

    const tree = await countTree(p, { condition });
    expect(tree).toMatchObject({
      type: 'MARKETING',
      count: count.count,
      matched: memberCount,
      excluded: count.excluded,
      sample: count.sample,
    });

    await sendNow(rt, p, campaign.id);
    expect(await mailedWith('VIP news')).toEqual([`vip1@${d}`, `vip2@${d}`]);
    expect((await p.api('GET', `/campaigns/${campaign.id}`)).body.sentCount).toBe(count.count);
  });

  it('a new count replaces the last one; a count is judged at its own instant (the clock)', async () => {
    const p = await campaignProject(rt, 'recount');
    const [first] = await seedProjectContacts(rt, p.projectId, [
      { email: 'one@recount.audience.test' },
      { email: 'two@recount.audience.test' },
    ]);
    const campaign = await createCampaign(p, campaignBody(p.from, { subject: 'Recount' }));
    // Two counts started before either runs: the second replaces the first, whose messages stop.
    expect((await p.api('POST', `/campaigns/${campaign.id}/audience`)).status).toBe(202);
    expect(await countCampaign(p, campaign.id)).toMatchObject({ count: 2, matched: 2 });

    expect((await p.api('PATCH', `/contacts/${first!.id}`, { body: { subscribed: false } })).status).toBe(
      200,
    );
    expect(await countCampaign(p, campaign.id)).toMatchObject({
      count: 1,
      excluded: { unsubscribed: 1, suppressed: 0, snoozed: 0 },
    });

    // The seeded contacts were created an hour ago: within 90 minutes now, not once the clock moves on.
    const recent = {
      logic: 'AND',
      groups: [{ filters: [{ field: 'createdAt', operator: 'within', value: 90, unit: 'minutes' }] }],
    };
    expect(await countTree(p, { condition: recent, type: 'TRANSACTIONAL' })).toMatchObject({ count: 2 });
    await rt.runtime.clock.advance(3600);
    expect(await countTree(p, { condition: recent, type: 'TRANSACTIONAL' })).toMatchObject({
      count: 0,
      matched: 0,
      sample: [],
    });
  });
});

describe('bad input gets the error envelope and changes nothing', () => {
  it('unknown campaign 404, non-UUID id 422, a campaign already sent 409', async () => {
    const p = await campaignProject(rt, 'bad');
    await seedProjectContacts(rt, p.projectId, [{ email: 'only@bad.audience.test' }]);
    for (const method of ['POST', 'GET']) {
      const unknown = await p.api(method, `/campaigns/${UNKNOWN}/audience`);
      expect(unknown.status, unknown.text).toBe(404);
      expect(unknown.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND', statusCode: 404 } });
      const notUuid = await p.api(method, '/campaigns/not-a-uuid/audience');
      expect(notUuid.status, notUuid.text).toBe(422);
      expect(notUuid.body.error.code).toBe('VALIDATION_ERROR');
    }
    const unknownTree = await p.api('GET', `/audiences/${UNKNOWN}`);
    expect(unknownTree.status).toBe(404);
    expect(unknownTree.body.error.code).toBe('NOT_FOUND');
    expect((await p.api('GET', '/audiences/nope')).status).toBe(422);

    const campaign = await createCampaign(p, campaignBody(p.from, { subject: 'Once' }));
    const counted = await countCampaign(p, campaign.id);
    await sendNow(rt, p, campaign.id);
    const again = await p.api('POST', `/campaigns/${campaign.id}/audience`);
    expect(again.status, again.text).toBe(409);
    expect(again.body).toMatchObject({
      success: false,
      error: { code: 'CAMPAIGN_ALREADY_SENT', statusCode: 409, details: { status: 'SENT' } },
    });
    await rt.drain();
    // The count taken before the send is still the one answered.
    expect((await p.api('GET', `/campaigns/${campaign.id}/audience`)).body).toEqual(counted);
  });

  it('a bad condition tree 422 naming the filter, a missing one 400; nothing is counted', async () => {
    const p = await campaignProject(rt, 'badtree');
    const bad = await p.api('POST', '/audiences', {
      body: {
        condition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'data.plan', operator: 'isAbout', value: 'pro' }] }],
        },
      },
    });
    expect(bad.status, bad.text).toBe(422);
    expect(bad.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', statusCode: 422 } });
    expect(bad.body.error.errors[0].field).toMatch(/^condition\.groups\.0\.filters\.0/);
    const wrongType = await p.api('POST', '/audiences', {
      body: { condition: { logic: 'AND', groups: [] }, type: 'NEWSLETTER' },
    });
    expect(wrongType.status, wrongType.text).toBe(422);
    const missing = await p.api('POST', '/audiences', { body: {} });
    expect(missing.status, missing.text).toBe(400);
    expect(missing.body.error.code).toBe('BAD_REQUEST');
    await rt.drain();
    expect(await treeCountItems(p.projectId)).toEqual([]);
  });
});
