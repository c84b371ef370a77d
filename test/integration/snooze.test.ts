/**
 * Snooze through HTTP: a contact whose `snoozedUntil` is still to come gets no MARKETING or HEADLESS
 * mail from a campaign or a workflow (its email is recorded SKIPPED with reason `snoozed`, which the step's
 * result shows as `skipped: snoozed`); a snooze that has passed, TRANSACTIONAL content, and `/v1/send` are unaffected.
 */
import { describe, expect, it } from 'vitest';
import { campaignEmailIds } from '../../shared/campaigns/ids';
import { getEmailRecord } from '../../shared/sending/repository';
import {
  campaignBody,
  campaignProject,
  createCampaign,
  seedProjectContacts,
  sendNow,
} from './helpers/campaigns';
import { uniqueEmail } from './helpers/contacts';
import { type Json, useLocalRuntime } from './helpers/local';
import { rawMail } from './helpers/mime';
import { createTemplate, executionsWith, linearWorkflow } from './helpers/workflows';

const rt = useLocalRuntime();
const from = () => `hello@${rt.senderDomain}`;
const DAY_MS = 86_400_000;

async function contact(snoozedUntil: string | null) {
  const email = uniqueEmail('snooze');
  const made = await rt.api('POST', '/contacts', { body: { email, subscribed: true } });
  expect(made.status, made.text).toBe(201);
  if (snoozedUntil !== null) {
    const patched = await rt.api('PATCH', `/contacts/${made.body.id}`, { body: { snoozedUntil } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.snoozedUntil).toBe(snoozedUntil);
  }
  return { email, id: made.body.id as string };
}

const inDays = (days: number) => new Date(rt.deps.clock.now().getTime() + days * DAY_MS).toISOString();

async function workflowSending(type: string, event: string) {
  const template = await createTemplate(rt, from(), { type, subject: `A ${type} mail` });
  await linearWorkflow(rt, { eventName: event }, [
    { type: 'SEND_EMAIL', config: { templateId: template, recipient: { type: 'CONTACT' } } },
  ]);
  return template;
}

describe('snoozedUntil', () => {
  it('a workflow sends no MARKETING or HEADLESS mail to a contact snoozed until later', async () => {
    for (const type of ['MARKETING', 'HEADLESS']) {
      const event = `nudge_${type.toLowerCase()}`;
      await workflowSending(type, event);
      const snoozed = await contact(inDays(3));
      const past = await contact(inDays(-1));
      for (const c of [snoozed, past])
        expect(
          (await rt.api('POST', '/v1/track', { key: rt.publicKey, body: { email: c.email, event } })).status,
        ).toBe(200);
      await rt.drain();
      expect(await rt.mails({ to: snoozed.email }), type).toHaveLength(0);
      expect(await rt.mails({ to: past.email }), type).toHaveLength(1);
    }
  });

  it('records the skip on the step and the email', async () => {
    const template = await createTemplate(rt, from(), { type: 'MARKETING' });
    const flow = await linearWorkflow(rt, { eventName: 'nudge_record' }, [
      { type: 'SEND_EMAIL', config: { templateId: template, recipient: { type: 'CONTACT' } } },
    ]);
    const c = await contact(inDays(1));
    expect(
      (
        await rt.api('POST', '/v1/track', {
          key: rt.publicKey,
          body: { email: c.email, event: 'nudge_record' },
        })
      ).status,
    ).toBe(200);
    const [done] = await executionsWith(rt, flow.id, 'COMPLETED');
    const full = (await rt.api('GET', `/workflows/${flow.id}/executions/${done!.id}`)).body as Json;
    expect(full.history.map((h: Json) => h.result)).toEqual(['skipped: snoozed']);
  });

  it('TRANSACTIONAL mail from a workflow, and /v1/send, still reach a snoozed contact', async () => {
    await workflowSending('TRANSACTIONAL', 'receipt');
    const c = await contact(inDays(5));
    expect(
      (await rt.api('POST', '/v1/track', { key: rt.publicKey, body: { email: c.email, event: 'receipt' } }))
        .status,
    ).toBe(200);
    await rt.drain();
    expect(await rt.mails({ to: c.email })).toHaveLength(1);
    const marketing = await createTemplate(rt, from(), { type: 'MARKETING' });
    const sent = await rt.api('POST', '/v1/send', { body: { to: c.email, template: marketing } });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.data.emails[0].status).toBe('sent');
    expect(await rt.mails({ to: c.email })).toHaveLength(2);
  });

  it('the manage page of a message pauses marketing mail for 30 days, and resumes it', async () => {
    const c = await contact(null);
    const template = await createTemplate(rt, from(), {
      type: 'MARKETING',
      body: '<p>News <a href="{{manageUrl}}">manage</a></p>',
    });
    const sent = await rt.api('POST', '/v1/send', { body: { to: c.email, template } });
    expect(sent.status, sent.text).toBe(200);
    const [mail] = await rt.mails({ to: c.email });
    const manage = new URL(/href="([^"]+)"/.exec(mail!.html!)![1]!).pathname;
    const form = (action: string) => ({
      raw: new URLSearchParams({ action }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      key: null,
    });
    const page = await rt.api('GET', manage, { key: null });
    expect(page.text).toContain('Pause emails for 30 days');

    const paused = await rt.api('POST', manage, form('snooze'));
    expect(paused.status).toBe(200);
    const until = new Date(rt.deps.clock.now().getTime() + 30 * DAY_MS);
    const shown = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' }).format(until);
    expect(paused.text).toContain(`are paused until ${shown}`);
    expect(paused.text).toContain('Resume emails');
    const snoozedUntil = (await rt.api('GET', `/contacts/${c.id}`)).body.snoozedUntil;
    expect(Date.parse(snoozedUntil) - rt.deps.clock.now().getTime()).toBeGreaterThan(29 * DAY_MS);

    // The unsubscribe link alone cannot snooze.
    const raw = await rawMail(rt, mail!.id);
    const unsubscribeOnly = new URL(raw.header('list-unsubscribe')!.slice(1, -1)).pathname;
    expect((await rt.api('POST', unsubscribeOnly, form('snooze'))).status).toBe(400);

    const resumed = await rt.api('POST', manage, form('unsnooze'));
    expect(resumed.status).toBe(200);
    expect(resumed.text).toContain('Pause emails for 30 days');
    expect((await rt.api('GET', `/contacts/${c.id}`)).body.snoozedUntil).toBeNull();
  });

  it('a MARKETING campaign skips a snoozed contact (reason snoozed), a TRANSACTIONAL one mails it', async () => {
    const p = await campaignProject(rt, 'snooze');
    const [snoozed, awake] = await seedProjectContacts(rt, p.projectId, [
      { email: 'snoozed@snooze.test' },
      { email: 'awake@snooze.test' },
    ]);
    const patched = await p.api('PATCH', `/contacts/${snoozed!.id}`, { body: { snoozedUntil: inDays(2) } });
    expect(patched.status, patched.text).toBe(200);
    for (const type of ['MARKETING', 'TRANSACTIONAL']) {
      const campaign = await createCampaign(p, { ...campaignBody(p.from), name: type, type });
      expect(await sendNow(rt, p, campaign.id)).toMatchObject({ status: 'SENT', totalRecipients: 2 });
      const ids = campaignEmailIds(campaign.id, snoozed!.id);
      const record = await getEmailRecord(rt.deps, p.projectId, ids.email);
      if (type === 'MARKETING') expect(record).toMatchObject({ status: 'SKIPPED', reason: 'snoozed' });
      else expect(record?.status).not.toBe('SKIPPED');
    }
    expect(await rt.mails({ to: 'snoozed@snooze.test' })).toHaveLength(1);
    expect(await rt.mails({ to: awake!.email })).toHaveLength(2);
  });
});
