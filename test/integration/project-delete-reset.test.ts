/**
 * Deleting and resetting a project (shared/accounts/project-removal.ts, shared/projects/wipe.ts,
 * shared/projects/wipe-job.ts) through HTTP against the local runtime. A project is filled through
 * the API (contacts, events, a template, a segment, a campaign scheduled for tomorrow, a workflow
 * execution in a one-day delay, a sent email with its idempotency key, a bulk job, sender
 * domains, a second member) plus a suppression and a Stripe customer written to the table.
 *
 * - DELETE: OWNER only (ADMIN 403, non-member 404); answered at once, after which the keys answer
 *   401 (on another warm instance too), sessions 404 and the project leaves every member's list;
 *   once the queue is done no item of the project is left, inside its prefix or pointing at it
 *   (keys, memberships, domain claims, the SES identity Sesame made, the Stripe claim, index
 *   entries, schedules), another project's items are all still there, and moving the clock past
 *   the schedules sends nothing and writes nothing.
 * - Reset: OWNER only, `confirm` the exact name (422 otherwise, nothing changed); wipes the data
 *   and its counters (totals 0, no fields, no activity), keeps the project, members, keys,
 *   domains, billing, suppressions; its schedules are gone; the project works afterwards. A
 *   second reset starts over; a delete asked during a reset takes over.
 *
 * Every queue message is delivered twice (`redeliverEachMessage`), the wipe reads the table a few
 * items a page with one page a message, and one test crashes the wipe between two pages.
 */
import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { jobs, normalizers } from '../../functions/queues/jobs';
import { putMembership } from '../../shared/accounts/repository';
import { seedVerifiedDomain } from '../../shared/domains/repository';
import { TALLY_JOB } from '../../shared/events/tally';
import { jobsWorker } from '../../shared/jobs/registry';
import { fastTimings } from '../../shared/local/runtime';
import type { Deps } from '../../shared/ports';
import { projectJobs } from '../../shared/projects/jobs';
import { hashKey } from '../../shared/projects/repository';
import { WIPE_JOB } from '../../shared/projects/wipe';
import type { Item } from '../../shared/store/store';
import { keys } from '../../shared/table';
import { campaignBody, createCampaign } from './helpers/campaigns';
import { uniqueEmail } from './helpers/contacts';
import { StoreFaults } from './helpers/faults';
import { type ApiOptions, type Json, useLocalRuntime } from './helpers/local';
import { createTemplate, executionDelayed, linearWorkflow } from './helpers/workflows';

const faults = new StoreFaults('simulated worker crash');
/** Wipe messages the worker was handed (each delivered twice). */
let wipeRecords = 0;
/**
 * While true, the worker drops the event tally's messages: a test's events stay uncounted (the
 * tally counts them a second after they happen otherwise), so what counts them instead shows.
 */
let tallyHeld = false;
afterEach(() => {
  tallyHeld = false;
});

const rt = useLocalRuntime({
  timings: { ...fastTimings, redeliverEachMessage: true },
  handlers: {
    queues: {
      jobs: (deps: Deps) => {
        // A few items read a page, one page a message: a wipe takes many messages.
        const small = projectJobs({ scanLimit: 40, budgetMs: 0 });
        const defs = [...jobs.filter((j) => !small.some((s) => s.type === j.type)), ...small];
        const worker = jobsWorker(faults.inject(deps), defs, normalizers);
        return (event: SQSEvent, context: never) => {
          for (const r of event.Records) if (JSON.parse(r.body).type === WIPE_JOB) wipeRecords++;
          if (tallyHeld) {
            const records = event.Records.filter((r) => JSON.parse(r.body).type !== TALLY_JOB);
            return worker({ Records: records }, context);
          }
          return worker(event, context);
        };
      },
    },
  },
});

const PASSWORD = 'correct horse battery';
let seq = 0;

async function signup() {
  const email = uniqueEmail('wipe');
  const res = await rt.api('POST', '/auth/signup', { key: null, body: { email, password: PASSWORD } });
  expect(res.status, res.text).toBe(201);
  const cookie = /sesame_session=[^;]*/.exec(res.headers['set-cookie'] ?? '')![0];
  return {
    email,
    userId: res.body.user.id as string,
    projectId: res.body.project.id as string,
    keys: res.body.keys as { secretKey: string; publicKey: string },
    as: { key: null, headers: { cookie } },
    cookie,
  };
}

/** Every item of the table whose key is inside the project's prefix. */
async function itemsOf(projectId: string): Promise<Item[]> {
  const out: Item[] = [];
  let cursor = '';
  do {
    const page = await rt.deps.store.scan(
      {
        filter: 'pk = :p OR begins_with(pk, :inside)',
        values: { ':p': `P#${projectId}`, ':inside': `P#${projectId}#` },
      },
      { limit: 500, ...(cursor ? { cursor } : {}) },
    );
    out.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  return out;
}

const keyOf = (item: Item) => `${item.pk} ${item.sk}`;
const pidsInIndex = async (index: 'pendingDomains' | 'periodicSegments', partition: string) => {
  const found: string[] = [];
  for await (const item of rt.deps.store.queryAll({ index, partition })) found.push(JSON.stringify(item));
  return found;
};

/** A project full of data, owned by a new user, with an ADMIN member. */
async function seededProject(tag: string) {
  const owner = await signup();
  const admin = await signup();
  const pid = owner.projectId;
  const key = owner.keys.secretKey;
  const p = {
    api: (method: string, path: string, options: ApiOptions = {}) =>
      rt.api(method, path, { key, ...options }),
  };
  const ok = async (res: Promise<{ status: number; text: string; body: Json }>, status = 200) => {
    const out = await res;
    expect(out.status, out.text).toBe(status);
    return out.body;
  };
  await putMembership(
    rt.deps,
    { projectId: pid, userId: admin.userId, role: 'ADMIN', createdAt: new Date().toISOString() },
    admin.email,
  );
  const n = ++seq;
  const domain = `${tag}${n}.wipe.test`;
  await seedVerifiedDomain(rt.deps, pid, domain);
  const from = `news@${domain}`;
  // A domain added through the API: Sesame creates (and owns) its SES identity.
  const added = `mail-${tag}${n}.wipe.test`;
  await ok(p.api('POST', '/domains', { body: { domain: added } }), 201);

  const emails = [0, 1, 2].map(() => uniqueEmail(tag));
  const contacts: string[] = [];
  for (const [i, email] of emails.entries())
    contacts.push(
      (await ok(p.api('POST', '/contacts', { body: { email, data: { plan: 'pro', n: i } } }), 201)).id,
    );
  await ok(
    p.api('POST', '/events/track', { body: { email: emails[0], event: 'signed_up', data: { via: 'test' } } }),
  );
  await ok(p.api('POST', '/events/track', { body: { email: emails[1], event: 'upgraded' } }));
  const templateId = await createTemplate(p, from);
  await ok(
    p.api('POST', '/segments', {
      body: {
        name: `Pro ${n}`,
        condition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
        },
      },
    }),
    201,
  );
  const campaign = await createCampaign(p, campaignBody(from));
  const tomorrow = new Date(rt.deps.clock.now().getTime() + 86_400_000).toISOString();
  await ok(p.api('POST', `/campaigns/${campaign.id}/send`, { body: { scheduledFor: tomorrow } }));
  const { id: workflowId } = await linearWorkflow(p, { triggerType: 'MANUAL' }, [
    { type: 'DELAY', config: { amount: 1, unit: 'days' } },
    { type: 'SEND_EMAIL', config: { templateId, recipient: { type: 'CONTACT' } } },
  ]);
  const started = await ok(
    p.api('POST', `/workflows/${workflowId}/executions`, { body: { contactId: contacts[2] } }),
    201,
  );
  await executionDelayed(p, workflowId, started.id);
  await ok(
    p.api('POST', '/v1/send', {
      body: { to: emails[1], from, subject: 'Hello', body: '<p>Hi</p>' },
      headers: { 'idempotency-key': `wipe-${n}` },
    }),
  );
  await ok(p.api('POST', '/contacts/bulk-subscribe', { body: { contactIds: [contacts[0]] } }), 202);
  await rt.deps.store.write({
    put: {
      ...keys.suppression(pid, 'bounced@wipe.test'),
      reason: 'bounce',
      createdAt: new Date().toISOString(),
    },
  });
  await rt.drain({ timeoutMs: 60_000 });
  return { owner, admin, pid, key, p, ok, domain, added, emails, contacts, campaign, workflowId, from };
}

/** Mails the sink holds to any of `emails` (other projects' schedules fire in the same runtime). */
async function mailsTo(emails: readonly string[]): Promise<number> {
  let count = 0;
  for (const email of emails) count += (await rt.mails({ to: email })).length;
  return count;
}

/** Scheduled one-offs of the project (campaign starts, workflow delays). */
const schedulesOf = (pid: string) =>
  rt.scheduler.list().filter((s) => (s.message as { projectId?: string }).projectId === pid);

describe('DELETE /users/@me/projects/{id}', () => {
  it('is for the OWNER only: 403 for an ADMIN, 404 for anyone else; nothing changes', async () => {
    const s = await seededProject('roles');
    const stranger = await signup();
    const byAdmin = await rt.api('DELETE', `/users/@me/projects/${s.pid}`, s.admin.as);
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body.error.code).toBe('FORBIDDEN');
    const byStranger = await rt.api('DELETE', `/users/@me/projects/${s.pid}`, stranger.as);
    expect(byStranger.status).toBe(404);
    expect(byStranger.body.error.code).toBe('NOT_FOUND');
    expect((await rt.api('DELETE', `/users/@me/projects/${s.pid}`, { key: null })).status).toBe(401);
    expect((await s.p.api('GET', '/contacts')).body.total).toBe(3);
    const listed = await rt.api('GET', '/users/@me/projects', s.admin.as);
    expect(listed.body.map((x: Json) => x.id)).toContain(s.pid);
  });

  it('refuses a project whose Stripe subscription is live (409), and takes one that ended', async () => {
    const owner = await signup();
    const pid = owner.projectId;
    await rt.deps.store.write({
      put: {
        ...keys.billingStripe(pid),
        customerId: 'cus_live',
        subscriptionId: 'sub_1',
        subscriptionStatus: 'active',
      },
    });
    const refused = await rt.api('DELETE', `/users/@me/projects/${pid}`, owner.as);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('SUBSCRIPTION_ACTIVE');
    expect((await rt.api('GET', '/contacts', { key: owner.keys.secretKey })).status).toBe(200);
    await rt.deps.store.write({
      update: keys.billingStripe(pid),
      expression: 'SET subscriptionStatus = :s',
      values: { ':s': 'canceled' },
    });
    expect((await rt.api('DELETE', `/users/@me/projects/${pid}`, owner.as)).status).toBe(202);
  });

  it('takes the project away at once, then removes every item of it and pointing at it; another project is untouched', async () => {
    // Another project's data, to be found whole afterwards.
    const other = await seededProject('other');
    const otherBefore = new Set((await itemsOf(other.pid)).map(keyOf));

    const s = await seededProject('del');
    // A second warm instance knows the key as valid before the delete.
    const instance = await rt.startAnotherInstance();
    expect((await instance.api('GET', '/contacts', { key: s.key })).status).toBe(200);
    // A Stripe customer whose subscription ended, claimed by the project.
    await rt.deps.store.write({
      put: { ...keys.billingStripe(s.pid), customerId: `cus_${s.pid}`, subscriptionStatus: 'canceled' },
    });
    await rt.deps.store.write({ put: { ...keys.stripeCustomer(`cus_${s.pid}`), projectId: s.pid } });
    expect(await rt.deps.emailIdentities.getDomainIdentity(s.added)).toBeDefined();
    const pending = schedulesOf(s.pid);
    expect(pending.map((x) => x.message.type).sort()).toEqual(['campaign.send', 'workflows.step']);
    const mailsBefore = await mailsTo(s.emails);
    const deadBefore = rt.queue.deadLetters().length;
    wipeRecords = 0;

    const res = await rt.api('DELETE', `/users/@me/projects/${s.pid}`, s.owner.as);
    expect(res.status, res.text).toBe(202);
    expect(res.body).toEqual({ id: s.pid, status: 'deleting' });

    // At once, before any of the job has run: keys refused everywhere, sessions and lists without it.
    for (const api of [rt.api, instance.api]) {
      const refused = await api('GET', '/contacts', { key: s.key });
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('INVALID_API_KEY');
    }
    expect(
      (
        await rt.api('POST', '/v1/track', {
          key: s.owner.keys.publicKey,
          body: { email: 'a@b.co', event: 'x' },
        })
      ).status,
    ).toBe(401);
    for (const user of [s.owner, s.admin]) {
      const list = await rt.api('GET', '/users/@me/projects', user.as);
      expect(list.body.map((x: Json) => x.id)).not.toContain(s.pid);
      const viaSession = await rt.api('GET', '/contacts', {
        key: null,
        headers: { cookie: user.cookie, 'x-project-id': s.pid },
      });
      expect(viaSession.status).toBe(404);
    }
    expect(
      (await rt.api('PATCH', `/users/@me/projects/${s.pid}`, { ...s.owner.as, body: { name: 'x' } })).status,
    ).toBe(404);
    // Deleting again finds no project.
    expect((await rt.api('DELETE', `/users/@me/projects/${s.pid}`, s.owner.as)).status).toBe(404);
    await instance.stop();

    await rt.drain({ timeoutMs: 120_000 });
    // Many pages (one a message), each message delivered twice.
    expect(wipeRecords).toBeGreaterThan(4);

    expect(await itemsOf(s.pid)).toEqual([]);
    const outside = [
      keys.apiKey(hashKey(s.owner.keys.secretKey)),
      keys.apiKey(hashKey(s.owner.keys.publicKey)),
      keys.userProject(s.owner.userId, s.pid),
      keys.userProject(s.admin.userId, s.pid),
      keys.domainClaim(s.domain),
      keys.domainClaim(s.added),
      keys.stripeCustomer(`cus_${s.pid}`),
    ];
    for (const key of outside)
      expect(await rt.deps.store.get(key, { consistent: true }), key.pk).toBeUndefined();
    // The users themselves stay.
    expect(await rt.deps.store.get(keys.user(s.owner.userId))).toBeDefined();
    expect(await rt.deps.emailIdentities.getDomainIdentity(s.added)).toBeUndefined();
    expect(
      (await pidsInIndex('pendingDomains', keys.pendingDomainsIndex)).filter((x) => x.includes(s.pid)),
    ).toEqual([]);
    expect(
      (await pidsInIndex('periodicSegments', keys.periodicSegmentsIndex)).filter((x) => x.includes(s.pid)),
    ).toEqual([]);
    expect(schedulesOf(s.pid)).toEqual([]);

    // Past the campaign's time and the workflow's delay: nothing is sent, nothing written; and
    // the schedules' messages, delivered anyway (a schedule that fired as it was deleted), are
    // dropped quietly.
    await rt.runtime.clock.advance(2 * 86_400);
    await rt.scheduler.runDue();
    for (const schedule of pending) await rt.runtime.queue.send('jobs', schedule.message);
    await rt.drain({ timeoutMs: 60_000 });
    expect(await mailsTo(s.emails)).toBe(mailsBefore);
    expect(await itemsOf(s.pid)).toEqual([]);
    expect(rt.queue.deadLetters().length).toBe(deadBefore);

    // The other project lost nothing, and still works.
    const otherAfter = new Set((await itemsOf(other.pid)).map(keyOf));
    expect([...otherBefore].filter((k) => !otherAfter.has(k))).toEqual([]);
    expect((await other.p.api('GET', '/contacts')).body.total).toBe(3);
    expect((await other.p.api('GET', '/templates')).body.data).toHaveLength(1);
    // The other project's domain claims stay its own.
    expect(await rt.deps.store.get(keys.domainClaim(other.domain))).toMatchObject({ projectId: other.pid });
  });

  it('finishes after a crash between two pages of the wipe', async () => {
    const s = await seededProject('crash');
    // The third page's checkpoint fails: its deletes are done, the position is not written.
    faults.failAt((call) => call.op === 'update' && (call.expression ?? '').includes('#w.#cursor'), 3);
    expect((await rt.api('DELETE', `/users/@me/projects/${s.pid}`, s.owner.as)).status).toBe(202);
    await rt.drain({ timeoutMs: 120_000 });
    expect(faults.fired).toBe(true);
    faults.clear();
    expect(await itemsOf(s.pid)).toEqual([]);
    expect(await rt.deps.store.get(keys.project(s.pid), { consistent: true })).toBeUndefined();
  });
});

describe('POST /users/@me/projects/{id}/reset', () => {
  it('starts over when asked again, and gives way to a delete', async () => {
    const s = await seededProject('twice');
    const reset = () =>
      rt.api('POST', `/users/@me/projects/${s.pid}/reset`, {
        ...s.owner.as,
        body: { confirm: 'My project' },
      });
    const first = await reset();
    const second = await reset();
    expect([first.status, second.status]).toEqual([202, 202]);
    await rt.drain({ timeoutMs: 120_000 });
    const state = await rt.api('GET', `/users/@me/projects/${s.pid}/reset`, s.owner.as);
    expect(state.body).toMatchObject({ status: 'completed', requestedAt: second.body.requestedAt });
    expect((await s.p.api('GET', '/contacts')).body.total).toBe(0);

    // A delete asked while a reset runs: the reset's messages stop, the delete removes everything.
    await s.p.api('POST', '/contacts', { body: { email: uniqueEmail('again') } });
    expect((await reset()).status).toBe(202);
    expect((await rt.api('DELETE', `/users/@me/projects/${s.pid}`, s.owner.as)).status).toBe(202);
    expect((await rt.api('GET', `/users/@me/projects/${s.pid}/reset`, s.owner.as)).status).toBe(404);
    await rt.drain({ timeoutMs: 120_000 });
    expect(await itemsOf(s.pid)).toEqual([]);
  });

  it('needs the OWNER and the exact project name; anything else changes nothing', async () => {
    const s = await seededProject('confirm');
    const before = (await itemsOf(s.pid)).length;
    const name = 'My project';
    for (const body of [{}, { confirm: 'my project' }, { confirm: `${name} ` }, { confirm: 42 }]) {
      const res = await rt.api('POST', `/users/@me/projects/${s.pid}/reset`, { ...s.owner.as, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.errors[0].field).toBe('confirm');
    }
    const byAdmin = await rt.api('POST', `/users/@me/projects/${s.pid}/reset`, {
      ...s.admin.as,
      body: { confirm: name },
    });
    expect(byAdmin.status).toBe(403);
    const stranger = await signup();
    expect(
      (
        await rt.api('POST', `/users/@me/projects/${s.pid}/reset`, {
          ...stranger.as,
          body: { confirm: name },
        })
      ).status,
    ).toBe(404);
    await rt.drain();
    expect((await itemsOf(s.pid)).length).toBe(before);
    expect((await s.p.api('GET', '/contacts')).body.total).toBe(3);
    expect((await rt.api('GET', `/users/@me/projects/${s.pid}/reset`, s.owner.as)).status).toBe(404);
  });

  it('wipes the data and its counters, keeps the project, members, keys, domains and suppressions', async () => {
    const other = await seededProject('bystander');
    // Every message the bystander's seed put on the queue is done, its tally's included.
    await rt.drain({ timeoutMs: 30_000 });
    const otherBefore = new Set((await itemsOf(other.pid)).map(keyOf));
    tallyHeld = true;
    const s = await seededProject('reset');
    const pending = schedulesOf(s.pid);
    expect(pending).toHaveLength(2);
    const deadBefore = rt.queue.deadLetters().length;
    const customFields = async () =>
      ((await s.p.api('GET', '/contacts/fields')).body.fields as Json[]).filter((f) => f.isCustom);
    expect((await customFields()).length).toBeGreaterThan(0);
    const mailsBefore = await mailsTo(s.emails);
    // The seed's one `/v1/send` (no cap) is not counted: the event tally has not met its event.
    const usageKey = keys.billingUsage(s.pid, rt.deps.clock.now().toISOString().slice(0, 7));
    const sentThisMonth = async () => Number((await rt.deps.store.get(usageKey))?.transactional ?? 0);
    expect(await sentThisMonth()).toBe(0);

    const res = await rt.api('POST', `/users/@me/projects/${s.pid}/reset`, {
      ...s.owner.as,
      body: { confirm: 'My project' },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({
      status: 'processing',
      requestedAt: expect.any(String),
      completedAt: null,
    });
    await rt.drain({ timeoutMs: 120_000 });
    tallyHeld = false;
    const state = await rt.api('GET', `/users/@me/projects/${s.pid}/reset`, s.admin.as);
    expect(state.body).toMatchObject({ status: 'completed', completedAt: expect.any(String), error: null });
    expect(state.body.deleted).toBeGreaterThan(20);
    // The month's send count keeps that send: the reset counted it as its event went.
    expect(await sentThisMonth()).toBe(1);

    // The data, through the API.
    const contacts = await s.p.api('GET', '/contacts');
    expect(contacts.status).toBe(200);
    expect(contacts.body.total).toBe(0);
    expect(contacts.body.data).toEqual([]);
    expect(await customFields()).toEqual([]);
    expect((await s.p.api('GET', '/templates')).body.data).toEqual([]);
    expect((await s.p.api('GET', '/campaigns')).body.data).toEqual([]);
    expect((await s.p.api('GET', '/segments')).body).toEqual([]);
    expect((await s.p.api('GET', '/workflows')).body).toMatchObject({ data: [], total: 0 });
    expect((await s.p.api('GET', '/events')).body.data).toEqual([]);
    expect((await s.p.api('GET', '/events/names')).body.names).toEqual([]);

    // What is left in the table: the project item, its members, domains, billing, suppressions.
    const left = (await itemsOf(s.pid)).map(keyOf).sort();
    const kept = (k: string) =>
      /^P#[^#]+ (#PROJECT|#SEGVERSION|MEMBER#|DOMAIN#|DOMAINID#|BILLING#)/.test(k) ||
      / ?P#[^ ]+#(SUPPRESSED|USAGE|RATE#\d+|EVTALLY) /.test(k) ||
      /#CSTATS /.test(k); // the recount writes the counters over, at zero
    expect(left.filter((k) => !kept(k))).toEqual([]);
    expect(left).toContain(`P#${s.pid} #PROJECT`);
    expect(left).toContain(`P#${s.pid} MEMBER#${s.admin.userId}`);
    expect(left).toContain(`P#${s.pid}#SUPPRESSED bounced@wipe.test`);
    // The segment definitions version moved past the one segment's creation: no instance keeps
    // evaluating the removed segment on its next contact write.
    const version = (await itemsOf(s.pid)).find((i) => i.sk === '#SEGVERSION');
    expect(Number(version?.v)).toBeGreaterThanOrEqual(2);
    // Counters read zero.
    for (const item of await itemsOf(s.pid))
      if (String(item.pk).endsWith('#CSTATS')) expect(Number(item.total ?? 0), keyOf(item)).toBe(0);

    // Kept: the keys, the members, the domains (and their claims).
    expect((await rt.api('GET', '/users/@me/projects', s.admin.as)).body.map((x: Json) => x.id)).toContain(
      s.pid,
    );
    const security = await rt.api('GET', `/projects/${s.pid}/security`, s.owner.as);
    expect(security.body.members).toHaveLength(2);
    const domains = await s.p.api('GET', `/domains/project/${s.pid}`);
    expect(domains.body.map((d: Json) => d.domain).sort()).toEqual([s.domain, s.added].sort());
    expect(await rt.deps.store.get(keys.domainClaim(s.domain))).toMatchObject({ projectId: s.pid });
    expect(schedulesOf(s.pid)).toEqual([]);

    // Past the campaign's time and the workflow's delay: nothing is sent, and their messages,
    // delivered anyway, find nothing to do (no retry, no dead letter).
    await rt.runtime.clock.advance(2 * 86_400);
    await rt.scheduler.runDue();
    for (const schedule of pending) await rt.runtime.queue.send('jobs', schedule.message);
    await rt.drain({ timeoutMs: 60_000 });
    expect(await mailsTo(s.emails)).toBe(mailsBefore);
    expect(rt.queue.deadLetters().length).toBe(deadBefore);
    // The tally, run since, found no event to count again.
    await rt.runtime.queue.send('jobs', { type: 'events.tally', projectId: s.pid });
    await rt.drain({ timeoutMs: 60_000 });
    expect(await sentThisMonth()).toBe(1);

    // The project goes on from empty.
    const email = uniqueEmail('after');
    expect((await s.p.api('POST', '/contacts', { body: { email } })).status).toBe(201);
    expect((await s.p.api('GET', '/contacts')).body.total).toBe(1);

    // The bystander lost nothing.
    const otherAfter = new Set((await itemsOf(other.pid)).map(keyOf));
    expect([...otherBefore].filter((k) => !otherAfter.has(k))).toEqual([]);
    expect((await other.p.api('GET', '/contacts')).body.total).toBe(3);
  });
});
