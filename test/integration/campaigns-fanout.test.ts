/**
 * A campaign's fan-out through HTTP against the local runtime: who receives it (ALL, FILTERED,
 * SEGMENT audiences; the subscription rule of each content type), exactly one message per
 * recipient rendered as `/v1/send` renders (footer, list headers, personal data), the records and
 * `email.sent` events it leaves, its counters, and a scheduled send fired by the local clock.
 */
import { describe, expect, it } from 'vitest';
import { campaignEmailIds } from '../../shared/campaigns/ids';
import { getEmailRecord } from '../../shared/sending/repository';
import {
  type CampaignProject,
  campaignBody,
  campaignProject,
  campaignRun,
  createCampaign,
  mailCounts,
  seedProjectContacts,
  sendNow,
} from './helpers/campaigns';
import { contactEvents } from './helpers/contacts';
import { type Json, useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime({ env: { SES_MAX_SEND_RATE: '100000' } });

const mailsOf = async (emails: readonly string[]) => {
  const counts = await mailCounts(rt);
  return emails.map((e) => counts.get(e) ?? 0);
};

describe('an ALL campaign of 300 recipients', () => {
  it('reaches SENT with exactly one message per subscribed contact, none to the others', async () => {
    const p = await campaignProject(rt, 'big');
    const subscribed = Array.from({ length: 300 }, (_, i) => ({
      email: `big${i}@fanout.test`,
      data: { name: `Reader ${i}`, plan: i % 3 === 0 ? 'pro' : 'free' },
    }));
    const unsubscribed = Array.from({ length: 20 }, (_, i) => ({
      email: `off${i}@fanout.test`,
      subscribed: false,
    }));
    const contacts = await seedProjectContacts(rt, p.projectId, [...subscribed, ...unsubscribed]);
    const c = await createCampaign(p, campaignBody(p.from));
    const done = await sendNow(rt, p, c.id);

    expect(done).toMatchObject({
      status: 'SENT',
      totalRecipients: 300,
      sentCount: 300,
      sentAt: expect.any(String),
    });
    expect(await mailsOf(subscribed.map((s) => s.email))).toEqual(subscribed.map(() => 1));
    expect(await mailsOf(unsubscribed.map((s) => s.email))).toEqual(unsubscribed.map(() => 0));
    const run = await campaignRun(rt, p.projectId, c.id);
    expect(run).toMatchObject({
      state: 'finished',
      recipients: 300,
      sent: 300,
      failed: 0,
      unknown: 0,
      listed: true,
    });
    expect(rt.queue.deadLetters()).toEqual([]);

    // Each message as /v1/send makes it: personal data, MARKETING footer and list headers, tags.
    const [first] = await rt.mails({ to: 'big7@fanout.test' });
    expect(first!.subject).toBe('Hello Reader 7');
    expect(first!.html).toContain('Hi Reader 7, your plan is free.');
    expect(first!.html).toMatch(/<a href="[^"]+\/v1\/subscription\/[^"]+">Unsubscribe<\/a>/);
    expect(first!.headers['list-unsubscribe']).toMatch(/^<http.*\/v1\/subscription\//);
    expect(first!.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(first!.text).toContain('Hi Reader 7');
    const ids = campaignEmailIds(c.id, contacts[7]!.id);
    expect(first!.tags).toEqual({ projectId: p.projectId, emailId: ids.email, campaignId: c.id });

    // Its email record (delivered since, by the mail sink's SES events) and its email.sent
    // event, with campaignId.
    const record = await getEmailRecord(rt.deps, p.projectId, ids.email);
    expect(record).toMatchObject({
      status: 'DELIVERED',
      campaignId: c.id,
      contactId: contacts[7]!.id,
      to: 'big7@fanout.test',
      subject: 'Hello Reader 7',
      type: 'MARKETING',
      messageId: first!.id,
    });
    const events = (await contactEvents(rt, contacts[7]!.id, p.projectId)).filter(
      (e) => e.name === 'email.sent',
    );
    expect(events).toEqual([
      {
        name: 'email.sent',
        data: {
          emailId: ids.email,
          messageId: first!.id,
          subject: 'Hello Reader 7',
          from: p.from,
          templateId: null,
          campaignId: c.id,
        },
      },
    ]);
    expect(await contactEvents(rt, contacts[300]!.id, p.projectId)).toEqual([]);
  }, 60_000);
});

describe('content types', () => {
  let p: CampaignProject;
  const emails = ['on@types.test', 'off@types.test'];

  it('TRANSACTIONAL goes to every contact, without footer or list headers', async () => {
    p = await campaignProject(rt, 'types');
    await seedProjectContacts(rt, p.projectId, [
      { email: emails[0]! },
      { email: emails[1]!, subscribed: false },
    ]);
    const c = await createCampaign(p, campaignBody(p.from, { type: 'TRANSACTIONAL' }));
    expect(await sendNow(rt, p, c.id)).toMatchObject({ status: 'SENT', totalRecipients: 2, sentCount: 2 });
    for (const email of emails) {
      const [mail] = await rt.mails({ to: email });
      expect(mail!.html).not.toContain('Unsubscribe');
      expect(mail!.headers['list-unsubscribe']).toBeUndefined();
    }
  });

  it('HEADLESS goes to subscribed contacts only, as authored, with list headers', async () => {
    const c = await createCampaign(p, campaignBody(p.from, { type: 'HEADLESS', subject: 'Headless' }));
    expect(await sendNow(rt, p, c.id)).toMatchObject({ status: 'SENT', totalRecipients: 1 });
    const mails = (await rt.mails()).filter((m) => m.subject === 'Headless');
    expect(mails.map((m) => m.to)).toEqual([[emails[0]]]);
    expect(mails[0]!.html).not.toContain('Unsubscribe');
    expect(mails[0]!.headers['list-unsubscribe']).toMatch(/^<http/);
  });

  it('MARKETING with its own unsubscribe link gets no footer', async () => {
    const c = await createCampaign(
      p,
      campaignBody(p.from, {
        subject: 'Own link',
        body: '<p>Bye: <a href="{{unsubscribeUrl}}">leave</a></p>',
      }),
    );
    await sendNow(rt, p, c.id);
    const [mail] = (await rt.mails()).filter((m) => m.subject === 'Own link');
    expect(mail!.html).toContain('leave</a>');
    expect(mail!.html).not.toContain('>Unsubscribe<');
  });
});

describe('audiences', () => {
  it('FILTERED: the condition tree on contact fields and on events', async () => {
    const p = await campaignProject(rt, 'filtered');
    await seedProjectContacts(rt, p.projectId, [
      { email: 'pro1@filter.test', data: { plan: 'pro', seats: 5 } },
      { email: 'pro2@filter.test', data: { plan: 'pro', seats: 50 } },
      { email: 'free@filter.test', data: { plan: 'free', seats: 50 } },
      { email: 'proOff@filter.test', subscribed: false, data: { plan: 'pro', seats: 50 } },
    ]);
    const c = await createCampaign(
      p,
      campaignBody(p.from, {
        subject: 'Big pro',
        audienceType: 'FILTERED',
        audienceCondition: {
          logic: 'AND',
          groups: [
            {
              filters: [
                { field: 'data.plan', operator: 'equals', value: 'pro' },
                { field: 'data.seats', operator: 'gt', value: 10 },
              ],
            },
          ],
        },
      }),
    );
    expect(await sendNow(rt, p, c.id)).toMatchObject({ status: 'SENT', totalRecipients: 1 });
    expect((await rt.mails()).filter((m) => m.subject === 'Big pro').map((m) => m.to)).toEqual([
      ['pro2@filter.test'],
    ]);

    // Events: those who triggered `purchased`, through the events API of the project.
    for (const email of ['pro1@filter.test', 'free@filter.test']) {
      expect((await p.api('POST', '/events/track', { body: { email, event: 'purchased' } })).status).toBe(
        200,
      );
    }
    const buyers = await createCampaign(
      p,
      campaignBody(p.from, {
        subject: 'Buyers',
        audienceType: 'FILTERED',
        audienceCondition: {
          logic: 'OR',
          groups: [{ filters: [{ field: 'event.purchased', operator: 'triggered' }] }],
        },
      }),
    );
    expect(await sendNow(rt, p, buyers.id)).toMatchObject({ status: 'SENT', totalRecipients: 2 });
    const to = (await rt.mails()).filter((m) => m.subject === 'Buyers').map((m) => m.to[0]);
    expect(to.sort()).toEqual(['free@filter.test', 'pro1@filter.test']);
  });

  it('SEGMENT: the members of a static segment', async () => {
    const p = await campaignProject(rt, 'segment');
    await seedProjectContacts(rt, p.projectId, [
      { email: 'in1@segment.test' },
      { email: 'in2@segment.test' },
      { email: 'inOff@segment.test', subscribed: false },
      { email: 'out@segment.test' },
    ]);
    const segment = await p.api('POST', '/segments', { body: { name: 'VIP', type: 'STATIC' } });
    expect(segment.status, segment.text).toBe(201);
    const added = await p.api('POST', `/segments/${segment.body.id}/members`, {
      body: { emails: ['in1@segment.test', 'in2@segment.test', 'inOff@segment.test'] },
    });
    expect(added.status, added.text).toBe(200);
    await rt.drain();
    const c = await createCampaign(
      p,
      campaignBody(p.from, { subject: 'VIP', audienceType: 'SEGMENT', segmentId: segment.body.id }),
    );
    expect(c.segmentId).toBe(segment.body.id);
    expect(await sendNow(rt, p, c.id)).toMatchObject({ status: 'SENT', totalRecipients: 2, sentCount: 2 });
    const to = (await rt.mails()).filter((m) => m.subject === 'VIP').map((m) => m.to[0]);
    expect(to.sort()).toEqual(['in1@segment.test', 'in2@segment.test']);
  });
});

describe('a scheduled campaign', () => {
  it('is sent when the local clock passes its time, not before', async () => {
    const p = await campaignProject(rt, 'clock');
    await seedProjectContacts(rt, p.projectId, [
      { email: 'later1@clock.test' },
      { email: 'later2@clock.test' },
    ]);
    const c = await createCampaign(p, campaignBody(p.from, { subject: 'Scheduled' }));
    const at = new Date(rt.deps.clock.now().getTime() + 2 * 3600_000);
    const res = await p.api('POST', `/campaigns/${c.id}/send`, { body: { scheduledFor: at.toISOString() } });
    expect(res.body.data).toMatchObject({ status: 'SCHEDULED', scheduledFor: at.toISOString() });

    const advance = (seconds: number) =>
      rt.api('POST', '/_local/clock', { key: null, body: { advance: seconds } });
    expect((await advance(3600)).status).toBe(200);
    await rt.drain();
    expect((await p.api('GET', `/campaigns/${c.id}`)).body.status).toBe('SCHEDULED');
    expect(await mailsOf(['later1@clock.test'])).toEqual([0]);

    expect((await advance(3600 + 60)).status).toBe(200);
    await rt.drain();
    const sent: Json = (await p.api('GET', `/campaigns/${c.id}`)).body;
    expect(sent).toMatchObject({ status: 'SENT', totalRecipients: 2, sentCount: 2, scheduledFor: null });
    expect(Date.parse(sent.sentAt)).toBeGreaterThanOrEqual(at.getTime());
    expect(await mailsOf(['later1@clock.test', 'later2@clock.test'])).toEqual([1, 1]);
    const left = (await rt.api('GET', '/_local/schedules', { key: null })).body.oneOff as Json[];
    expect(left.filter((s) => s.message.campaignId === c.id)).toEqual([]);
  });
});
