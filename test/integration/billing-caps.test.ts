/**
 * Monthly send caps through HTTP against the local runtime (docs/billing.md): the limits and
 * consumption routes (members only, OWNER or ADMIN to change), and the one check on every send
 * path: `POST /v1/send` (403 `BILLING_LIMIT_REACHED`, all or nothing), campaigns (refused before
 * they start, stopped at the cap while they run) and workflow SEND_EMAIL steps (the execution
 * fails with the reason); concurrent senders never pass a cap; a new month starts from zero.
 *
 * Every queue message is delivered twice (`redeliverEachMessage`, as SQS may) and campaigns fan
 * out in batches of 4, one batch a message, so the counts below also show that a redelivered
 * batch or step is never counted twice. The clock starts on the 10th of next month, so no test
 * straddles a month's end whatever day it runs.
 */
import type { SQSEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { jobs, normalizers } from '../../functions/queues/jobs';
import { putMembership } from '../../shared/accounts/repository';
import { campaignJobs } from '../../shared/campaigns/jobs';
import { CAMPAIGN_SEND_JOB } from '../../shared/campaigns/messages';
import { fastTimings } from '../../shared/composition/local';
import { seedVerifiedDomain } from '../../shared/domains/repository';
import { jobsWorker } from '../../shared/jobs/registry';
import type { Deps } from '../../shared/ports';
import { campaignRun } from './helpers/campaigns';
import { uniqueEmail } from './helpers/contacts';
import { settleEventCounts } from './helpers/events';
import { type ApiOptions, type Json, useLocalRuntime } from './helpers/local';
import { createTemplate, executionIn, linearWorkflow } from './helpers/workflows';

const workerJobs = [
  ...jobs.filter((j) => j.type !== CAMPAIGN_SEND_JOB),
  ...campaignJobs({ chunkSize: 4, budgetMs: 0 }),
];

const rt = useLocalRuntime({
  env: { SES_MAX_SEND_RATE: '100000' },
  timings: { ...fastTimings, redeliverEachMessage: true },
  handlers: {
    queues: {
      jobs: (deps: Deps) => {
        const worker = jobsWorker(deps, workerJobs, normalizers);
        return (event: SQSEvent) => worker(event);
      },
    },
  },
});

const PASSWORD = 'correct horse battery';
const NO_CAPS = { transactional: null, campaigns: null, workflows: null };
const DAY_S = 86_400;

/** Seconds from the clock's now to `day` of the month after it, at noon UTC. */
function secondsUntilNextMonth(day: number): number {
  const now = rt.deps.clock.now();
  const target = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, day, 12);
  return Math.ceil((target - now.getTime()) / 1000);
}

beforeAll(async () => {
  await rt.runtime.clock.advance(secondsUntilNextMonth(10));
});

let domains = 0;

/** A signed-up user's own project, with a verified sender domain of its own and its secret key. */
async function ownedProject(tag: string) {
  const email = uniqueEmail(tag);
  const res = await rt.api('POST', '/auth/signup', { key: null, body: { email, password: PASSWORD } });
  expect(res.status, res.text).toBe(201);
  const cookie = /sesame_session=[^;]*/.exec(res.headers['set-cookie'] ?? '')![0];
  const pid: string = res.body.project.id;
  const domain = `${tag}${++domains}.billing.test`;
  await seedVerifiedDomain(rt.deps, pid, domain);
  const key: string = res.body.keys.secretKey;
  return {
    email,
    userId: res.body.user.id as string,
    pid,
    from: `news@${domain}`,
    session: { key: null, headers: { cookie } } as ApiOptions,
    api: (method: string, path: string, options: ApiOptions = {}) =>
      rt.api(method, path, { key, ...options }),
  };
}
type Owned = Awaited<ReturnType<typeof ownedProject>>;

async function setLimits(p: Owned, limits: Record<string, number | null>) {
  const res = await rt.api('PUT', `/users/@me/projects/${p.pid}/billing-limits`, {
    ...p.session,
    body: limits,
  });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function consumption(p: Owned): Promise<Json> {
  const res = await rt.api('GET', `/users/@me/projects/${p.pid}/billing-consumption`, p.session);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Addresses the local mail sink holds messages of the project to (`GET /_local/emails`), with counts. */
async function mailedTo(p: Owned): Promise<Map<string, number>> {
  const res = await rt.api('GET', '/_local/emails', { key: null });
  const counts = new Map<string, number>();
  for (const m of res.body as Json[]) {
    if (m.tags?.projectId !== p.pid) continue;
    for (const to of m.to as string[]) counts.set(to.toLowerCase(), (counts.get(to.toLowerCase()) ?? 0) + 1);
  }
  return counts;
}

const send = (p: Owned, to: string | string[], extra: Record<string, unknown> = {}) =>
  p.api('POST', '/v1/send', { body: { to, from: p.from, subject: 'Hi', body: '<p>Hi</p>', ...extra } });

async function createContacts(p: Owned, emails: readonly string[], data: Record<string, unknown> = {}) {
  for (const email of emails) {
    const res = await p.api('POST', '/contacts', { body: { email, subscribed: true, data } });
    expect(res.status, res.text).toBe(201);
  }
}

async function failedEvents(p: Owned): Promise<Json[]> {
  const res = await p.api('GET', '/events', { query: { name: 'email.failed', limit: 100 } });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

describe('billing limits', () => {
  it('are all null until set; PUT replaces them; bad bodies are 422 and change nothing', async () => {
    const p = await ownedProject('limits');
    const path = `/users/@me/projects/${p.pid}/billing-limits`;
    expect((await rt.api('GET', path, p.session)).body).toEqual(NO_CAPS);
    const caps = { transactional: 100, campaigns: 0, workflows: null };
    expect(await setLimits(p, caps)).toEqual(caps);
    expect((await rt.api('GET', path, p.session)).body).toEqual(caps);
    for (const [body, field] of [
      [{ transactional: -1, campaigns: 0, workflows: null }, 'transactional'],
      [{ transactional: 1.5, campaigns: 0, workflows: null }, 'transactional'],
      [{ transactional: '10', campaigns: 0, workflows: null }, 'transactional'],
      [{ transactional: 10, campaigns: 0 }, 'workflows'],
      [{ transactional: 10, campaigns: 0, workflows: null, marketing: 5 }, ''],
      [[], ''],
    ] as const) {
      const res = await rt.api('PUT', path, { ...p.session, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.errors.map((e: Json) => e.field)).toContain(field);
    }
    expect((await rt.api('GET', path, p.session)).body).toEqual(caps);
    expect(await setLimits(p, NO_CAPS)).toEqual(NO_CAPS);
  });

  it('answer 401 without a session and 404 to a non-member; a MEMBER reads them but only OWNER or ADMIN change them', async () => {
    const p = await ownedProject('roles');
    const other = await ownedProject('other');
    const paths = ['billing-limits', 'billing-consumption'].map((r) => `/users/@me/projects/${p.pid}/${r}`);
    const caps = { transactional: 5, campaigns: 5, workflows: 5 };
    for (const path of paths) {
      expect((await rt.api('GET', path, { key: null })).status).toBe(401);
      const res = await rt.api('GET', path, other.session);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    // A secret key is no session: these are user routes.
    expect((await p.api('GET', paths[0]!)).status).toBe(401);
    expect((await rt.api('PUT', paths[0]!, { ...other.session, body: caps })).status).toBe(404);
    expect((await rt.api('GET', `/users/@me/projects/nope/billing-limits`, p.session)).status).toBe(404);

    await putMembership(
      rt.deps,
      {
        projectId: p.pid,
        userId: other.userId,
        role: 'MEMBER',
        createdAt: rt.deps.clock.now().toISOString(),
      },
      other.email,
    );
    expect((await rt.api('GET', paths[0]!, other.session)).body).toEqual(NO_CAPS);
    expect((await rt.api('GET', paths[1]!, other.session)).body).toMatchObject({ total: 0 });
    const refused = await rt.api('PUT', paths[0]!, { ...other.session, body: caps });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect((await rt.api('GET', paths[0]!, p.session)).body).toEqual(NO_CAPS);

    await putMembership(
      rt.deps,
      { projectId: p.pid, userId: other.userId, role: 'ADMIN', createdAt: rt.deps.clock.now().toISOString() },
      other.email,
    );
    expect((await rt.api('PUT', paths[0]!, { ...other.session, body: caps })).status).toBe(200);
    expect((await rt.api('GET', paths[0]!, p.session)).body).toEqual(caps);
  });
});

describe('POST /v1/send under the transactional cap', () => {
  it('refuses a send that would pass the cap with 403, all or nothing: no recipient is processed', async () => {
    const p = await ownedProject('send');
    await setLimits(p, { ...NO_CAPS, transactional: 3 });
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((t) => uniqueEmail(`cap-${t}`)) as [
      string,
      string,
      string,
      string,
    ];
    expect((await send(p, [a, b])).status).toBe(200);

    const refused = await send(p, [c, d]);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'BILLING_LIMIT_REACHED',
      statusCode: 403,
      details: { category: 'transactional', limit: 3, used: 2, requested: 2 },
    });
    // Nothing of the refused request happened: no mail, no contact.
    expect([...(await mailedTo(p)).keys()].sort()).toEqual([a, b].sort());
    const lookup = await p.api('POST', '/contacts/lookup', { body: { emails: [c, d] } });
    expect(lookup.body.found).toEqual([]);

    expect((await send(p, c)).status).toBe(200);
    expect((await send(p, d)).status).toBe(403);
    expect(await mailedTo(p)).toEqual(new Map([a, b, c].map((e) => [e, 1])));
    expect(await consumption(p)).toMatchObject({ transactional: 3, campaigns: 0, workflows: 0, total: 3 });

    // A cap of 0 stops the category; no cap lets it go again.
    await setLimits(p, { ...NO_CAPS, transactional: 0 });
    expect((await send(p, d)).status).toBe(403);
    await setLimits(p, NO_CAPS);
    expect((await send(p, d)).status).toBe(200);
    // Without a cap nothing is reserved: the event tally counts the send, minutes later.
    expect((await consumption(p)).transactional).toBe(3);
    await settleEventCounts(rt, p.pid);
    expect((await consumption(p)).transactional).toBe(4);
  });

  it('counts what reached the provider: skipped and refused recipients give their room back', async () => {
    const p = await ownedProject('honest');
    await setLimits(p, { ...NO_CAPS, transactional: 2 });
    // An unsubscribed contact and MARKETING content: skipped, never sent.
    const unsubscribed = uniqueEmail('unsub');
    await p.api('POST', '/contacts', { body: { email: unsubscribed, subscribed: false } });
    const template = await createTemplate(p, p.from, { type: 'MARKETING' });
    const skipped = await p.api('POST', '/v1/send', { body: { to: unsubscribed, template } });
    expect(skipped.status, skipped.text).toBe(200);
    expect(skipped.body.data.emails[0]).toMatchObject({ status: 'skipped', reason: 'unsubscribed' });
    expect((await consumption(p)).transactional).toBe(0);

    // The provider refuses: not sent, not counted.
    const { PermanentSendError } = await import('../../shared/adapters/aws/send-errors');
    const original = rt.mailSink.sendRaw.bind(rt.mailSink);
    rt.mailSink.sendRaw = async () => {
      throw new PermanentSendError('MESSAGE_REJECTED', 'Rejected');
    };
    try {
      expect((await send(p, uniqueEmail('rejected'))).status).toBe(502);
    } finally {
      rt.mailSink.sendRaw = original;
    }
    expect((await consumption(p)).transactional).toBe(0);

    // The room is all there: two sends fit, a third does not.
    expect((await send(p, [uniqueEmail('x'), uniqueEmail('y')])).status).toBe(200);
    expect((await send(p, uniqueEmail('z'))).status).toBe(403);
    expect((await consumption(p)).transactional).toBe(2);
  });

  it('counts a send retried under its Idempotency-Key once', async () => {
    const p = await ownedProject('idem');
    await setLimits(p, { ...NO_CAPS, transactional: 1 });
    const body = { to: uniqueEmail('idem'), from: p.from, subject: 'Once', body: '<p>Once</p>' };
    const headers = { 'idempotency-key': 'billing-once' };
    expect((await p.api('POST', '/v1/send', { body, headers })).status).toBe(200);
    const again = await p.api('POST', '/v1/send', { body, headers });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await consumption(p)).transactional).toBe(1);
  });

  it('never lets concurrent sends pass the cap together', async () => {
    const p = await ownedProject('race');
    await setLimits(p, { ...NO_CAPS, transactional: 5 });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => send(p, uniqueEmail(`race${i}`))));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(5);
    expect(
      answers.filter((r) => r.status === 403).every((r) => r.body.error.code === 'BILLING_LIMIT_REACHED'),
    ).toBe(true);
    expect(answers.filter((r) => r.status === 403)).toHaveLength(7);
    expect([...(await mailedTo(p)).values()].reduce((n, c) => n + c, 0)).toBe(5);
    expect((await consumption(p)).transactional).toBe(5);
  });
});

describe('campaigns under the campaigns cap', () => {
  const draft = (p: Owned, extra: Record<string, unknown> = {}) => ({
    name: 'Capped',
    subject: 'News',
    body: '<p>News</p>',
    from: p.from,
    audienceType: 'ALL',
    ...extra,
  });

  async function createCampaign(p: Owned, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await p.api('POST', '/campaigns', { body: draft(p, extra) });
    expect(res.status, res.text).toBe(201);
    return res.body.data.id;
  }

  it('refuses a send now whose audience would pass the cap before it starts', async () => {
    const p = await ownedProject('camp');
    const emails = [1, 2, 3].map((i) => uniqueEmail(`camp${i}`));
    await createContacts(p, emails);
    await setLimits(p, { ...NO_CAPS, campaigns: 2 });
    const id = await createCampaign(p);
    const refused = await p.api('POST', `/campaigns/${id}/send`, { body: {} });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'BILLING_LIMIT_REACHED',
      details: { category: 'campaigns', limit: 2, used: 0, requested: 3 },
    });
    await rt.drain({ timeoutMs: 30_000 });
    expect((await p.api('GET', `/campaigns/${id}`)).body).toMatchObject({ status: 'DRAFT' });
    expect(await mailedTo(p)).toEqual(new Map());

    await setLimits(p, { ...NO_CAPS, campaigns: 3 });
    expect((await p.api('POST', `/campaigns/${id}/send`, { body: {} })).status).toBe(200);
    await rt.drain({ timeoutMs: 30_000 });
    expect((await p.api('GET', `/campaigns/${id}`)).body).toMatchObject({ status: 'SENT', sentCount: 3 });
    expect(await mailedTo(p)).toEqual(new Map(emails.map((e) => [e, 1])));
    expect(await consumption(p)).toMatchObject({ campaigns: 3, total: 3 });
  });

  it('does not start a scheduled campaign over the cap when it fires: it is a DRAFT again, nothing sent', async () => {
    const p = await ownedProject('sched');
    await createContacts(
      p,
      [1, 2, 3].map((i) => uniqueEmail(`sched${i}`)),
    );
    await setLimits(p, { ...NO_CAPS, campaigns: 2 });
    const id = await createCampaign(p);
    const at = new Date(rt.deps.clock.now().getTime() + 600_000).toISOString();
    const scheduled = await p.api('POST', `/campaigns/${id}/send`, { body: { scheduledFor: at } });
    expect(scheduled.status, scheduled.text).toBe(200);
    expect(scheduled.body.data.status).toBe('SCHEDULED');
    await rt.runtime.clock.advance(660);
    await rt.drain({ timeoutMs: 30_000 });
    expect((await p.api('GET', `/campaigns/${id}`)).body).toMatchObject({
      status: 'DRAFT',
      scheduledFor: null,
      totalRecipients: 0,
    });
    expect(await mailedTo(p)).toEqual(new Map());
    expect((await consumption(p)).campaigns).toBe(0);
  });

  it('stops a running campaign at the cap: the rest fail with BILLING_LIMIT_REACHED and it ends SENT', async () => {
    const p = await ownedProject('running');
    const pro = Array.from({ length: 10 }, (_, i) => uniqueEmail(`pro${i}`));
    await createContacts(p, pro, { plan: 'pro' });
    await createContacts(p, [uniqueEmail('free')], { plan: 'free' });
    await setLimits(p, { ...NO_CAPS, campaigns: 6 });
    // A FILTERED audience's size is only known as the fan-out evaluates it: it starts.
    const id = await createCampaign(p, {
      audienceType: 'FILTERED',
      audienceCondition: {
        logic: 'AND',
        groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
      },
    });
    expect((await p.api('POST', `/campaigns/${id}/send`, { body: {} })).status).toBe(200);
    await rt.drain({ timeoutMs: 60_000 });

    const campaign = (await p.api('GET', `/campaigns/${id}`)).body;
    expect(campaign).toMatchObject({ status: 'SENT', totalRecipients: 10, sentCount: 6 });
    expect(await campaignRun(rt, p.pid, id)).toMatchObject({
      recipients: 10,
      sent: 6,
      failed: 4,
      unknown: 0,
    });
    const mailed = await mailedTo(p);
    expect(mailed.size).toBe(6);
    expect([...mailed.values()].every((n) => n === 1)).toBe(true);
    const failed = (await failedEvents(p)).filter((e) => e.data?.campaignId === id);
    expect(failed).toHaveLength(4);
    for (const e of failed) expect(e.data).toMatchObject({ reason: 'BILLING_LIMIT_REACHED' });
    expect(new Set(failed.map((e) => e.email))).toEqual(new Set(pro.filter((e) => !mailed.has(e))));
    expect(await consumption(p)).toMatchObject({ campaigns: 6, total: 6 });
  });

  it('never lets two campaigns started together pass the cap between them', async () => {
    const p = await ownedProject('pair');
    const emails = Array.from({ length: 5 }, (_, i) => uniqueEmail(`pair${i}`));
    await createContacts(p, emails);
    await setLimits(p, { ...NO_CAPS, campaigns: 8 });
    const ids = [await createCampaign(p, { name: 'One' }), await createCampaign(p, { name: 'Two' })];
    // Each fits alone, so both start; together they would need 10.
    for (const id of ids)
      expect((await p.api('POST', `/campaigns/${id}/send`, { body: {} })).status).toBe(200);
    await rt.drain({ timeoutMs: 60_000 });
    const runs = await Promise.all(ids.map((id) => campaignRun(rt, p.pid, id)));
    expect(runs.reduce((n, r) => n + (r?.sent ?? 0), 0)).toBe(8);
    expect(runs.reduce((n, r) => n + (r?.failed ?? 0), 0)).toBe(2);
    for (const id of ids) expect((await p.api('GET', `/campaigns/${id}`)).body.status).toBe('SENT');
    expect([...(await mailedTo(p)).values()].reduce((n, c) => n + c, 0)).toBe(8);
    expect((await consumption(p)).campaigns).toBe(8);
  });
});

describe('workflows under the workflows cap', () => {
  it('fails a SEND_EMAIL step over the cap, and its execution, with BILLING_LIMIT_REACHED', async () => {
    const p = await ownedProject('flow');
    await setLimits(p, { ...NO_CAPS, workflows: 1 });
    const templateId = await createTemplate(p, p.from);
    const { id: wf } = await linearWorkflow(p, { triggerType: 'MANUAL', allowReentry: true }, [
      { type: 'SEND_EMAIL', config: { templateId, recipient: { type: 'CONTACT' } } },
    ]);
    const [first, second] = [uniqueEmail('flow1'), uniqueEmail('flow2')];
    await createContacts(p, [first, second]);
    const contactId = async (email: string) =>
      (await p.api('POST', '/contacts/lookup', { body: { emails: [email] } })).body.found[0].id as string;

    const start = async (email: string) => {
      const res = await p.api('POST', `/workflows/${wf}/executions`, {
        body: { contactId: await contactId(email) },
      });
      expect(res.status, res.text).toBe(201);
      return res.body.id as string;
    };
    const sent = await executionIn(p, wf, await start(first), 'COMPLETED');
    expect(sent.history).toEqual([expect.objectContaining({ type: 'SEND_EMAIL', result: 'sent' })]);
    await rt.drain({ timeoutMs: 30_000 });

    const failed = await executionIn(p, wf, await start(second), 'FAILED');
    expect(failed.error).toMatch(/BILLING_LIMIT_REACHED/);
    await rt.drain({ timeoutMs: 30_000 });
    expect(await mailedTo(p)).toEqual(new Map([[first, 1]]));
    const events = (await failedEvents(p)).filter((e) => e.email === second);
    expect(events).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ reason: 'BILLING_LIMIT_REACHED' }) }),
    ]);
    expect(await consumption(p)).toMatchObject({ workflows: 1, total: 1 });
  });
});

describe('sends without a cap', () => {
  it('are counted by the event tally, once each: retries, redelivered tallies and a cap set meanwhile add nothing twice', async () => {
    const p = await ownedProject('tally');
    const headers = { 'idempotency-key': 'tally-once' };
    const body = { to: uniqueEmail('k'), from: p.from, subject: 'Once', body: '<p>Once</p>' };
    expect((await send(p, [uniqueEmail('t1'), uniqueEmail('t2')])).status).toBe(200);
    expect((await p.api('POST', '/v1/send', { body, headers })).status).toBe(200);
    expect((await p.api('POST', '/v1/send', { body, headers })).status).toBe(409);
    // Nothing reserved: the tally counts them, each once (a write on the send path would count
    // one twice).
    await settleEventCounts(rt, p.pid);
    expect(await consumption(p)).toMatchObject({ transactional: 3, total: 3 });

    // A cap set now counts from there: one more fits, reserved (counted) at once.
    await setLimits(p, { ...NO_CAPS, transactional: 4 });
    expect((await send(p, uniqueEmail('t4'))).status).toBe(200);
    expect(await consumption(p)).toMatchObject({ transactional: 4 });
    expect((await send(p, uniqueEmail('t5'))).status).toBe(403);
    // The tally, run again, counts the reserved send no second time.
    await settleEventCounts(rt, p.pid);
    expect(await consumption(p)).toMatchObject({ transactional: 4, total: 4 });
    expect([...(await mailedTo(p)).values()].reduce((n, c) => n + c, 0)).toBe(4);
  });

  it('stay counted when the contact, and with it the `email.sent` event, is deleted before the tally met it', async () => {
    const p = await ownedProject('gone');
    const sent = await send(p, [uniqueEmail('g1'), uniqueEmail('g2')]);
    expect(sent.status).toBe(200);
    for (const e of sent.body.data.emails as Json[])
      expect((await p.api('DELETE', `/contacts/${e.contact.id}`)).status).toBe(200);
    await rt.drain({ timeoutMs: 30_000 });
    for (const e of sent.body.data.emails as Json[])
      expect((await p.api('GET', `/contacts/${e.contact.id}`)).status).toBe(404);
    expect((await p.api('GET', '/events', { query: { name: 'email.sent' } })).body.data).toEqual([]);
    await settleEventCounts(rt, p.pid);
    expect(await consumption(p)).toMatchObject({ transactional: 2, total: 2 });
  });
});

describe('billing consumption', () => {
  it('counts each category from its counters, within the calendar month (UTC)', async () => {
    const p = await ownedProject('usage');
    const subscribed = [uniqueEmail('u1'), uniqueEmail('u2')];
    await createContacts(p, subscribed);
    expect((await send(p, [uniqueEmail('t1'), uniqueEmail('t2'), uniqueEmail('t3')])).status).toBe(200);
    const campaign = await p.api('POST', '/campaigns', {
      body: { name: 'All', subject: 'S', body: '<p>B</p>', from: p.from, audienceType: 'ALL' },
    });
    expect((await p.api('POST', `/campaigns/${campaign.body.data.id}/send`, { body: {} })).status).toBe(200);
    const templateId = await createTemplate(p, p.from);
    const { id: wf } = await linearWorkflow(p, { triggerType: 'MANUAL' }, [
      { type: 'SEND_EMAIL', config: { templateId, recipient: { type: 'CUSTOM', email: uniqueEmail('w') } } },
    ]);
    const contact = (await p.api('POST', '/contacts/lookup', { body: { emails: [subscribed[0]] } })).body
      .found[0].id;
    const started = await p.api('POST', `/workflows/${wf}/executions`, { body: { contactId: contact } });
    await executionIn(p, wf, started.body.id, 'COMPLETED');
    await rt.drain({ timeoutMs: 30_000 });
    // No caps: nothing was reserved; the event tally (run twice here: every queue message is
    // delivered twice) counts the `email.sent` events, each once.
    await settleEventCounts(rt, p.pid);
    await settleEventCounts(rt, p.pid);

    const now = rt.deps.clock.now();
    expect(await consumption(p)).toEqual({
      periodStart: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
      periodEnd: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      transactional: 3,
      campaigns: 2,
      workflows: 1,
      total: 6,
    });
  });

  // Last: it moves the clock a month on.
  it('starts from zero in a new month, and the cap with it', async () => {
    const p = await ownedProject('month');
    await setLimits(p, { ...NO_CAPS, transactional: 1 });
    expect((await send(p, uniqueEmail('m1'))).status).toBe(200);
    expect((await send(p, uniqueEmail('m2'))).status).toBe(403);
    const before = await consumption(p);

    await rt.api('POST', '/_local/clock', { key: null, body: { advance: secondsUntilNextMonth(1) + DAY_S } });
    // The session outlived its week: sign in again.
    const login = await rt.api('POST', '/auth/login', {
      key: null,
      body: { email: p.email, password: PASSWORD },
    });
    expect(login.status).toBe(200);
    const cookie = /sesame_session=[^;]*/.exec(login.headers['set-cookie'] ?? '')![0];
    const q: Owned = { ...p, session: { key: null, headers: { cookie } } };

    const fresh = await consumption(q);
    expect(fresh).toMatchObject({ transactional: 0, total: 0 });
    expect(fresh.periodStart).toBe(before.periodEnd);
    expect((await send(q, uniqueEmail('m3'))).status).toBe(200);
    expect((await send(q, uniqueEmail('m4'))).status).toBe(403);
    expect(await consumption(q)).toMatchObject({ transactional: 1, total: 1 });
  });
});
