/**
 * A campaign's stats from SES events, through HTTP against the local runtime: deliveries, opens,
 * clicks, bounces, complaints and the unsubscribes they cause are counted once per recipient and
 * metric (however many opens, however often an event is delivered), by the event tally a batch at
 * a time; a suppressed address is skipped with reason `suppressed`, even by a TRANSACTIONAL
 * campaign.
 */
import { describe, expect, it } from 'vitest';
import { campaignEmailIds } from '../../shared/campaigns/ids';
import { applySesEvent } from '../../shared/email-events/apply';
import { suppress } from '../../shared/email-events/repository';
import { runTally, TALLY_SETTLE_MS } from '../../shared/events/tally';
import { getEmailRecord } from '../../shared/sending/repository';
import {
  campaignBody,
  campaignProject,
  createCampaign,
  seedProjectContacts,
  sendNow,
} from './helpers/campaigns';
import { type Json, useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime({ env: { SES_MAX_SEND_RATE: '1000' } });
const SIM = 'simulator.amazonses.com';

/** Runs the queue to idle, then the project's tally once its events have settled. */
async function settle(projectId: string) {
  await rt.drain({ timeoutMs: 30_000 });
  await rt.runtime.clock.advance(TALLY_SETTLE_MS / 1000 + 1);
  await runTally(rt.deps, projectId);
  await rt.drain({ timeoutMs: 30_000 });
}

describe('campaign stats from SES events', () => {
  it('counts each metric once per recipient, and skips suppressed addresses', async () => {
    const p = await campaignProject(rt, 'events');
    const contacts = await seedProjectContacts(rt, p.projectId, [
      { email: 'ann@events.test' },
      { email: 'bob@events.test' },
      { email: `bounce@${SIM}` },
      { email: `complaint@${SIM}` },
      { email: 'gone@events.test' },
    ]);
    await suppress(rt.deps, p.projectId, {
      email: 'gone@events.test',
      reason: 'bounce',
      emailId: 'earlier',
      at: new Date().toISOString(),
    });
    const { id } = await createCampaign(p, campaignBody(p.from, { type: 'TRANSACTIONAL' }));
    const sent = await sendNow(rt, p, id);
    expect(sent).toMatchObject({ status: 'SENT', sentCount: 4, totalRecipients: 5 });
    const gone = contacts.find((c) => c.email === 'gone@events.test')!;
    expect(await getEmailRecord(rt.deps, p.projectId, campaignEmailIds(id, gone.id).email)).toMatchObject({
      status: 'SKIPPED',
      reason: 'suppressed',
    });

    // Ann opens twice and clicks; each SES event is also delivered a second time.
    const ann = contacts.find((c) => c.email === 'ann@events.test')!;
    const messages = (await rt.api('GET', '/_local/emails')).body as Json[];
    const annMail = messages.find((m) => m.tags.emailId === campaignEmailIds(id, ann.id).email)!;
    await rt.api('POST', `/_local/emails/${annMail.id}/open`);
    await rt.runtime.clock.advance(1);
    await rt.api('POST', `/_local/emails/${annMail.id}/open`);
    await rt.drain();
    for (const event of (await rt.api('GET', `/_local/emails/${annMail.id}`)).body.events)
      await applySesEvent(rt.deps, event);
    await settle(p.projectId);

    const stats = await p.api('GET', `/campaigns/${id}/stats`);
    expect(stats.status, stats.text).toBe(200);
    expect(stats.body.data).toMatchObject({
      totalRecipients: 5,
      sentCount: 4,
      deliveredCount: 3,
      openedCount: 1,
      clickedCount: 0,
      bouncedCount: 1,
      complainedCount: 1,
      // The permanent bounce and the complaint each unsubscribed their contact.
      unsubscribedCount: 2,
      openRate: 25,
      bounceRate: 25,
      deliveryRate: 75,
    });
    const got = await p.api('GET', `/campaigns/${id}`);
    expect(got.body).toMatchObject({ deliveredCount: 3, openedCount: 1, bouncedCount: 1 });
  });
});
