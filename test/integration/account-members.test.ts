/**
 * A project's members and invitations through HTTP against the local runtime: the list, adding an
 * existing user, the roles matrix of adding, changing and removing (403 for too low a role, 404
 * for non-members and unknown members), the last OWNER kept even when owners demote or remove each
 * other at the same time, a removed member refused at once, and invitations: mailed from the
 * system sender, taken up by signup (also where signup is closed) or by a signed-in user, once,
 * for the invited address only, within 7 days.
 */
import { describe, expect, it } from 'vitest';
import { acceptInvitation, signupWithInvitation } from '../../shared/accounts/invitations';
import { createOwner } from '../../shared/accounts/owner';
import { putMembership } from '../../shared/accounts/repository';
import { createProject } from '../../shared/projects/repository';
import { keys } from '../../shared/table';
import { uniqueEmail } from './helpers/contacts';
import { crashingAt } from './helpers/faults';
import { type Json, type LocalTestRuntime, useLocalRuntime } from './helpers/local';
import { advanceClock } from './helpers/workflows';

const rt = useLocalRuntime();
const PASSWORD = 'correct horse battery';
const SYSTEM_FROM = 'sesame@sesame.localhost';

interface User {
  readonly email: string;
  readonly id: string;
  readonly cookie: string;
  /** Request options for this user's session (no key). */
  readonly as: { key: null; headers: { cookie: string } };
}

function sessionOf(res: { headers: Record<string, string> }): string {
  const pair = /sesame_session=[^;]*/.exec(res.headers['set-cookie'] ?? '')?.[0];
  if (!pair) throw new Error(`No session cookie in ${JSON.stringify(res.headers)}`);
  return pair;
}

const userOf = (email: string, id: string, cookie: string): User => ({
  email,
  id,
  cookie,
  as: { key: null, headers: { cookie } },
});

/** A new user with a first project of their own (`project`), on the open runtime. */
async function signup(tag = 'user'): Promise<User & { project: string }> {
  const email = uniqueEmail(tag);
  const res = await rt.api('POST', '/auth/signup', { key: null, body: { email, password: PASSWORD } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { ...userOf(email, res.body.user.id, sessionOf(res)), project: res.body.project.id };
}

async function login(on: LocalTestRuntime, email: string): Promise<User> {
  const res = await on.api('POST', '/auth/login', { key: null, body: { email, password: PASSWORD } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return userOf(email, res.body.user.id, sessionOf(res));
}

const members = (pid: string) => `/projects/${pid}/members`;
const member = (pid: string, uid: string) => `/projects/${pid}/members/${uid}`;

async function add(by: User, pid: string, who: User, role: string, on = rt) {
  return on.api('POST', members(pid), { ...by.as, body: { email: who.email, role } });
}

async function list(by: User, pid: string, on = rt): Promise<Json[]> {
  const res = await on.api('GET', members(pid), by.as);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const rolesIn = (rows: Json[]) => Object.fromEntries(rows.map((m) => [m.email, m.role]));

/** The stored owner counter of the project (shared/accounts/owners.ts). */
async function ownerCount(pid: string, on = rt): Promise<unknown> {
  return (await on.deps.store.get(keys.project(pid), { consistent: true }))?.owners;
}

/** The token of the latest invitation mailed to `to`. */
async function invitationToken(to: string, on = rt): Promise<string> {
  const mail = (await on.mails({ to })).filter((m) => /invited/.test(m.subject ?? '')).at(0);
  const token = /Token: (\S+)/.exec(mail?.text ?? '')?.[1];
  if (!token) throw new Error(`No invitation mailed to ${to}`);
  return token;
}

/** A project with an OWNER, and an ADMIN and a MEMBER added by the owner. */
async function team() {
  const owner = await signup('owner');
  const admin = await signup('admin');
  const plain = await signup('member');
  const pid = owner.project;
  expect((await add(owner, pid, admin, 'ADMIN')).status).toBe(201);
  expect((await add(owner, pid, plain, 'MEMBER')).status).toBe(201);
  return { pid, owner, admin, plain };
}

describe('listing and adding members', () => {
  it('adds an existing user at once (201) and lists members for any member, oldest first', async () => {
    const owner = await signup('owner');
    const other = await signup('other');
    const pid = owner.project;
    expect(await ownerCount(pid)).toBe(1);
    const added = await rt.api('POST', members(pid), {
      ...owner.as,
      body: { email: `  ${other.email.toUpperCase()} `, role: 'MEMBER' },
    });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({
      userId: other.id,
      email: other.email,
      role: 'MEMBER',
      createdAt: expect.any(String),
    });
    for (const by of [owner, other]) {
      const rows = await list(by, pid);
      expect(rows).toEqual([
        { userId: owner.id, email: owner.email, role: 'OWNER', createdAt: expect.any(String) },
        added.body,
      ]);
    }
    // The new member lists the project with their role; the security summary lists the same members.
    const mine = await rt.api('GET', '/users/@me/projects', other.as);
    expect(mine.body.find((p: Json) => p.id === pid)).toMatchObject({ role: 'MEMBER' });
    const security = await rt.api('GET', `/projects/${pid}/security`, other.as);
    expect(security.body.members).toEqual(expect.arrayContaining(await list(owner, pid)));
    expect(security.body.members).toHaveLength(2);
    // Adding again is a conflict, changing nothing.
    const again = await add(owner, pid, other, 'ADMIN');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ALREADY_MEMBER');
    expect(rolesIn(await list(owner, pid))[other.email]).toBe('MEMBER');
  });

  it('a MEMBER session works on the project routes (X-Project-Id) but may not manage members', async () => {
    const { pid, owner, plain } = await team();
    const asMember = { key: null, headers: { cookie: plain.cookie, 'x-project-id': pid } };
    const contact = await rt.api('POST', '/contacts', { ...asMember, body: { email: uniqueEmail('c') } });
    expect(contact.status).toBe(201);
    const contacts = await rt.api('GET', '/contacts', asMember);
    expect(contacts.status).toBe(200);
    expect(contacts.body.total).toBe(1);
    const stranger = await signup('stranger');
    const refused = await add(plain, pid, stranger, 'MEMBER');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'FORBIDDEN', statusCode: 403 } });
    expect(
      (await rt.api('PATCH', member(pid, owner.id), { ...plain.as, body: { role: 'MEMBER' } })).status,
    ).toBe(403);
    expect((await rt.api('DELETE', member(pid, owner.id), plain.as)).status).toBe(403);
    expect(await list(owner, pid)).toHaveLength(3);
  });

  it('only an OWNER makes owners: an ADMIN adds members and admins, not owners', async () => {
    const { pid, owner, admin } = await team();
    const [a, b, c] = [await signup('a'), await signup('b'), await signup('c')];
    expect((await add(admin, pid, a, 'MEMBER')).status).toBe(201);
    expect((await add(admin, pid, b, 'ADMIN')).status).toBe(201);
    const refused = await add(admin, pid, c, 'OWNER');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    // An ADMIN may not invite an OWNER either (the address has no account): no mail goes out.
    const nobody = uniqueEmail('nobody');
    expect(
      (await rt.api('POST', members(pid), { ...admin.as, body: { email: nobody, role: 'OWNER' } })).status,
    ).toBe(403);
    expect(await rt.mails({ to: nobody })).toHaveLength(0);
    expect((await add(owner, pid, c, 'OWNER')).status).toBe(201);
    expect(await ownerCount(pid)).toBe(2);
    expect(rolesIn(await list(owner, pid))).toMatchObject({
      [a.email]: 'MEMBER',
      [b.email]: 'ADMIN',
      [c.email]: 'OWNER',
    });
  });

  it('answers 404 to non-members and for unknown projects and members, changing nothing', async () => {
    const { pid, owner, plain } = await team();
    const outsider = await signup('outsider');
    for (const [method, path, body] of [
      ['GET', members(pid), undefined],
      ['POST', members(pid), { email: uniqueEmail('x'), role: 'MEMBER' }],
      ['PATCH', member(pid, plain.id), { role: 'ADMIN' }],
      ['DELETE', member(pid, plain.id), undefined],
      ['GET', members('no-such-project'), undefined],
    ] as const) {
      const res = await rt.api(method, path, { ...outsider.as, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    for (const method of ['PATCH', 'DELETE'] as const) {
      const res = await rt.api(method, member(pid, 'no-such-user'), { ...owner.as, body: { role: 'ADMIN' } });
      expect(res.status, method).toBe(404);
    }
    // Without a session: 401.
    expect((await rt.api('GET', members(pid), { key: null })).status).toBe(401);
    expect(rolesIn(await list(owner, pid))[plain.email]).toBe('MEMBER');
  });

  it('refuses bad input with a validation error in the envelope, changing nothing', async () => {
    const { pid, owner, plain } = await team();
    const before = await list(owner, pid);
    for (const body of [
      {},
      { email: 'not-an-email', role: 'MEMBER' },
      { email: uniqueEmail('x') },
      { email: uniqueEmail('x'), role: 'KING' },
      { email: uniqueEmail('x'), role: 'owner' },
    ]) {
      const res = await rt.api('POST', members(pid), { ...owner.as, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toMatchObject({
        success: false,
        error: { code: 'VALIDATION_ERROR', statusCode: 422, errors: expect.any(Array) },
      });
    }
    for (const body of [{}, { role: 'KING' }, { role: null }]) {
      const res = await rt.api('PATCH', member(pid, plain.id), { ...owner.as, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.errors[0].field).toBe('role');
    }
    const badId = await rt.api('PATCH', member(pid, 'bad%20id'), { ...owner.as, body: { role: 'ADMIN' } });
    expect(badId.status).toBe(422);
    expect(await list(owner, pid)).toEqual(before);
  });
});

describe('changing roles', () => {
  it('follows the roles matrix and keeps the member`s own project list in step', async () => {
    const { pid, owner, admin, plain } = await team();
    const patch = (by: User, who: User, role: string) =>
      rt.api('PATCH', member(pid, who.id), { ...by.as, body: { role } });
    // An ADMIN changes non-owners, never to or from OWNER.
    const promoted = await patch(admin, plain, 'ADMIN');
    expect(promoted.status).toBe(200);
    expect(promoted.body).toEqual({
      userId: plain.id,
      email: plain.email,
      role: 'ADMIN',
      createdAt: expect.any(String),
    });
    expect((await patch(admin, plain, 'OWNER')).status).toBe(403);
    expect((await patch(admin, owner, 'ADMIN')).status).toBe(403);
    expect((await patch(admin, plain, 'MEMBER')).status).toBe(200);
    // The same role again is a no-op answer.
    expect((await patch(admin, plain, 'MEMBER')).body.role).toBe('MEMBER');
    // An OWNER makes owners; the new owner's list says so.
    expect((await patch(owner, admin, 'OWNER')).status).toBe(200);
    expect(await ownerCount(pid)).toBe(2);
    const theirs = await rt.api('GET', '/users/@me/projects', admin.as);
    expect(theirs.body.find((p: Json) => p.id === pid).role).toBe('OWNER');
    // Two owners: one may step down, and then the other is the last.
    expect((await patch(owner, owner, 'ADMIN')).status).toBe(200);
    const last = await patch(admin, admin, 'MEMBER');
    expect(last.status).toBe(409);
    expect(last.body.error).toMatchObject({
      code: 'LAST_OWNER',
      statusCode: 409,
      suggestion: expect.any(String),
    });
    expect(await ownerCount(pid)).toBe(1);
    expect(rolesIn(await list(admin, pid))).toEqual({
      [owner.email]: 'ADMIN',
      [admin.email]: 'OWNER',
      [plain.email]: 'MEMBER',
    });
    // The former owner is an ADMIN now: they may no longer make owners.
    expect((await patch(owner, plain, 'OWNER')).status).toBe(403);
  });
});

describe('removing members and leaving', () => {
  it('follows the roles matrix; the last OWNER can neither leave nor be removed', async () => {
    const { pid, owner, admin, plain } = await team();
    const other = await signup('other');
    expect((await add(owner, pid, other, 'MEMBER')).status).toBe(201);
    const remove = (by: User, who: User) => rt.api('DELETE', member(pid, who.id), by.as);
    expect((await remove(plain, other)).status).toBe(403);
    expect((await remove(admin, owner)).status).toBe(403);
    const removed = await remove(admin, other);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true });
    expect((await remove(admin, other)).status).toBe(404);
    // Anyone may leave.
    expect((await remove(plain, plain)).status).toBe(200);
    const lastLeaving = await remove(owner, owner);
    expect(lastLeaving.status).toBe(409);
    expect(lastLeaving.body.error.code).toBe('LAST_OWNER');
    // With a second owner, the first may leave; then the second is the last.
    expect(
      (await rt.api('PATCH', member(pid, admin.id), { ...owner.as, body: { role: 'OWNER' } })).status,
    ).toBe(200);
    expect((await remove(admin, owner)).status).toBe(200);
    expect((await remove(admin, admin)).status).toBe(409);
    expect(await list(admin, pid)).toEqual([
      { userId: admin.id, email: admin.email, role: 'OWNER', createdAt: expect.any(String) },
    ]);
    expect(await ownerCount(pid)).toBe(1);
  });

  it('a removed member`s session gets 404 on the project at once, and the project leaves their list', async () => {
    const { pid, owner, plain } = await team();
    const asMember = { key: null, headers: { cookie: plain.cookie, 'x-project-id': pid } };
    expect((await rt.api('GET', '/contacts', asMember)).status).toBe(200);
    // A second instance has just admitted the member too (as a warm Lambda would have).
    const another = await rt.startAnotherInstance();
    try {
      expect((await another.api('GET', '/contacts', asMember)).status).toBe(200);
      expect((await rt.api('DELETE', member(pid, plain.id), owner.as)).status).toBe(200);
      for (const api of [rt.api.bind(rt), another.api.bind(another)]) {
        const res = await api('GET', '/contacts', asMember);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
        expect((await api('GET', members(pid), plain.as)).status).toBe(404);
      }
    } finally {
      await another.stop();
    }
    const mine = await rt.api('GET', '/users/@me/projects', plain.as);
    expect(mine.body.map((p: Json) => p.id)).not.toContain(pid);
    expect(await rt.deps.store.get(keys.userProject(plain.id, pid), { consistent: true })).toBeUndefined();
  });
});

describe('the owner count', () => {
  it('every way of making a project counts its creator; a project without a count gets one from its members', async () => {
    const u = await signup('counted');
    expect(await ownerCount(u.project)).toBe(1);
    const made = await rt.api('POST', '/users/@me/projects', { ...u.as, body: { name: 'Second' } });
    expect(await ownerCount(made.body.project.id)).toBe(1);
    // A project as stored before the count existed: two OWNER memberships, no `owners`.
    const other = await signup('other');
    const { project } = await createProject(rt.deps, { name: 'Old' });
    const now = new Date().toISOString();
    for (const who of [u, other])
      await putMembership(
        rt.deps,
        { projectId: project.id, userId: who.id, role: 'OWNER', createdAt: now },
        who.email,
      );
    expect(await ownerCount(project.id)).toBeUndefined();
    expect(
      (await rt.api('PATCH', member(project.id, other.id), { ...u.as, body: { role: 'ADMIN' } })).status,
    ).toBe(200);
    expect(await ownerCount(project.id)).toBe(1);
    expect((await rt.api('DELETE', member(project.id, u.id), u.as)).status).toBe(409);
  });
});

describe('the last OWNER when requests race', () => {
  it('two owners demoting each other at once: exactly one succeeds, one owner remains', async () => {
    for (let round = 0; round < 4; round++) {
      const a = await signup('race-a');
      const b = await signup('race-b');
      const pid = a.project;
      expect((await add(a, pid, b, 'OWNER')).status).toBe(201);
      const [ab, ba] = await Promise.all([
        rt.api('PATCH', member(pid, b.id), { ...a.as, body: { role: 'ADMIN' } }),
        rt.api('PATCH', member(pid, a.id), { ...b.as, body: { role: 'ADMIN' } }),
      ]);
      const statuses = [ab.status, ba.status].sort();
      expect(statuses[0], JSON.stringify([ab.body, ba.body])).toBe(200);
      // The loser either lost the count (409 LAST_OWNER) or was demoted before it was judged (403).
      expect([403, 409]).toContain(statuses[1]);
      const roles = Object.values(rolesIn(await list(a, pid)));
      expect(roles.filter((r) => r === 'OWNER')).toHaveLength(1);
      expect(await ownerCount(pid)).toBe(1);
    }
  });

  it('owners removing each other and leaving at once never leave the project without an owner', async () => {
    for (let round = 0; round < 3; round++) {
      const [a, b, c] = [await signup('race-a'), await signup('race-b'), await signup('race-c')];
      const pid = a.project;
      expect((await add(a, pid, b, 'OWNER')).status).toBe(201);
      expect((await add(a, pid, c, 'OWNER')).status).toBe(201);
      const results = await Promise.all([
        rt.api('DELETE', member(pid, b.id), a.as),
        rt.api('DELETE', member(pid, c.id), b.as),
        rt.api('DELETE', member(pid, a.id), c.as),
        rt.api('DELETE', member(pid, a.id), a.as),
        rt.api('PATCH', member(pid, b.id), { ...c.as, body: { role: 'MEMBER' } }),
      ]);
      for (const r of results) expect([200, 403, 404, 409], JSON.stringify(r.body)).toContain(r.status);
      const left = await rt.deps.store.query({
        partition: keys.projectPartition(pid),
        sort: { beginsWith: keys.memberPrefix },
        consistent: true,
      });
      const owners = left.items.filter((m) => m.role === 'OWNER');
      expect(owners.length).toBeGreaterThanOrEqual(1);
      expect(await ownerCount(pid)).toBe(owners.length);
    }
  });
});

describe('invitations', () => {
  it('mails a single-use invitation from the system sender; signup with it joins the project', async () => {
    const owner = await signup('owner');
    const pid = owner.project;
    const email = uniqueEmail('invitee');
    const before = Date.now();
    const res = await rt.api('POST', members(pid), {
      ...owner.as,
      body: { email: email.toUpperCase(), role: 'ADMIN' },
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ invited: email, role: 'ADMIN', expiresAt: expect.any(String) });
    const expiresIn = Date.parse(res.body.expiresAt) - before;
    expect(Math.abs(expiresIn - 7 * 24 * 3600 * 1000)).toBeLessThan(60_000);
    // The mail, from SYSTEM_FROM to the invitee alone.
    const mails = await rt.mails({ to: email });
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({
      from: SYSTEM_FROM,
      to: [email],
      subject: 'You are invited to a Sesame project',
    });
    expect(mails[0]!.text).toContain(owner.email);
    const token = await invitationToken(email);
    // Pending invitations are not members; the stored item holds the token's hash, never the token.
    expect((await list(owner, pid)).map((m) => m.email)).toEqual([owner.email]);
    const stored = await rt.deps.store.get(keys.invitation(pid, email), { consistent: true });
    expect(stored).toMatchObject({
      role: 'ADMIN',
      email,
      tokenHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(JSON.stringify(stored)).not.toContain(token.split('.')[2]);

    const joined = await rt.api('POST', '/auth/signup', {
      key: null,
      body: { email, password: PASSWORD, invitation: token },
    });
    expect(joined.status, JSON.stringify(joined.body)).toBe(201);
    // The invited user joins the project, has no project of their own, and is verified.
    expect(joined.body).toEqual({
      user: { id: expect.any(String), email, emailVerified: true },
      project: { id: pid, name: 'My project', role: 'ADMIN' },
    });
    const invitee = userOf(email, joined.body.user.id, sessionOf(joined));
    const mine = await rt.api('GET', '/users/@me/projects', invitee.as);
    expect(mine.body).toEqual([expect.objectContaining({ id: pid, role: 'ADMIN' })]);
    expect(rolesIn(await list(invitee, pid))).toEqual({ [owner.email]: 'OWNER', [email]: 'ADMIN' });
    // No verification mail: the invitation reached the address.
    expect((await rt.mails({ to: email })).filter((m) => /Verify/.test(m.subject ?? ''))).toHaveLength(0);
    // The token works once.
    const accept = await rt.api('POST', '/auth/accept-invitation', { ...invitee.as, body: { token } });
    expect(accept.status).toBe(400);
    expect(accept.body.error.code).toBe('INVALID_INVITATION');
    expect(await rt.deps.store.get(keys.invitation(pid, email), { consistent: true })).toBeUndefined();
  });

  it('a signed-in user accepts an invitation sent before they had an account, once', async () => {
    const owner = await signup('owner');
    const pid = owner.project;
    const email = uniqueEmail('later');
    expect(
      (await rt.api('POST', members(pid), { ...owner.as, body: { email, role: 'MEMBER' } })).status,
    ).toBe(202);
    const token = await invitationToken(email);
    // They sign up on their own (signup is open here) and get their own project; then accept.
    const own = await rt.api('POST', '/auth/signup', { key: null, body: { email, password: PASSWORD } });
    expect(own.status).toBe(201);
    const user = userOf(email, own.body.user.id, sessionOf(own));
    // Someone else holding the token is refused, and nothing is used up.
    const thief = await signup('thief');
    const stolen = await rt.api('POST', '/auth/accept-invitation', { ...thief.as, body: { token } });
    expect(stolen.status).toBe(403);
    expect(stolen.body.error.code).toBe('INVITATION_EMAIL_MISMATCH');
    expect((await rt.api('GET', members(pid), thief.as)).status).toBe(404);
    // Without a session: 401.
    expect((await rt.api('POST', '/auth/accept-invitation', { key: null, body: { token } })).status).toBe(
      401,
    );
    // Two accepts at once: one joins, the other finds the invitation used.
    const [first, second] = await Promise.all([
      rt.api('POST', '/auth/accept-invitation', { ...user.as, body: { token } }),
      rt.api('POST', '/auth/accept-invitation', { ...user.as, body: { token } }),
    ]);
    // Each either joined (200, the same answer) or found the invitation used by the other (400).
    for (const res of [first, second]) {
      if (res.status === 200)
        expect(res.body).toEqual({ project: { id: pid, name: 'My project', role: 'MEMBER' } });
      else expect(res.body.error.code).toBe('INVALID_INVITATION');
    }
    expect([first, second].filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    expect((await list(user, pid)).filter((m) => m.email === email)).toHaveLength(1);
    expect(await rt.deps.store.get(keys.invitation(pid, email), { consistent: true })).toBeUndefined();
    const again = await rt.api('POST', '/auth/accept-invitation', { ...user.as, body: { token } });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('INVALID_INVITATION');
    expect(rolesIn(await list(user, pid))[email]).toBe('MEMBER');
    expect((await rt.api('GET', '/users/@me', user.as)).body.emailVerified).toBe(true);
    // Bad input.
    for (const body of [{}, { token: '' }, { token: 42 }]) {
      const res = await rt.api('POST', '/auth/accept-invitation', { ...user.as, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('inviting an address again replaces the pending invitation: the older token stops working', async () => {
    const owner = await signup('owner');
    const pid = owner.project;
    const email = uniqueEmail('twice');
    await rt.api('POST', members(pid), { ...owner.as, body: { email, role: 'MEMBER' } });
    const older = await invitationToken(email);
    await rt.api('POST', members(pid), { ...owner.as, body: { email, role: 'ADMIN' } });
    const newer = await invitationToken(email);
    expect(newer).not.toBe(older);
    const refused = await rt.api('POST', '/auth/signup', {
      key: null,
      body: { email, password: PASSWORD, invitation: older },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('INVALID_INVITATION');
    const joined = await rt.api('POST', '/auth/signup', {
      key: null,
      body: { email, password: PASSWORD, invitation: newer },
    });
    expect(joined.status).toBe(201);
    expect(joined.body.project.role).toBe('ADMIN');
  });

  it('an OWNER invitation counts the new owner, so the inviter may then leave', async () => {
    const owner = await signup('owner');
    const pid = owner.project;
    const email = uniqueEmail('heir');
    await rt.api('POST', members(pid), { ...owner.as, body: { email, role: 'OWNER' } });
    const joined = await rt.api('POST', '/auth/signup', {
      key: null,
      body: { email, password: PASSWORD, invitation: await invitationToken(email) },
    });
    expect(joined.body.project.role).toBe('OWNER');
    expect(await ownerCount(pid)).toBe(2);
    expect((await rt.api('DELETE', member(pid, owner.id), owner.as)).status).toBe(200);
    const heir = userOf(email, joined.body.user.id, sessionOf(joined));
    expect((await rt.api('DELETE', member(pid, heir.id), heir.as)).status).toBe(409);
  });

  it('the invitation mail carries the project name in its body only: no header injection', async () => {
    const owner = await signup('owner');
    const pid = owner.project;
    const evil = 'Evil\r\nBcc: victim@example.org\r\nSubject: pwned';
    const renamed = await rt.api('PATCH', `/users/@me/projects/${pid}`, {
      ...owner.as,
      body: { name: evil },
    });
    expect(renamed.status).toBe(200);
    const email = uniqueEmail('target');
    expect(
      (await rt.api('POST', members(pid), { ...owner.as, body: { email, role: 'MEMBER' } })).status,
    ).toBe(202);
    const [mail] = await rt.mails({ to: email });
    expect(mail!.to).toEqual([email]);
    expect(mail!.subject).toBe('You are invited to a Sesame project');
    expect(mail!.headers.bcc).toBeUndefined();
    expect(await rt.mails({ to: 'victim@example.org' })).toHaveLength(0);
  });
});

describe('invitations where signup is closed', () => {
  const closed = useLocalRuntime({ env: { SIGNUP_ENABLED: 'false' } });

  async function ownerOfClosed() {
    const email = uniqueEmail('first');
    const made = await createOwner(closed.deps, { email, password: PASSWORD, projectName: 'Closed' });
    expect(await ownerCount(made.project.id, closed)).toBe(1);
    return { owner: await login(closed, email), pid: made.project.id };
  }

  it('signup needs a valid invitation for the same address; forged and mismatched ones create nothing', async () => {
    const { owner, pid } = await ownerOfClosed();
    const email = uniqueEmail('invited');
    const res = await closed.api('POST', members(pid), { ...owner.as, body: { email, role: 'MEMBER' } });
    expect(res.status).toBe(202);
    const token = await invitationToken(email, closed);

    const plain = await closed.api('POST', '/auth/signup', {
      key: null,
      body: { email, password: PASSWORD },
    });
    expect(plain.status).toBe(403);
    expect(plain.body.error.code).toBe('SIGNUP_DISABLED');

    const other = uniqueEmail('other');
    const mismatch = await closed.api('POST', '/auth/signup', {
      key: null,
      body: { email: other, password: PASSWORD, invitation: token },
    });
    expect(mismatch.status).toBe(403);
    expect(mismatch.body.error.code).toBe('INVITATION_EMAIL_MISMATCH');
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forgedClaims = Buffer.from(JSON.stringify({ ...claims, dat: { email: other } })).toString(
      'base64url',
    );
    for (const forged of [`${h}.${forgedClaims}.${s}`, `${h}.${p}.${s!.slice(0, -4)}AAAA`, 'junk']) {
      const r = await closed.api('POST', '/auth/signup', {
        key: null,
        body: { email: other, password: PASSWORD, invitation: forged },
      });
      expect(r.status, forged).toBe(400);
      expect(r.body.error.code).toBe('INVALID_INVITATION');
    }
    const short = await closed.api('POST', '/auth/signup', {
      key: null,
      body: { email, password: 'short', invitation: token },
    });
    expect(short.status).toBe(422);
    for (const address of [other, email])
      expect(
        (await closed.api('POST', '/auth/login', { key: null, body: { email: address, password: PASSWORD } }))
          .status,
      ).toBe(401);
    expect((await list(owner, pid, closed)).map((m) => m.email)).toEqual([owner.email]);

    // The invitation is still good for its address.
    const joined = await closed.api('POST', '/auth/signup', {
      key: null,
      body: { email, password: PASSWORD, invitation: token },
    });
    expect(joined.status, JSON.stringify(joined.body)).toBe(201);
    expect(joined.body.project).toEqual({ id: pid, name: 'Closed', role: 'MEMBER' });
    const again = await closed.api('POST', '/auth/signup', {
      key: null,
      body: { email, password: PASSWORD, invitation: token },
    });
    expect(again.status).toBe(400);
  });

  it('an invitation expires after 7 days', async () => {
    const { owner, pid } = await ownerOfClosed();
    const email = uniqueEmail('slow');
    await closed.api('POST', members(pid), { ...owner.as, body: { email, role: 'MEMBER' } });
    const token = await invitationToken(email, closed);
    await advanceClock(closed, 7 * 24 * 3600 + 60);
    const res = await closed.api('POST', '/auth/signup', {
      key: null,
      body: { email, password: PASSWORD, invitation: token },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_INVITATION');
    expect(
      (await closed.api('POST', '/auth/login', { key: null, body: { email, password: PASSWORD } })).status,
    ).toBe(401);
  });
});

describe('invitations where the deployment sends no account mail', () => {
  const mute = useLocalRuntime({ env: { SYSTEM_FROM: undefined } });

  it('refuses to invite an address without an account (409), storing nothing; existing users are still added', async () => {
    const email = uniqueEmail('mute-owner');
    const made = await createOwner(mute.deps, { email, password: PASSWORD, projectName: 'Mute' });
    const owner = await login(mute, email);
    const pid = made.project.id;
    const invitee = uniqueEmail('nobody');

    const res = await mute.api('POST', members(pid), {
      ...owner.as,
      body: { email: invitee, role: 'MEMBER' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'INVITATIONS_NOT_MAILED' });
    expect(res.body.error.suggestion).toMatch(/system sender/);
    expect(await mute.deps.store.get(keys.invitation(pid, invitee))).toBeUndefined();
    expect(await mute.mails({ to: invitee })).toHaveLength(0);

    // A user who has an account is added as on any deployment.
    const other = uniqueEmail('has-account');
    await createOwner(mute.deps, { email: other, password: PASSWORD, projectName: 'Theirs' });
    const added = await mute.api('POST', members(pid), {
      ...owner.as,
      body: { email: other, role: 'MEMBER' },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
  });
});

describe('an invitation taken up by a process that stops halfway is never lost', () => {
  const invited = async (role = 'MEMBER') => {
    const owner = await signup('owner');
    const email = uniqueEmail('halfway');
    expect(
      (await rt.api('POST', members(owner.project), { ...owner.as, body: { email, role } })).status,
    ).toBe(202);
    return { owner, pid: owner.project, email, token: await invitationToken(email) };
  };
  const invitationItem = (pid: string, email: string) =>
    rt.deps.store.get(keys.invitation(pid, email), { consistent: true });
  const usingUp = (call: { op: string; key?: { sk: string } }) =>
    call.op === 'delete' && (call.key?.sk ?? '').startsWith('INVITE#');

  it('an accept that stopped after joining: the retry answers as the first would, then the token is used', async () => {
    const { pid, email, token } = await invited('ADMIN');
    const own = await rt.api('POST', '/auth/signup', { key: null, body: { email, password: PASSWORD } });
    const user = userOf(email, own.body.user.id, sessionOf(own));
    await expect(acceptInvitation(crashingAt(rt.deps, usingUp), user.id, token)).rejects.toThrow(
      'simulated crash',
    );
    expect(rolesIn(await list(user, pid))[email]).toBe('ADMIN');
    expect(await invitationItem(pid, email)).toBeDefined();
    const retry = await rt.api('POST', '/auth/accept-invitation', { ...user.as, body: { token } });
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.body).toEqual({ project: { id: pid, name: 'My project', role: 'ADMIN' } });
    expect(await invitationItem(pid, email)).toBeUndefined();
    expect((await rt.api('POST', '/auth/accept-invitation', { ...user.as, body: { token } })).status).toBe(
      400,
    );
  });

  it('removing a member also removes an invitation such a stop left live: it cannot bring them back', async () => {
    const { owner, pid, email, token } = await invited();
    const own = await rt.api('POST', '/auth/signup', { key: null, body: { email, password: PASSWORD } });
    const user = userOf(email, own.body.user.id, sessionOf(own));
    await expect(acceptInvitation(crashingAt(rt.deps, usingUp), user.id, token)).rejects.toThrow(
      'simulated crash',
    );
    expect((await rt.api('DELETE', member(pid, user.id), owner.as)).status).toBe(200);
    expect(await invitationItem(pid, email)).toBeUndefined();
    const back = await rt.api('POST', '/auth/accept-invitation', { ...user.as, body: { token } });
    expect(back.status).toBe(400);
    expect(back.body.error.code).toBe('INVALID_INVITATION');
    expect((await rt.api('GET', members(pid), user.as)).status).toBe(404);
  });

  it.each([
    [
      'after the account, before the membership',
      (call: { op: string; key?: { sk: string } }) =>
        call.op === 'put' && (call.key?.sk ?? '').startsWith('MEMBER#'),
    ],
    ['after the membership, before the token is used', usingUp],
  ])(
    'a signup with an invitation that stopped %s: the account accepts it after logging in',
    async (_, at) => {
      const { pid, email, token } = await invited();
      await expect(
        signupWithInvitation(crashingAt(rt.deps, at), { email, password: PASSWORD, invitation: token }),
      ).rejects.toThrow('simulated crash');
      expect(await invitationItem(pid, email)).toBeDefined();
      const user = await login(rt, email);
      const accept = await rt.api('POST', '/auth/accept-invitation', { ...user.as, body: { token } });
      expect(accept.status, JSON.stringify(accept.body)).toBe(200);
      expect(rolesIn(await list(user, pid))[email]).toBe('MEMBER');
      expect(await invitationItem(pid, email)).toBeUndefined();
    },
  );
});
