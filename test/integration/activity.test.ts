/**
 * `/activity` and `/analytics` through HTTP against the local runtime, on a project of their own:
 * sends (one to the mailbox simulator's bounce address), an open, a tracked event and a campaign;
 * the queue applies SES's events, the tally counts them, and every endpoint answers from the
 * counters and indexes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runTally, TALLY_SETTLE_MS } from '../../shared/events/tally';
import {
  type CampaignProject,
  campaignBody,
  campaignProject,
  createCampaign,
  seedProjectContacts,
  sendNow,
} from './helpers/campaigns';
import { type Json, useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime({ env: { SES_MAX_SEND_RATE: '1000' } });
const SIM = 'simulator.amazonses.com';
let p: CampaignProject;
let campaignId: string;

async function get(path: string, query?: Record<string, string | number>) {
  const res = await p.api('GET', path, { query });
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return res.body as Json;
}

/** Every item of the feed for `query`, page by page (`limit` each). */
async function allActivity(query: Record<string, string | number>): Promise<Json[]> {
  const out: Json[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const page = await get('/activity', { ...query, ...(cursor ? { cursor } : {}) });
    out.push(...page.data);
    if (!page.hasMore) return out;
    cursor = page.cursor;
  }
  throw new Error('too many pages');
}

beforeAll(async () => {
  p = await campaignProject(rt, 'activity');
  for (const to of ['a@activity.test', 'b@activity.test', `bounce@${SIM}`]) {
    const res = await p.api('POST', '/v1/send', {
      body: { to, from: p.from, subject: 'Hi', body: '<p>Hi</p>', subscribed: true },
    });
    expect(res.status, res.text).toBe(200);
  }
  const tracked = await p.api('POST', '/events/track', {
    body: { email: 'a@activity.test', event: 'signup', data: { plan: 'pro' } },
  });
  expect(tracked.status, tracked.text).toBe(200);
  await rt.drain();
  const mails = ((await rt.api('GET', '/_local/emails')).body as Json[]).filter((m) => m.from === p.from);
  const toA = mails.find((m) => m.to.includes('a@activity.test'))!;
  expect((await rt.api('POST', `/_local/emails/${toA.id}/open`)).status).toBe(202);

  await seedProjectContacts(rt, p.projectId, [{ email: 'c1@activity.test' }, { email: 'c2@activity.test' }]);
  campaignId = (await createCampaign(p, campaignBody(p.from, { name: 'Launch' }))).id;
  await sendNow(rt, p, campaignId);
  const later = await createCampaign(p, campaignBody(p.from, { name: 'Later' }));
  const inTwoDays = new Date(rt.deps.clock.now().getTime() + 2 * 86_400_000).toISOString();
  expect(
    (await p.api('POST', `/campaigns/${later.id}/send`, { body: { scheduledFor: inTwoDays } })).status,
  ).toBe(200);
  const far = await createCampaign(p, campaignBody(p.from, { name: 'Far' }));
  const inFarFuture = new Date(rt.deps.clock.now().getTime() + 100 * 86_400_000).toISOString();
  expect(
    (await p.api('POST', `/campaigns/${far.id}/send`, { body: { scheduledFor: inFarFuture } })).status,
  ).toBe(200);
  await rt.drain();
  // Settled, then counted.
  await rt.runtime.clock.advance(TALLY_SETTLE_MS / 1000 + 1);
  await runTally(rt.deps, p.projectId);
});

describe('GET /activity', () => {
  it('lists the activity newest first, page by page, without segment events or duplicates', async () => {
    const whole = await allActivity({ limit: 100 });
    const items = await allActivity({ limit: 3 });
    expect(items.map((i) => i.id)).toEqual(whole.map((i) => i.id));
    const types = items.map((i) => i.type);
    expect(types.filter((t) => t === 'email.sent')).toHaveLength(7);
    expect(types.filter((t) => t === 'email.delivered')).toHaveLength(6);
    expect(types.filter((t) => t === 'email.bounced')).toHaveLength(1);
    expect(types.filter((t) => t === 'email.opened')).toHaveLength(1);
    expect(types.filter((t) => t === 'contact.unsubscribed')).toHaveLength(1);
    expect(types.filter((t) => t === 'event.tracked')).toHaveLength(1);
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
    const stamps = items.map((i) => i.timestamp);
    expect([...stamps].sort().reverse()).toEqual(stamps);
    const tracked = items.find((i) => i.type === 'event.tracked')!;
    expect(tracked).toMatchObject({
      contactEmail: 'a@activity.test',
      metadata: { event: 'signup', plan: 'pro' },
      contactId: expect.any(String),
    });
    const opened = items.find((i) => i.type === 'email.opened')!;
    expect(opened.metadata).toMatchObject({ subject: 'Hi', first: true, emailId: expect.any(String) });
  });

  it('filters by types (merging each type in order) and by contact', async () => {
    const two = await allActivity({ types: 'email.opened,email.bounced,event.tracked', limit: 2 });
    expect(two.map((i) => i.type).sort()).toEqual(['email.bounced', 'email.opened', 'event.tracked']);
    const all = await allActivity({ limit: 100 });
    const contactId = all.find((i) => i.type === 'event.tracked')!.contactId;
    const forA = await allActivity({ contactId, limit: 100 });
    expect(forA.length).toBeGreaterThanOrEqual(4);
    expect(forA.every((i) => i.contactId === contactId)).toBe(true);
    const onlyOpens = await allActivity({ contactId, types: 'email.opened' });
    expect(onlyOpens.map((i) => i.type)).toEqual(['email.opened']);
  });

  it('pages a filtered source that stops short without skipping what lies beyond it', async () => {
    // event.tracked is read from the time index with a filter: a page of one reads a few items
    // per request, most of them the service's own events, and may end before it finds its match.
    const tracked = await allActivity({ types: 'event.tracked', limit: 1 });
    expect(tracked.map((i) => i.type)).toEqual(['event.tracked']);
    const mixed = await allActivity({ types: 'event.tracked,email.sent', limit: 1 });
    expect(mixed.filter((i) => i.type === 'event.tracked')).toHaveLength(1);
    expect(mixed.filter((i) => i.type === 'email.sent')).toHaveLength(7);
  });

  it('keeps to the date window', async () => {
    const future = (days: number) =>
      new Date(rt.deps.clock.now().getTime() + days * 86_400_000).toISOString();
    expect((await get('/activity', { startDate: future(1), endDate: future(2) })).data).toEqual([]);
    const past = new Date(rt.deps.clock.now().getTime() - 86_400_000).toISOString();
    expect((await get('/activity', { endDate: past })).data).toEqual([]);
  });

  it('refuses an unknown type (400), a bad window, date or limit, and a forged cursor', async () => {
    const unknown = await p.api('GET', '/activity', { query: { types: 'email.sent,email.nope' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('email.nope');
    expect(
      (await p.api('GET', '/activity', { query: { startDate: '2026-02-01', endDate: '2026-01-01' } })).status,
    ).toBe(400);
    expect((await p.api('GET', '/activity', { query: { startDate: 'yesterday-ish' } })).status).toBe(422);
    expect((await p.api('GET', '/activity', { query: { limit: 0 } })).status).toBe(422);
    expect((await p.api('GET', '/activity', { query: { cursor: 'bm90IGEgcG9zaXRpb24' } })).status).toBe(400);
    expect((await p.api('GET', '/activity', { query: { contactId: 'not-a-uuid' } })).status).toBe(422);
  });
});

describe('the activity figures', () => {
  it('GET /activity/stats sums the day counters', async () => {
    expect(await get('/activity/stats')).toEqual({
      totalEvents: (await allActivity({ limit: 100 })).length,
      // Three sends, and the campaign's four subscribed recipients (the bounced one was unsubscribed).
      totalEmailsSent: 7,
      totalEmailsDelivered: 6,
      totalEmailsOpened: 1,
      totalEmailsClicked: 0,
      totalEmailsBounced: 1,
      totalEmailsComplained: 0,
      totalWorkflowsStarted: 0,
      totalOpens: 1,
      totalClicks: 0,
      openRate: 14.29,
      clickRate: 0,
    });
    expect((await p.api('GET', '/activity/stats', { query: { days: 366 } })).status).toBe(422);
  });

  it('GET /activity/recent-count counts the last minutes', async () => {
    const total = (await allActivity({ limit: 100 })).length;
    expect(await get('/activity/recent-count', { minutes: 60 })).toEqual({ count: total, minutes: 60 });
    expect(await get('/activity/recent-count')).toEqual({ count: total, minutes: 60 });
    expect((await p.api('GET', '/activity/recent-count', { query: { minutes: 1441 } })).status).toBe(422);
  });

  it('GET /activity/types lists the types seen', async () => {
    expect((await get('/activity/types')).types).toEqual([
      'email.sent',
      'email.delivered',
      'email.opened',
      'email.bounced',
      'contact.unsubscribed',
      'event.tracked',
    ]);
  });

  it('GET /activity/upcoming lists scheduled campaigns within daysAhead', async () => {
    const { activities } = await get('/activity/upcoming');
    expect(activities).toEqual([
      {
        type: 'campaign.scheduled',
        at: expect.any(String),
        campaignId: expect.any(String),
        executionId: null,
        name: 'Later',
      },
    ]);
    expect((await get('/activity/upcoming', { daysAhead: 90, limit: 1 })).activities).toHaveLength(1);
    expect((await p.api('GET', '/activity/upcoming', { query: { daysAhead: 91 } })).status).toBe(422);
  });
});

describe('GET /analytics/*', () => {
  it('timeseries: every bucket present, zeros included, by day and by hour', async () => {
    const today = rt.deps.clock.now();
    const start = new Date(today.getTime() - 2 * 86_400_000).toISOString();
    const { series } = await get('/analytics/timeseries', { startDate: start, endDate: today.toISOString() });
    expect(series).toHaveLength(3);
    expect(series[0]).toEqual({
      date: start.slice(0, 10),
      sent: 0,
      delivered: 0,
      opened: 0,
      clicked: 0,
      bounced: 0,
      complained: 0,
    });
    expect(series[2]).toMatchObject({
      date: today.toISOString().slice(0, 10),
      sent: 7,
      delivered: 6,
      opened: 1,
      bounced: 1,
    });
    const hourStart = new Date(today.getTime() - 5 * 3_600_000).toISOString();
    const hourly = (
      await get('/analytics/timeseries', {
        startDate: hourStart,
        endDate: today.toISOString(),
        granularity: 'hour',
      })
    ).series;
    expect(hourly).toHaveLength(6);
    expect(hourly.reduce((sum: number, b: Json) => sum + b.sent, 0)).toBe(7);
    expect(
      (
        await p.api('GET', '/analytics/timeseries', {
          query: { startDate: '2025-01-01', granularity: 'hour' },
        })
      ).status,
    ).toBe(400);
    expect((await p.api('GET', '/analytics/timeseries', { query: { granularity: 'week' } })).status).toBe(
      422,
    );
  });

  it('top-campaigns, campaign-stats and top-events', async () => {
    const top = (await get('/analytics/top-campaigns', { metric: 'sent', limit: 1 })).campaigns;
    expect(top).toEqual([
      {
        id: campaignId,
        name: 'Launch',
        sentCount: 4,
        openedCount: 0,
        clickedCount: 0,
        openRate: 0,
        clickRate: 0,
      },
    ]);
    const breakdown = (await get('/analytics/campaign-stats')).campaigns;
    expect(breakdown.map((c: Json) => [c.name, c.status]).sort()).toEqual([
      ['Far', 'SCHEDULED'],
      ['Later', 'SCHEDULED'],
      ['Launch', 'SENT'],
    ]);
    expect(breakdown.find((c: Json) => c.name === 'Launch')).toMatchObject({ sentCount: 4 });
    const events = (await get('/analytics/top-events', { limit: 3 })).events;
    expect(events[0]).toEqual({ name: 'email.sent', count: 7 });
    expect(events).toHaveLength(3);
    expect((await p.api('GET', '/analytics/top-campaigns', { query: { metric: 'bounced' } })).status).toBe(
      422,
    );
  });
});
