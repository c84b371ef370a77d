/**
 * The case table of the tenant-isolation test (test/integration/tenant-isolation.test.ts): one
 * entry per route of the manifest, keyed `METHOD path`. The test fails for a route without an
 * entry (so a new route must be classified here) and for an entry without a route.
 *
 * - `id`: the route names one of A's things (in its path, or its body). B's secret key, B's
 *   session acting for B's project, and B's session acting for A's project (B is no member of A)
 *   all get `status` (404 unless said), and re-reading A's thing with A's credentials answers
 *   exactly what it answered before.
 * - `scoped`: the route acts in the caller's own project and names none of A's ids in its path: a
 *   list, a lookup, a create, or a request naming A's emails, names or ids in its body or query.
 *   B's answer (one of `status`, any 2xx unless said) holds none of A's ids, emails, names and
 *   values, except what B's own request carried. B's session acting for A's project gets 404.
 * - `exempt`: no project credentials to isolate, with the reason.
 *
 * Besides each case's own re-read, the test compares every item of A's in the table before and
 * after all of B's requests (helpers/isolation.ts, `tenantItems`).
 */
import type { ApiOptions } from './api';
import type { World } from './isolation';

/** One request of B's: its path (with the ids filled in) and what else it sends. */
export interface Probe {
  readonly path: string;
  readonly options?: Pick<ApiOptions, 'body' | 'query' | 'raw' | 'headers'>;
}

/** Which of B's credentials a route takes. */
export type Creds =
  /** B's secret key, B's session for B's project; B's session for A's project is refused. */
  | 'project'
  /** The import upload: as 'project', but B's session for A's project is denied 403 (API Gateway's one denial status). */
  | 'key'
  /** B's public key (`/v1/track`). */
  | 'public'
  /** B's session on a user route (no X-Project-Id). */
  | 'user';

export type IsolationCase =
  | {
      readonly kind: 'id';
      readonly creds: Creds;
      readonly probe: (w: World) => Probe;
      /** A's reads that must answer the same before and after (path, with A's credentials). */
      readonly reread: (w: World) => readonly string[];
      /** @default 404 */
      readonly status?: number;
    }
  | {
      readonly kind: 'scoped';
      readonly creds: Creds;
      readonly probe: (w: World) => Probe;
      /** @default any 2xx */
      readonly status?: readonly number[];
    }
  | { readonly kind: 'exempt'; readonly reason: string };

const p = (path: string, options?: Probe['options']): Probe => ({ path, ...(options ? { options } : {}) });
const id = (
  probe: (w: World) => Probe,
  reread: (w: World) => readonly string[],
  extra: { creds?: Creds; status?: number } = {},
): IsolationCase => ({ kind: 'id', creds: extra.creds ?? 'project', probe, reread, ...extra });
const scoped = (
  probe: (w: World) => Probe,
  extra: { creds?: Creds; status?: readonly number[] } = {},
): IsolationCase => ({ kind: 'scoped', creds: extra.creds ?? 'project', probe, ...extra });
const exempt = (reason: string): IsolationCase => ({ kind: 'exempt', reason });

const contact = (w: World) => [`/contacts/${w.ra.contactId}`];
const template = (w: World) => [`/templates/${w.ra.templateId}`];
const staticSegment = (w: World) => [
  `/segments/${w.ra.staticSegmentId}`,
  `/segments/${w.ra.staticSegmentId}/contacts`,
];
const dynamicSegment = (w: World) => [`/segments/${w.ra.dynamicSegmentId}`];
const draft = (w: World) => [`/campaigns/${w.ra.draftCampaignId}`];
const scheduled = (w: World) => [`/campaigns/${w.ra.scheduledCampaignId}`];
const workflow = (w: World) => [`/workflows/${w.ra.workflowId}`];
const execution = (w: World) => [`/workflows/${w.ra.workflowId}/executions/${w.ra.executionId}`];
const domains = (w: World) => [`/domains/project/${w.a.projectId}`];
const fields = (w: World) => ['/contacts/fields', `/contacts/fields/${w.ra.field}/values`];
/** A's project as its owner sees it (user routes, read with A's session). */
const project = (w: World) => ['/users/@me/projects', `/projects/${w.a.projectId}/security`];
const limits = (w: World) => [`/users/@me/projects/${w.a.projectId}/billing-limits`];
const members = (w: World) => [`/projects/${w.a.projectId}/members`];

const mailedToken = 'a token mailed to its owner, signed with the link key; no project credentials';

export const isolationCases: Readonly<Record<string, IsolationCase>> = {
  // Contacts
  'GET /contacts': scoped(() => p('/contacts')),
  'POST /contacts': scoped((w) => p('/contacts', { body: { email: w.ra.contactEmail, data: { x: 1 } } })),
  'POST /contacts/lookup': scoped((w) =>
    p('/contacts/lookup', { body: { emails: [w.ra.contactEmail, w.ra.contact2Email] } }),
  ),
  'GET /contacts/fields': scoped(() => p('/contacts/fields')),
  'GET /contacts/fields/{field}/values': scoped((w) => p(`/contacts/fields/${w.ra.field}/values`), {
    status: [200, 404],
  }),
  'GET /contacts/fields/{field}/usage': scoped((w) => p(`/contacts/fields/${w.ra.field}/usage`), {
    status: [200, 404],
  }),
  'DELETE /contacts/fields/{field}': id((w) => p(`/contacts/fields/${w.ra.field}`), fields),
  'GET /contacts/{id}': id((w) => p(`/contacts/${w.ra.contactId}`), contact),
  'PATCH /contacts/{id}': id(
    (w) => p(`/contacts/${w.ra.contactId}`, { body: { subscribed: false, data: { x: 1 } } }),
    contact,
  ),
  'DELETE /contacts/{id}': id((w) => p(`/contacts/${w.ra.contactId}`), contact),
  'POST /contacts/import': scoped(
    (w) => {
      const boundary = 'isolation-boundary';
      const csv = `email\n${w.ra.contactEmail}\n`;
      return p('/contacts/import', {
        raw: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n--${boundary}--\r\n`,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
    },
    { creds: 'key' },
  ),
  'GET /contacts/import/{jobId}': id(
    (w) => p(`/contacts/import/${w.ra.importJobId}`),
    (w) => [`/contacts/import/${w.ra.importJobId}`],
  ),
  'POST /contacts/bulk-subscribe': scoped((w) =>
    p('/contacts/bulk-subscribe', { body: { contactIds: [w.ra.contactId] } }),
  ),
  'POST /contacts/bulk-unsubscribe': scoped((w) =>
    p('/contacts/bulk-unsubscribe', { body: { contactIds: [w.ra.contactId] } }),
  ),
  'POST /contacts/bulk-delete': scoped((w) =>
    p('/contacts/bulk-delete', { body: { contactIds: [w.ra.contactId, w.ra.contact2Id] } }),
  ),
  'GET /contacts/bulk/{jobId}': id(
    (w) => p(`/contacts/bulk/${w.ra.bulkJobId}`),
    (w) => [`/contacts/bulk/${w.ra.bulkJobId}`],
  ),

  // Public endpoints
  'POST /v1/send': id(
    (w) => p('/v1/send', { body: { to: w.ra.contactEmail, template: w.ra.templateId, from: w.b.from } }),
    template,
  ),
  'POST /v1/verify': scoped((w) => p('/v1/verify', { body: { email: w.ra.contactEmail } })),
  'GET /v1/subscription/{token}': exempt(
    'signed links from a mail (the token names its project and contact, signed with the link key): no credentials',
  ),
  'POST /v1/subscription/{token}': exempt('signed links from a mail, as GET'),
  'POST /v1/track': scoped(
    (w) => p('/v1/track', { body: { email: w.ra.contactEmail, event: w.ra.eventName } }),
    {
      creds: 'public',
    },
  ),

  // Templates
  'GET /templates': scoped(() => p('/templates')),
  'POST /templates': scoped((w) =>
    p('/templates', { body: { name: 'B template', subject: 'S', body: '<p>B</p>', from: w.b.from } }),
  ),
  'GET /templates/{id}': id((w) => p(`/templates/${w.ra.templateId}`), template),
  'PATCH /templates/{id}': id(
    (w) => p(`/templates/${w.ra.templateId}`, { body: { name: 'taken over' } }),
    template,
  ),
  'DELETE /templates/{id}': id((w) => p(`/templates/${w.ra.templateId}`), template),
  'POST /templates/{id}/duplicate': id((w) => p(`/templates/${w.ra.templateId}/duplicate`), template),
  'GET /templates/{id}/usage': id((w) => p(`/templates/${w.ra.templateId}/usage`), template),

  // Events
  'POST /events/track': scoped((w) =>
    p('/events/track', { body: { email: w.ra.contactEmail, event: w.ra.eventName } }),
  ),
  'GET /events': scoped(() => p('/events')),
  'GET /events/stats': scoped(() => p('/events/stats')),
  'GET /events/names': scoped(() => p('/events/names')),
  'GET /events/contact/{contactId}': id(
    (w) => p(`/events/contact/${w.ra.contactId}`),
    (w) => [`/events/contact/${w.ra.contactId}`],
  ),
  'GET /events/{eventName}/usage': scoped((w) => p(`/events/${w.ra.eventName}/usage`), {
    status: [200, 404],
  }),
  'DELETE /events/{eventName}': scoped((w) => p(`/events/${w.ra.eventName}`), { status: [202, 404] }),

  // Domains
  'GET /domains/project/{projectId}': id((w) => p(`/domains/project/${w.a.projectId}`), domains),
  // A sender domain is one project's in the whole deployment (its SES identity is the account's):
  // B adding A's gets 409 DOMAIN_IN_USE, naming no project, and A's domain stays A's.
  'POST /domains': scoped((w) => p('/domains', { body: { domain: w.a.domain } }), { status: [409] }),
  'GET /domains/{id}/verify': id((w) => p(`/domains/${w.ra.domainId}/verify`), domains),
  'DELETE /domains/{id}': id((w) => p(`/domains/${w.ra.domainId}`), domains),

  // Segments
  'GET /segments': scoped(() => p('/segments')),
  'POST /segments': scoped((w) =>
    p('/segments', {
      body: {
        name: 'B dynamic',
        condition: {
          logic: 'AND',
          groups: [
            { filters: [{ field: `data.${w.ra.field}`, operator: 'equals', value: w.ra.fieldValue }] },
          ],
        },
      },
    }),
  ),
  'GET /segments/{id}': id((w) => p(`/segments/${w.ra.dynamicSegmentId}`), dynamicSegment),
  'PATCH /segments/{id}': id(
    (w) => p(`/segments/${w.ra.dynamicSegmentId}`, { body: { name: 'taken over' } }),
    dynamicSegment,
  ),
  'DELETE /segments/{id}': id((w) => p(`/segments/${w.ra.dynamicSegmentId}`), dynamicSegment),
  'GET /segments/{id}/contacts': id((w) => p(`/segments/${w.ra.staticSegmentId}/contacts`), staticSegment),
  'POST /segments/{id}/members': id(
    (w) => p(`/segments/${w.ra.staticSegmentId}/members`, { body: { emails: [w.ra.contact2Email] } }),
    staticSegment,
  ),
  'DELETE /segments/{id}/members': id(
    (w) => p(`/segments/${w.ra.staticSegmentId}/members`, { body: { emails: [w.ra.contactEmail] } }),
    staticSegment,
  ),
  'POST /segments/{id}/compute': id((w) => p(`/segments/${w.ra.dynamicSegmentId}/compute`), dynamicSegment),
  'POST /segments/{id}/refresh': id((w) => p(`/segments/${w.ra.dynamicSegmentId}/refresh`), dynamicSegment),

  // Campaigns
  'GET /campaigns': scoped(() => p('/campaigns')),
  'POST /campaigns': id(
    (w) =>
      p('/campaigns', {
        body: {
          name: 'B campaign',
          subject: 'S',
          body: '<p>B</p>',
          from: w.b.from,
          audienceType: 'SEGMENT',
          segmentId: w.ra.staticSegmentId,
        },
      }),
    staticSegment,
  ),
  'GET /campaigns/{id}': id((w) => p(`/campaigns/${w.ra.draftCampaignId}`), draft),
  'PUT /campaigns/{id}': id(
    (w) =>
      p(`/campaigns/${w.ra.draftCampaignId}`, {
        body: { name: 'taken over', subject: 'S', body: '<p>B</p>', from: w.b.from, audienceType: 'ALL' },
      }),
    draft,
  ),
  'DELETE /campaigns/{id}': id((w) => p(`/campaigns/${w.ra.draftCampaignId}`), draft),
  'POST /campaigns/{id}/duplicate': id((w) => p(`/campaigns/${w.ra.draftCampaignId}/duplicate`), draft),
  'POST /campaigns/{id}/send': id((w) => p(`/campaigns/${w.ra.draftCampaignId}/send`, { body: {} }), draft),
  'POST /campaigns/{id}/cancel': id((w) => p(`/campaigns/${w.ra.scheduledCampaignId}/cancel`), scheduled),
  'POST /campaigns/{id}/test': id(
    (w) => p(`/campaigns/${w.ra.draftCampaignId}/test`, { body: { email: w.b.email } }),
    draft,
  ),
  'GET /campaigns/{id}/stats': id(
    (w) => p(`/campaigns/${w.ra.scheduledCampaignId}/stats`),
    (w) => [`/campaigns/${w.ra.scheduledCampaignId}/stats`],
  ),
  'POST /campaigns/{id}/audience': id(
    (w) => p(`/campaigns/${w.ra.draftCampaignId}/audience`),
    (w) => [`/campaigns/${w.ra.draftCampaignId}/audience`],
  ),
  'GET /campaigns/{id}/audience': id(
    (w) => p(`/campaigns/${w.ra.draftCampaignId}/audience`),
    (w) => [`/campaigns/${w.ra.draftCampaignId}/audience`],
  ),
  // B's count of a tree naming A's field and value reaches none of A's contacts.
  'POST /audiences': scoped(
    (w) =>
      p('/audiences', {
        body: {
          condition: {
            logic: 'AND',
            groups: [
              { filters: [{ field: `data.${w.ra.field}`, operator: 'equals', value: w.ra.fieldValue }] },
            ],
          },
        },
      }),
    { status: [202] },
  ),
  'GET /audiences/{id}': id(
    (w) => p(`/audiences/${w.ra.audienceId}`),
    (w) => [`/audiences/${w.ra.audienceId}`],
  ),

  // Workflows
  'GET /workflows': scoped(() => p('/workflows')),
  'POST /workflows': scoped(() => p('/workflows', { body: { name: 'B workflow' } })),
  'GET /workflows/fields': scoped(() => p('/workflows/fields')),
  'GET /workflows/{id}': id((w) => p(`/workflows/${w.ra.workflowId}`), workflow),
  'PATCH /workflows/{id}': id(
    (w) => p(`/workflows/${w.ra.workflowId}`, { body: { name: 'taken over', enabled: false } }),
    workflow,
  ),
  'DELETE /workflows/{id}': id((w) => p(`/workflows/${w.ra.workflowId}`), workflow),
  'POST /workflows/{id}/steps': id(
    (w) =>
      p(`/workflows/${w.ra.workflowId}/steps`, {
        body: { type: 'DELAY', config: { amount: 1, unit: 'hours' } },
      }),
    workflow,
  ),
  'PATCH /workflows/{id}/steps/{stepId}': id(
    (w) =>
      p(`/workflows/${w.ra.workflowId}/steps/${w.ra.stepIds[0]}`, {
        body: { config: { amount: 2, unit: 'days' } },
      }),
    workflow,
  ),
  'DELETE /workflows/{id}/steps/{stepId}': id(
    (w) => p(`/workflows/${w.ra.workflowId}/steps/${w.ra.stepIds[1]}`),
    workflow,
  ),
  'POST /workflows/{id}/transitions': id(
    (w) =>
      p(`/workflows/${w.ra.workflowId}/transitions`, {
        body: { fromStepId: w.ra.stepIds[1], toStepId: w.ra.stepIds[0] },
      }),
    workflow,
  ),
  'DELETE /workflows/{id}/transitions/{transitionId}': id(
    (w) => p(`/workflows/${w.ra.workflowId}/transitions/${w.ra.transitionId}`),
    workflow,
  ),
  'POST /workflows/{id}/executions': id(
    (w) => p(`/workflows/${w.ra.workflowId}/executions`, { body: { contactId: w.ra.contactId } }),
    (w) => [`/workflows/${w.ra.workflowId}/executions`],
  ),
  'GET /workflows/{id}/executions': id(
    (w) => p(`/workflows/${w.ra.workflowId}/executions`),
    (w) => [`/workflows/${w.ra.workflowId}/executions`],
  ),
  'GET /workflows/{id}/executions/{executionId}': id(
    (w) => p(`/workflows/${w.ra.workflowId}/executions/${w.ra.executionId}`),
    execution,
  ),
  'DELETE /workflows/{id}/executions/{executionId}': id(
    (w) => p(`/workflows/${w.ra.workflowId}/executions/${w.ra.executionId}`),
    execution,
  ),
  'POST /workflows/{id}/executions/cancel-all': id(
    (w) => p(`/workflows/${w.ra.workflowId}/executions/cancel-all`),
    execution,
  ),

  // Uploads, activity, analytics
  'POST /uploads/image': scoped(() => {
    const boundary = 'isolation-image';
    // A 1x1 PNG.
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.png"\r\nContent-Type: image/png\r\n\r\n`;
    const raw = Buffer.concat([Buffer.from(head), png, Buffer.from(`\r\n--${boundary}--\r\n`)]);
    return p('/uploads/image', {
      raw: new Uint8Array(raw),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
  }),
  'GET /activity': scoped(() => p('/activity')),
  'GET /activity/stats': scoped(() => p('/activity/stats')),
  'GET /activity/recent-count': scoped(() => p('/activity/recent-count')),
  'GET /activity/types': scoped(() => p('/activity/types')),
  'GET /activity/upcoming': scoped(() => p('/activity/upcoming')),
  'GET /analytics/timeseries': scoped(() => p('/analytics/timeseries')),
  'GET /analytics/top-campaigns': scoped(() => p('/analytics/top-campaigns')),
  'GET /analytics/campaign-stats': scoped(() => p('/analytics/campaign-stats')),
  'GET /analytics/top-events': scoped(() => p('/analytics/top-events')),

  'GET /config': exempt('the deployment’s feature flags, the same for everyone; no project in it'),
  'GET /openapi.json': exempt('the API reference, the same for everyone; no project in it'),
  'GET /docs': exempt('the API reference page, the same for everyone; no project in it'),
  'GET /docs/reference.js': exempt('the API reference page’s script; no project in it'),

  // Accounts: the caller's own account, by password or a mailed token.
  'POST /auth/signup': exempt('makes a new user with a project of their own; no project credentials'),
  'POST /auth/login': exempt('checks a password; answers the caller’s own session'),
  'GET /auth/logout': exempt('ends the caller’s own session'),
  'GET /auth/oauth-config': exempt('the deployment’s OAuth providers, the same for everyone'),
  'POST /auth/verify-email': exempt(mailedToken),
  'POST /auth/request-verification': exempt(
    'mails the caller’s own address; answers the same for any address',
  ),
  'POST /auth/request-password-reset': exempt('answers the same for any address; mails only its owner'),
  'POST /auth/reset-password': exempt(mailedToken),
  'GET /users/@me': scoped(() => p('/users/@me'), { creds: 'user' }),
  'GET /users/@me/projects': scoped(() => p('/users/@me/projects'), { creds: 'user' }),
  'POST /users/@me/projects': scoped(() => p('/users/@me/projects', { body: { name: 'B second' } }), {
    creds: 'user',
  }),
  'PATCH /users/@me/projects/{id}': id(
    (w) => p(`/users/@me/projects/${w.a.projectId}`, { body: { name: 'taken over' } }),
    project,
    { creds: 'user' },
  ),
  'DELETE /users/@me/projects/{id}': id((w) => p(`/users/@me/projects/${w.a.projectId}`), project, {
    creds: 'user',
  }),
  'POST /users/@me/projects/{id}/reset': id(
    (w) => p(`/users/@me/projects/${w.a.projectId}/reset`, { body: { confirm: w.a.projectName } }),
    project,
    { creds: 'user' },
  ),
  'GET /users/@me/projects/{id}/reset': id((w) => p(`/users/@me/projects/${w.a.projectId}/reset`), project, {
    creds: 'user',
  }),
  'POST /users/@me/projects/{id}/regenerate-keys': id(
    (w) => p(`/users/@me/projects/${w.a.projectId}/regenerate-keys`),
    project,
    { creds: 'user' },
  ),
  'GET /users/@me/projects/{id}/security': id(
    (w) => p(`/users/@me/projects/${w.a.projectId}/security`),
    project,
    { creds: 'user' },
  ),
  'GET /projects/{id}/security': id((w) => p(`/projects/${w.a.projectId}/security`), project, {
    creds: 'user',
  }),
  'GET /projects/{id}/setup-state': id((w) => p(`/projects/${w.a.projectId}/setup-state`), project, {
    creds: 'user',
  }),
  'GET /projects/{id}/members': id((w) => p(`/projects/${w.a.projectId}/members`), members, {
    creds: 'user',
  }),
  'POST /projects/{id}/members': id(
    (w) => p(`/projects/${w.a.projectId}/members`, { body: { email: w.b.email, role: 'ADMIN' } }),
    members,
    { creds: 'user' },
  ),
  'PATCH /projects/{id}/members/{userId}': id(
    (w) => p(`/projects/${w.a.projectId}/members/${w.a.userId}`, { body: { role: 'MEMBER' } }),
    members,
    { creds: 'user' },
  ),
  'DELETE /projects/{id}/members/{userId}': id(
    (w) => p(`/projects/${w.a.projectId}/members/${w.a.userId}`),
    members,
    { creds: 'user' },
  ),
  'POST /auth/accept-invitation': id(
    (w) => p('/auth/accept-invitation', { body: { token: w.ra.invitationToken } }),
    members,
    { creds: 'user', status: 403 },
  ),

  // Billing (the test runs with Stripe on, so each of these reaches its membership check)
  'GET /users/@me/projects/{id}/billing-limits': id(
    (w) => p(`/users/@me/projects/${w.a.projectId}/billing-limits`),
    limits,
    { creds: 'user' },
  ),
  'PUT /users/@me/projects/{id}/billing-limits': id(
    (w) =>
      p(`/users/@me/projects/${w.a.projectId}/billing-limits`, {
        body: { transactional: 0, campaigns: 0, workflows: 0 },
      }),
    limits,
    { creds: 'user' },
  ),
  'GET /users/@me/projects/{id}/billing-consumption': id(
    (w) => p(`/users/@me/projects/${w.a.projectId}/billing-consumption`),
    (w) => [`/users/@me/projects/${w.a.projectId}/billing-consumption`],
    { creds: 'user' },
  ),
  'POST /users/@me/projects/{id}/checkout': id(
    (w) => p(`/users/@me/projects/${w.a.projectId}/checkout`),
    project,
    { creds: 'user' },
  ),
  'POST /users/@me/projects/{id}/billing-portal': id(
    (w) => p(`/users/@me/projects/${w.a.projectId}/billing-portal`),
    project,
    { creds: 'user' },
  ),
  'GET /users/@me/projects/{id}/billing-invoices': id(
    (w) => p(`/users/@me/projects/${w.a.projectId}/billing-invoices`),
    project,
    { creds: 'user' },
  ),

  'POST /webhooks/sns': exempt(
    'SNS deliveries, each checked by its SNS signature; they name SES messages, never a project',
  ),
  'POST /webhooks/incoming/stripe': exempt(
    'Stripe deliveries, each checked by its Stripe-Signature with the webhook secret; no caller credentials',
  ),
};
