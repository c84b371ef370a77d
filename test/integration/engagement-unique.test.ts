/**
 * Opens and clicks count once per email in every figure, through HTTP: one email opened 4 times
 * and clicked 3 times is one opened and one clicked email in `/activity/stats`, its rates, the
 * timeseries, a campaign's stats and the top campaigns; the repeats stay in the activity feed and
 * in the stats' `totalOpens` / `totalClicks`. Every rate stays between 0 and 100.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runTally, TALLY_SETTLE_MS } from '../../shared/events/tally';
import {
  type CampaignProject,
  campaignProject,
  createCampaign,
  seedProjectContacts,
  sendNow,
} from './helpers/campaigns';
import { type Json, useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime({ env: { SES_MAX_SEND_RATE: '1000' } });
const LINK = 'https://shop.example.com/spring';
let p: CampaignProject;
let campaignId: string;

async function get(path: string, query?: Record<string, string | number>) {
  const res = await p.api('GET', path, { query });
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return res.body as Json;
}

async function engage(to: string, opens: number, clicks: number) {
  const mails = ((await rt.api('GET', '/_local/emails')).body as Json[]).filter((m) => m.to.includes(to));
  expect(mails, to).toHaveLength(1);
  // A second apart on the runtime's clock: SES's events of one message differ by their time.
  for (let i = 0; i < opens; i++) {
    await rt.runtime.clock.advance(1);
    expect((await rt.api('POST', `/_local/emails/${mails[0].id}/open`)).status).toBe(202);
  }
  for (let i = 0; i < clicks; i++) {
    await rt.runtime.clock.advance(1);
    expect(
      (await rt.api('POST', `/_local/emails/${mails[0].id}/click`, { body: { link: LINK } })).status,
    ).toBe(202);
  }
}

async function tally() {
  await rt.drain();
  await rt.runtime.clock.advance(TALLY_SETTLE_MS / 1000 + 1);
  await runTally(rt.deps, p.projectId);
}

beforeAll(async () => {
  p = await campaignProject(rt, 'unique');
  const body = `<p>Spring is here: <a href="${LINK}">shop</a></p>`;
  for (const to of ['often@unique.test', 'never@unique.test']) {
    const res = await p.api('POST', '/v1/send', {
      body: { to, from: p.from, subject: 'Hi', body, subscribed: true },
    });
    expect(res.status, res.text).toBe(200);
  }
  await rt.drain();
  await engage('often@unique.test', 4, 3);
  await seedProjectContacts(rt, p.projectId, [{ email: 'fan@unique.test' }, { email: 'quiet@unique.test' }]);
  campaignId = (
    await createCampaign(p, {
      name: 'Spring',
      subject: 'Spring',
      body,
      from: p.from,
      type: 'MARKETING',
      audienceType: 'ALL',
    })
  ).id;
  await sendNow(rt, p, campaignId);
  await engage('fan@unique.test', 5, 2);
  await tally();
});

describe('opens and clicks once per email', () => {
  it('/activity/stats: one opened and one clicked email each, the repeats in the totals, rates of emails sent', async () => {
    const stats = await get('/activity/stats');
    expect(stats).toMatchObject({
      // Two sends, and the campaign to the four subscribed contacts (the two sends' included).
      totalEmailsSent: 6,
      totalEmailsOpened: 2,
      totalEmailsClicked: 2,
      totalOpens: 9,
      totalClicks: 5,
      openRate: 33.33,
      clickRate: 33.33,
    });
  });

  it('the timeseries counts each email once per metric', async () => {
    const now = rt.deps.clock.now();
    const start = new Date(now.getTime() - 86_400_000).toISOString();
    const { series } = await get('/analytics/timeseries', {
      start,
      end: now.toISOString(),
      granularity: 'day',
    });
    const sum = (k: string) => (series as Json[]).reduce((n, b) => n + b[k], 0);
    expect({ sent: sum('sent'), opened: sum('opened'), clicked: sum('clicked') }).toEqual({
      sent: 6,
      opened: 2,
      clicked: 2,
    });
  });

  it("the campaign's stats and the top campaigns count its recipient once, rates at most 100", async () => {
    const stats = (await get(`/campaigns/${campaignId}/stats`)).data;
    expect(stats).toMatchObject({
      sentCount: 4,
      openedCount: 1,
      clickedCount: 1,
      openRate: 25,
      clickRate: 25,
    });
    const top = await get('/analytics/top-campaigns', { metric: 'opened' });
    expect(top.campaigns[0]).toMatchObject({ id: campaignId, openedCount: 1, openRate: 25 });
  });

  it('the activity feed still lists every open and click', async () => {
    const feed = await get('/activity', { types: 'email.opened,email.clicked', limit: 100 });
    const types = (feed.data as Json[]).map((i) => i.type);
    expect(types.filter((t) => t === 'email.opened')).toHaveLength(9);
    expect(types.filter((t) => t === 'email.clicked')).toHaveLength(5);
  });
});
