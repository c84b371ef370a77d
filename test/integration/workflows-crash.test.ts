/**
 * Exactly once, and nothing stuck: a workflow run by a jobs worker whose queue delivers every
 * message twice (schedule firings included, since a schedule fires onto the queue) and whose
 * store fails one chosen request, once, as a worker that dies there would. Whatever the request,
 * the execution ends COMPLETED with each step in its history once, each mail sent once, the
 * contact's subscription event emitted once, and the webhook called with one delivery id (a call
 * cut by the crash may be made twice, with that same id). A WAIT_FOR_EVENT whose move into the
 * wait or out of it (on the contact's event, found through the contact's entry) crashes resumes
 * once, its counts exact.
 */
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs, normalizers } from '../../functions/queues/jobs';
import { SENDING_GRACE_MS } from '../../shared/email-events/repository';
import { jobsWorker } from '../../shared/jobs/registry';
import { fastTimings } from '../../shared/local/runtime';
import type { Deps } from '../../shared/ports';
import { WEBHOOK_LEASE_MS } from '../../shared/workflows/engine';
import { contactEventNames, createContact, uniqueEmail } from './helpers/contacts';
import { type StoreCall, StoreFaults } from './helpers/faults';
import { type Json, useLocalRuntime } from './helpers/local';
import { pollUntil, waitUntil } from './helpers/wait';
import {
  advanceClock,
  createTemplate,
  executionDelayed,
  executionIn,
  inDelay,
  linearWorkflow,
  webhookReceiver,
} from './helpers/workflows';

const faults = new StoreFaults('simulated worker crash');

const rt = useLocalRuntime({
  env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' },
  timings: { ...fastTimings, redeliverEachMessage: true },
  handlers: {
    queues: {
      jobs: (deps: Deps) => {
        const worker = jobsWorker(faults.inject(deps), jobs, normalizers);
        return (event: SQSEvent) => worker(event);
      },
    },
  },
});

let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
let workflow: { id: string; steps: string[] };

beforeAll(async () => {
  receiver = await webhookReceiver();
  const from = `flow@${rt.senderDomain}`;
  const first = await createTemplate(rt, from, { subject: 'First', type: 'TRANSACTIONAL' });
  const second = await createTemplate(rt, from, { subject: 'Second', type: 'TRANSACTIONAL' });
  workflow = await linearWorkflow(rt, { eventName: 'crash_go' }, [
    { type: 'SEND_EMAIL', config: { templateId: first, recipient: { type: 'CONTACT' } } },
    { type: 'WEBHOOK', config: { url: `${receiver.url}/hook`, method: 'POST', body: '{"id":"{{ id }}"}' } },
    { type: 'UPDATE_CONTACT', config: { data: { stage: 'done' }, subscribed: false } },
    { type: 'DELAY', config: { amount: 1, unit: 'hours' } },
    {
      type: 'CONDITION',
      config: {
        condition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'data.stage', operator: 'equals', value: 'done' }] }],
        },
      },
    },
    { type: 'SEND_EMAIL', config: { templateId: second, recipient: { type: 'CONTACT' } } },
  ]);
});
afterAll(async () => {
  await receiver.close();
});

/** Tracks the trigger for the contact; answers its execution once there is one. */
async function trackStart(email: string, contactId: string): Promise<Json> {
  const res = await rt.api('POST', '/v1/track', { body: { email, event: 'crash_go' }, key: rt.publicKey });
  expect(res.status).toBe(200);
  return pollUntil('the execution', async () => {
    const list = await rt.api('GET', `/workflows/${workflow.id}/executions?pageSize=100`);
    return (list.body.data as Json[]).find((e) => e.contactId === contactId);
  });
}

const sk = (c: StoreCall) => String(c.key?.sk ?? '');
const pk = (c: StoreCall) => String(c.key?.pk ?? '');
const moves = (c: StoreCall) =>
  c.op === 'update' && sk(c).startsWith('X#') && String(c.expression).includes('seq = :next');

const crashes: [string, (c: StoreCall) => boolean, number][] = [
  ['writing the execution', (c) => c.op === 'put' && sk(c).startsWith('X#'), 1],
  ['moving past the first send', moves, 1],
  [
    'taking the webhook lease',
    (c) => c.op === 'update' && sk(c).startsWith('X#') && String(c.expression).includes('lease = :until'),
    1,
  ],
  ['moving past the webhook', moves, 2],
  ['updating the contact', (c) => (c.op === 'update' || c.op === 'put') && sk(c) === '#CONTACT', 1],
  ['moving past the update', moves, 3],
  ['listing the delay by its due time', (c) => c.op === 'put' && pk(c).endsWith('#WFDUE'), 1],
  ['moving into the delay', moves, 4],
  ['counting the execution WAITING', (c) => c.op === 'update' && sk(c) === '#COUNTS', 2],
  ['moving past the condition', moves, 5],
  ['counting the end', (c) => c.op === 'update' && sk(c) === '#COUNTS', 3],
  ['claiming the second email', (c) => c.op === 'put' && pk(c).includes('#MSG#'), 2],
  // The end by what it writes (its time), not as the 7th move: a redelivered step whose attempt
  // raced the first one issues a move of its own, so the count of moves before the end varies.
  [
    'ending the execution',
    (c) => moves(c) && String(c.expression).includes('#completedAt = :completedAt'),
    1,
  ],
  [
    'releasing the entry',
    (c) => c.op === 'update' && sk(c).startsWith('WFENTRY#') && String(c.expression).includes(':null'),
    1,
  ],
  ['storing workflow.completed', (c) => c.op === 'put' && sk(c).startsWith('EV#'), 3],
];

describe('a workflow run with every message delivered twice', () => {
  it.each(crashes)('and a crash while %s runs each step once', async (_when, match, nth) => {
    const email = uniqueEmail('wf-crash');
    const contactId = await createContact(rt, email);
    // The fault counts every matching request: nothing of an earlier test may still be running.
    await rt.drain();
    faults.failAt(match, nth);
    // Started by the tracked event (the dispatch job writes the execution).
    const started = { body: await trackStart(email, contactId) };
    // A webhook attempt that died holding the step's lease is retried once the lease has run out.
    await waitUntil('the fault, or the delay', async () => {
      if (faults.fired) return true;
      return inDelay((await rt.api('GET', `/workflows/${workflow.id}/executions/${started.body.id}`)).body);
    });
    await advanceClock(rt, WEBHOOK_LEASE_MS / 1000 + 1);
    await executionDelayed(rt, workflow.id, started.body.id);
    await advanceClock(rt, 3600 + 60);
    const done = await executionIn(rt, workflow.id, started.body.id, 'COMPLETED');
    // The end's last writes (the entry's release, workflow.completed) follow the move to
    // COMPLETED in the same job: a fault there may fire after COMPLETED is read.
    await rt.drain();
    expect(faults.fired, 'the fault fired').toBe(true);
    faults.clear();

    expect(done.history.map((h: Json) => h.stepId)).toEqual(workflow.steps);
    expect(done.history.map((h: Json) => h.result)).toEqual([
      'sent',
      'called: 200',
      'updated',
      expect.stringMatching(/^delayed until/),
      'yes',
      'sent',
    ]);
    const mails = await rt.mails({ to: email });
    expect(mails.map((m) => m.subject).sort()).toEqual(['First', 'Second']);
    const calls = receiver.calls.filter((c) => c.body === `{"id":"${contactId}"}`);
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(calls.length).toBeLessThanOrEqual(2);
    expect(new Set(calls.map((c) => c.headers['sesame-delivery'])).size).toBe(1);
    await rt.drain();
    await waitUntil('workflow.completed', async () =>
      (await contactEventNames(rt, contactId)).includes('workflow.completed'),
    );
    const names = await contactEventNames(rt, contactId);
    for (const name of ['workflow.started', 'workflow.completed', 'contact.unsubscribed', 'email.sent'])
      expect(
        names.filter((n) => n === name),
        name,
      ).toHaveLength(name === 'email.sent' ? 2 : 1);
    // Without re-entry the contact never enters again: one execution, whatever was redelivered.
    const again = await rt.api('POST', `/workflows/${workflow.id}/executions`, { body: { contactId } });
    expect(again.status).toBe(409);
    const list = (await rt.api('GET', `/workflows/${workflow.id}/executions?pageSize=100`)).body
      .data as Json[];
    expect(list.filter((e) => e.contactId === contactId)).toHaveLength(1);
    expect(rt.queue.deadLetters()).toEqual([]);
  });

  it('a crash between the email claim and the provider’s answer never sends twice', async () => {
    const email = uniqueEmail('wf-inflight');
    const contactId = await createContact(rt, email);
    await rt.drain();
    // The email's outcome, its `email.sent` event (after the provider call), fails once: the
    // record stays SENDING with no event.
    faults.failAt((c) => c.op === 'put' && sk(c).startsWith('EV#') && c.item?.name === 'email.sent', 1);
    const started = { body: await trackStart(email, contactId) };
    await waitUntil(
      'the first mail',
      async () => faults.fired && (await rt.mails({ to: email })).length === 1,
    );
    faults.clear();
    // Until the grace period has passed the step waits (another attempt may be sending).
    await advanceClock(rt, SENDING_GRACE_MS / 1000 + 60);
    await rt.drain();
    const waiting = await executionDelayed(rt, workflow.id, started.body.id);
    // Unknown, or sent once SES's Send event settled the record (the local sink publishes one).
    expect(['unknown', 'sent']).toContain(waiting.history[0].result);
    expect((await rt.mails({ to: email })).map((m) => m.subject)).toEqual(['First']);
    await advanceClock(rt, 3600 + 60);
    await executionIn(rt, workflow.id, started.body.id, 'COMPLETED');
  });
});

describe('a WAIT_FOR_EVENT with every message delivered twice', () => {
  let waitFlow: { id: string; steps: string[] };
  beforeAll(async () => {
    waitFlow = await linearWorkflow(rt, { eventName: 'crash_wait_go' }, [
      { type: 'WAIT_FOR_EVENT', config: { eventName: 'crash_paid' } },
      { type: 'EXIT', config: {} },
    ]);
  });
  const track = async (email: string, event: string) =>
    expect((await rt.api('POST', '/v1/track', { body: { email, event }, key: rt.publicKey })).status).toBe(
      200,
    );
  const total = async (status: string) =>
    Number(
      (await rt.api('GET', `/workflows/${waitFlow.id}/executions?status=${status}&pageSize=1`)).body.total,
    );

  it.each([
    ['moving into the wait', 1],
    ['moving on from the wait, on the contact’s event', 2],
  ])('and a crash while %s resumes it once', async (_when, nth) => {
    const email = uniqueEmail('wf-wait-crash');
    const contactId = await createContact(rt, email);
    const exitedBefore = await total('EXITED');
    await rt.drain();
    faults.failAt(moves, nth);
    await track(email, 'crash_wait_go');
    const started = await pollUntil('the execution', async () => {
      const list = await rt.api('GET', `/workflows/${waitFlow.id}/executions?pageSize=100`);
      return (list.body.data as Json[]).find((e) => e.contactId === contactId);
    });
    await executionIn(rt, waitFlow.id, started.id, 'WAITING');
    await rt.drain();
    await track(email, 'crash_paid');
    const done = await executionIn(rt, waitFlow.id, started.id, 'EXITED');
    expect(faults.fired, 'the fault fired').toBe(true);
    faults.clear();
    expect(done.history.map((h: Json) => h.result)).toEqual([
      'waiting for crash_paid',
      'event received',
      'exited',
    ]);
    await rt.drain();
    // The counts are exact: nothing left waiting or running, this execution exited once.
    expect(await total('WAITING')).toBe(0);
    expect(await total('RUNNING')).toBe(0);
    expect(await total('EXITED')).toBe(exitedBefore + 1);
    expect(rt.queue.deadLetters()).toEqual([]);
  });
});
