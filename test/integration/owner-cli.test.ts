/**
 * The first owner of a deployment (shared/accounts/owner.ts, `npm run sesame -- owner create` in
 * bin/admin.ts): the user and project it makes work through HTTP as a signup's do (login, the
 * project listed with role OWNER, the secret key on project routes); a rerun for the same email
 * adds a project and no user; refused input writes nothing; and the command itself, run as a
 * child process with `--local`, writes where the local runtime then reads.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createOwner, OwnerInputError } from '../../shared/accounts/owner';
import { findUserByEmail } from '../../shared/accounts/repository';
import { quietLogger } from '../../shared/adapters/local/log';
import { fastTimings, startLocal } from '../../shared/local/runtime';
import type { Store } from '../../shared/store/store';
import type { ApiClient } from './helpers/api';
import { uniqueEmail } from './helpers/contacts';
import { callApi, useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

/** The `sesame_session=<jwt>` pair of a response's Set-Cookie, ready for a Cookie header. */
function sessionOf(res: { headers: Record<string, string> }): string {
  const pair = /sesame_session=[^;]*/.exec(res.headers['set-cookie'] ?? '')?.[0];
  if (!pair) throw new Error(`No session cookie in ${JSON.stringify(res.headers)}`);
  return pair;
}

/** Logs in and answers the session cookie. */
async function login(client: ApiClient, email: string, password: string): Promise<string> {
  const res = await client.api('POST', '/auth/login', { key: null, body: { email, password } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return sessionOf(res);
}

const asUser = (cookie: string) => ({ key: null, headers: { cookie } });

describe('createOwner', () => {
  it('makes a verified user and a project they own whose keys work; a rerun adds a project, not a user', async () => {
    const email = uniqueEmail('owner');
    const first = await createOwner(rt.deps, { email, projectName: 'Launch' });
    expect(first).toEqual({
      user: { id: expect.any(String), email },
      created: true,
      password: expect.stringMatching(/^[A-Za-z0-9_-]{20,}$/),
      project: { id: expect.any(String), name: 'Launch' },
      keys: { secretKey: expect.stringMatching(/^sk_/), publicKey: expect.stringMatching(/^pk_/) },
    });

    const cookie = await login(rt, email, first.password!);
    const me = await rt.api('GET', '/users/@me', asUser(cookie));
    expect(me.body).toMatchObject({ id: first.user.id, email, emailVerified: true });
    const projects = await rt.api('GET', '/users/@me/projects', asUser(cookie));
    expect(projects.status).toBe(200);
    expect(projects.body).toEqual([
      { id: first.project.id, name: 'Launch', role: 'OWNER', disabled: false, createdAt: expect.any(String) },
    ]);
    const contacts = await rt.api('GET', '/contacts', { key: first.keys.secretKey });
    expect(contacts.status).toBe(200);
    expect(contacts.body.total).toBe(0);

    // Again, in another case and with a password: the same user, a second project, no password.
    const again = await createOwner(rt.deps, { email: email.toUpperCase(), password: 'not the one in use' });
    expect(again).toEqual({
      user: first.user,
      created: false,
      project: { id: expect.any(String), name: 'My project' },
      keys: { secretKey: expect.stringMatching(/^sk_/), publicKey: expect.stringMatching(/^pk_/) },
    });
    expect(again.project.id).not.toBe(first.project.id);
    expect((await findUserByEmail(rt.deps, email))?.id).toBe(first.user.id);
    // The account keeps its password.
    const relogged = await login(rt, email, first.password!);
    const both = await rt.api('GET', '/users/@me/projects', asUser(relogged));
    expect(both.body.map((p: { id: string; role: string }) => [p.id, p.role]).sort()).toEqual(
      [
        [first.project.id, 'OWNER'],
        [again.project.id, 'OWNER'],
      ].sort(),
    );
    expect((await rt.api('GET', '/contacts', { key: again.keys.secretKey })).status).toBe(200);
  });

  it('takes a given password and returns none', async () => {
    const email = uniqueEmail('owner');
    const password = 'a password of my own';
    const owner = await createOwner(rt.deps, { email, password });
    expect(owner.created).toBe(true);
    expect(owner).not.toHaveProperty('password');
    expect(owner.project.name).toBe('My project');
    await login(rt, email, password);
  });

  it('refuses what signup refuses, and an empty project name, before touching the table', async () => {
    // Any use of this store fails the test: refused input must not reach the table at all.
    const untouchable = new Proxy({} as Store, {
      get: (_, method) => () => {
        throw new Error(`the store was used (${String(method)})`);
      },
    });
    const deps = { ...rt.deps, store: untouchable };
    const email = uniqueEmail('owner');
    await expect(createOwner(deps, { email, password: 'short' })).rejects.toThrow(
      new OwnerInputError('password must be at least 10 characters'),
    );
    await expect(createOwner(deps, { email: 'not-an-email', password: 'long enough here' })).rejects.toThrow(
      new OwnerInputError('email must be an email address'),
    );
    await expect(createOwner(deps, { email, projectName: '   ' })).rejects.toThrow(
      new OwnerInputError('project name must not be empty'),
    );
    await expect(createOwner(rt.deps, { email, password: 'short' })).rejects.toThrow(OwnerInputError);
    expect(await findUserByEmail(rt.deps, email)).toBeUndefined();
  });
});

describe('npm run sesame -- owner create --local', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const dataDir = mkdtempSync(join(tmpdir(), 'sesame-owner-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  // As `npm run sesame` runs it (tsx), without npm's start-up; no table or data folder from the
  // environment the tests run in.
  const env = { ...process.env };
  delete env.TABLE_NAME;
  delete env.SESAME_DATA_DIR;
  const sesame = (...args: string[]) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args], { cwd: root, env });

  it('prints the keys and password it made in the data folder, which the local runtime then serves', async () => {
    const email = uniqueEmail('cli');
    const { stdout } = await sesame(
      'owner',
      'create',
      '--local',
      dataDir,
      '--email',
      email,
      '--project',
      'CLI',
    );
    const printed = (label: string) => new RegExp(`^ {2}${label} +(\\S+)$`, 'm').exec(stdout)?.[1];
    const secretKey = printed('Secret key');
    const password = printed('Password');
    expect(secretKey, stdout).toMatch(/^sk_/);
    expect(printed('Public key'), stdout).toMatch(/^pk_/);
    expect(password, stdout).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(stdout).toContain(email);

    const runtime = await startLocal({
      dataDir,
      logger: quietLogger,
      timings: fastTimings,
      recurringSchedules: false,
    });
    try {
      const client: ApiClient = { api: (method, path, options) => callApi(runtime, method, path, options) };
      expect((await client.api('GET', '/contacts', { key: secretKey! })).status).toBe(200);
      const projects = await client.api(
        'GET',
        '/users/@me/projects',
        asUser(await login(client, email, password!)),
      );
      expect(projects.body).toEqual([
        expect.objectContaining({ id: printed('Project id'), name: 'CLI', role: 'OWNER' }),
      ]);
    } finally {
      await runtime.stop();
    }
  });

  it('exits 1 with one line on bad input', async () => {
    const failed = await sesame(
      'owner',
      'create',
      '--local',
      dataDir,
      '--email',
      'x@example.org',
      '--password',
      'short',
    )
      .then(() => undefined)
      .catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toBe('');
    expect(failed?.stderr).toBe('sesame: password must be at least 10 characters\n');
  });
});
