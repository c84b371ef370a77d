/**
 * The campaign endpoints through HTTP (spec: Campaign, Campaign status, Campaigns; decisions.md,
 * "Campaigns"): every route, its answers and its errors. Fan-out, scheduling and crash safety
 * have files of their own (campaigns-fanout, campaigns-control, campaigns-crash).
 */
import { describe, expect, it } from 'vitest';
import { campaignSendJobMessage } from '../../shared/campaigns/messages';
import { enqueue } from '../../shared/jobs/registry';
import {
  campaignBody,
  campaignProject,
  createCampaign,
  mailCounts,
  seedProjectContacts,
  sendNow,
} from './helpers/campaigns';
import { contactEvents } from './helpers/contacts';
import { putPendingDomain } from './helpers/domains';
import { settleEventCounts } from './helpers/events';
import { type Json, useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime({ env: { SES_MAX_SEND_RATE: '1000' } });

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const from = () => `news@${rt.senderDomain}`;
const valid = (extra: Record<string, unknown> = {}) => campaignBody(from(), extra);
const create = (body: Record<string, unknown>) => createCampaign(rt, body);

const filtered = {
  logic: 'AND',
  groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
};

const schedules = async () =>
  ((await rt.api('GET', '/_local/schedules', { key: null })).body.oneOff as Json[]).filter((s) =>
    String(s.name).startsWith('campaign-'),
  );

const inHour = () => new Date(rt.deps.clock.now().getTime() + 3_600_000).toISOString();

/** Every route under /campaigns/{id}: method and what follows the id. */
const ID_ROUTES = [
  ['GET', ''],
  ['PUT', ''],
  ['DELETE', ''],
  ['POST', '/duplicate'],
  ['POST', '/send'],
  ['POST', '/cancel'],
  ['POST', '/test'],
  ['GET', '/stats'],
] as const;

describe('POST /campaigns', () => {
  it('creates a DRAFT and answers 201 {success, data: campaign}', async () => {
    const res = await rt.api('POST', '/campaigns', {
      body: valid({ description: 'internal', fromName: 'News', replyTo: 'help@example.org' }),
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        projectId: rt.projectId,
        name: 'Spring news',
        description: 'internal',
        subject: 'Hello {{name ?? there}}',
        body: '<p>Hi {{name ?? there}}, your plan is {{plan ?? none}}.</p>',
        from: from(),
        fromName: 'News',
        replyTo: 'help@example.org',
        type: 'MARKETING',
        status: 'DRAFT',
        audienceType: 'ALL',
        audienceCondition: null,
        segmentId: null,
        scheduledFor: null,
        totalRecipients: 0,
        sentCount: 0,
        deliveredCount: 0,
        openedCount: 0,
        clickedCount: 0,
        bouncedCount: 0,
        sentAt: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    const got = await rt.api('GET', `/campaigns/${res.body.data.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body.data);
  });

  it('takes each content type, and a FILTERED audience as a parsed condition tree', async () => {
    for (const type of ['TRANSACTIONAL', 'MARKETING', 'HEADLESS'])
      expect((await create(valid({ type }))).type).toBe(type);
    const c = await create(
      valid({ audienceType: 'FILTERED', audienceCondition: filtered, segmentId: UNKNOWN }),
    );
    expect(c.audienceCondition).toEqual(filtered);
    // The audience fields of another type are not kept.
    expect(c.segmentId).toBeNull();
    // The usage reports read the campaign item: the field is in use by it.
    await rt.api('POST', '/contacts', { body: { email: 'plan@usage.test', data: { plan: 'pro' } } });
    const usage = await rt.api('GET', '/contacts/fields/data.plan/usage');
    expect(usage.body.campaigns, usage.text).toContainEqual({ id: c.id, name: 'Spring news' });
  });

  it('answers 400 when a SEGMENT audience has no segmentId or a FILTERED one no audienceCondition', async () => {
    for (const [body, field] of [
      [valid({ audienceType: 'SEGMENT' }), 'segmentId'],
      [valid({ audienceType: 'SEGMENT', segmentId: null }), 'segmentId'],
      [valid({ audienceType: 'FILTERED' }), 'audienceCondition'],
      [valid({ audienceType: 'FILTERED', audienceCondition: null }), 'audienceCondition'],
    ] as const) {
      const res = await rt.api('POST', '/campaigns', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining(field) });
    }
  });

  it('answers 422 naming what is invalid: fields, Liquid, the condition tree', async () => {
    const cases: [Record<string, unknown>, string, string?][] = [
      [{ ...valid(), name: undefined }, 'name'],
      [{ ...valid(), audienceType: undefined }, 'audienceType'],
      [valid({ audienceType: 'EVERYONE' }), 'audienceType'],
      [valid({ from: 'not-an-email' }), 'from'],
      [valid({ type: 'PROMO' }), 'type'],
      [valid({ subject: 'a\nb' }), 'subject'],
      [valid({ segmentId: 'nope', audienceType: 'SEGMENT' }), 'segmentId'],
      [valid({ body: '<p>{% if x %}open</p>' }), 'body', 'invalid_liquid'],
      [valid({ subject: 'Hi {{ name ' }), 'subject', 'invalid_liquid'],
      [
        valid({
          audienceType: 'FILTERED',
          audienceCondition: {
            logic: 'AND',
            groups: [{ filters: [{ field: 'data.plan', operator: 'bogus' }] }],
          },
        }),
        'audienceCondition.groups.0.filters.0.operator',
      ],
      [
        valid({
          audienceType: 'FILTERED',
          audienceCondition: {
            logic: 'AND',
            groups: [{ filters: [{ field: 'wat.x', operator: 'equals', value: 1 }] }],
          },
        }),
        'audienceCondition.groups.0.filters.0.field',
      ],
    ];
    for (const [body, field, code] of cases) {
      const res = await rt.api('POST', '/campaigns', { body });
      expect(res.status, `${field}: ${res.text}`).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      const fields = (res.body.error.errors as Json[]).map((e) => e.field);
      expect(fields, res.text).toContain(field);
      if (code) expect(res.body.error.errors[0].code).toBe(code);
    }
    expect(
      (await rt.api('POST', '/campaigns', { raw: '{', headers: { 'content-type': 'application/json' } }))
        .status,
    ).toBe(400);
  });

  it('answers 403 when the sender domain is not registered or not verified, and creates nothing', async () => {
    const p = await campaignProject(rt, 'forbid');
    await putPendingDomain(rt, p.projectId, 'pending.campaigns.test');
    for (const [address, reason] of [
      ['news@unknown.campaigns.test', 'DOMAIN_NOT_REGISTERED'],
      ['news@pending.campaigns.test', 'DOMAIN_NOT_VERIFIED'],
      [from(), 'DOMAIN_NOT_REGISTERED'],
    ]) {
      const res = await p.api('POST', '/campaigns', { body: campaignBody(address!) });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', details: { reason } });
    }
    expect((await p.api('GET', '/campaigns')).body.total).toBe(0);
  });

  it('answers 404 when a SEGMENT audience names no segment of the project', async () => {
    const res = await rt.api('POST', '/campaigns', {
      body: valid({ audienceType: 'SEGMENT', segmentId: UNKNOWN }),
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  it('answers 401 without a secret key', async () => {
    expect((await rt.api('POST', '/campaigns', { body: valid(), key: null })).status).toBe(401);
    expect((await rt.api('GET', '/campaigns', { key: rt.publicKey })).status).toBe(401);
  });
});

describe('routes under /campaigns/{id}', () => {
  it('answer 404 for an unknown id and 422 for an id that is not a UUID', async () => {
    for (const [method, rest] of ID_ROUTES) {
      const body =
        method === 'GET'
          ? undefined
          : rest === '/test'
            ? { email: 'a@b.test' }
            : method === 'PUT'
              ? valid()
              : {};
      const missing = await rt.api(method, `/campaigns/${UNKNOWN}${rest}`, { body });
      expect(missing.status, `${method} ${rest}`).toBe(404);
      const bad = await rt.api(method, `/campaigns/not-a-uuid${rest}`, { body });
      expect(bad.status, `${method} ${rest}`).toBe(422);
      expect(bad.body.error.errors[0].field).toBe('id');
    }
  });

  it('another project sees none of them', async () => {
    const mine = await create(valid());
    const other = await campaignProject(rt, 'other');
    expect((await other.api('GET', `/campaigns/${mine.id}`)).status).toBe(404);
    expect((await other.api('DELETE', `/campaigns/${mine.id}`)).status).toBe(404);
    expect((await rt.api('GET', `/campaigns/${mine.id}`)).status).toBe(200);
  });
});

describe('GET /campaigns', () => {
  it('is an offset list: pages, status filter (any case), search on name, subject and sender, sorts', async () => {
    const p = await campaignProject(rt, 'list');
    const names = ['Cherry', 'apple', 'Banana', 'date', 'Elder'];
    const made: Json[] = [];
    for (const [i, name] of names.entries()) {
      made.push(
        await createCampaign(p, {
          ...campaignBody(p.from),
          name,
          subject: i === 3 ? 'Weekly DIGEST' : `Subject ${i}`,
        }),
      );
    }
    // One of them scheduled, one sent.
    expect(
      (await p.api('POST', `/campaigns/${made[0].id}/send`, { body: { scheduledFor: inHour() } })).status,
    ).toBe(200);
    await sendNow(rt, p, made[1].id);

    const page1 = await p.api('GET', '/campaigns', { query: { pageSize: 2 } });
    expect(page1.status).toBe(200);
    expect(page1.body).toMatchObject({ page: 1, pageSize: 2, total: 5, totalPages: 3 });
    // Newest first by default.
    expect(page1.body.data.map((c: Json) => c.name)).toEqual(['Elder', 'date']);
    const page3 = await p.api('GET', '/campaigns', { query: { pageSize: 2, page: 3 } });
    expect(page3.body.data.map((c: Json) => c.name)).toEqual(['Cherry']);
    const beyond = await p.api('GET', '/campaigns', { query: { pageSize: 2, page: 9 } });
    expect(beyond.body).toMatchObject({ data: [], total: 5, page: 9 });

    const byName = await p.api('GET', '/campaigns', { query: { sort: 'name', dir: 'asc' } });
    expect(byName.body.data.map((c: Json) => c.name)).toEqual(['apple', 'Banana', 'Cherry', 'date', 'Elder']);
    const oldest = await p.api('GET', '/campaigns', {
      query: { sort: 'createdAt', dir: 'asc', pageSize: 1 },
    });
    expect(oldest.body.data[0].name).toBe('Cherry');
    const fallback = await p.api('GET', '/campaigns', { query: { sort: 'bogus', pageSize: 1 } });
    expect(fallback.body.data[0].name).toBe('Elder');

    const scheduled = await p.api('GET', '/campaigns', { query: { status: 'scheduled' } });
    expect(scheduled.body.data.map((c: Json) => c.name)).toEqual(['Cherry']);
    const sent = await p.api('GET', '/campaigns', { query: { status: 'SENT' } });
    expect(sent.body).toMatchObject({ total: 1, data: [{ name: 'apple', status: 'SENT' }] });
    expect((await p.api('GET', '/campaigns', { query: { status: 'DRAFT' } })).body.total).toBe(3);

    expect((await p.api('GET', '/campaigns', { query: { search: 'digest' } })).body.data[0].name).toBe(
      'date',
    );
    expect((await p.api('GET', '/campaigns', { query: { search: 'BANANA' } })).body.total).toBe(1);
    expect((await p.api('GET', '/campaigns', { query: { search: p.from.toUpperCase() } })).body.total).toBe(
      5,
    );
    expect((await p.api('GET', '/campaigns', { query: { search: 'zzz' } })).body).toMatchObject({
      total: 0,
      totalPages: 0,
      data: [],
    });
  });

  it('answers 400 for an unknown status and 422 for a bad page', async () => {
    const res = await rt.api('GET', '/campaigns', { query: { status: 'PAUSED' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect((await rt.api('GET', '/campaigns', { query: { page: 0 } })).status).toBe(422);
    expect((await rt.api('GET', '/campaigns', { query: { pageSize: 'x' } })).status).toBe(422);
    expect((await rt.api('GET', '/campaigns', { query: { pageSize: 500 } })).body.pageSize).toBe(100);
  });
});

describe('PUT /campaigns/{id}', () => {
  it('replaces a DRAFT', async () => {
    const c = await create(valid({ description: 'old', fromName: 'Old' }));
    const res = await rt.api('PUT', `/campaigns/${c.id}`, {
      body: valid({
        name: 'Renamed',
        subject: 'New {{x}}',
        type: 'TRANSACTIONAL',
        audienceType: 'FILTERED',
        audienceCondition: filtered,
      }),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      id: c.id,
      name: 'Renamed',
      subject: 'New {{x}}',
      type: 'TRANSACTIONAL',
      audienceType: 'FILTERED',
      audienceCondition: filtered,
      // A replace: what is not sent is cleared.
      description: null,
      fromName: null,
      status: 'DRAFT',
      createdAt: c.createdAt,
    });
    expect((await rt.api('GET', `/campaigns/${c.id}`)).body).toEqual(res.body);
  });

  it('validates as create does (400, 422, 403)', async () => {
    const c = await create(valid());
    expect(
      (await rt.api('PUT', `/campaigns/${c.id}`, { body: valid({ audienceType: 'SEGMENT' }) })).status,
    ).toBe(400);
    expect((await rt.api('PUT', `/campaigns/${c.id}`, { body: valid({ body: '{{ x ' }) })).status).toBe(422);
    expect((await rt.api('PUT', `/campaigns/${c.id}`, { body: {} })).status).toBe(422);
    expect(
      (await rt.api('PUT', `/campaigns/${c.id}`, { body: valid({ from: 'a@unknown.campaigns.test' }) }))
        .status,
    ).toBe(403);
    expect((await rt.api('GET', `/campaigns/${c.id}`)).body).toEqual(c);
  });

  it('answers 400 CAMPAIGN_NOT_EDITABLE once the campaign left DRAFT', async () => {
    const p = await campaignProject(rt, 'put');
    const scheduled = await createCampaign(p, campaignBody(p.from));
    await p.api('POST', `/campaigns/${scheduled.id}/send`, { body: { scheduledFor: inHour() } });
    const sent = await createCampaign(p, campaignBody(p.from));
    await sendNow(rt, p, sent.id);
    for (const c of [scheduled, sent]) {
      const res = await p.api('PUT', `/campaigns/${c.id}`, { body: campaignBody(p.from, { name: 'X' }) });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('CAMPAIGN_NOT_EDITABLE');
    }
    // Cancelling the schedule makes it a DRAFT again, which can be changed.
    expect((await p.api('POST', `/campaigns/${scheduled.id}/cancel`)).body.status).toBe('DRAFT');
    expect(
      (await p.api('PUT', `/campaigns/${scheduled.id}`, { body: campaignBody(p.from, { name: 'X' }) }))
        .status,
    ).toBe(200);
  });
});

describe('DELETE /campaigns/{id}', () => {
  it('deletes a campaign: {id, deleted: true}, then 404', async () => {
    const c = await create(valid());
    const res = await rt.api('DELETE', `/campaigns/${c.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: c.id, deleted: true });
    expect((await rt.api('GET', `/campaigns/${c.id}`)).status).toBe(404);
    expect((await rt.api('DELETE', `/campaigns/${c.id}`)).status).toBe(404);
  });

  it('deletes a SCHEDULED campaign with its schedule', async () => {
    const c = await create(valid());
    await rt.api('POST', `/campaigns/${c.id}/send`, { body: { scheduledFor: inHour() } });
    expect((await schedules()).some((s) => s.message.campaignId === c.id)).toBe(true);
    expect((await rt.api('DELETE', `/campaigns/${c.id}`)).status).toBe(200);
    expect((await schedules()).some((s) => s.message.campaignId === c.id)).toBe(false);
  });
});

describe('POST /campaigns/{id}/duplicate', () => {
  it('makes a new DRAFT with the definition; the original is unchanged', async () => {
    const p = await campaignProject(rt, 'dup');
    await seedProjectContacts(rt, p.projectId, [{ email: 'dup@x.test' }]);
    const original = await createCampaign(
      p,
      campaignBody(p.from, { audienceType: 'FILTERED', audienceCondition: filtered, type: 'HEADLESS' }),
    );
    const sent = await sendNow(rt, p, original.id);
    const res = await p.api('POST', `/campaigns/${original.id}/duplicate`);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Spring news (copy)',
      status: 'DRAFT',
      type: 'HEADLESS',
      audienceType: 'FILTERED',
      audienceCondition: filtered,
      subject: original.subject,
      body: original.body,
      totalRecipients: 0,
      sentCount: 0,
      sentAt: null,
      scheduledFor: null,
    });
    expect(res.body.id).not.toBe(original.id);
    expect((await p.api('GET', `/campaigns/${original.id}`)).body).toEqual(sent);
  });
});

describe('POST /campaigns/{id}/send', () => {
  it('sends now: 200 {success, data: SENDING campaign, message}; the campaign becomes SENT', async () => {
    const p = await campaignProject(rt, 'now');
    await seedProjectContacts(rt, p.projectId, [{ email: 'n1@x.test' }, { email: 'n2@x.test' }]);
    const c = await createCampaign(p, campaignBody(p.from));
    const res = await p.api('POST', `/campaigns/${c.id}/send`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: expect.objectContaining({ id: c.id, status: 'SENDING', scheduledFor: null }),
      message: expect.stringMatching(/being sent/),
    });
    await rt.drain();
    const done = (await p.api('GET', `/campaigns/${c.id}`)).body;
    expect(done).toMatchObject({
      status: 'SENT',
      totalRecipients: 2,
      sentCount: 2,
      sentAt: expect.any(String),
    });
    // Sent once: a second send is refused.
    const again = await p.api('POST', `/campaigns/${c.id}/send`, { body: {} });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('CAMPAIGN_NOT_SENDABLE');
  });

  it('schedules with any value a date parser reads; sending again reschedules, one schedule at a time', async () => {
    const c = await create(valid());
    const at = new Date(rt.deps.clock.now().getTime() + 86_400_000);
    at.setUTCMilliseconds(0);
    const res = await rt.api('POST', `/campaigns/${c.id}/send`, { body: { scheduledFor: at.toISOString() } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      data: { status: 'SCHEDULED', scheduledFor: at.toISOString() },
      message: expect.stringContaining(at.toISOString()),
    });
    const mine = async () => (await schedules()).filter((s) => s.message.campaignId === c.id);
    expect(await mine()).toEqual([expect.objectContaining({ at: at.toISOString() })]);

    // Other spellings: a date string, epoch milliseconds.
    const later = new Date(at.getTime() + 86_400_000);
    for (const value of [later.toUTCString(), later.getTime()]) {
      const again = await rt.api('POST', `/campaigns/${c.id}/send`, { body: { scheduledFor: value } });
      expect(again.status, again.text).toBe(200);
      expect(again.body.data.scheduledFor).toBe(later.toISOString());
      expect((await mine()).map((s) => s.at)).toEqual([later.toISOString()]);
    }
  });

  it('answers 400 for an unparseable or past scheduledFor, and for a state that cannot be sent', async () => {
    const c = await create(valid());
    for (const scheduledFor of ['not a date', '2026-13-45T99:00:00Z', {}, [], true]) {
      const res = await rt.api('POST', `/campaigns/${c.id}/send`, { body: { scheduledFor } });
      expect(res.status, JSON.stringify(scheduledFor)).toBe(400);
      expect(res.body.error.code).toBe('BAD_REQUEST');
    }
    const past = await rt.api('POST', `/campaigns/${c.id}/send`, {
      body: { scheduledFor: '2020-01-01T00:00:00Z' },
    });
    expect(past.status).toBe(400);
    expect(past.body.error.message).toMatch(/past/);
    expect((await rt.api('GET', `/campaigns/${c.id}`)).body.status).toBe('DRAFT');
  });

  it('answers 403 when the sender domain is no longer verified', async () => {
    const p = await campaignProject(rt, 'unverified');
    const c = await createCampaign(p, campaignBody(p.from));
    const domain = p.from.split('@')[1]!;
    const { getDomainByName, putDomain } = await import('../../shared/domains/repository');
    const d = await getDomainByName(rt.deps, p.projectId, domain);
    await putDomain(rt.deps, { ...d!, status: 'PENDING', verified: false });
    const res = await p.api('POST', `/campaigns/${c.id}/send`);
    expect(res.status).toBe(403);
    expect((await p.api('GET', `/campaigns/${c.id}`)).body.status).toBe('DRAFT');
  });

  it('a schedule that fires for a campaign no longer scheduled under it does nothing', async () => {
    const p = await campaignProject(rt, 'stale');
    await seedProjectContacts(rt, p.projectId, [{ email: 'stale@x.test' }]);
    const c = await createCampaign(p, campaignBody(p.from));
    await p.api('POST', `/campaigns/${c.id}/send`, { body: { scheduledFor: inHour() } });
    // A start under another token (an older schedule), and one for a DRAFT.
    await enqueue(rt.deps, campaignSendJobMessage, {
      projectId: p.projectId,
      campaignId: c.id,
      runId: 'aaaaaaaaaaaa',
      trigger: 'schedule',
    });
    await rt.drain();
    expect((await p.api('GET', `/campaigns/${c.id}`)).body.status).toBe('SCHEDULED');
    await p.api('POST', `/campaigns/${c.id}/cancel`);
    await enqueue(rt.deps, campaignSendJobMessage, {
      projectId: p.projectId,
      campaignId: c.id,
      runId: 'bbbbbbbbbbbb',
      trigger: 'schedule',
    });
    await rt.drain();
    expect((await p.api('GET', `/campaigns/${c.id}`)).body.status).toBe('DRAFT');
    expect((await mailCounts(rt)).get('stale@x.test')).toBeUndefined();
    expect(rt.queue.deadLetters()).toEqual([]);
  });
});

describe('POST /campaigns/{id}/cancel', () => {
  it('turns a SCHEDULED campaign back into a DRAFT and deletes its schedule', async () => {
    const c = await create(valid());
    await rt.api('POST', `/campaigns/${c.id}/send`, { body: { scheduledFor: inHour() } });
    const res = await rt.api('POST', `/campaigns/${c.id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: c.id, status: 'DRAFT', scheduledFor: null });
    expect((await schedules()).some((s) => s.message.campaignId === c.id)).toBe(false);
  });

  it('answers 400 for a DRAFT, SENT or CANCELLED campaign', async () => {
    const p = await campaignProject(rt, 'cancel');
    const draft = await createCampaign(p, campaignBody(p.from));
    const sent = await createCampaign(p, campaignBody(p.from));
    await sendNow(rt, p, sent.id);
    for (const c of [draft, sent]) {
      const res = await p.api('POST', `/campaigns/${c.id}/cancel`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('CAMPAIGN_NOT_CANCELLABLE');
    }
  });
});

describe('POST /campaigns/{id}/test', () => {
  it('mails the one address, [Test] subject, rendered with the contact data; counted nowhere', async () => {
    const p = await campaignProject(rt, 'test');
    const [ann] = await seedProjectContacts(rt, p.projectId, [
      { email: 'ann@test-send.test', subscribed: false, data: { name: 'Ann', plan: 'pro' } },
    ]);
    const c = await createCampaign(p, campaignBody(p.from));
    const res = await p.api('POST', `/campaigns/${c.id}/test`, { body: { email: 'ann@test-send.test' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      email: 'ann@test-send.test',
      subject: '[Test] Hello Ann',
      messageId: expect.any(String),
      contact: true,
    });
    const mails = await rt.mails({ to: 'ann@test-send.test' });
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe('[Test] Hello Ann');
    expect(mails[0]!.html).toContain('Hi Ann, your plan is pro.');
    // MARKETING: the footer and list headers, as a real send has.
    expect(mails[0]!.html).toContain('Unsubscribe');
    expect(mails[0]!.headers['list-unsubscribe']).toMatch(/^<http/);
    expect(mails[0]!.tags).toMatchObject({ campaignId: c.id, test: 'true' });

    // An address that is no contact: rendered without data.
    const other = await p.api('POST', `/campaigns/${c.id}/test`, {
      body: { email: 'Someone@Elsewhere.test' },
    });
    expect(other.body).toMatchObject({ subject: '[Test] Hello there', contact: false });
    expect((await rt.mails({ to: 'someone@elsewhere.test' }))[0]!.html).toContain(
      'Hi there, your plan is none.',
    );

    // Counted nowhere.
    expect((await p.api('GET', `/campaigns/${c.id}`)).body).toMatchObject({ status: 'DRAFT', sentCount: 0 });
    expect((await p.api('GET', `/campaigns/${c.id}/stats`)).body.data.sentCount).toBe(0);
    expect(await contactEvents(rt, ann!.id, p.projectId)).toEqual([]);
  });

  it('answers 422 without a valid email', async () => {
    const c = await create(valid());
    for (const body of [{}, { email: 'nope' }, { email: ['a@b.test'] }]) {
      const res = await rt.api('POST', `/campaigns/${c.id}/test`, { body });
      expect(res.status).toBe(422);
      expect(res.body.error.errors[0].field).toBe('email');
    }
  });
});

describe('GET /campaigns/{id}/stats', () => {
  it('answers {success, data} with the counters and rates (0 when nothing was sent)', async () => {
    const p = await campaignProject(rt, 'stats');
    const c = await createCampaign(p, campaignBody(p.from));
    const empty = await p.api('GET', `/campaigns/${c.id}/stats`);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      success: true,
      data: {
        totalRecipients: 0,
        sentCount: 0,
        deliveredCount: 0,
        openedCount: 0,
        clickedCount: 0,
        bouncedCount: 0,
        unknownCount: 0,
        complainedCount: 0,
        unsubscribedCount: 0,
        openRate: 0,
        clickRate: 0,
        bounceRate: 0,
        deliveryRate: 0,
      },
    });
    await seedProjectContacts(rt, p.projectId, [
      { email: 's1@x.test' },
      { email: 's2@x.test' },
      { email: 's3@x.test', subscribed: false },
    ]);
    await sendNow(rt, p, c.id);
    const after = await p.api('GET', `/campaigns/${c.id}/stats`);
    expect(after.body.data).toMatchObject({ totalRecipients: 2, sentCount: 2, openRate: 0 });
    // The mail sink's Delivery of each, once the event tally has met them.
    await settleEventCounts(rt, p.projectId);
    const delivered = await p.api('GET', `/campaigns/${c.id}/stats`);
    expect(delivered.body.data).toMatchObject({ deliveredCount: 2, deliveryRate: 100, openRate: 0 });
  });
});
