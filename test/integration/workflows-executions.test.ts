/**
 * Workflow executions through HTTP against the local runtime: triggers (tracked events,
 * subscription changes, segment entries, email events, manual starts), the seven step types, the
 * re-entry rule under concurrency, waits and delays walked through with `POST /_local/clock`, the
 * execution endpoints (list by status with totals, get, cancel, cancel-all) and the events
 * executions emit.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../shared/table';
import { contactByEmail, contactEventNames, createContact, uniqueEmail } from './helpers/contacts';
import { type Json, useLocalRuntime } from './helpers/local';
import { pollUntil, waitUntil } from './helpers/wait';
import {
  addStep,
  advanceClock,
  connect,
  createTemplate,
  createWorkflow,
  execution,
  executionDelayed,
  executionIn,
  executions,
  executionsWith,
  linearWorkflow,
  patchWorkflow,
  webhookReceiver,
} from './helpers/workflows';

const rt = useLocalRuntime({ env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
const from = () => `hello@${rt.senderDomain}`;
const track = (email: string, event: string, data: Record<string, unknown> = {}) =>
  rt.api('POST', '/v1/track', { body: { email, event, data }, key: rt.publicKey });
const DAY = 86_400;

let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
beforeAll(async () => {
  receiver = await webhookReceiver();
});
afterAll(async () => {
  await receiver.close();
});

/** The only execution of the workflow for the contact, once it has one. */
async function executionFor(workflowId: string, contactId: string): Promise<Json> {
  return pollUntil(`an execution of ${workflowId} for ${contactId}`, async () => {
    const list = await executions(rt, workflowId, '?pageSize=100');
    return (list.data as Json[]).find((e) => e.contactId === contactId);
  });
}

describe('an onboarding workflow, walked through with the local clock', () => {
  it('sends, waits two days, branches on the plan, calls a webhook, updates the contact', async () => {
    const welcome = await createTemplate(rt, from(), {
      subject: 'Welcome {{ email }}',
      body: '<p>Plan {{ event.plan }}, ref {{ context.ref ?? none }}</p>',
    });
    const followUp = await createTemplate(rt, from(), {
      subject: 'Two days in',
      body: '<p>Still there?</p>',
    });
    const wf = await createWorkflow(rt, { name: 'Onboarding', eventName: 'signed_up' });
    const send = await addStep(rt, wf, {
      type: 'SEND_EMAIL',
      config: { templateId: welcome, recipient: { type: 'CONTACT' } },
    });
    const delay = await addStep(rt, wf, { type: 'DELAY', config: { amount: 2, unit: 'days' } });
    const branch = await addStep(rt, wf, {
      type: 'CONDITION',
      config: {
        condition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
        },
      },
    });
    const hook = await addStep(rt, wf, {
      type: 'WEBHOOK',
      config: {
        url: `${receiver.url}/onboarded?who={{ email | url_encode }}`,
        method: 'POST',
        headers: { 'X-Plan': '{{ data.plan }}' },
        body: '{"email":"{{ email }}","plan":"{{ event.plan }}"}',
      },
    });
    const update = await addStep(rt, wf, { type: 'UPDATE_CONTACT', config: { data: { onboarded: true } } });
    const nudge = await addStep(rt, wf, {
      type: 'SEND_EMAIL',
      config: { templateId: followUp, recipient: { type: 'CONTACT' } },
    });
    await connect(rt, wf, send, delay);
    await connect(rt, wf, delay, branch);
    await connect(rt, wf, branch, hook, 'yes');
    await connect(rt, wf, branch, nudge, 'no');
    await connect(rt, wf, hook, update);
    await patchWorkflow(rt, wf, { enabled: true });

    const pro = uniqueEmail('onboard-pro');
    const free = uniqueEmail('onboard-free');
    expect((await track(pro, 'signed_up', { plan: 'pro' })).status).toBe(200);
    expect((await track(free, 'signed_up', { plan: 'free' })).status).toBe(200);
    await rt.api('PATCH', `/contacts/${(await contactByEmail(rt, pro))!.id}`, {
      body: { data: { plan: 'pro' } },
    });
    const proId = String((await contactByEmail(rt, pro))!.id);
    const freeId = String((await contactByEmail(rt, free))!.id);

    // The welcome goes at once; both then wait two days.
    await waitUntil(
      'the welcome mails',
      async () => (await rt.mails({ to: pro })).length === 1 && (await rt.mails({ to: free })).length === 1,
    );
    const [welcomeMail] = await rt.mails({ to: pro });
    expect(welcomeMail!.subject).toBe(`Welcome ${pro}`);
    expect(welcomeMail!.html).toContain('Plan pro, ref none');
    // In the delay the execution is WAITING at the DELAY step, until the delay's end.
    const waiting = await executionDelayed(rt, wf, String((await executionFor(wf, proId)).id));
    expect(waiting.currentStepId).toBe(delay);
    expect(waiting.history[1].result).toBe(`delayed until ${waiting.resumesAt}`);
    expect(Date.parse(waiting.resumesAt) - Date.parse(waiting.history[1].at)).toBeGreaterThanOrEqual(
      2 * DAY * 1000 - 1000,
    );
    await executionsWith(rt, wf, 'WAITING', 2);
    expect((await executions(rt, wf, '?status=RUNNING')).total).toBe(0);
    expect(waiting.history.map((h: Json) => [h.stepId, h.result.split(' ')[0]])).toEqual([
      [send, 'sent'],
      [delay, 'delayed'],
    ]);
    const scheduled = await rt.api('GET', '/_local/schedules', { key: null });
    expect(JSON.stringify(scheduled.body)).toContain(`wf-${waiting.id}-`);

    // A day later nothing has moved; after the second, both go on.
    await advanceClock(rt, DAY);
    await rt.drain();
    expect(await execution(rt, wf, waiting.id)).toMatchObject({ status: 'WAITING', currentStepId: delay });
    await advanceClock(rt, DAY + 60);
    const done = await executionIn(rt, wf, waiting.id, 'COMPLETED');
    expect(done.history.map((h: Json) => h.stepId)).toEqual([send, delay, branch, hook, update]);
    expect(done.history.map((h: Json) => h.result)).toEqual([
      'sent',
      expect.stringMatching(/^delayed until /),
      'yes',
      'called: 200',
      'updated',
    ]);
    expect(done.completedAt).toEqual(expect.any(String));
    const freeDone = await executionIn(rt, wf, String((await executionFor(wf, freeId)).id), 'COMPLETED');
    expect(freeDone.history.map((h: Json) => h.result)).toEqual(['sent', expect.any(String), 'no', 'sent']);
    expect((await rt.mails({ to: free })).map((m) => m.subject)).toContain('Two days in');
    expect((await rt.mails({ to: pro })).map((m) => m.subject)).not.toContain('Two days in');

    // The webhook: Liquid rendered, signed with the workflow's secret, a delivery id.
    const call = receiver.calls.find((c) => c.url.includes(encodeURIComponent(pro)));
    expect(call).toBeDefined();
    expect(call!.url).toBe(`/onboarded?who=${encodeURIComponent(pro)}`);
    expect(call!.headers['x-plan']).toBe('pro');
    expect(JSON.parse(call!.body)).toEqual({ email: pro, plan: 'pro' });
    const secret = (await rt.api('GET', `/workflows/${wf}`)).body.webhookSecret;
    const sig = String(call!.headers['sesame-signature']);
    const t = /t=(\d+)/.exec(sig)![1];
    expect(sig).toBe(`t=${t},v1=${createHmac('sha256', secret).update(`${t}.${call!.body}`).digest('hex')}`);
    expect(call!.headers['sesame-delivery']).toMatch(/^[0-9a-f-]{36}$/);

    // The contact was updated; the executions left their events.
    expect((await contactByEmail(rt, pro))!.data.onboarded).toBe(true);
    expect((await contactByEmail(rt, free))!.data.onboarded).toBeUndefined();
    await waitUntil('workflow events', async () =>
      (await contactEventNames(rt, proId)).includes('workflow.completed'),
    );
    const names = await contactEventNames(rt, proId);
    expect(names.filter((n) => n === 'workflow.started')).toHaveLength(1);
    expect(names.filter((n) => n === 'workflow.completed')).toHaveLength(1);
  });
});

describe('starting executions', () => {
  const exitOnly = [{ type: 'EXIT', config: { reason: 'done' } }];

  it('starts manually with a context; 400 while disabled, 404 for an unknown contact, 422 for a malformed id', async () => {
    const wf = await createWorkflow(rt, { name: 'Manual' });
    await addStep(rt, wf, { type: 'EXIT', config: {} });
    const contactId = await createContact(rt, uniqueEmail('manual'));
    const disabled = await rt.api('POST', `/workflows/${wf}/executions`, { body: { contactId } });
    expect(disabled.status).toBe(400);
    await patchWorkflow(rt, wf, { enabled: true, triggerType: 'MANUAL' });
    const unknown = await rt.api('POST', `/workflows/${wf}/executions`, {
      body: { contactId: '00000000-0000-4000-8000-000000000000' },
    });
    expect(unknown.status).toBe(404);
    // Not a contact id at all: 422 naming the field, before any read.
    const malformed = await rt.api('POST', `/workflows/${wf}/executions`, { body: { contactId: 'nobody' } });
    expect(malformed.status).toBe(422);
    expect(malformed.body.error.errors[0]).toMatchObject({ field: 'contactId', code: 'invalid_string' });
    const res = await rt.api('POST', `/workflows/${wf}/executions`, {
      body: { contactId, context: { ref: 'r-1' } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ workflowId: wf, contactId, status: 'RUNNING', context: { ref: 'r-1' } });
    const ended = await executionIn(rt, wf, res.body.id, 'EXITED');
    expect(ended.history).toEqual([
      { stepId: expect.any(String), type: 'EXIT', result: 'exited', at: expect.any(String) },
    ]);
  });

  it('twenty concurrent starts for one contact start one execution; without re-entry never another', async () => {
    const { id: wf } = await linearWorkflow(rt, { triggerType: 'MANUAL' }, exitOnly);
    const contactId = await createContact(rt, uniqueEmail('race'));
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        rt.api('POST', `/workflows/${wf}/executions`, { body: { contactId } }),
      ),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 409)).toHaveLength(19);
    expect(answers.find((r) => r.status === 409)!.body.error.code).toBe('WORKFLOW_REENTRY');
    await executionsWith(rt, wf, 'EXITED');
    const again = await rt.api('POST', `/workflows/${wf}/executions`, { body: { contactId } });
    expect(again.status).toBe(409);
    expect((await executions(rt, wf)).total).toBe(1);
  });

  it('with re-entry, a new execution once the last has ended, never two at once', async () => {
    const { id: wf } = await linearWorkflow(rt, { triggerType: 'MANUAL', allowReentry: true }, [
      { type: 'WAIT_FOR_EVENT', config: { eventName: 'go' } },
      ...exitOnly,
    ]);
    const email = uniqueEmail('reentry');
    const contactId = await createContact(rt, email);
    const first = await rt.api('POST', `/workflows/${wf}/executions`, { body: { contactId } });
    expect(first.status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        rt.api('POST', `/workflows/${wf}/executions`, { body: { contactId } }),
      ),
    );
    expect(answers.every((r) => r.status === 409)).toBe(true);
    await executionIn(rt, wf, first.body.id, 'WAITING');
    expect((await track(email, 'go')).status).toBe(200);
    await executionIn(rt, wf, first.body.id, 'EXITED');
    const second = await rt.api('POST', `/workflows/${wf}/executions`, { body: { contactId } });
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
  });

  it('twenty concurrent tracked triggers for one contact start one execution', async () => {
    const name = `burst_${Date.now()}`;
    const { id: wf } = await linearWorkflow(rt, { eventName: name }, exitOnly);
    const email = uniqueEmail('burst');
    await createContact(rt, email);
    const answers = await Promise.all(Array.from({ length: 20 }, () => track(email, name)));
    expect(answers.every((r) => r.status === 200)).toBe(true);
    await rt.drain();
    const list = await executions(rt, wf);
    expect(list.total).toBe(1);
    expect(list.data[0].status).toBe('EXITED');
  });

  it('starts on contact.subscribed, segment entries and email events', async () => {
    const onSubscribe = await linearWorkflow(rt, { eventName: 'contact.subscribed' }, exitOnly);
    const email = uniqueEmail('subscribe');
    const contactId = await createContact(rt, email, false);
    await rt.api('PATCH', `/contacts/${contactId}`, { body: { subscribed: true } });
    expect((await executionFor(onSubscribe.id, contactId)).contactId).toBe(contactId);

    const slug = `wf-vip-${Date.now()}`;
    const seg = await rt.api('POST', '/segments', {
      body: {
        name: slug,
        trackMembership: true,
        condition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'data.vip', operator: 'equals', value: true }] }],
        },
      },
    });
    expect(seg.status, JSON.stringify(seg.body)).toBe(201);
    const onEntry = await linearWorkflow(rt, { eventName: `segment.${seg.body.slug}.entry` }, exitOnly);
    const vip = await createContact(rt, uniqueEmail('vip'));
    await rt.api('PATCH', `/contacts/${vip}`, { body: { data: { vip: true } } });
    await rt.drain();
    expect((await rt.api('POST', `/segments/${seg.body.id}/compute`)).status).toBeLessThan(300);
    expect((await executionFor(onEntry.id, vip)).contactId).toBe(vip);

    const onSent = await linearWorkflow(rt, { eventName: 'email.sent' }, exitOnly);
    const to = uniqueEmail('sent');
    const sent = await rt.api('POST', '/v1/send', {
      body: { from: from(), to, subject: 'Hi', body: '<p>x</p>' },
    });
    expect(sent.status).toBe(200);
    const toId = String((await contactByEmail(rt, to))!.id);
    const started = await executionFor(onSent.id, toId);
    expect(started.contactId).toBe(toId);
  });
});

describe('WAIT_FOR_EVENT', () => {
  it('resumes on the contact’s event (its timeout schedule deleted), or times out', async () => {
    const wf = await createWorkflow(rt, { name: 'Wait', eventName: `wait_start_${Date.now()}` });
    const wait = await addStep(rt, wf, {
      type: 'WAIT_FOR_EVENT',
      config: { eventName: 'purchased', timeout: 3 * DAY },
    });
    const thanks = await addStep(rt, wf, { type: 'UPDATE_CONTACT', config: { data: { bought: true } } });
    const nudge = await addStep(rt, wf, { type: 'UPDATE_CONTACT', config: { data: { nudged: true } } });
    await connect(rt, wf, wait, thanks, 'event');
    await connect(rt, wf, wait, nudge, 'timeout');
    const start = (await rt.api('GET', `/workflows/${wf}`)).body.triggerConfig.eventName;
    await patchWorkflow(rt, wf, { enabled: true });

    const buyer = uniqueEmail('buyer');
    const idler = uniqueEmail('idler');
    const other = uniqueEmail('other');
    for (const e of [buyer, idler, other]) await track(e, start);
    const buyerId = String((await contactByEmail(rt, buyer))!.id);
    const idlerId = String((await contactByEmail(rt, idler))!.id);
    const buyerRun = await executionIn(rt, wf, String((await executionFor(wf, buyerId)).id), 'WAITING');
    await executionIn(rt, wf, String((await executionFor(wf, idlerId)).id), 'WAITING');

    // Another contact's purchase resumes nobody else.
    await track(other, 'purchased');
    await track(buyer, 'purchased', { total: 10 });
    const bought = await executionIn(rt, wf, buyerRun.id, 'COMPLETED');
    expect(bought.history.map((h: Json) => h.result)).toEqual([
      'waiting for purchased',
      'event received',
      'updated',
    ]);
    const schedules = JSON.stringify((await rt.api('GET', '/_local/schedules', { key: null })).body);
    expect(schedules).not.toContain(buyerRun.id);
    expect((await contactByEmail(rt, buyer))!.data.bought).toBe(true);

    await advanceClock(rt, 3 * DAY + 60);
    const idled = await executionIn(rt, wf, String((await executionFor(wf, idlerId)).id), 'COMPLETED');
    expect(idled.history.map((h: Json) => h.result)).toEqual([
      'waiting for purchased',
      'timed out',
      'updated',
    ]);
    expect((await contactByEmail(rt, idler))!.data).toMatchObject({ nudged: true });
    expect((await contactByEmail(rt, idler))!.data.bought).toBeUndefined();
    // A purchase after the timeout finds no wait.
    await track(idler, 'purchased');
    await rt.drain();
    expect((await execution(rt, wf, idled.id)).history).toHaveLength(3);
  });
});

describe('WAIT_FOR_EVENT, found through the contact’s entries', () => {
  it('writes no wait item; one event resumes each workflow waiting for it, once, even dispatched twice', async () => {
    const start = `wait_entries_${Date.now()}`;
    const waitFor = (eventName: string) =>
      linearWorkflow(rt, { eventName: start }, [
        { type: 'WAIT_FOR_EVENT', config: { eventName } },
        { type: 'EXIT', config: {} },
      ]);
    const a = await waitFor('paid');
    const b = await waitFor('paid');
    const c = await waitFor('refunded');
    const email = uniqueEmail('waiter');
    await track(email, start);
    const contactId = String((await contactByEmail(rt, email))!.id);
    const [runA, runB, runC] = await Promise.all(
      [a, b, c].map(async (w) =>
        executionIn(rt, w.id, String((await executionFor(w.id, contactId)).id), 'WAITING'),
      ),
    );
    expect((await executions(rt, a.id, '?status=WAITING')).total).toBe(1);
    // The wait is the execution's own move: nothing of it in the contact's partition.
    const waitItems: unknown[] = [];
    for await (const item of rt.deps.store.queryAll({
      partition: keys.contactPartition(rt.projectId, contactId),
      sort: { beginsWith: 'WFWAIT#' },
      consistent: true,
    }))
      waitItems.push(item);
    expect(waitItems).toEqual([]);

    // The contact's event, then the same event dispatched again (a redelivered message).
    await track(email, 'paid');
    const doneA = await executionIn(rt, a.id, runA!.id, 'EXITED');
    const doneB = await executionIn(rt, b.id, runB!.id, 'EXITED');
    const { onEvent } = await import('../../shared/workflows/on-event');
    await onEvent(rt.deps, {
      id: '00000000-0000-4000-8000-00000000000a',
      projectId: rt.projectId,
      contactId,
      name: 'paid',
      data: {},
      createdAt: new Date().toISOString(),
    });
    await rt.drain();
    for (const [w, done] of [
      [a, doneA],
      [b, doneB],
    ] as const) {
      const now = await execution(rt, w.id, done.id);
      expect(now.history.map((h: Json) => h.result)).toEqual([
        'waiting for paid',
        'event received',
        'exited',
      ]);
      expect((await executions(rt, w.id, '?status=WAITING')).total).toBe(0);
      expect((await executions(rt, w.id, '?status=EXITED')).total).toBe(1);
    }
    // Waiting for another event: still waiting, and still found by its own event.
    expect((await execution(rt, c.id, runC!.id)).status).toBe('WAITING');
    await track(email, 'refunded');
    await executionIn(rt, c.id, runC!.id, 'EXITED');
  });
});

describe('UPDATE_CONTACT and the contact counters', () => {
  it('writes a counter only when what it counts changes, and the fields read right', async () => {
    const field = `plan_${Date.now()}`;
    const setTo = async (value: string) =>
      (
        await linearWorkflow(rt, { triggerType: 'MANUAL' }, [
          { type: 'UPDATE_CONTACT', config: { data: { [field]: value } } },
        ])
      ).id;
    const [gold, platinum, platinumAgain] = [
      await setTo('gold'),
      await setTo('platinum'),
      await setTo('platinum'),
    ];
    const contactId = await createContact(rt, uniqueEmail('counted'));
    const seqs = async () => ({
      stats: Number(
        (await rt.deps.store.get(keys.contactStats(rt.projectId), { consistent: true }))?.seq ?? 0,
      ),
      values: Number(
        (await rt.deps.store.get(keys.fieldValueCounts(rt.projectId, field), { consistent: true }))?.seq ?? 0,
      ),
    });
    const run = async (wf: string) => {
      const started = await rt.api('POST', `/workflows/${wf}/executions`, { body: { contactId } });
      expect(started.status).toBe(201);
      const done = await executionIn(rt, wf, started.body.id, 'COMPLETED');
      expect(done.history.map((h: Json) => h.result)).toEqual(['updated']);
      await rt.drain();
    };
    const coverage = async () =>
      ((await rt.api('GET', '/contacts/fields')).body.fields as Json[]).find(
        (f) => f.field === `data.${field}`,
      )?.coverage;
    const values = async () => (await rt.api('GET', `/contacts/fields/data.${field}/values`)).body.values;

    const before = await seqs();
    // A field new to the contact: its coverage (the stats item) and its value counter both change.
    await run(gold);
    const afterNew = await seqs();
    expect(afterNew).toEqual({ stats: before.stats + 1, values: before.values + 1 });
    const covered = await coverage();
    expect(covered).toBeGreaterThan(0);
    expect(await values()).toEqual(['gold']);
    // Another value of a field it has: the value counter alone; the coverage reads as before.
    await run(platinum);
    const afterChange = await seqs();
    expect(afterChange).toEqual({ stats: afterNew.stats, values: afterNew.values + 1 });
    expect(await coverage()).toBe(covered);
    expect(await values()).toEqual(['platinum']);
    // The same value again: no counter write (nor a contact write), and both read the same.
    const contact = (await rt.api('GET', `/contacts/${contactId}`)).body;
    await run(platinumAgain);
    expect(await seqs()).toEqual(afterChange);
    expect((await rt.api('GET', `/contacts/${contactId}`)).body.updatedAt).toBe(contact.updatedAt);
    expect(await coverage()).toBe(covered);
    expect(await values()).toEqual(['platinum']);
  });
});

describe('the execution endpoints', () => {
  it('lists by status with totals, gets one, cancels one (deleting its schedule) and all', async () => {
    const { id: wf } = await linearWorkflow(rt, { triggerType: 'MANUAL' }, [
      { type: 'DELAY', config: { amount: 1, unit: 'hours' } },
      { type: 'EXIT', config: {} },
    ]);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const contactId = await createContact(rt, uniqueEmail('list'));
      ids.push((await rt.api('POST', `/workflows/${wf}/executions`, { body: { contactId } })).body.id);
    }
    // A delay leaves an execution WAITING (at the DELAY step, its schedule pending).
    const delayed: Json[] = [];
    for (const id of ids) delayed.push(await executionDelayed(rt, wf, id));
    const newestFirst = delayed
      .map((x) => `${x.startedAt}#${x.id}`)
      .sort()
      .reverse()
      .map((k) => k.split('#')[1]);
    const page = await executions(rt, wf, '?status=WAITING&page=2&pageSize=2');
    expect(page).toMatchObject({ page: 2, pageSize: 2, total: 5, totalPages: 3 });
    // Newest first, whole executions (the index holds keys only; the items are read by key).
    expect(page.data.map((x: Json) => x.id)).toEqual(newestFirst.slice(2, 4));
    expect(page.data[0]).toMatchObject({ status: 'WAITING', contactId: expect.any(String), context: {} });
    expect(page.data[0].history).toHaveLength(1);
    expect((await executions(rt, wf, '?status=RUNNING')).total).toBe(0);
    expect((await executions(rt, wf, '?status=COMPLETED')).total).toBe(0);
    const bad = await rt.api('GET', `/workflows/${wf}/executions?status=SLEEPING`);
    expect(bad.status).toBe(422);

    const one = ids[0]!;
    const cancelled = await rt.api('DELETE', `/workflows/${wf}/executions/${one}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    expect(JSON.stringify((await rt.api('GET', '/_local/schedules', { key: null })).body)).not.toContain(
      `wf-${one}-`,
    );
    expect((await rt.api('DELETE', `/workflows/${wf}/executions/${one}`)).status).toBe(409);
    expect(
      (await rt.api('GET', `/workflows/${wf}/executions/00000000-0000-4000-8000-000000000000`)).status,
    ).toBe(404);

    // Deleting the workflow waits for its executions.
    expect((await rt.api('DELETE', `/workflows/${wf}`)).status).toBe(409);
    const all = await rt.api('POST', `/workflows/${wf}/executions/cancel-all`);
    expect(all.status).toBe(200);
    expect(all.body.cancelled).toBe(4);
    const counts = await executions(rt, wf, '?status=CANCELLED');
    expect(counts.total).toBe(5);
    expect((await executions(rt, wf, '?status=WAITING')).total).toBe(0);
    expect((await executions(rt, wf, '?status=WAITING')).data).toEqual([]);
    expect((await executions(rt, wf)).total).toBe(5);
    // Nothing fires later for them.
    await advanceClock(rt, 2 * 3600);
    await rt.drain();
    expect((await executions(rt, wf, '?status=EXITED')).total).toBe(0);
    await pollUntil('the workflow deletable', async () =>
      (await rt.api('DELETE', `/workflows/${wf}`)).status < 300 ? true : undefined,
    );
  });
});

describe('WEBHOOK targets', () => {
  // The runtime allows 127.0.0.1 only (WEBHOOK_ALLOWED_HOSTS): everything below is refused after
  // DNS resolution, and the step fails the execution without calling anything.
  it.each([
    ['the metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['a private address', 'http://10.0.0.1/hook'],
    ['a mapped IPv6 form of the metadata address', 'http://[::ffff:169.254.169.254]/'],
    ['an encoded private address (10.0.0.1 as one number)', 'http://167772161/'],
    ['an encoded metadata address (hex)', 'http://0xa9fea9fe/'],
    ['a name resolving to loopback', 'http://localhost:1/'],
    ['IPv6 loopback', 'http://[::1]:1/'],
  ])('refuses %s', async (_what, url) => {
    const { id: wf } = await linearWorkflow(rt, { triggerType: 'MANUAL', allowReentry: true }, [
      { type: 'WEBHOOK', config: { url, method: 'POST', body: '{}' } },
    ]);
    const contactId = await createContact(rt, uniqueEmail('ssrf'));
    const res = await rt.api('POST', `/workflows/${wf}/executions`, { body: { contactId } });
    const failed = await executionIn(rt, wf, res.body.id, 'FAILED');
    expect(failed.error).toMatch(/not allowed/);
    expect(failed.history).toEqual([expect.objectContaining({ type: 'WEBHOOK', result: 'failed' })]);
  });

  it('follows a redirect only to an allowed target', async () => {
    const redirector = await webhookReceiver();
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) => {
      res.statusCode = 302;
      res.setHeader('location', 'http://169.254.169.254/latest/meta-data/');
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const { id: wf } = await linearWorkflow(rt, { triggerType: 'MANUAL' }, [
        { type: 'WEBHOOK', config: { url: `http://127.0.0.1:${port}/go`, method: 'POST', body: '{}' } },
      ]);
      const contactId = await createContact(rt, uniqueEmail('redirect'));
      const res = await rt.api('POST', `/workflows/${wf}/executions`, { body: { contactId } });
      const failed = await executionIn(rt, wf, res.body.id, 'FAILED');
      expect(failed.error).toMatch(/169\.254\.169\.254.*not allowed/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await redirector.close();
    }
  });
});
