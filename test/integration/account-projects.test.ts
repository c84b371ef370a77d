/**
 * A signed-in user's projects through HTTP: create, rename, key rotation (the old keys refused on
 * the next request on every instance), the security summary and the setup state; roles and
 * non-members.
 */
import { describe, expect, it } from 'vitest';
import { putMembership } from '../../shared/accounts/repository';
import { seedVerifiedDomain } from '../../shared/domains/repository';
import { keys as tableKeys } from '../../shared/table';
import { uniqueEmail } from './helpers/contacts';
import { settleEventCounts } from './helpers/events';
import { type Json, useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();
const PASSWORD = 'correct horse battery';

async function signup() {
  const email = uniqueEmail('owner');
  const res = await rt.api('POST', '/auth/signup', { key: null, body: { email, password: PASSWORD } });
  expect(res.status).toBe(201);
  const cookie = /sesame_session=[^;]*/.exec(res.headers['set-cookie'] ?? '')![0];
  return { email, body: res.body as Json, cookie, as: { key: null, headers: { cookie } } };
}

describe('projects of a signed-in user', () => {
  it('creates and renames a project; validation errors change nothing', async () => {
    const u = await signup();
    const made = await rt.api('POST', '/users/@me/projects', { ...u.as, body: { name: 'Second' } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      project: { id: expect.any(String), name: 'Second', role: 'OWNER', disabled: false },
      keys: { secretKey: expect.stringMatching(/^sk_/), publicKey: expect.stringMatching(/^pk_/) },
    });
    expect((await rt.api('GET', '/contacts', { key: made.body.keys.secretKey })).status).toBe(200);
    const id = made.body.project.id;
    const renamed = await rt.api('PATCH', `/users/@me/projects/${id}`, {
      ...u.as,
      body: { name: ' Renamed ' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id, name: 'Renamed', role: 'OWNER' });
    const empty = await rt.api('PATCH', `/users/@me/projects/${id}`, { ...u.as, body: { name: '' } });
    expect(empty.status).toBe(422);
    expect((await rt.api('POST', '/users/@me/projects', { ...u.as, body: {} })).status).toBe(422);
    const list = await rt.api('GET', '/users/@me/projects', u.as);
    expect(list.body.map((p: Json) => p.name).sort()).toEqual(['My project', 'Renamed']);
  });

  it('answers 404 for a project the user is not a member of, and 403 for a MEMBER managing it', async () => {
    const owner = await signup();
    const other = await signup();
    const pid = owner.body.project.id;
    for (const [method, path] of [
      ['PATCH', `/users/@me/projects/${pid}`],
      ['POST', `/users/@me/projects/${pid}/regenerate-keys`],
      ['GET', `/users/@me/projects/${pid}/security`],
      ['GET', `/projects/${pid}/security`],
      ['GET', `/projects/${pid}/setup-state`],
    ] as const) {
      const res = await rt.api(method, path, {
        ...other.as,
        ...(method === 'GET' ? {} : { body: { name: 'x' } }),
      });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    // The membership is written directly (account-members.test.ts adds members through the API).
    await putMembership(
      rt.deps,
      { projectId: pid, userId: other.body.user.id, role: 'MEMBER', createdAt: new Date().toISOString() },
      other.email,
    );
    const rename = await rt.api('PATCH', `/users/@me/projects/${pid}`, { ...other.as, body: { name: 'x' } });
    expect(rename.status).toBe(403);
    expect(rename.body.error.code).toBe('FORBIDDEN');
    expect((await rt.api('POST', `/users/@me/projects/${pid}/regenerate-keys`, other.as)).status).toBe(403);
    // A member may read the security summary, and it lists both members.
    const security = await rt.api('GET', `/projects/${pid}/security`, other.as);
    expect(security.status).toBe(200);
    expect(security.body.members.map((m: Json) => m.role).sort()).toEqual(['MEMBER', 'OWNER']);
    expect(security.body.members.map((m: Json) => m.email).sort()).toEqual([owner.email, other.email].sort());
    // The owner's key still works: nothing was rotated.
    expect((await rt.api('GET', '/contacts', { key: owner.body.keys.secretKey })).status).toBe(200);
  });
});

describe('regenerate-keys', () => {
  it('refuses the old keys on the next request on every instance, and shows the new prefixes', async () => {
    const u = await signup();
    const pid = u.body.project.id;
    const old = u.body.keys;
    const another = await rt.startAnotherInstance();
    try {
      // Both instances have just answered with the old keys (a warm cache, if there were one).
      for (const api of [rt.api.bind(rt), another.api.bind(another)]) {
        expect((await api('GET', '/contacts', { key: old.secretKey })).status).toBe(200);
        expect(
          (
            await api('POST', '/v1/track', {
              key: old.publicKey,
              body: { email: uniqueEmail('k'), event: 'e' },
            })
          ).status,
        ).toBe(200);
      }
      const before = await rt.api('GET', `/users/@me/projects/${pid}/security`, u.as);
      const rotated = await rt.api('POST', `/users/@me/projects/${pid}/regenerate-keys`, u.as);
      expect(rotated.status).toBe(200);
      expect(rotated.body).toEqual({
        secretKey: expect.stringMatching(/^sk_/),
        publicKey: expect.stringMatching(/^pk_/),
      });
      for (const api of [rt.api.bind(rt), another.api.bind(another)]) {
        expect((await api('GET', '/contacts', { key: old.secretKey })).status).toBe(401);
        expect(
          (
            await api('POST', '/v1/track', {
              key: old.publicKey,
              body: { email: uniqueEmail('k'), event: 'e' },
            })
          ).status,
        ).toBe(401);
        expect((await api('GET', '/contacts', { key: rotated.body.secretKey })).status).toBe(200);
      }
      const after = await rt.api('GET', `/users/@me/projects/${pid}/security`, u.as);
      expect(after.body.keys).toEqual({
        secretKeyPrefix: rotated.body.secretKey.slice(0, 7),
        publicKeyPrefix: rotated.body.publicKey.slice(0, 7),
        rotatedAt: expect.any(String),
      });
      // The prefixes are the keys' first characters, nothing appended.
      expect(rotated.body.secretKey.startsWith(after.body.keys.secretKeyPrefix)).toBe(true);
      expect(rotated.body.publicKey.startsWith(after.body.keys.publicKeyPrefix)).toBe(true);
      expect(after.body.keys.secretKeyPrefix).not.toBe(before.body.keys.secretKeyPrefix);
      expect(after.body.lastLoginAt).toEqual(expect.any(String));
    } finally {
      await another.stop();
    }
  });
});

describe('setup-state', () => {
  it('follows what the project has done', async () => {
    const u = await signup();
    const pid = u.body.project.id;
    const key = u.body.keys.secretKey;
    const state = async () => (await rt.api('GET', `/projects/${pid}/setup-state`, u.as)).body;
    expect(await state()).toEqual({
      hasVerifiedDomain: false,
      hasTemplate: false,
      hasContact: false,
      hasSentEmail: false,
      hasTrackedEvent: false,
    });
    await rt.api('POST', '/contacts', { key, body: { email: uniqueEmail('c') } });
    // A verified sender domain (as the domain check leaves one), which the template's sender needs.
    const domain = `${pid.slice(0, 8)}.setup.example.org`;
    await seedVerifiedDomain(rt.deps, pid, domain);
    const template = await rt.api('POST', '/templates', {
      key,
      body: { name: 'T', subject: 'S', body: '<p>B</p>', from: `a@${domain}`, type: 'TRANSACTIONAL' },
    });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    await rt.api('POST', '/v1/track', {
      key: u.body.keys.publicKey,
      body: { email: uniqueEmail('t'), event: 'go' },
    });
    await rt.drain();
    // Tracked event names are registered by the event counters' tally, a few seconds behind.
    await settleEventCounts(rt, pid);
    const after = await state();
    expect(after).toEqual({
      hasVerifiedDomain: true,
      hasTemplate: true,
      hasContact: true,
      hasSentEmail: false,
      hasTrackedEvent: true,
    });
    const sent = await rt.api('POST', '/v1/send', {
      key,
      body: { to: uniqueEmail('r'), from: `a@${domain}`, subject: 'Hi', body: '<p>Hi</p>' },
    });
    expect(sent.status).toBe(200);
    await rt.drain();
    expect((await state()).hasSentEmail).toBe(true);
  });
});

describe('key prefixes', () => {
  it('shows prefixes stored with "..." after them (projects keyed before) as the keys\' first characters', async () => {
    const u = await signup();
    const made = await rt.api('POST', '/users/@me/projects', { ...u.as, body: { name: 'Older' } });
    expect(made.status).toBe(201);
    const id: string = made.body.project.id;
    const project = await rt.deps.store.get(tableKeys.project(id), { consistent: true });
    const stored = project!.keys as Record<string, string>;
    await rt.deps.store.write({
      update: tableKeys.project(id),
      expression: 'SET #keys.#s = :s, #keys.#p = :p',
      names: { '#keys': 'keys', '#s': 'secretKeyPrefix', '#p': 'publicKeyPrefix' },
      values: { ':s': `${stored.secretKeyPrefix}...`, ':p': `${stored.publicKeyPrefix}...` },
    });
    const security = await rt.api('GET', `/users/@me/projects/${id}/security`, u.as);
    expect(security.status, security.text).toBe(200);
    expect(security.body.keys.secretKeyPrefix).toBe(made.body.keys.secretKey.slice(0, 7));
    expect(security.body.keys.publicKeyPrefix).toBe(made.body.keys.publicKey.slice(0, 7));
  });
});
