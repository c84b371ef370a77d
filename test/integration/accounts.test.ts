/**
 * Users and sessions through HTTP against the local runtime (signup is on there): signup with a
 * first project and its keys, login with the same answer for an unknown email and a wrong
 * password, throttling, the session cookie's flags, logout revoking the session server-side, and
 * the mailed single-use tokens of email verification and password reset.
 */
import { describe, expect, it } from 'vitest';
import { LOGIN_FAILURE_LIMIT, LOGIN_WINDOW_SECONDS } from '../../shared/accounts/service';
import { keys } from '../../shared/table';
import { uniqueEmail } from './helpers/contacts';
import { type Json, useLocalRuntime } from './helpers/local';
import { advanceClock } from './helpers/workflows';

const rt = useLocalRuntime();
const PASSWORD = 'correct horse battery';

/** The `sesame_session=<jwt>` pair of a response's Set-Cookie, ready for a Cookie header. */
function sessionOf(res: { headers: Record<string, string> }): string {
  const pair = /sesame_session=[^;]*/.exec(res.headers['set-cookie'] ?? '')?.[0];
  if (!pair) throw new Error(`No session cookie in ${JSON.stringify(res.headers)}`);
  return pair;
}

const asUser = (cookie: string) => ({ key: null, headers: { cookie } });
const open = (body: unknown) => ({ key: null, body });

async function signup(email = uniqueEmail('user'), password = PASSWORD) {
  const res = await rt.api('POST', '/auth/signup', open({ email, password }));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { email, res, cookie: sessionOf(res) };
}

/** The token in the latest account mail of `subject` to `to`. */
async function mailedToken(to: string, subject: RegExp): Promise<string> {
  const mail = (await rt.mails({ to })).filter((m) => subject.test(m.subject ?? '')).at(-1);
  const token = /Token: (\S+)/.exec(mail?.text ?? '')?.[1];
  if (!token) throw new Error(`No token mailed to ${to}`);
  return token;
}

describe('signup', () => {
  it('creates the user, a first project they own with working keys, and a session', async () => {
    const { email, res, cookie } = await signup();
    expect(res.body).toMatchObject({
      user: { id: expect.any(String), email, emailVerified: false },
      project: { id: expect.any(String), name: 'My project' },
      keys: { secretKey: expect.stringMatching(/^sk_/), publicKey: expect.stringMatching(/^pk_/) },
    });
    expect(res.headers['set-cookie']).toMatch(/HttpOnly; Secure; SameSite=Lax; Path=\/; Max-Age=604800/);
    // The project's secret key works on the project's routes.
    const contacts = await rt.api('GET', '/contacts', { key: res.body.keys.secretKey });
    expect(contacts.status).toBe(200);
    expect(contacts.body.total).toBe(0);
    // The session shows the user and their project.
    const me = await rt.api('GET', '/users/@me', asUser(cookie));
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      id: res.body.user.id,
      email,
      emailVerified: false,
      createdAt: expect.any(String),
    });
    const projects = await rt.api('GET', '/users/@me/projects', asUser(cookie));
    expect(projects.body).toEqual([
      {
        id: res.body.project.id,
        name: 'My project',
        role: 'OWNER',
        disabled: false,
        createdAt: expect.any(String),
      },
    ]);
  });

  it('refuses a taken email (any case), a short password and a malformed email, creating nothing', async () => {
    const { email } = await signup();
    const again = await rt.api(
      'POST',
      '/auth/signup',
      open({ email: email.toUpperCase(), password: PASSWORD }),
    );
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('EMAIL_ALREADY_REGISTERED');
    const short = await rt.api(
      'POST',
      '/auth/signup',
      open({ email: uniqueEmail('short'), password: 'nine char' }),
    );
    expect(short.status).toBe(422);
    expect(short.body.error.errors[0].field).toBe('password');
    const bad = await rt.api('POST', '/auth/signup', open({ email: 'not-an-email', password: PASSWORD }));
    expect(bad.status).toBe(422);
    // The refused ones cannot log in.
    const login = await rt.api(
      'POST',
      '/auth/login',
      open({ email: 'not-an-email@x.org', password: PASSWORD }),
    );
    expect(login.status).toBe(401);
  });
});

describe('login', () => {
  it('answers the user and a new session; an unknown email and a wrong password get the same 401', async () => {
    const { email, res } = await signup();
    const ok = await rt.api('POST', '/auth/login', open({ email: email.toUpperCase(), password: PASSWORD }));
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ user: { id: res.body.user.id, email, emailVerified: false } });
    expect((await rt.api('GET', '/users/@me', asUser(sessionOf(ok)))).status).toBe(200);

    const wrong = await rt.api('POST', '/auth/login', open({ email, password: 'wrong password!' }));
    const unknown = await rt.api(
      'POST',
      '/auth/login',
      open({ email: uniqueEmail('nobody'), password: PASSWORD }),
    );
    for (const r of [wrong, unknown]) {
      expect(r.status).toBe(401);
      expect(r.body.error).toMatchObject({
        code: 'INVALID_CREDENTIALS',
        message: 'Invalid email or password',
      });
      expect(r.headers['set-cookie']).toBeUndefined();
    }
  });

  it('throttles an address after repeated failures, the right password included, until the window ends', async () => {
    const { email } = await signup();
    for (let i = 0; i < LOGIN_FAILURE_LIMIT; i++)
      expect(
        (await rt.api('POST', '/auth/login', open({ email, password: `wrong ${i} password` }))).status,
      ).toBe(401);
    const throttled = await rt.api('POST', '/auth/login', open({ email, password: PASSWORD }));
    expect(throttled.status).toBe(429);
    expect(throttled.body.error.code).toBe('TOO_MANY_LOGIN_ATTEMPTS');
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not affected.
    const other = await signup();
    expect(
      (await rt.api('POST', '/auth/login', open({ email: other.email, password: PASSWORD }))).status,
    ).toBe(200);
    await advanceClock(rt, LOGIN_WINDOW_SECONDS + 1);
    expect((await rt.api('POST', '/auth/login', open({ email, password: PASSWORD }))).status).toBe(200);
  });
});

describe('sessions', () => {
  it('logout clears the cookie and revokes the session on the server: the copied cookie is refused', async () => {
    const { cookie } = await signup();
    const second = await rt.api(
      'POST',
      '/auth/login',
      open({ email: (await rt.api('GET', '/users/@me', asUser(cookie))).body.email, password: PASSWORD }),
    );
    const out = await rt.api('GET', '/auth/logout', asUser(cookie));
    expect(out.status).toBe(200);
    expect(out.headers['set-cookie']).toMatch(
      /^sesame_session=; HttpOnly; Secure; SameSite=Lax; Path=\/; Max-Age=0/,
    );
    const after = await rt.api('GET', '/users/@me', asUser(cookie));
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('UNAUTHORIZED');
    // The other session of the same user still works.
    expect((await rt.api('GET', '/users/@me', asUser(sessionOf(second)))).status).toBe(200);
  });

  it('refuses no cookie, a forged or tampered JWT, and a session cookie used as an API key', async () => {
    const { cookie } = await signup();
    const jwt = cookie.split('=')[1]!;
    const [h, p] = jwt.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString()) as Json;
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${jwt.split('.')[2]}`;
    for (const options of [
      { key: null },
      asUser(`sesame_session=${forged}`),
      asUser('sesame_session=junk'),
    ]) {
      const res = await rt.api('GET', '/users/@me', options);
      expect(res.status).toBe(401);
    }
    // A session is not a key: the project routes still want the secret key.
    expect((await rt.api('GET', '/contacts', { key: jwt })).status).toBe(401);
  });

  it('a session expires after a week', async () => {
    const { cookie } = await signup();
    await advanceClock(rt, 7 * 24 * 3600 + 60);
    expect((await rt.api('GET', '/users/@me', asUser(cookie))).status).toBe(401);
  });
});

describe('a session on the project routes', () => {
  it('works with X-Project-Id for a member; another project is 404; no header is 400', async () => {
    const a = await signup();
    const b = await signup();
    const [pa, pb] = [a.res.body.project.id, b.res.body.project.id];
    const asMember = (projectId?: string) => ({
      key: null,
      headers: { cookie: a.cookie, 'x-project-id': projectId },
    });
    const created = await rt.api('POST', '/contacts', {
      ...asMember(pa),
      body: { email: uniqueEmail('by-session') },
    });
    expect(created.status).toBe(201);
    // The same project as its secret key sees it.
    const viaKey = await rt.api('GET', `/contacts/${created.body.id}`, { key: a.res.body.keys.secretKey });
    expect(viaKey.status).toBe(200);
    expect((await rt.api('GET', '/contacts', asMember(pa))).body.total).toBe(1);

    for (const other of [pb, '00000000-0000-4000-8000-000000000000']) {
      const res = await rt.api('GET', '/contacts', asMember(other));
      expect(res.status, other).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
      expect((await rt.api('GET', `/contacts/${created.body.id}`, asMember(other))).status).toBe(404);
    }
    // B's project was not touched.
    expect((await rt.api('GET', '/contacts', { key: b.res.body.keys.secretKey })).body.total).toBe(0);
    const noHeader = await rt.api('GET', '/contacts', asMember());
    expect(noHeader.status).toBe(400);
    expect(noHeader.body.error.message).toMatch(/X-Project-Id/);
  });

  it('a disabled project answers 403 PROJECT_DISABLED to its members too', async () => {
    const a = await signup();
    const pa = a.res.body.project.id;
    // No endpoint disables a project yet: the flag is set on the stored project, before any
    // request of this runtime has read (and cached) it.
    await rt.deps.store.write({
      update: keys.project(pa),
      expression: 'SET disabled = :t',
      values: { ':t': true },
    });
    const res = await rt.api('GET', '/contacts', {
      key: null,
      headers: { cookie: a.cookie, 'x-project-id': pa },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('PROJECT_DISABLED');
  });

  it('a key decides when both are sent; the public route refuses a session; logout ends it here too', async () => {
    const a = await signup();
    const pa = a.res.body.project.id;
    const both = await rt.api('GET', '/contacts', {
      key: 'sk_not_a_key',
      headers: { cookie: a.cookie, 'x-project-id': pa },
    });
    expect(both.status).toBe(401);
    const track = await rt.api('POST', '/v1/track', {
      key: null,
      headers: { cookie: a.cookie, 'x-project-id': pa },
      body: { email: uniqueEmail('t'), event: 'x' },
    });
    expect(track.status).toBe(401);
    await rt.api('GET', '/auth/logout', asUser(a.cookie));
    const after = await rt.api('GET', '/contacts', {
      key: null,
      headers: { cookie: a.cookie, 'x-project-id': pa },
    });
    expect(after.status).toBe(401);
  });
});

describe('email verification', () => {
  it('mails a single-use token from the system sender that verifies the address once', async () => {
    const { email, cookie } = await signup();
    const [mail] = await rt.mails({ to: email });
    expect(mail!.subject).toBe('Verify your email for Sesame');
    expect(mail!.from).toContain('sesame@sesame.localhost');
    const token = await mailedToken(email, /Verify/);
    const verified = await rt.api('POST', '/auth/verify-email', open({ token }));
    expect(verified.status).toBe(200);
    expect(verified.body.user).toMatchObject({ email, emailVerified: true });
    expect((await rt.api('GET', '/users/@me', asUser(cookie))).body.emailVerified).toBe(true);
    const again = await rt.api('POST', '/auth/verify-email', open({ token }));
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('INVALID_TOKEN');
    // Verified: asking again mails nothing, with the same answer as for an unknown address.
    const before = (await rt.mails({ to: email })).length;
    const asked = await rt.api('POST', '/auth/request-verification', open({ email }));
    const unknown = await rt.api(
      'POST',
      '/auth/request-verification',
      open({ email: uniqueEmail('nobody') }),
    );
    expect(asked.body).toEqual(unknown.body);
    expect((await rt.mails({ to: email })).length).toBe(before);
  });

  it('refuses an expired token and a token of another purpose', async () => {
    const { email } = await signup();
    const verifyToken = await mailedToken(email, /Verify/);
    await rt.api('POST', '/auth/request-password-reset', open({ email }));
    const resetToken = await mailedToken(email, /Reset/);
    expect((await rt.api('POST', '/auth/verify-email', open({ token: resetToken }))).status).toBe(400);
    await advanceClock(rt, 24 * 3600 + 60);
    expect((await rt.api('POST', '/auth/verify-email', open({ token: verifyToken }))).status).toBe(400);
  });
});

describe('password reset', () => {
  it('sets the new password once, ends every session, and answers alike for unknown addresses', async () => {
    const { email, cookie } = await signup();
    const asked = await rt.api('POST', '/auth/request-password-reset', open({ email }));
    const unknown = await rt.api(
      'POST',
      '/auth/request-password-reset',
      open({ email: uniqueEmail('nobody') }),
    );
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual(unknown.body);
    const token = await mailedToken(email, /Reset/);
    const short = await rt.api('POST', '/auth/reset-password', open({ token, password: 'short' }));
    expect(short.status).toBe(422);
    const reset = await rt.api(
      'POST',
      '/auth/reset-password',
      open({ token, password: 'a brand new password' }),
    );
    expect(reset.status).toBe(200);
    expect(
      (await rt.api('POST', '/auth/reset-password', open({ token, password: 'yet another one!' }))).status,
    ).toBe(400);
    expect((await rt.api('GET', '/users/@me', asUser(cookie))).status).toBe(401);
    expect((await rt.api('POST', '/auth/login', open({ email, password: PASSWORD }))).status).toBe(401);
    expect(
      (await rt.api('POST', '/auth/login', open({ email, password: 'a brand new password' }))).status,
    ).toBe(200);
  });
});

describe('configuration', () => {
  it('lists no OAuth providers; /config says signup is open locally', async () => {
    expect((await rt.api('GET', '/auth/oauth-config', { key: null })).body).toEqual({ providers: [] });
    expect((await rt.api('GET', '/config', { key: null })).body.signupEnabled).toBe(true);
  });
});

describe('with signup disabled', () => {
  const closed = useLocalRuntime({ env: { SIGNUP_ENABLED: 'false' } });
  it('signup is 403 SIGNUP_DISABLED and creates nothing', async () => {
    const email = uniqueEmail('closed');
    const res = await closed.api('POST', '/auth/signup', open({ email, password: PASSWORD }));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('SIGNUP_DISABLED');
    expect((await closed.api('POST', '/auth/login', open({ email, password: PASSWORD }))).status).toBe(401);
    expect(await closed.mails({ to: email })).toHaveLength(0);
  });
});
