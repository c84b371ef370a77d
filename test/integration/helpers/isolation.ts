/**
 * The two tenants of the tenant-isolation test (test/integration/tenant-isolation.test.ts): users
 * A and B sign up through the API, each with a first project and its keys; A's project is then
 * filled with one of everything a route can name by id (contacts, a field, an event, templates,
 * segments, campaigns, a workflow with steps, a transition and an execution in a delay, sender
 * domains, an import job, a bulk job, a sent email, an uploaded image), and B's with the few
 * things B's own requests need (a verified sender, a contact, a static segment, a workflow).
 */
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';
import { seedVerifiedDomain } from '../../../shared/domains/repository';
import type { Item } from '../../../shared/store/store';
import { campaignBody, createCampaign } from './campaigns';
import { upload } from './imports';
import type { ApiOptions, ApiResponse, Json, LocalTestRuntime } from './local';
import { postImage, tinyPng } from './uploads';
import { createTemplate, executionDelayed, linearWorkflow } from './workflows';

export const PASSWORD = 'correct horse battery';

/** One signed-up user with the first project signup made for them. */
export interface Tenant {
  readonly tag: 'a' | 'b';
  readonly email: string;
  readonly userId: string;
  readonly projectId: string;
  readonly projectName: string;
  readonly secretKey: string;
  readonly publicKey: string;
  /** `sesame_session=...` */
  readonly cookie: string;
  /** A sender address on a verified domain of the project. */
  readonly from: string;
  readonly domain: string;
  /** A request with the project's secret key. */
  api(method: string, path: string, options?: ApiOptions): Promise<ApiResponse>;
  /** Options of a request with the user's session alone (the user routes). */
  readonly session: ApiOptions;
  /** Options of a request with the user's session acting for project `projectId` (X-Project-Id). */
  sessionFor(projectId: string): ApiOptions;
}

/** A's resources, by what the routes name. */
export interface AResources {
  readonly contactEmail: string;
  readonly contactId: string;
  readonly contact2Email: string;
  readonly contact2Id: string;
  /** A custom field of A's contacts (`data.<field>`), with a value seen only in A. */
  readonly field: string;
  readonly fieldValue: string;
  readonly eventName: string;
  readonly templateId: string;
  readonly staticSegmentId: string;
  readonly dynamicSegmentId: string;
  readonly draftCampaignId: string;
  readonly scheduledCampaignId: string;
  /** A count of a condition tree (`POST /audiences`); the draft's audience is counted too. */
  readonly audienceId: string;
  readonly workflowId: string;
  readonly stepIds: readonly string[];
  readonly transitionId: string;
  readonly executionId: string;
  readonly domainId: string;
  readonly importJobId: string;
  readonly bulkJobId: string;
  readonly sendEmailId: string;
  readonly imageUrl: string;
  /** A pending invitation to A's project for a third address, and its mailed token. */
  readonly invitedEmail: string;
  readonly invitationToken: string;
}

/** B's resources that B's own requests (with A's ids in their body) name. */
export interface BResources {
  readonly contactId: string;
  readonly staticSegmentId: string;
  readonly workflowId: string;
  readonly stepIds: readonly string[];
}

export interface World {
  readonly rt: LocalTestRuntime;
  readonly a: Tenant;
  readonly b: Tenant;
  readonly ra: AResources;
  readonly rb: BResources;
  /**
   * Strings that identify A's data (ids, emails, names, values, the project and the user): none
   * may appear in an answer to B.
   */
  readonly markers: readonly string[];
}

const tagged = (t: string) => `${t}-${Math.random().toString(36).slice(2, 10)}`;

async function expectStatus(res: Promise<ApiResponse>, status: number): Promise<Json> {
  const out = await res;
  expect(out.status, out.text).toBe(status);
  return out.body;
}

async function signup(rt: LocalTestRuntime, tag: 'a' | 'b'): Promise<Tenant> {
  const email = `${tagged(`iso-${tag}`)}@example.org`;
  const res = await rt.api('POST', '/auth/signup', { key: null, body: { email, password: PASSWORD } });
  expect(res.status, res.text).toBe(201);
  const cookie = /sesame_session=[^;]*/.exec(res.headers['set-cookie'] ?? '')![0];
  const projectId = res.body.project.id as string;
  const secretKey = res.body.keys.secretKey as string;
  const domain = `${tagged(tag)}.isolation.test`;
  await seedVerifiedDomain(rt.deps, projectId, domain);
  return {
    tag,
    email,
    userId: res.body.user.id,
    projectId,
    projectName: res.body.project.name,
    secretKey,
    publicKey: res.body.keys.publicKey,
    cookie,
    from: `news@${domain}`,
    domain,
    api: (method, path, options = {}) => rt.api(method, path, { key: secretKey, ...options }),
    session: { key: null, headers: { cookie } },
    sessionFor: (pid) => ({ key: null, headers: { cookie, 'x-project-id': pid } }),
  };
}

/** Signs up A and B and fills their projects; the queue is idle when it resolves. */
export async function buildWorld(rt: LocalTestRuntime): Promise<World> {
  const a = await signup(rt, 'a');
  const b = await signup(rt, 'b');
  // Names A's project carries, so that lists of B can be searched for them.
  const projectName = tagged('alpha-project');
  await expectStatus(
    rt.api('PATCH', `/users/@me/projects/${a.projectId}`, { ...a.session, body: { name: projectName } }),
    200,
  );
  const aTenant: Tenant = { ...a, projectName };

  const field = tagged('alphafield').replace('-', '_');
  const fieldValue = tagged('alpha-value');
  const contactEmail = `${tagged('alpha-contact')}@example.org`;
  const contact2Email = `${tagged('alpha-contact')}@example.org`;
  const contact = await expectStatus(
    a.api('POST', '/contacts', { body: { email: contactEmail, data: { [field]: fieldValue } } }),
    201,
  );
  const contact2 = await expectStatus(
    a.api('POST', '/contacts', { body: { email: contact2Email, data: { [field]: fieldValue } } }),
    201,
  );
  const eventName = tagged('alpha-event');
  await expectStatus(
    a.api('POST', '/events/track', { body: { email: contactEmail, event: eventName } }),
    200,
  );

  const templateId = await createTemplate(a, a.from, { name: tagged('alpha-template') });
  const staticSegment = await expectStatus(
    a.api('POST', '/segments', { body: { name: tagged('alpha-static'), type: 'STATIC' } }),
    201,
  );
  await expectStatus(
    a.api('POST', `/segments/${staticSegment.id}/members`, { body: { emails: [contactEmail] } }),
    200,
  );
  const dynamicSegment = await expectStatus(
    a.api('POST', '/segments', {
      body: {
        name: tagged('alpha-dynamic'),
        condition: {
          logic: 'AND',
          groups: [{ filters: [{ field: `data.${field}`, operator: 'equals', value: fieldValue }] }],
        },
      },
    }),
    201,
  );
  const draft = await createCampaign(a, campaignBody(a.from, { name: tagged('alpha-draft') }));
  const scheduled = await createCampaign(
    a,
    campaignBody(a.from, {
      name: tagged('alpha-scheduled'),
      audienceType: 'SEGMENT',
      segmentId: staticSegment.id,
    }),
  );
  await expectStatus(a.api('POST', `/campaigns/${draft.id}/audience`), 202);
  const audience = await expectStatus(
    a.api('POST', '/audiences', {
      body: {
        condition: {
          logic: 'AND',
          groups: [{ filters: [{ field: `data.${field}`, operator: 'equals', value: fieldValue }] }],
        },
      },
    }),
    202,
  );
  const tomorrow = new Date(rt.deps.clock.now().getTime() + 86_400_000).toISOString();
  await expectStatus(
    a.api('POST', `/campaigns/${scheduled.id}/send`, { body: { scheduledFor: tomorrow } }),
    200,
  );
  const workflow = await linearWorkflow(a, { name: tagged('alpha-workflow'), triggerType: 'MANUAL' }, [
    { type: 'DELAY', config: { amount: 1, unit: 'days' } },
    { type: 'SEND_EMAIL', config: { templateId, recipient: { type: 'CONTACT' } } },
  ]);
  const wf = await expectStatus(a.api('GET', `/workflows/${workflow.id}`), 200);
  const transitionId = (wf.transitions as Json[])[0].id as string;
  const execution = await expectStatus(
    a.api('POST', `/workflows/${workflow.id}/executions`, { body: { contactId: contact2.id } }),
    201,
  );
  await executionDelayed(a, workflow.id, execution.id);

  const domain = await expectStatus(
    a.api('POST', '/domains', { body: { domain: `${tagged('alpha-added')}.isolation.test` } }),
    201,
  );
  const imported = await upload(rt, `email,${field}\n${contactEmail},${fieldValue}\n`, { key: a.secretKey });
  expect(imported.status, imported.text).toBe(202);
  const bulk = await expectStatus(
    a.api('POST', '/contacts/bulk-subscribe', { body: { contactIds: [contact.id] } }),
    202,
  );
  const sent = await expectStatus(
    a.api('POST', '/v1/send', {
      body: { to: contactEmail, from: a.from, subject: tagged('alpha-subject'), body: '<p>Hi</p>' },
    }),
    200,
  );
  expect(sent.data.emails[0].email, 'the email record id').toMatch(/^[\w-]{8,}$/);
  const image = await postImage(rt, tinyPng(), { key: a.secretKey });
  expect(image.status, image.text).toBe(201);

  const invitedEmail = `${tagged('alpha-invited')}@example.org`;
  await expectStatus(
    rt.api('POST', `/projects/${a.projectId}/members`, {
      ...a.session,
      body: { email: invitedEmail, role: 'MEMBER' },
    }),
    202,
  );
  const invitationMail = (await rt.mails({ to: invitedEmail }))[0];
  const invitationToken = /Token: (\S+)/.exec(invitationMail?.text ?? '')?.[1];
  expect(invitationToken, 'the invitation mail holds its token').toBeDefined();

  // B: a verified sender (signup), a contact, a static segment, a workflow to start.
  const bContact = await expectStatus(
    b.api('POST', '/contacts', { body: { email: `${tagged('beta-contact')}@example.org` } }),
    201,
  );
  const bSegment = await expectStatus(
    b.api('POST', '/segments', { body: { name: tagged('beta-static'), type: 'STATIC' } }),
    201,
  );
  const bTemplate = await createTemplate(b, b.from);
  const bWorkflow = await linearWorkflow(b, { name: tagged('beta-workflow'), triggerType: 'MANUAL' }, [
    { type: 'DELAY', config: { amount: 1, unit: 'days' } },
    { type: 'SEND_EMAIL', config: { templateId: bTemplate, recipient: { type: 'CONTACT' } } },
  ]);
  await rt.drain({ timeoutMs: 30_000 });

  const ra: AResources = {
    contactEmail,
    contactId: contact.id,
    contact2Email,
    contact2Id: contact2.id,
    field,
    fieldValue,
    eventName,
    templateId,
    staticSegmentId: staticSegment.id,
    dynamicSegmentId: dynamicSegment.id,
    draftCampaignId: draft.id,
    scheduledCampaignId: scheduled.id,
    audienceId: audience.id,
    workflowId: workflow.id,
    stepIds: workflow.steps,
    transitionId,
    executionId: execution.id,
    domainId: domain.id,
    importJobId: imported.body.jobId,
    bulkJobId: bulk.jobId,
    sendEmailId: sent.data.emails[0].email,
    imageUrl: image.body.url,
    invitedEmail,
    invitationToken: invitationToken!,
  };
  const names = [
    projectName,
    fieldValue,
    eventName,
    ...(await Promise.all(
      [
        `/templates/${templateId}`,
        `/segments/${staticSegment.id}`,
        `/segments/${dynamicSegment.id}`,
        `/campaigns/${draft.id}`,
        `/campaigns/${scheduled.id}`,
        `/workflows/${workflow.id}`,
      ].map(async (path) => String((await a.api('GET', path)).body.name)),
    )),
  ];
  const markers = [
    a.projectId,
    a.userId,
    a.email,
    a.domain,
    contactEmail,
    contact2Email,
    ...names,
    ...Object.values(ra).flatMap((v) => (Array.isArray(v) ? v : [v])),
  ].filter((m): m is string => typeof m === 'string' && m.length >= 8);
  return {
    rt,
    a: aTenant,
    b,
    ra,
    rb: {
      contactId: bContact.id,
      staticSegmentId: bSegment.id,
      workflowId: bWorkflow.id,
      stepIds: bWorkflow.steps,
    },
    markers: [...new Set(markers)],
  };
}

/**
 * Every item of A's in the table, as the store holds it: inside its project's prefix and the
 * user's, its keys and memberships. The rate-limit windows, which every request of A's own
 * re-reads writes, are left out. A test-only scan.
 */
export async function tenantItems(rt: LocalTestRuntime, t: Tenant): Promise<Map<string, Item>> {
  const out = new Map<string, Item>();
  let cursor = '';
  do {
    const page = await rt.deps.store.scan(
      {
        filter: 'pk = :p OR begins_with(pk, :inside) OR begins_with(pk, :user) OR projectId = :pid',
        values: {
          ':p': `P#${t.projectId}`,
          ':inside': `P#${t.projectId}#`,
          ':user': `USER#${t.userId}`,
          ':pid': t.projectId,
        },
      },
      { limit: 1000, ...(cursor ? { cursor } : {}) },
    );
    for (const item of page.items)
      if (item.sk !== '#RATE') out.set(`${String(item.pk)} ${String(item.sk)}`, item);
    cursor = page.cursor;
  } while (cursor);
  return out;
}

/** The items of two `tenantItems` reads that differ, each with its two versions. */
export function changedItems(
  before: ReadonlyMap<string, Item>,
  after: ReadonlyMap<string, Item>,
): { key: string; before: Item | undefined; after: Item | undefined }[] {
  return [...new Set([...before.keys(), ...after.keys()])]
    .filter((k) => !isDeepStrictEqual(before.get(k), after.get(k)))
    .map((key) => ({ key, before: before.get(key), after: after.get(key) }));
}
