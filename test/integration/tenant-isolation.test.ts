/**
 * Tenant isolation, generated from the manifest. Users A and B sign up through the API, each with
 * a project and its keys; A's project is filled with one of everything a route names
 * (helpers/isolation.ts). Then, for every route of the manifest (route groups and direct
 * uploads), the case table (helpers/isolation-cases.ts) says what B tries with A's ids:
 *
 * - a route naming one of A's things: B's secret key, B's session acting for B's project and B's
 *   session acting for A's project (B is no member of A) get 404, mutating methods too, and A's
 *   re-read of the thing answers exactly as before;
 * - a list, lookup or create in the caller's own project: B's answer holds none of A's ids,
 *   emails, names or values (except what B's request itself carried), and B's session acting for
 *   A's project gets 404;
 * - an exempt route (no project credentials: signed links and tokens, signed webhooks, signup and
 *   login, the feature flags), with its reason.
 *
 * A route with no case fails the test (classify it in the table), and so does a case with no
 * route. Last, every item of A's in the table (its project's, its user's, its keys and
 * memberships; the rate-limit windows apart) is the same as before B's requests, A's contacts got
 * no mail, and Stripe was not called. Stripe is on (the local stand-in), so that the billing
 * routes reach their membership check rather than answering 400 BILLING_DISABLED.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { manifest, routeKey } from '../../shared/manifest';
import type { ApiOptions, ApiResponse } from './helpers/api';
import { useBillingEnv } from './helpers/fake-stripe';
import { buildWorld, changedItems, tenantItems, type World } from './helpers/isolation';
import { type Creds, type IsolationCase, isolationCases, type Probe } from './helpers/isolation-cases';
import { useLocalRuntime } from './helpers/local';

const { stripe, env } = useBillingEnv('isolation');
const rt = useLocalRuntime({ env });

/** Every route of the manifest: its route groups' and its direct uploads'. */
const manifestRoutes = (): string[] => [
  ...manifest.routeGroups.flatMap((g) => g.routes.map(routeKey)),
  ...(manifest.directUploads ?? []).map(routeKey),
];

/** B's credentials for a route, each with the status answered whatever the route does (or none). */
function bCredentials(w: World, creds: Creds): { name: string; options: ApiOptions; status?: number }[] {
  const { a, b } = w;
  switch (creds) {
    case 'project':
      return [
        { name: "B's secret key", options: { key: b.secretKey } },
        { name: "B's session for B's project", options: b.sessionFor(b.projectId) },
        { name: "B's session for A's project", options: b.sessionFor(a.projectId), status: 404 },
      ];
    case 'key':
      return [
        { name: "B's secret key", options: { key: b.secretKey } },
        { name: "B's session for B's project", options: b.sessionFor(b.projectId) },
        // The import upload's authorizer can only deny, which API Gateway answers 403 (code
        // NOT_FOUND, as for a project that does not exist), never 404.
        { name: "B's session for A's project", options: b.sessionFor(a.projectId), status: 403 },
      ];
    case 'public':
      return [{ name: "B's public key", options: { key: b.publicKey } }];
    case 'user':
      return [{ name: "B's session", options: b.session }];
  }
}

/** A's own credentials for re-reading: the session on user routes, the secret key elsewhere. */
const aOptions = (w: World, path: string): ApiOptions =>
  /^\/(users|projects)\//.test(path) ? w.a.session : { key: w.a.secretKey };

const send = (method: string, probe: Probe, options: ApiOptions): Promise<ApiResponse> => {
  const headers = { ...(options.headers ?? {}), ...(probe.options?.headers ?? {}) };
  return rt.api(method, probe.path, { ...options, ...probe.options, headers });
};

/** A's markers in B's answer, apart from those B's request itself carried. */
function leaked(w: World, probe: Probe, res: ApiResponse): string[] {
  const asked = `${probe.path} ${JSON.stringify(probe.options?.body ?? '')} ${JSON.stringify(probe.options?.query ?? '')}`;
  const answer = `${res.text} ${JSON.stringify(res.headers)}`;
  return w.markers.filter((m) => !asked.includes(m) && answer.includes(m));
}

/** A's reads of `paths` (as status and body). */
async function reread(
  w: World,
  paths: readonly string[],
): Promise<{ path: string; status: number; body: unknown }[]> {
  const out: { path: string; status: number; body: unknown }[] = [];
  for (const path of paths) {
    const res = await rt.api('GET', path, aOptions(w, path));
    out.push({ path, status: res.status, body: res.status === 200 ? res.body : res.body?.error?.code });
  }
  return out;
}

/** Runs one route's case; answers what went wrong (nothing when isolated). */
async function runCase(w: World, route: string, c: IsolationCase): Promise<string[]> {
  if (c.kind === 'exempt') return [];
  const [method] = route.split(' ') as [string];
  const probe = c.probe(w);
  const problems: string[] = [];
  const before = c.kind === 'id' ? await reread(w, c.reread(w)) : [];
  const gone = before.filter((read) => read.status !== 200);
  if (gone.length > 0)
    return [
      `${route}: A's ${gone.map((g) => `GET ${g.path}`).join(', ')} answers ${gone[0]!.status} before B's requests`,
    ];
  for (const cred of bCredentials(w, c.creds)) {
    const res = await send(method, probe, cred.options);
    const want = cred.status ?? (c.kind === 'id' ? (c.status ?? 404) : undefined);
    const okStatus =
      want !== undefined
        ? res.status === want
        : c.kind === 'scoped' && c.status
          ? c.status.includes(res.status)
          : res.status >= 200 && res.status < 300;
    if (!okStatus)
      problems.push(
        `${route} with ${cred.name}: ${res.status} (expected ${want ?? (c.kind === 'scoped' && c.status ? c.status.join(' or ') : '2xx')}) ${res.text.slice(0, 200)}`,
      );
    const leaks = leaked(w, probe, res);
    if (leaks.length > 0)
      problems.push(`${route} with ${cred.name}: the answer holds A's ${leaks.join(', ')}`);
  }
  if (c.kind === 'id') {
    await rt.drain({ timeoutMs: 30_000 });
    const after = await reread(w, c.reread(w));
    if (!isDeepStrictEqual(before, after))
      problems.push(
        `${route}: A's re-read changed\nbefore ${JSON.stringify(before)}\nafter  ${JSON.stringify(after)}`,
      );
  }
  return problems;
}

describe('tenant isolation, from the manifest', () => {
  it('has a case for every route of the manifest, and a route for every case', () => {
    const routes = manifestRoutes();
    const missing = routes.filter((r) => !(r in isolationCases));
    expect(missing, 'routes without an isolation case: add one to helpers/isolation-cases.ts').toEqual([]);
    const unused = Object.keys(isolationCases).filter((k) => !routes.includes(k));
    expect(unused, 'isolation cases for routes the manifest does not have').toEqual([]);
    const exempt = Object.entries(isolationCases).filter(([, c]) => c.kind === 'exempt');
    for (const [route, c] of exempt)
      expect(c.kind === 'exempt' && c.reason.length, route).toBeGreaterThan(10);
    // Exemptions stay few: open routes with no project credentials only.
    const open = new Set(
      manifest.routeGroups.flatMap((g) => g.routes.filter((r) => r.auth === 'none').map(routeKey)),
    );
    expect(exempt.map(([route]) => route).filter((r) => !open.has(r))).toEqual([]);
  });

  it("gives B none of A's things on any route, and B's attempts change nothing of A's", async () => {
    const w = await buildWorld(rt);
    const itemsBefore = await tenantItems(rt, w.a);
    const mailsBefore = (await rt.mails()).length;
    const mailsToA = async () =>
      (
        await Promise.all([w.ra.contactEmail, w.ra.contact2Email, w.a.email].map((to) => rt.mails({ to })))
      ).flat().length;
    const mailsToABefore = await mailsToA();
    const stripeCalls = stripe.requests.length;

    const problems: string[] = [];
    // The reads first: B's writes below may name A's emails and names in B's own project (an
    // upsert of A's contact's address makes B a contact of that address), which B's lists
    // would then rightly show.
    const routes = manifestRoutes().sort(
      (x, y) => Number(!x.startsWith('GET ')) - Number(!y.startsWith('GET ')),
    );
    for (const route of routes) {
      const c = isolationCases[route];
      if (c) problems.push(...(await runCase(w, route, c)));
    }
    await rt.drain({ timeoutMs: 30_000 });
    expect(problems).toEqual([]);

    expect(changedItems(itemsBefore, await tenantItems(rt, w.a)), "A's items changed").toEqual([]);
    expect(itemsBefore.size).toBeGreaterThan(20);
    expect(await mailsToA(), 'no mail to A or its contacts').toBe(mailsToABefore);
    expect((await rt.mails()).length, "no mail at all (a test send of A's campaign would mail B)").toBe(
      mailsBefore,
    );
    expect(stripe.requests.length, 'Stripe was not called').toBe(stripeCalls);
  }, 120_000);
});
