import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { quietLogger } from '../../shared/adapters/local/log';
import { getDomainByName } from '../../shared/domains/repository';
import { UndeclaredPortError } from '../../shared/http/ports';
import {
  fastTimings,
  type LocalRuntime,
  type StartLocalOptions,
  startLocal,
} from '../../shared/local/runtime';
import { manifest } from '../../shared/manifest';
import type { Deps } from '../../shared/ports';
import { findApiKey, generateKey } from '../../shared/projects/repository';
import { callApi, useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

describe('local runtime with the real handlers', () => {
  it('answers GET /config without a key: exactly the fields decisions.md names, true to the runtime', async () => {
    const res = await rt.api('GET', '/config', { key: null });
    expect(res.status).toBe(200);
    // No OAuth, signup on (the local runtime's default), no Stripe key, images stored and served by the runtime,
    // no SMTP relay, the package's version.
    expect(res.body).toEqual({
      oauthProviders: [],
      signupEnabled: true,
      billing: { enabled: false },
      storage: { enabled: true },
      smtp: { enabled: false },
      version: JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version,
    });
  });

  it('answers an unknown route with the 404 JSON envelope', async () => {
    const res = await rt.api('GET', '/no/such/route');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND', statusCode: 404 } });
  });

  it('seeds a project whose secret key works, a public key that is refused there, and a verified domain', async () => {
    expect(rt.secretKey).toMatch(/^sk_/);
    expect(rt.publicKey).toMatch(/^pk_/);
    expect((await rt.api('GET', '/contacts')).status).toBe(200);
    expect((await rt.api('GET', '/contacts', { key: rt.publicKey })).status).toBe(401);
    expect((await rt.api('GET', '/contacts', { key: null })).status).toBe(401);
    expect(await findApiKey(rt.deps, rt.publicKey)).toEqual({ projectId: rt.projectId, kind: 'public' });
    const domain = await getDomainByName(rt.deps, rt.projectId, rt.senderDomain);
    expect(domain).toMatchObject({ domain: 'example.com', status: 'VERIFIED', verified: true });
  });

  it('serves the mail sink under /_local', async () => {
    const raw = new TextEncoder().encode(
      'From: a@example.com\r\nTo: b@example.org\r\nSubject: Hi\r\n\r\nHello\r\n',
    );
    const { messageId } = await rt.deps.mailer.sendRaw({ from: 'a@example.com', to: ['b@example.org'], raw });
    const res = await rt.api('GET', '/_local/emails', { key: null });
    expect(res.status).toBe(200);
    expect(res.body[0]).toMatchObject({
      id: messageId,
      subject: 'Hi',
      to: ['b@example.org'],
      from: 'a@example.com',
    });
    expect((await rt.mails({ to: 'B@example.org' })).map((m) => m.id)).toContain(messageId);
    const source = await rt.api('GET', `/_local/emails/${messageId}/raw`, { key: null });
    expect(source.headers['content-type']).toBe('message/rfc822');
    expect(source.text).toContain('Subject: Hi');
    expect((await rt.api('GET', '/_local/queues', { key: null })).body.queues).toHaveProperty('jobs');
  });

  it('refuses a request body over 10 MB with 413', async () => {
    const res = await rt.api('POST', '/contacts', {
      raw: new Uint8Array(10 * 1024 * 1024 + 1),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
  });

  it('runs queue workers from the manifest (drain waits for them)', async () => {
    await rt.deps.queue.send('jobs', {
      type: 'field.strip',
      projectId: rt.projectId,
      path: 'data.nothing',
    });
    await rt.drain();
    expect(rt.queue.stats().jobs).toMatchObject({ pending: 0, inFlight: 0, deadLetters: 0 });
  });
});

describe('local runtime restarts and overrides', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sesame-local-'));
  const running: LocalRuntime[] = [];
  const start = async (options: StartLocalOptions = {}) => {
    const runtime = await startLocal({ dataDir, logger: quietLogger, timings: fastTimings, ...options });
    running.push(runtime);
    return runtime;
  };
  const stop = async (runtime: LocalRuntime) => {
    await runtime.stop();
    running.splice(running.indexOf(runtime), 1);
  };
  afterAll(async () => {
    for (const r of running) await r.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps the seeded project, keys, data and pending messages across a restart', async () => {
    const first = await start({
      timings: { ...fastTimings, stopGraceMs: 0 },
      handlers: { queues: { jobs: () => async () => new Promise(() => {}) } },
    });
    const seed = JSON.parse(readFileSync(join(dataDir, 'seed.json'), 'utf8'));
    expect(seed).toEqual({
      projectId: first.projectId,
      secretKey: first.secretKey,
      publicKey: first.publicKey,
    });
    expect(statSync(join(dataDir, 'seed.json')).mode & 0o777).toBe(0o600);
    const created = await callApi(first, 'POST', '/contacts', { body: { email: 'keep@example.org' } });
    expect([200, 201]).toContain(created.status);
    // A message whose worker never finishes is still stored when the process stops.
    await first.deps.queue.send('jobs', {
      type: 'field.strip',
      projectId: first.projectId,
      path: 'data.x',
    });
    await vi.waitFor(() => expect(first.queue.stats().jobs!.inFlight).toBe(1));
    await expect(start()).rejects.toThrow(/in use/);
    await first.stop();
    running.length = 0;

    const seen: SQSEvent[] = [];
    const second = await start({
      handlers: {
        queues: {
          jobs: () => async (event: SQSEvent) => {
            seen.push(event);
          },
        },
      },
    });
    expect([second.projectId, second.secretKey, second.publicKey]).toEqual([
      first.projectId,
      first.secretKey,
      first.publicKey,
    ]);
    const list = await callApi(second, 'GET', '/contacts');
    expect(list.body.data.map((c: { email: string }) => c.email)).toContain('keep@example.org');
    await second.queue.drain();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.Records[0]!.attributes.ApproximateReceiveCount).toBe('2');
    await stop(second);
  });

  it('uses keys given in the environment and retires the ones they replace', async () => {
    const before = JSON.parse(readFileSync(join(dataDir, 'seed.json'), 'utf8'));
    const secretKey = generateKey('secret');
    const runtime = await start({
      env: { SESAME_SECRET_KEY: secretKey, SESAME_SENDER_DOMAIN: 'Mail.Acme.io' },
    });
    expect(runtime.secretKey).toBe(secretKey);
    expect(runtime.projectId).toBe(before.projectId);
    expect(runtime.publicKey).toBe(before.publicKey);
    expect(runtime.senderDomain).toBe('mail.acme.io');
    expect((await callApi(runtime, 'GET', '/contacts')).status).toBe(200);
    expect((await callApi(runtime, 'GET', '/contacts', { key: before.secretKey })).status).toBe(401);
    await stop(runtime);
    await expect(start({ env: { SESAME_SECRET_KEY: 'pk_wrong_kind' } })).rejects.toThrow(
      /must start with sk_/,
    );
  });

  it('answers DNS from the zone file when one is given', async () => {
    const zone = join(dataDir, 'zone.json');
    writeFileSync(zone, JSON.stringify({ 'acme.io': { MX: ['10 mx.acme.io'] } }));
    const runtime = await start({ dnsFile: zone, dataDir: undefined });
    expect(await runtime.deps.dns.resolve('ACME.io.', 'MX')).toEqual(['10 mx.acme.io']);
    expect(await runtime.deps.dns.resolve('example.com', 'A')).toEqual([]);
    await stop(runtime);
  });

  it('fails fast naming a handler module that is missing, unless told to start without it', async () => {
    const broken = {
      ...manifest,
      routeGroups: [
        ...manifest.routeGroups,
        { name: 'ghost', handler: 'functions/http/ghost/index.ts', routes: [] },
      ],
    };
    await expect(start({ manifest: broken, dataDir: undefined })).rejects.toThrow(
      /functions\/http\/ghost\/index.ts/,
    );
    const runtime = await start({ manifest: broken, dataDir: undefined, allowMissingHandlers: true });
    expect((await callApi(runtime, 'GET', '/config', { key: null })).status).toBe(200);
    await stop(runtime);
  });

  it("hands every handler factory only the ports its manifest entry declares, an override's too", async () => {
    const given: Partial<Record<string, Deps>> = {};
    const capture = (name: string) => (deps: Deps) => {
      given[name] = deps;
      return async () => undefined;
    };
    const runtime = await start({
      dataDir: undefined,
      handlers: {
        queues: { jobs: capture('jobs') },
        schedules: { 'domain-check': capture('domain-check') },
      },
    });
    const jobs = given.jobs!;
    // Declared: the very same ports.
    expect(jobs.queue).toBe(runtime.deps.queue);
    expect(jobs.blobs).toBe(runtime.deps.blobs);
    expect(jobs.store).toBe(runtime.deps.store);
    expect(jobs.mailer).toBe(runtime.deps.mailer);
    // Not declared by the jobs queue: refused, naming the declaration.
    expect(() => jobs.dns.resolve('example.org', 'MX')).toThrow(
      /queue function jobs called deps\.dns\.resolve but does not declare 'dns'/,
    );
    const check = given['domain-check']!;
    expect(() => check.queue.send('jobs', { type: 'field.strip' })).toThrow(UndeclaredPortError);
    expect(check.dns).toBe(runtime.deps.dns);
    await stop(runtime);
  });
});
