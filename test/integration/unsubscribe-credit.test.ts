/**
 * An unsubscribe through a message's links is credited to the email and the campaign that
 * carried them, through HTTP: the one-click `List-Unsubscribe` and the manage page both count in
 * the campaign's `unsubscribedCount` (once per email, even after a re-subscribe and a second
 * unsubscribe from the same message), the `contact.unsubscribed` event names the email and the
 * campaign, a `/v1/send` email's unsubscribe names its email only, and a link made before links
 * named their email still works and credits nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runTally, TALLY_SETTLE_MS } from '../../shared/events/tally';
import { linkSettings, subscriptionUrl } from '../../shared/subscriptions/links';
import {
  type CampaignProject,
  campaignProject,
  createCampaign,
  seedProjectContacts,
  sendNow,
} from './helpers/campaigns';
import { type Json, useLocalRuntime } from './helpers/local';
import { rawMail } from './helpers/mime';

const rt = useLocalRuntime({ env: { SES_MAX_SEND_RATE: '1000' } });
let p: CampaignProject;
let campaignId: string;
const contacts: Record<string, string> = {};

const form = (fields: Record<string, string>) => ({
  raw: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  key: null,
});

/** The one-click and manage paths of the one message the sink holds for `to` from `from`. */
async function linksOf(to: string) {
  const mails = ((await rt.api('GET', '/_local/emails')).body as Json[]).filter(
    (m) => m.to.includes(to) && m.from === p.from,
  );
  expect(mails, to).toHaveLength(1);
  const raw = await rawMail(rt, mails[0].id);
  const oneClick = new URL(raw.header('list-unsubscribe')!.slice(1, -1)).pathname;
  const manage = new URL(/href="([^"]+)"/.exec(raw.html!)![1]!).pathname;
  return { oneClick, manage, emailId: mails[0].tags.emailId as string };
}

async function tally() {
  await rt.drain();
  await rt.runtime.clock.advance(TALLY_SETTLE_MS / 1000 + 1);
  await runTally(rt.deps, p.projectId);
}

async function unsubscribedEvents(contactId: string) {
  const res = await p.api('GET', `/events/contact/${contactId}`);
  expect(res.status, res.text).toBe(200);
  return (res.body.data as Json[]).filter((e) => e.name === 'contact.unsubscribed');
}

beforeAll(async () => {
  p = await campaignProject(rt, 'credit');
  const seeded = await seedProjectContacts(rt, p.projectId, [
    { email: 'one@credit.test' },
    { email: 'two@credit.test' },
    { email: 'three@credit.test' },
  ]);
  for (const c of seeded) contacts[c.email] = c.id;
  campaignId = (
    await createCampaign(p, {
      name: 'Credit',
      subject: 'News',
      body: '<p>News. <a href="{{manageUrl}}">Manage</a></p>',
      from: p.from,
      type: 'MARKETING',
      audienceType: 'ALL',
    })
  ).id;
  expect(await sendNow(rt, p, campaignId)).toMatchObject({ status: 'SENT', totalRecipients: 3 });
});

describe('unsubscribes credited to the campaign that carried the link', () => {
  it('one-click and the manage page each count once; the event names the email and the campaign', async () => {
    const one = await linksOf('one@credit.test');
    expect((await rt.api('POST', one.oneClick, form({ 'List-Unsubscribe': 'One-Click' }))).status).toBe(200);
    const two = await linksOf('two@credit.test');
    expect((await rt.api('POST', two.manage, form({ action: 'unsubscribe' }))).status).toBe(200);
    await tally();
    const stats = (await p.api('GET', `/campaigns/${campaignId}/stats`)).body.data;
    expect(stats).toMatchObject({ sentCount: 3, unsubscribedCount: 2 });
    const [event] = await unsubscribedEvents(contacts['one@credit.test']!);
    expect(event?.data).toMatchObject({ source: 'one_click_unsubscribe', emailId: one.emailId, campaignId });
  });

  it('a re-subscribe and a second unsubscribe from the same message count no more', async () => {
    const one = await linksOf('one@credit.test');
    expect((await rt.api('POST', one.manage, form({ action: 'subscribe' }))).status).toBe(200);
    expect((await rt.api('POST', one.manage, form({ action: 'unsubscribe' }))).status).toBe(200);
    await tally();
    expect((await p.api('GET', `/campaigns/${campaignId}/stats`)).body.data.unsubscribedCount).toBe(2);
    expect(await unsubscribedEvents(contacts['one@credit.test']!)).toHaveLength(2);
  });

  it("a /v1/send email's unsubscribe names its email and credits no campaign", async () => {
    const to = 'solo@credit.test';
    const template = await p.api('POST', '/templates', {
      body: {
        name: 'solo',
        subject: 'Hi',
        body: '<p>Hi <a href="{{manageUrl}}">Manage</a></p>',
        from: p.from,
        type: 'MARKETING',
      },
    });
    expect(template.status, template.text).toBe(201);
    const sent = await p.api('POST', '/v1/send', {
      body: { to, template: template.body.id, subscribed: true },
    });
    expect(sent.status, sent.text).toBe(200);
    const { emailId, contact } = {
      emailId: sent.body.data.emails[0].email,
      contact: sent.body.data.emails[0].contact.id,
    };
    const links = await linksOf(to);
    expect(links.emailId).toBe(emailId);
    expect((await rt.api('POST', links.oneClick, form({ 'List-Unsubscribe': 'One-Click' }))).status).toBe(
      200,
    );
    const [event] = await unsubscribedEvents(contact);
    expect(event?.data).toEqual({ source: 'one_click_unsubscribe', emailId });
  });

  it('a link that names no email (made before links did) still unsubscribes, crediting nothing', async () => {
    const contactId = contacts['three@credit.test']!;
    const url = subscriptionUrl(await linkSettings(rt.deps.config), {
      projectId: p.projectId,
      contactId,
      action: 'unsubscribe',
    });
    const res = await rt.api('POST', new URL(url).pathname, form({ 'List-Unsubscribe': 'One-Click' }));
    expect(res.status).toBe(200);
    expect((await p.api('GET', `/contacts/${contactId}`)).body.subscribed).toBe(false);
    await tally();
    expect((await p.api('GET', `/campaigns/${campaignId}/stats`)).body.data.unsubscribedCount).toBe(2);
    const [event] = await unsubscribedEvents(contactId);
    expect(event?.data).toEqual({ source: 'one_click_unsubscribe' });
  });
});
