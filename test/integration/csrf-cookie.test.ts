/**
 * A request signed in with the session cookie that changes something must carry X-Requested-With
 * (shared/http/stack.ts, CSRF_HEADER): a cross-site form cannot set a header, and a cross-site
 * script cannot send one without a CORS preflight, which does not allow it. Without it: 403
 * `CSRF_HEADER_MISSING`, and nothing changes. Reads, and requests with a key, need no header.
 */
import { describe, expect, it } from 'vitest';
import { uniqueEmail } from './helpers/contacts';
import { type Json, useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

async function signedIn() {
  const res = await rt.api('POST', '/auth/signup', {
    key: null,
    body: { email: uniqueEmail('csrf'), password: 'correct horse battery' },
  });
  expect(res.status, res.text).toBe(201);
  const cookie = /sesame_session=[^;]*/.exec(res.headers['set-cookie'] ?? '')![0];
  return { cookie, projectId: res.body.project.id as string, secretKey: res.body.keys.secretKey as string };
}

/** Cookie headers as a cross-site form would send them: the cookie, and no X-Requested-With. */
const bare = (cookie: string, extra: Record<string, string> = {}) => ({
  key: null,
  headers: { cookie, 'x-requested-with': '', ...extra },
});

const refused = (res: { status: number; body: Json }) => {
  expect(res.status).toBe(403);
  expect(res.body).toMatchObject({ success: false, error: { code: 'CSRF_HEADER_MISSING', statusCode: 403 } });
};

describe('a mutating request signed in with the cookie', () => {
  it('is refused on a user route without X-Requested-With, and nothing changes; with it, it goes through', async () => {
    const u = await signedIn();
    const list = async () =>
      ((await rt.api('GET', '/users/@me/projects', bare(u.cookie))).body as Json[]).length;
    const before = await list();
    refused(await rt.api('POST', '/users/@me/projects', { ...bare(u.cookie), body: { name: 'Forged' } }));
    expect(await list()).toBe(before);
    const made = await rt.api('POST', '/users/@me/projects', {
      key: null,
      headers: { cookie: u.cookie, 'x-requested-with': 'XMLHttpRequest' },
      body: { name: 'Mine' },
    });
    expect(made.status, made.text).toBe(201);
    expect(await list()).toBe(before + 1);
  });

  it('is refused on a project route (cookie and X-Project-Id) for POST, PATCH and DELETE; GET needs no header', async () => {
    const u = await signedIn();
    const asProject = (extra: Record<string, string> = {}) =>
      bare(u.cookie, { 'x-project-id': u.projectId, ...extra });
    const email = uniqueEmail('forged');
    refused(await rt.api('POST', '/contacts', { ...asProject(), body: { email } }));
    const lookup = async () =>
      (await rt.api('POST', '/contacts/lookup', { key: u.secretKey, body: { emails: [email] } })).body.found;
    expect(await lookup()).toEqual([]);
    const made = await rt.api('POST', '/contacts', {
      ...asProject({ 'x-requested-with': 'fetch' }),
      body: { email, data: { plan: 'free' } },
    });
    expect(made.status, made.text).toBeLessThan(300);
    const id = made.body.id ?? made.body.data?.id;
    refused(await rt.api('PATCH', `/contacts/${id}`, { ...asProject(), body: { data: { plan: 'pro' } } }));
    refused(await rt.api('DELETE', `/contacts/${id}`, asProject()));
    const read = await rt.api('GET', `/contacts/${id}`, asProject());
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).toContain('"plan":"free"');
  });

  it('a request with a key needs no header, with or without a cookie beside it', async () => {
    const u = await signedIn();
    const withKey = await rt.api('POST', '/contacts', {
      key: u.secretKey,
      headers: { 'x-requested-with': '' },
      body: { email: uniqueEmail('keyed') },
    });
    expect(withKey.status, withKey.text).toBeLessThan(300);
    const both = await rt.api('POST', '/contacts', {
      key: u.secretKey,
      headers: { cookie: u.cookie, 'x-requested-with': '' },
      body: { email: uniqueEmail('both') },
    });
    expect(both.status, both.text).toBeLessThan(300);
  });

  it('the CORS preflight allows no X-Requested-With from another origin, so no cross-site script can send it', async () => {
    const res = await fetch(`${rt.url}/contacts`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://elsewhere.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-requested-with',
      },
    });
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
    expect(allowed).not.toContain('x-requested-with');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
