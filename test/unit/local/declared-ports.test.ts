/**
 * The manifest's `uses` against what the code does: every function of the manifest runs in the
 * local runtime with deps scoped to its declaration (`scopeDeps`, recording each use), and a
 * scenario makes one request per route plus the background work they start (imports, bulk jobs,
 * purges, event deletion, field deletion, the upload deadline's schedule), received mail and the
 * recurring domain check. A function that touches a port it does not declare fails its request or job (and is
 * listed); a declared use no step needs is listed too, so the declarations, and the IAM grants
 * CDK derives from them (test/infra/stateless.test.ts), are exactly what the code uses.
 *
 * Every function scopes its deps itself (`declaredDeps`) and the local runtime hands each one
 * deps scoped to its entry, so the whole integration tier refuses undeclared ports too; what this
 * test adds is the record of what each function used, to find declared uses nothing needs.
 */
import { join } from 'node:path';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import type { LocalSnsEndpoints } from '../../../shared/adapters/local/sns-endpoints';
import { scopeDeps } from '../../../shared/http/ports';
import type { HandlerFactory, HandlerOverrides } from '../../../shared/local/handlers';
import { type FunctionKind, functionUses, manifest, type PortUse, routeKey } from '../../../shared/manifest';
import type { Deps } from '../../../shared/ports';
import { useZoneFile } from '../../integration/helpers/dns';
import { useFakeStripe } from '../../integration/helpers/fake-stripe';
import { multipart, upload } from '../../integration/helpers/imports';
import { postInbound, rawMessage } from '../../integration/helpers/inbound';
import { type ApiOptions, type ApiResponse, useLocalRuntime } from '../../integration/helpers/local';
import {
  sesDeliveryEvent,
  signSnsMessage,
  snsNotification,
  snsSigningKey,
  TEST_CERT_URL,
} from '../../integration/helpers/sns';
import { imageMultipart, tinyPng } from '../../integration/helpers/uploads';

/** Uses no port shows at run time: `feature-flags` is a variable (checked by the infra tier). */
const NOT_OBSERVABLE: ReadonlySet<PortUse> = new Set(['feature-flags', 'accounts']);

const functions = functionUses(manifest);
const label = (kind: FunctionKind, name: string) => `${kind} ${name}`;
const used = new Map<string, Set<PortUse>>(functions.map((f) => [label(f.kind, f.name), new Set()]));

const overrideKind = {
  http: 'http',
  queue: 'queues',
  schedule: 'schedules',
  authorizer: 'authorizers',
} as const;
const overrides: Record<(typeof overrideKind)[FunctionKind], Record<string, HandlerFactory>> = {
  http: {},
  queues: {},
  schedules: {},
  authorizers: {},
};
let gate: Promise<void> | undefined;
for (const f of functions) {
  const mod = (await import(join(import.meta.dirname, '..', '..', '..', f.handler))) as {
    createHandler: (deps: Deps) => (event: unknown, context: unknown) => Promise<unknown>;
  };
  const record = used.get(label(f.kind, f.name))!;
  overrides[overrideKind[f.kind]][f.name] = (deps: Deps) => {
    const handler = mod.createHandler(
      scopeDeps(deps, f.uses, label(f.kind, f.name), { onUse: (use) => record.add(use) }),
    );
    if (f.kind !== 'queue') return handler;
    // The scenario holds the worker back once, to reach a path that needs it not to have run.
    return async (event: unknown, context: unknown) => {
      await gate;
      return handler(event, context);
    };
  };
}

// Stripe on, against a local stand-in of its API, so that the billing-stripe and stripe-webhook
// functions reach the ports they declare.
const STRIPE = { key: 'sk_test_ports', webhookSecret: 'whsec_ports' };
const stripe = useFakeStripe({ secretKey: STRIPE.key });
const rt = useLocalRuntime({
  handlers: overrides as HandlerOverrides,
  dnsFile: useZoneFile(),
  env: stripe.env({
    STRIPE_SECRET_KEY: STRIPE.key,
    STRIPE_WEBHOOK_SECRET: STRIPE.webhookSecret,
    STRIPE_PRICE_ID: 'price_ports',
  }),
});

/** Every response of the scenario, to check that none failed inside a function. */
const answers: { request: string; status: number; body: unknown }[] = [];
const routesSeen = new Set<string>();

async function call(
  method: string,
  path: string,
  route: string,
  options: ApiOptions = {},
): Promise<ApiResponse> {
  const res = await rt.api(method, path, options);
  answers.push({ request: `${method} ${path}`, status: res.status, body: res.body });
  routesSeen.add(route);
  return res;
}

describe('declared ports', () => {
  it('cover what every function uses, and name nothing none of its paths needs', async () => {
    const email = 'ports@ports.test';
    // config: GET /config, an unknown path and a CORS preflight ($default).
    const config = await call('GET', '/config', 'GET /config', { key: null });
    expect(config.body.storage).toEqual({ enabled: true });
    expect((await call('GET', '/nope', '$default', { key: null })).status).toBe(404);
    // reference: the API document and its page, no port.
    expect((await call('GET', '/openapi.json', 'GET /openapi.json', { key: null })).body.openapi).toBe(
      '3.1.0',
    );
    expect((await call('GET', '/docs', 'GET /docs', { key: null })).status).toBe(200);
    expect((await call('GET', '/docs/reference.js', 'GET /docs/reference.js', { key: null })).status).toBe(
      200,
    );
    const preflight = await call('OPTIONS', '/v1/track', '$default', {
      key: null,
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);

    // webhooks: a signed SNS notification of the runtime's SES event topic (its certificate, its
    // ses.event job; the job drops the event of an email it does not know)
    const signer = snsSigningKey();
    (rt.deps.snsEndpoints as LocalSnsEndpoints).registerCertificate(TEST_CERT_URL, signer.certificatePem);
    const notification = signSnsMessage(
      snsNotification(rt.deps.config.sesEventsTopicArn!, sesDeliveryEvent()),
      signer.privateKey,
    );
    const delivered = await call('POST', '/webhooks/sns', 'POST /webhooks/sns', {
      key: null,
      raw: JSON.stringify(notification),
      headers: { 'content-type': 'text/plain; charset=UTF-8' },
    });
    expect(delivered.body.data?.action).toBe('enqueued');
    await rt.drain();

    // contacts
    const created = await call('POST', '/contacts', 'POST /contacts', {
      body: { email, data: { plan: 'pro' } },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await call('GET', '/contacts', 'GET /contacts');
    await call('POST', '/contacts/lookup', 'POST /contacts/lookup', { body: { emails: [email] } });
    await call('GET', '/contacts/fields', 'GET /contacts/fields');
    await call('GET', '/contacts/fields/data.plan/values', 'GET /contacts/fields/{field}/values');
    await call('GET', '/contacts/fields/data.plan/usage', 'GET /contacts/fields/{field}/usage');
    await call('GET', `/contacts/${id}`, 'GET /contacts/{id}');
    await call('PATCH', `/contacts/${id}`, 'PATCH /contacts/{id}', { body: { data: { seat: 1 } } });
    // Mail from the contact arrives: stored as SES's receipt rule stores it, read by the jobs
    // worker through inbound-mail and recorded on the contact.
    const reply = rawMessage({ from: email, to: `reply@${rt.senderDomain}`, subject: 'Re: Hi', text: 'Hi' });
    expect((await postInbound(rt, reply)).status).toBe(202);
    await rt.drain();
    for (const type of ['subscribe', 'unsubscribe'] as const) {
      const bulk = await call('POST', `/contacts/bulk-${type}`, `POST /contacts/bulk-${type}`, {
        body: { contactIds: [id] },
      });
      await rt.drain();
      await call('GET', `/contacts/bulk/${bulk.body.jobId}`, 'GET /contacts/bulk/{jobId}');
    }
    // The upload: the authorizer, the stored file, the import job and its deadline schedule.
    const uploaded = await upload(rt, 'email,team\nimported@ports.test,red\n');
    expect(uploaded.status).toBe(202);
    routesSeen.add('POST /contacts/import');
    await rt.drain();
    const job = await call('GET', `/contacts/import/${uploaded.body.jobId}`, 'GET /contacts/import/{jobId}');
    expect(job.body.status).toBe('completed');
    await rt.runtime.clock.advance(16 * 60);
    await rt.drain();
    expect(
      (await call('DELETE', '/contacts/fields/data.team', 'DELETE /contacts/fields/{field}')).status,
    ).toBe(200);
    const imported = await call('POST', '/contacts/lookup', 'POST /contacts/lookup', {
      body: { emails: ['imported@ports.test'] },
    });
    const bulkDelete = await call('POST', '/contacts/bulk-delete', 'POST /contacts/bulk-delete', {
      body: { contactIds: [imported.body.found[0].id] },
    });
    expect(bulkDelete.status).toBe(202);
    await rt.drain();

    // uploads: an image stored where it is served
    const image = await imageMultipart(tinyPng());
    const stored = await call('POST', '/uploads/image', 'POST /uploads/image', {
      raw: image.body,
      headers: { 'content-type': image.contentType },
    });
    expect(stored.status).toBe(201);

    // templates
    const template = await call('POST', '/templates', 'POST /templates', {
      body: { name: 'T', subject: 'Hi', body: '<p>Hi</p>', from: `news@${rt.senderDomain}` },
    });
    const tid = template.body.id as string;
    await call('GET', '/templates', 'GET /templates');
    await call('GET', `/templates/${tid}`, 'GET /templates/{id}');
    await call('PATCH', `/templates/${tid}`, 'PATCH /templates/{id}', { body: { name: 'T2' } });
    const copy = await call('POST', `/templates/${tid}/duplicate`, 'POST /templates/{id}/duplicate');
    await call('GET', `/templates/${tid}/usage`, 'GET /templates/{id}/usage');
    await call('DELETE', `/templates/${copy.body.id}`, 'DELETE /templates/{id}');

    // public: send (with a link), verify, the subscription pages; track
    const sent = await call('POST', '/v1/send', 'POST /v1/send', {
      body: {
        to: email,
        from: `news@${rt.senderDomain}`,
        subject: 'Links',
        body: '<a href="{{unsubscribeUrl}}">unsubscribe</a>',
      },
    });
    expect(sent.body.data.emails[0].status).toBe('sent');
    const [mail] = await rt.mails({ to: email });
    const token = /\/v1\/subscription\/([^"<\s]+)/.exec(mail!.html ?? '')![1]!;
    await call('GET', `/v1/subscription/${token}`, 'GET /v1/subscription/{token}', { key: null });
    await call('POST', `/v1/subscription/${token}`, 'POST /v1/subscription/{token}', {
      key: null,
      raw: 'action=unsubscribe',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    await call('POST', '/v1/track', 'POST /v1/track', {
      key: rt.publicKey,
      body: { email, event: 'signup' },
    });
    await call('POST', '/v1/verify', 'POST /v1/verify', { body: { email } });

    // events
    await call('POST', '/events/track', 'POST /events/track', { body: { email, event: 'login' } });
    await call('GET', '/events', 'GET /events');
    await call('GET', '/events/stats', 'GET /events/stats');
    await call('GET', '/events/names', 'GET /events/names');
    await call('GET', `/events/contact/${id}`, 'GET /events/contact/{contactId}');
    await call('GET', '/events/login/usage', 'GET /events/{eventName}/usage');
    await call('DELETE', '/events/login', 'DELETE /events/{eventName}');
    await rt.drain();

    // segments (a build on create, a compute), static members, and the periodic segment job
    const segment = await call('POST', '/segments', 'POST /segments', {
      body: {
        name: 'Ports',
        trackMembership: true,
        condition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }],
        },
      },
    });
    expect(segment.status).toBe(201);
    const sid = segment.body.id as string;
    await rt.drain();
    await call('GET', '/segments', 'GET /segments');
    await call('GET', `/segments/${sid}`, 'GET /segments/{id}');
    await call('PATCH', `/segments/${sid}`, 'PATCH /segments/{id}', { body: { description: 'ports' } });
    await call('GET', `/segments/${sid}/contacts`, 'GET /segments/{id}/contacts');
    await call('POST', `/segments/${sid}/compute`, 'POST /segments/{id}/compute');
    await call('POST', `/segments/${sid}/refresh`, 'POST /segments/{id}/refresh');
    await rt.scheduler.runRecurring('segments-periodic');
    const manual = await call('POST', '/segments', 'POST /segments', {
      body: { name: 'Manual', type: 'STATIC' },
    });
    await call('POST', `/segments/${manual.body.id}/members`, 'POST /segments/{id}/members', {
      body: { emails: [email, 'ports-member@ports.test'], createMissing: true },
    });
    await call('DELETE', `/segments/${manual.body.id}/members`, 'DELETE /segments/{id}/members', {
      body: { emails: [email] },
    });
    await call('DELETE', `/segments/${manual.body.id}`, 'DELETE /segments/{id}');
    await call('DELETE', `/segments/${sid}`, 'DELETE /segments/{id}');
    await rt.drain();

    // domains, and the background check of the pending one
    const domain = await call('POST', '/domains', 'POST /domains', { body: { domain: 'ports-check.test' } });
    expect(domain.status).toBe(201);
    await call('GET', `/domains/project/${rt.projectId}`, 'GET /domains/project/{projectId}');
    await call('GET', `/domains/${domain.body.id}/verify`, 'GET /domains/{id}/verify');
    await rt.scheduler.runRecurring('domain-check');
    await call('DELETE', `/domains/${domain.body.id}`, 'DELETE /domains/{id}');

    // campaigns: a draft replaced, test-sent (mail, signed links), scheduled (a one-off
    // schedule) and cancelled, then sent now (the fan-out mails the project's contacts with
    // signed links), its stats, a copy and the copy's deletion
    const draft = {
      name: 'Ports',
      subject: 'Hi',
      body: '<p>Hi</p>',
      from: `news@${rt.senderDomain}`,
      audienceType: 'ALL',
      type: 'TRANSACTIONAL',
    };
    const campaign = await call('POST', '/campaigns', 'POST /campaigns', { body: draft });
    expect(campaign.status).toBe(201);
    const cid = campaign.body.data.id as string;
    await call('GET', '/campaigns', 'GET /campaigns');
    await call('GET', `/campaigns/${cid}`, 'GET /campaigns/{id}');
    await call('PUT', `/campaigns/${cid}`, 'PUT /campaigns/{id}', { body: { ...draft, name: 'Ports 2' } });
    // its audience counted (a job), and a condition tree's
    await call('POST', `/campaigns/${cid}/audience`, 'POST /campaigns/{id}/audience');
    const tree = await call('POST', '/audiences', 'POST /audiences', {
      body: {
        condition: {
          logic: 'AND',
          groups: [{ filters: [{ field: 'subscribed', operator: 'equals', value: true }] }],
        },
      },
    });
    await rt.drain();
    await call('GET', `/campaigns/${cid}/audience`, 'GET /campaigns/{id}/audience');
    await call('GET', `/audiences/${tree.body.id}`, 'GET /audiences/{id}');
    await call('POST', `/campaigns/${cid}/test`, 'POST /campaigns/{id}/test', { body: { email } });
    const later = new Date(rt.deps.clock.now().getTime() + 3_600_000).toISOString();
    await call('POST', `/campaigns/${cid}/send`, 'POST /campaigns/{id}/send', {
      body: { scheduledFor: later },
    });
    await call('POST', `/campaigns/${cid}/cancel`, 'POST /campaigns/{id}/cancel');
    const sending = await call('POST', `/campaigns/${cid}/send`, 'POST /campaigns/{id}/send');
    expect(sending.body.data.status).toBe('SENDING');
    await rt.drain();
    const stats = await call('GET', `/campaigns/${cid}/stats`, 'GET /campaigns/{id}/stats');
    expect(stats.body.data.sentCount).toBeGreaterThan(0);
    const campaignCopy = await call('POST', `/campaigns/${cid}/duplicate`, 'POST /campaigns/{id}/duplicate');
    await call('DELETE', `/campaigns/${campaignCopy.body.id}`, 'DELETE /campaigns/{id}');

    // workflows: built, enabled, started by hand (a step's mail, a delay's one-off schedule),
    // listed, cancelled (the schedule deleted), then one started by a tracked event and all
    // cancelled, steps and transitions edited, and deleted.
    const wtemplate = await call('POST', '/templates', 'POST /templates', {
      body: { name: 'Flow', subject: 'Hi', body: '<p>Hi</p>', from: `news@${rt.senderDomain}` },
    });
    const wf = (
      await call('POST', '/workflows', 'POST /workflows', { body: { name: 'Ports', eventName: 'ports_go' } })
    ).body.id as string;
    const wsend = await call('POST', `/workflows/${wf}/steps`, 'POST /workflows/{id}/steps', {
      body: { type: 'SEND_EMAIL', config: { templateId: wtemplate.body.id, recipient: { type: 'CONTACT' } } },
    });
    const wdelay = await call('POST', `/workflows/${wf}/steps`, 'POST /workflows/{id}/steps', {
      body: { type: 'DELAY', config: { amount: 1, unit: 'days' } },
    });
    const wexit = await call('POST', `/workflows/${wf}/steps`, 'POST /workflows/{id}/steps', {
      body: { type: 'EXIT', config: {} },
    });
    await call('PATCH', `/workflows/${wf}/steps/${wexit.body.id}`, 'PATCH /workflows/{id}/steps/{stepId}', {
      body: { name: 'The end' },
    });
    await call('POST', `/workflows/${wf}/transitions`, 'POST /workflows/{id}/transitions', {
      body: { fromStepId: wsend.body.id, toStepId: wdelay.body.id },
    });
    const wt = await call('POST', `/workflows/${wf}/transitions`, 'POST /workflows/{id}/transitions', {
      body: { fromStepId: wdelay.body.id, toStepId: wexit.body.id },
    });
    await call(
      'DELETE',
      `/workflows/${wf}/transitions/${wt.body.id}`,
      'DELETE /workflows/{id}/transitions/{transitionId}',
    );
    await call('DELETE', `/workflows/${wf}/steps/${wexit.body.id}`, 'DELETE /workflows/{id}/steps/{stepId}');
    await call('PATCH', `/workflows/${wf}`, 'PATCH /workflows/{id}', { body: { enabled: true } });
    await call('GET', '/workflows', 'GET /workflows');
    await call('GET', `/workflows/${wf}`, 'GET /workflows/{id}');
    await call('GET', '/workflows/fields?eventName=ports_go', 'GET /workflows/fields');
    const contact = await call('POST', '/contacts', 'POST /contacts', {
      body: { email: 'flow@example.org' },
    });
    const wx = await call('POST', `/workflows/${wf}/executions`, 'POST /workflows/{id}/executions', {
      body: { contactId: contact.body.id },
    });
    expect(wx.status).toBe(201);
    await rt.drain();
    await call('GET', `/workflows/${wf}/executions`, 'GET /workflows/{id}/executions');
    await call(
      'GET',
      `/workflows/${wf}/executions/${wx.body.id}`,
      'GET /workflows/{id}/executions/{executionId}',
    );
    await call(
      'DELETE',
      `/workflows/${wf}/executions/${wx.body.id}`,
      'DELETE /workflows/{id}/executions/{executionId}',
    );
    await call('POST', '/v1/track', 'POST /v1/track', {
      body: { email: 'flow2@example.org', event: 'ports_go' },
      key: rt.publicKey,
    });
    await rt.drain();
    await call(
      'POST',
      `/workflows/${wf}/executions/cancel-all`,
      'POST /workflows/{id}/executions/cancel-all',
    );
    await call('DELETE', `/workflows/${wf}`, 'DELETE /workflows/{id}');
    await rt.drain();

    // Accounts: signup (a project, its keys, a session, the verification mail), the user's
    // routes, logout, login, and the mailed tokens.
    const person = { email: 'person@ports.test', password: 'a long password' };
    const signedUp = await call('POST', '/auth/signup', 'POST /auth/signup', { key: null, body: person });
    expect(signedUp.status).toBe(201);
    const session = {
      key: null,
      headers: { cookie: /sesame_session=[^;]*/.exec(signedUp.headers['set-cookie'] ?? '')![0] },
    };
    expect((await call('GET', '/users/@me', 'GET /users/@me', session)).status).toBe(200);
    expect((await call('GET', '/users/@me/projects', 'GET /users/@me/projects', session)).status).toBe(200);
    // The same session on a project route of every group (the member's own project).
    const asMember = { key: null, headers: { ...session.headers, 'x-project-id': signedUp.body.project.id } };
    for (const [method, path, route] of [
      ['GET', '/contacts', 'GET /contacts'],
      ['GET', '/templates', 'GET /templates'],
      ['GET', '/events', 'GET /events'],
      ['GET', `/domains/project/${signedUp.body.project.id}`, 'GET /domains/project/{projectId}'],
      ['GET', '/segments', 'GET /segments'],
      ['GET', '/workflows', 'GET /workflows'],
      ['GET', '/campaigns', 'GET /campaigns'],
      ['GET', '/activity/types', 'GET /activity/types'],
    ] as const)
      expect((await call(method, path, route, asMember)).status, path).toBe(200);
    // The import upload's authorizer checks the session too.
    const { body: csv, contentType } = await multipart('email\nsession-import@ports.test\n');
    const sessionUpload = await rt.api('POST', '/contacts/import', {
      ...asMember,
      raw: csv,
      headers: { ...asMember.headers, 'content-type': contentType },
    });
    expect(sessionUpload.status, JSON.stringify(sessionUpload.body)).toBe(202);
    await rt.drain();
    // The user's project management.
    const pid = signedUp.body.project.id;
    const secondProject = await call('POST', '/users/@me/projects', 'POST /users/@me/projects', {
      ...session,
      body: { name: 'Second' },
    });
    expect(secondProject.status).toBe(201);
    for (const [method, path, route] of [
      ['PATCH', `/users/@me/projects/${pid}`, 'PATCH /users/@me/projects/{id}'],
      [
        'POST',
        `/users/@me/projects/${secondProject.body.project.id}/regenerate-keys`,
        'POST /users/@me/projects/{id}/regenerate-keys',
      ],
      ['GET', `/users/@me/projects/${pid}/security`, 'GET /users/@me/projects/{id}/security'],
      ['GET', `/projects/${pid}/security`, 'GET /projects/{id}/security'],
      ['GET', `/projects/${pid}/setup-state`, 'GET /projects/{id}/setup-state'],
    ] as const)
      expect(
        (
          await call(method, path, route, {
            ...session,
            ...(method === 'PATCH' ? { body: { name: 'Renamed' } } : {}),
          })
        ).status,
        path,
      ).toBe(200);
    // Members: an invitation mailed to an address without an account, accepted once it has one,
    // then the member listed, changed and removed.
    const guest = { email: 'guest@ports.test', password: 'a long password' };
    expect(
      (
        await call('POST', `/projects/${pid}/members`, 'POST /projects/{id}/members', {
          ...session,
          body: { email: guest.email, role: 'MEMBER' },
        })
      ).status,
    ).toBe(202);
    const invitation = /Token: (\S+)/.exec((await rt.mails({ to: guest.email }))[0]?.text ?? '')![1];
    const guestUp = await rt.api('POST', '/auth/signup', { key: null, body: guest });
    const guestSession = {
      key: null,
      headers: { cookie: /sesame_session=[^;]*/.exec(guestUp.headers['set-cookie'] ?? '')![0] },
    };
    const accepted = await call('POST', '/auth/accept-invitation', 'POST /auth/accept-invitation', {
      ...guestSession,
      body: { token: invitation },
    });
    expect(accepted.status).toBe(200);
    expect(
      (await call('GET', `/projects/${pid}/members`, 'GET /projects/{id}/members', session)).status,
    ).toBe(200);
    const guestMember = `/projects/${pid}/members/${guestUp.body.user.id}`;
    expect(
      (
        await call('PATCH', guestMember, 'PATCH /projects/{id}/members/{userId}', {
          ...session,
          body: { role: 'ADMIN' },
        })
      ).status,
    ).toBe(200);
    expect(
      (await call('DELETE', guestMember, 'DELETE /projects/{id}/members/{userId}', session)).status,
    ).toBe(200);
    // Resetting and deleting a project (its wipe scans the table; deleting a domain whose SES
    // identity Sesame made deletes the identity).
    const wiped = secondProject.body.project.id;
    const wipeReset = await call(
      'POST',
      `/users/@me/projects/${wiped}/reset`,
      'POST /users/@me/projects/{id}/reset',
      {
        ...session,
        body: { confirm: 'Second' },
      },
    );
    expect(wipeReset.status).toBe(202);
    await rt.drain();
    expect(
      (await call('GET', `/users/@me/projects/${wiped}/reset`, 'GET /users/@me/projects/{id}/reset', session))
        .status,
    ).toBe(200);
    const secondDomain = await call('POST', '/domains', 'POST /domains', {
      key: null,
      headers: { ...session.headers, 'x-project-id': wiped },
      body: { domain: 'second.ports.test' },
    });
    expect(secondDomain.status).toBe(201);
    expect(
      (await call('DELETE', `/users/@me/projects/${wiped}`, 'DELETE /users/@me/projects/{id}', session))
        .status,
    ).toBe(202);
    await rt.drain();
    // The project's monthly send caps and its consumption (the billing group).
    for (const [method, path, route] of [
      ['GET', `/users/@me/projects/${pid}/billing-limits`, 'GET /users/@me/projects/{id}/billing-limits'],
      ['PUT', `/users/@me/projects/${pid}/billing-limits`, 'PUT /users/@me/projects/{id}/billing-limits'],
      [
        'GET',
        `/users/@me/projects/${pid}/billing-consumption`,
        'GET /users/@me/projects/{id}/billing-consumption',
      ],
    ] as const)
      expect(
        (
          await call(method, path, route, {
            ...session,
            ...(method === 'PUT' ? { body: { transactional: 1000, campaigns: null, workflows: null } } : {}),
          })
        ).status,
        path,
      ).toBe(200);
    // Stripe: a signed checkout event gives the project a customer; then checkout, the portal and
    // the invoices reach Stripe's API (the local stand-in).
    const checkoutEvent = JSON.stringify({
      id: 'evt_ports',
      object: 'event',
      created: Math.floor(rt.runtime.clock.now().getTime() / 1000),
      type: 'checkout.session.completed',
      data: {
        object: {
          mode: 'subscription',
          client_reference_id: pid,
          customer: 'cus_ports',
          subscription: 'sub_ports',
        },
      },
    });
    const stripeEvent = await call('POST', '/webhooks/incoming/stripe', 'POST /webhooks/incoming/stripe', {
      key: null,
      raw: checkoutEvent,
      headers: {
        'content-type': 'application/json',
        'stripe-signature': Stripe.webhooks.generateTestHeaderString({
          payload: checkoutEvent,
          secret: STRIPE.webhookSecret,
          timestamp: Math.floor(rt.runtime.clock.now().getTime() / 1000),
        }),
      },
    });
    expect(stripeEvent.body.result).toBe('applied');
    for (const [method, path, route] of [
      ['POST', `/users/@me/projects/${pid}/checkout`, 'POST /users/@me/projects/{id}/checkout'],
      ['POST', `/users/@me/projects/${pid}/billing-portal`, 'POST /users/@me/projects/{id}/billing-portal'],
      ['GET', `/users/@me/projects/${pid}/billing-invoices`, 'GET /users/@me/projects/{id}/billing-invoices'],
    ] as const)
      expect((await call(method, path, route, session)).status, path).toBe(200);
    // An upload without a file: refused by the route, after the session admitted it.
    expect((await call('POST', '/uploads/image', 'POST /uploads/image', asMember)).status).toBe(400);
    await call('GET', '/auth/logout', 'GET /auth/logout', session);
    expect((await call('POST', '/auth/login', 'POST /auth/login', { key: null, body: person })).status).toBe(
      200,
    );
    await call('GET', '/auth/oauth-config', 'GET /auth/oauth-config', { key: null });
    const tokenOf = async (subject: string) =>
      /Token: (\S+)/.exec(
        (await rt.mails({ to: person.email })).filter((m) => m.subject?.includes(subject)).at(-1)?.text ?? '',
      )?.[1];
    await call('POST', '/auth/request-verification', 'POST /auth/request-verification', {
      key: null,
      body: { email: person.email },
    });
    const verified = await call('POST', '/auth/verify-email', 'POST /auth/verify-email', {
      key: null,
      body: { token: await tokenOf('Verify') },
    });
    expect(verified.status).toBe(200);
    await call('POST', '/auth/request-password-reset', 'POST /auth/request-password-reset', {
      key: null,
      body: { email: person.email },
    });
    const reset = await call('POST', '/auth/reset-password', 'POST /auth/reset-password', {
      key: null,
      body: { token: await tokenOf('Reset'), password: 'another long password' },
    });
    expect(reset.status).toBe(200);

    // The activity feed and the analytics (the activity group reads counters and indexes only).
    for (const [path, route] of [
      ['/activity?types=email.sent,event.tracked', 'GET /activity'],
      ['/activity/stats', 'GET /activity/stats'],
      ['/activity/recent-count', 'GET /activity/recent-count'],
      ['/activity/types', 'GET /activity/types'],
      ['/activity/upcoming', 'GET /activity/upcoming'],
      ['/analytics/timeseries', 'GET /analytics/timeseries'],
      ['/analytics/top-campaigns', 'GET /analytics/top-campaigns'],
      ['/analytics/campaign-stats', 'GET /analytics/campaign-stats'],
      ['/analytics/top-events', 'GET /analytics/top-events'],
    ] as const)
      expect((await call('GET', path, route)).status, path).toBe(200);

    // An upsert over a deleted contact whose purge has not run yet queues its purge: a track
    // (the track group) and a send (the public group).
    const recipient = 'ports-send@ports.test';
    const second = await call('POST', '/contacts', 'POST /contacts', { body: { email: recipient } });
    expect(second.status).toBe(201);
    let release!: () => void;
    gate = new Promise((resolve) => {
      release = resolve;
    });
    await call('DELETE', `/contacts/${id}`, 'DELETE /contacts/{id}');
    await call('DELETE', `/contacts/${second.body.id}`, 'DELETE /contacts/{id}');
    await call('POST', '/v1/track', 'POST /v1/track', { key: rt.publicKey, body: { email, event: 'back' } });
    const resent = await call('POST', '/v1/send', 'POST /v1/send', {
      body: { to: recipient, from: `news@${rt.senderDomain}`, subject: 'Back', body: '<p>Back</p>' },
    });
    expect(resent.body.data.emails[0].status).toBe('sent');
    release();
    gate = undefined;
    await rt.drain();

    // Every route of the manifest was called; nothing failed inside a function.
    const everyRoute = [
      ...manifest.routeGroups.flatMap((g) => g.routes.map(routeKey)),
      ...(manifest.directUploads ?? []).map(routeKey),
    ];
    expect(everyRoute.filter((r) => !routesSeen.has(r))).toEqual([]);
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    expect(rt.queue.deadLetters()).toEqual([]);

    const undeclared: string[] = [];
    const unused: string[] = [];
    for (const f of functions) {
      const seen = used.get(label(f.kind, f.name))!;
      for (const use of seen) if (!f.uses.includes(use)) undeclared.push(`${label(f.kind, f.name)}: ${use}`);
      for (const use of f.uses)
        if (!seen.has(use) && !NOT_OBSERVABLE.has(use)) unused.push(`${label(f.kind, f.name)}: ${use}`);
    }
    expect(undeclared, 'used without being declared').toEqual([]);
    expect(unused, 'declared, but no step of the scenario needed it').toEqual([]);
  }, 60_000);
});
