/**
 * A SEGMENT campaign reaches exactly who matches its segment when the fan-out starts, through
 * HTTP: a dynamic segment whose condition drifts without contact writes (relative time, events)
 * or whose build has not finished is evaluated at the send's start instead of read from the
 * stored membership, which the periodic job refreshes only every 15 minutes
 * (shared/campaigns/audience.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  type CampaignProject,
  campaignBody,
  campaignProject,
  createCampaign,
  sendNow,
} from './helpers/campaigns';
import { type Json, useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

const DAY_S = 24 * 3600;

async function contact(p: CampaignProject, email: string, data: Json = {}): Promise<string> {
  const res = await p.api('POST', '/contacts', { body: { email, data } });
  expect(res.status, res.text).toBeLessThan(300);
  return res.body.id;
}

async function segment(p: CampaignProject, name: string, filter: Json): Promise<string> {
  const res = await p.api('POST', '/segments', {
    body: { name, condition: { logic: 'AND', groups: [{ filters: [filter] }] } },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

const memberCount = async (p: CampaignProject, id: string) =>
  (await p.api('GET', `/segments/${id}`)).body.memberCount as number;

/** Sends a SEGMENT campaign now; the addresses mailed with its subject, sorted. */
async function sendTo(p: CampaignProject, segmentId: string, subject: string) {
  const c = await createCampaign(p, campaignBody(p.from, { subject, audienceType: 'SEGMENT', segmentId }));
  const sent = await sendNow(rt, p, c.id);
  const to = (await rt.mails()).filter((m) => m.subject === subject).map((m) => m.to[0]);
  return { campaign: sent as Json, to: to.sort() };
}

describe('a SEGMENT campaign reaches who matches when its fan-out starts', () => {
  it('a relative-time segment: as of the send, not as of its last periodic pass', async () => {
    const p = await campaignProject(rt, 'relseg');
    await contact(p, 'old1@relseg.test');
    await contact(p, 'old2@relseg.test');
    const recent = await segment(p, 'Recent', {
      field: 'createdAt',
      operator: 'within',
      value: 1,
      unit: 'days',
    });
    await rt.drain();
    expect(await memberCount(p, recent)).toBe(2);

    // Two days on, without the periodic job: the stored membership still holds both.
    await rt.runtime.clock.advance(2 * DAY_S);
    await contact(p, 'new@relseg.test');
    const { campaign, to } = await sendTo(p, recent, 'Recent ones');
    expect(to).toEqual(['new@relseg.test']);
    expect(campaign).toMatchObject({ status: 'SENT', totalRecipients: 1, sentCount: 1 });
  });

  it('an event segment: a contact whose event came just before the send is mailed', async () => {
    const p = await campaignProject(rt, 'evtseg');
    await contact(p, 'buyer@evtseg.test');
    await contact(p, 'idle@evtseg.test');
    const buyers = await segment(p, 'Buyers', { field: 'event.purchased', operator: 'triggered' });
    await rt.drain();
    expect(await memberCount(p, buyers)).toBe(0);

    const tracked = await p.api('POST', '/events/track', {
      body: { email: 'buyer@evtseg.test', event: 'purchased' },
    });
    expect(tracked.status, tracked.text).toBe(200);
    const { campaign, to } = await sendTo(p, buyers, 'Thanks, buyers');
    expect(to).toEqual(['buyer@evtseg.test']);
    expect(campaign).toMatchObject({ status: 'SENT', totalRecipients: 1 });
  });

  it('a segment created just before the send, and a contact written right after it, are both reached', async () => {
    const p = await campaignProject(rt, 'newseg');
    await contact(p, 'pro1@newseg.test', { plan: 'pro' });
    await contact(p, 'free@newseg.test', { plan: 'free' });
    const pro = await segment(p, 'Pro', { field: 'data.plan', operator: 'equals', value: 'pro' });
    // No wait for the build: the contact's write, then the send, at once.
    await contact(p, 'pro2@newseg.test', { plan: 'pro' });
    const { campaign, to } = await sendTo(p, pro, 'Pro news');
    expect(to).toEqual(['pro1@newseg.test', 'pro2@newseg.test']);
    expect(campaign).toMatchObject({ status: 'SENT', totalRecipients: 2 });
  });

  it('a contact-field segment built in full is read from its stored members', async () => {
    const p = await campaignProject(rt, 'builtseg');
    await contact(p, 'pro@builtseg.test', { plan: 'pro' });
    const offId = await contact(p, 'off@builtseg.test', { plan: 'pro' });
    const pro = await segment(p, 'Pro', { field: 'data.plan', operator: 'equals', value: 'pro' });
    await rt.drain();
    expect(await memberCount(p, pro)).toBe(2);
    const off = await p.api('PATCH', `/contacts/${offId}`, { body: { subscribed: false } });
    expect(off.status, off.text).toBe(200);
    await contact(p, 'late@builtseg.test', { plan: 'pro' });
    const { to } = await sendTo(p, pro, 'Built pro');
    expect(to).toEqual(['late@builtseg.test', 'pro@builtseg.test']);
  });
});
