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
import { SENDING_GRACE_MS, suppress } from '../../shared/email-events/repository';
import { type EventRecord, putEvent } from '../../shared/events/repository';
import { runTally, TALLY_SETTLE_MS } from '../../shared/events/tally';
import { getEmailRecord, readAttemptOutcome } from '../../shared/sending/repository';
import { keys } from '../../shared/table';
import {
  campaignBody,
  campaignProject,
  createCampaign,
  seedProjectContacts,
  sendNow,
} from './helpers/campaigns';
import { watchedDeps } from './helpers/faults';
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

/** The contact's stored `email.sent` items. */
async function sentItems(projectId: string, contactId: string) {
  const items: Json[] = [];
  for await (const item of rt.deps.store.queryAll({
    partition: keys.contactPartition(projectId, contactId),
    sort: { beginsWith: 'EV#' },
  }))
    if (item.name === 'email.sent') items.push(item);
  return items;
}

describe("a campaign recipient's outcome: its email.sent event", () => {
  it('is all its sender writes after SES answers; SES Send writes nothing, its Delivery moves the record', async () => {
    const p = await campaignProject(rt, 'outcome');
    const [contact] = await seedProjectContacts(rt, p.projectId, [{ email: 'eve@outcome.test' }]);
    const { id } = await createCampaign(p, campaignBody(p.from));
    const writes: string[] = [];
    const watched = watchedDeps(rt.deps, {
      after: (call) => {
        if (call.op === 'put' || call.op === 'update' || call.op === 'delete')
          writes.push(String(call.key?.sk));
      },
    });
    const ids = campaignEmailIds(id, contact!.id);
    expect(await sendNow(rt, p, id)).toMatchObject({ status: 'SENT', sentCount: 1 });
    const [event] = await sentItems(p.projectId, contact!.id);
    const mail = ((await rt.api('GET', '/_local/emails')).body as Json[]).find(
      (m) => m.tags.emailId === ids.email,
    )!;
    const record = (await getEmailRecord(rt.deps, p.projectId, ids.email))!;
    // The event is stamped at the claim, and carries the message id SES answered.
    expect(event).toMatchObject({
      data: { emailId: ids.email, messageId: mail.id },
      createdAt: record.createdAt,
    });
    expect(record.sentEventId).toBe(ids.sentEvent);
    expect(record.settledBy).toBeUndefined();
    expect(await readAttemptOutcome(rt.deps, record)).toBe('sent');

    // The mail sink's Send and Delivery events were applied: the record went from its claim
    // (SENDING) to DELIVERED, with the message id, and nothing settled it.
    expect(record).toMatchObject({ status: 'DELIVERED', messageId: mail.id, sentAt: null });
    const events = (await rt.api('GET', `/_local/emails/${mail.id}`)).body.events as Json[];
    const sendEvent = events.find((e) => e.eventType === 'Send');
    // SES's Send event (again): two reads, no write, no wait.
    expect(await applySesEvent(watched, sendEvent)).toBe('nothing-to-settle');
    expect(writes).toEqual([]);
    expect(await sentItems(p.projectId, contact!.id)).toHaveLength(1);
  });

  it('a Send event that finds no email.sent settles the record once no sender can be alive, with that same event', async () => {
    const p = await campaignProject(rt, 'settle');
    const [contact] = await seedProjectContacts(rt, p.projectId, [{ email: 'sam@settle.test' }]);
    const { id } = await createCampaign(p, campaignBody(p.from));
    await sendNow(rt, p, id);
    const ids = campaignEmailIds(id, contact!.id);
    const record = (await getEmailRecord(rt.deps, p.projectId, ids.email))!;
    const [sent] = await sentItems(p.projectId, contact!.id);
    // As if the sender had stopped between SES's answer and its event: the event is not there,
    // and the record is as its claim left it.
    await rt.deps.store.write({
      delete: keys.contactEvent(p.projectId, contact!.id, record.createdAt, ids.sentEvent),
    });
    await rt.deps.store.write({
      update: keys.emailMessage(p.projectId, ids.email),
      expression: 'SET #s = :s REMOVE messageId, statusRank, deliveredAt, deliveredBy, appliedEvents',
      names: { '#s': 'status' },
      values: { ':s': 'SENDING' },
    });
    expect(await readAttemptOutcome(rt.deps, (await getEmailRecord(rt.deps, p.projectId, ids.email))!)).toBe(
      'sending',
    );
    const mail = ((await rt.api('GET', '/_local/emails')).body as Json[]).find(
      (m) => m.tags.emailId === ids.email,
    )!;
    const events = (await rt.api('GET', `/_local/emails/${mail.id}`)).body.events as Json[];
    const sendEvent = events.find((e) => e.eventType === 'Send');
    const delivery = events.find((e) => e.eventType === 'Delivery');
    // Its Delivery moves the record (it was handed to SES); its Send event waits for the grace period.
    expect(await applySesEvent(rt.deps, delivery)).toBe('applied');
    expect(await applySesEvent(rt.deps, sendEvent)).toBe('deferred');
    await rt.runtime.clock.advance(SENDING_GRACE_MS / 1000 + 1);
    expect(await applySesEvent(rt.deps, sendEvent, { deferred: true })).toBe('applied');
    const settled = (await getEmailRecord(rt.deps, p.projectId, ids.email))!;
    expect(settled).toMatchObject({ status: 'DELIVERED', messageId: mail.id, settledBy: expect.any(String) });
    expect(await readAttemptOutcome(rt.deps, settled)).toBe('settled');
    // The settle recorded the sender's event (same id and time), counting nothing itself (the
    // campaign's settle moves its recipient from unknown, shared/campaigns/settle.ts): written
    // again (a sender that stored it late), it stores nothing.
    const after = await sentItems(p.projectId, contact!.id);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: ids.sentEvent, createdAt: record.createdAt });
    const { pk: _pk, sk: _sk, entity: _e, ...stored } = sent!;
    expect(await putEvent(rt.deps, stored as EventRecord, rt.deps.clock.now())).toBe(false);
    expect(after[0]!.campaignCounts).toBeUndefined();
    expect(await applySesEvent(rt.deps, sendEvent, { deferred: true })).toBe('applied-before');
  });
});
