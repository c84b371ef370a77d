/**
 * Sender domains through HTTP against the local runtime, with a zone file standing in for public
 * DNS and for the account's Route 53 zones, and the local SES identity stand-in.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { LocalEmailIdentities } from '../../shared/adapters/local/email-identities';
import { getDomainByName, seedVerifiedDomain } from '../../shared/domains/repository';
import { requireVerifiedSenderDomain } from '../../shared/domains/sender';
import { AppError } from '../../shared/errors';
import { createProject } from '../../shared/projects/repository';
import { keys } from '../../shared/table';
import { useZoneFile } from './helpers/dns';
import { type Json, useLocalRuntime } from './helpers/local';
import { recordingStore } from './helpers/table';

const zonePath = useZoneFile({
  // A hosted zone of the "account" (NS at its apex) that already has a strict DMARC policy.
  'zoned.io': { NS: ['ns-1.awsdns-01.org'] },
  '_dmarc.zoned.io': { TXT: 'v=DMARC1; p=reject;' },
});

/** The test's clock runs with the system's, shifted by `offsetMs`. */
const clock = { offsetMs: 0, now: () => new Date(Date.now() + clock.offsetMs) };

const rt = useLocalRuntime({ dnsFile: zonePath, clock });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Zone = Record<string, Record<string, string | string[]>>;
const readZone = () => JSON.parse(readFileSync(zonePath, 'utf8')) as Zone;
function editZone(change: (zone: Zone) => void) {
  const zone = readZone();
  change(zone);
  writeFileSync(zonePath, JSON.stringify(zone, null, 2));
}
/** Publishes records of a domain answer in the zone file, as a person would at their DNS host. */
function publish(records: Json[], purposes: string[]) {
  editZone((zone) => {
    for (const r of records.filter((r: Json) => purposes.includes(r.purpose))) {
      zone[r.name] = { ...zone[r.name], [r.type]: [...[zone[r.name]?.[r.type] ?? []].flat(), r.value] };
    }
  });
}
function unpublish(names: string[]) {
  editZone((zone) => {
    for (const name of names) delete zone[name];
  });
}

const identities = () => rt.deps.emailIdentities as LocalEmailIdentities;

async function add(domain: string, extra: Record<string, unknown> = {}, key?: string) {
  const res = await rt.api('POST', '/domains', { body: { domain, ...extra }, key });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Json;
}
const list = async (key?: string, projectId = rt.projectId) =>
  (await rt.api('GET', `/domains/project/${projectId}`, { key })).body as Json[];
const verify = (id: string, key?: string) => rt.api('GET', `/domains/${id}/verify`, { key });

async function senderRefusal(projectId: string, from: string): Promise<AppError | undefined> {
  try {
    await requireVerifiedSenderDomain(rt.deps, projectId, from);
    return undefined;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

async function otherProject(name = 'other') {
  const created = await createProject(rt.deps, { name });
  return { id: created.project.id, key: created.secretKey };
}

describe('POST /domains', () => {
  it('registers the domain with SES and answers the records to publish', async () => {
    const body = await add('acme-one.io');
    expect(body).toMatchObject({
      projectId: rt.projectId,
      domain: 'acme-one.io',
      status: 'PENDING',
      verified: false,
      lastCheckedAt: null,
      verifiedAt: null,
      dnsSetup: { requested: false, hostedZone: null, created: [], skipped: [] },
    });
    expect(body.id).toMatch(UUID);
    expect(body.createdAt).toMatch(ISO);
    expect(body.ownsIdentity).toBeUndefined();

    const dkim = body.records.filter((r: Json) => r.purpose === 'DKIM');
    expect(dkim).toHaveLength(3);
    for (const r of dkim) {
      const token = /^([a-z2-7]{32})\._domainkey\.acme-one\.io$/.exec(r.name)?.[1];
      expect(token, r.name).toBeDefined();
      expect(r).toEqual({
        type: 'CNAME',
        name: r.name,
        value: `${token}.dkim.amazonses.com`,
        purpose: 'DKIM',
        status: 'PENDING',
      });
    }
    expect(new Set(dkim.map((r: Json) => r.name)).size).toBe(3);
    expect(body.records.filter((r: Json) => r.purpose !== 'DKIM')).toEqual([
      {
        type: 'MX',
        name: 'mail.acme-one.io',
        value: '10 feedback-smtp.us-east-1.amazonses.com',
        purpose: 'MAIL_FROM_MX',
        status: 'PENDING',
      },
      {
        type: 'TXT',
        name: 'mail.acme-one.io',
        value: 'v=spf1 include:amazonses.com ~all',
        purpose: 'MAIL_FROM_SPF',
        status: 'PENDING',
      },
      {
        type: 'TXT',
        name: '_dmarc.acme-one.io',
        value: 'v=DMARC1; p=none;',
        purpose: 'DMARC',
        status: 'PENDING',
      },
    ]);

    // SES holds the identity with the custom MAIL FROM domain and the same tokens.
    const identity = await rt.deps.emailIdentities.getDomainIdentity('acme-one.io');
    expect(identity?.mailFromDomain).toBe('mail.acme-one.io');
    expect(identity?.dkimRecords.map((r) => r.name)).toEqual(dkim.map((r: Json) => r.name));
  });

  it('normalizes the name: case, spaces, a trailing dot, international names', async () => {
    expect((await add('  Acme-Two.IO. ')).domain).toBe('acme-two.io');
    expect((await add('bücher-shop.de')).domain).toBe('xn--bcher-shop-9db.de');
  });

  it('refuses what is not a domain name with 422, creating nothing', async () => {
    const before = await list();
    const bad: unknown[] = [
      'localhost',
      'a..b.io',
      '-lead.io',
      'trail-.io',
      'under_score.io',
      '192.168.0.1',
      'https://acme.io',
      'acme.io/path',
      'acme.io:25',
      'me@acme.io',
      'two words.io',
      `${'a'.repeat(64)}.io`,
      `${'abcdefghij.'.repeat(20)}io`,
      'acme.123',
      '',
      42,
      null,
    ];
    for (const domain of bad) {
      const res = await rt.api('POST', '/domains', { body: { domain } });
      expect(res.status, String(domain)).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.errors[0].field).toBe('domain');
    }
    const missing = await rt.api('POST', '/domains', { body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error.errors[0]).toMatchObject({ field: 'domain', code: 'invalid_type' });
    const format = await rt.api('POST', '/domains', { body: { domain: 'a..b.io' } });
    expect(format.body.error.errors[0]).toMatchObject({ code: 'invalid_string', received: 'a..b.io' });
    const flag = await rt.api('POST', '/domains', { body: { domain: 'flag.io', createRecords: 'yes' } });
    expect(flag.status).toBe(422);
    expect(flag.body.error.errors[0].field).toBe('createRecords');
    const malformed = await rt.api('POST', '/domains', {
      raw: '{"domain":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);

    expect(await list()).toEqual(before);
    expect(await rt.deps.emailIdentities.getDomainIdentity('flag.io')).toBeUndefined();
  });

  it('answers 409 when the project already has the domain, changing nothing', async () => {
    const first = await add('dup.io');
    for (const domain of ['dup.io', 'DUP.io.']) {
      const again = await rt.api('POST', '/domains', { body: { domain } });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('DOMAIN_ALREADY_ADDED');
    }
    const listed = (await list()).filter((d) => d.domain === 'dup.io');
    expect(listed).toHaveLength(1);
    expect(listed[0].id).toBe(first.id);
  });

  it('answers 409 when another project of the deployment has the domain', async () => {
    await add('taken.io');
    const other = await otherProject();
    const res = await rt.api('POST', '/domains', { body: { domain: 'taken.io' }, key: other.key });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('DOMAIN_IN_USE');
    expect(await list(other.key, other.id)).toEqual([]);
  });

  it("accepts the key's own projectId in the body and refuses another one with 404", async () => {
    const other = await otherProject();
    const wrong = await rt.api('POST', '/domains', { body: { domain: 'pid.io', projectId: other.id } });
    expect(wrong.status).toBe(404);
    expect(await getDomainByName(rt.deps, rt.projectId, 'pid.io')).toBeUndefined();
    expect((await add('pid.io', { projectId: rt.projectId })).domain).toBe('pid.io');
  });

  it('needs a secret key', async () => {
    for (const key of [null, rt.publicKey]) {
      const res = await rt.api('POST', '/domains', { body: { domain: 'key.io' }, key });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('INVALID_API_KEY');
    }
  });
});

describe('GET /domains/project/{projectId}', () => {
  it("lists the project's verified and pending domains, oldest first, without internal fields", async () => {
    const added = await add('listed.io');
    const domains = await list();
    expect(domains[0]).toMatchObject({ domain: rt.senderDomain, status: 'VERIFIED', verified: true });
    expect(domains.at(-1)).toMatchObject({ id: added.id, domain: 'listed.io', status: 'PENDING' });
    for (const d of domains) {
      expect(Object.keys(d).sort()).toEqual(
        [
          'createdAt',
          'domain',
          'id',
          'lastCheckedAt',
          'projectId',
          'records',
          'status',
          'verified',
          'verifiedAt',
        ].sort(),
      );
    }
    const times = domains.map((d) => d.createdAt);
    expect([...times].sort()).toEqual(times);
  });

  it("answers 404 for another project's id, and 422 for an id that is not a UUID", async () => {
    const other = await otherProject();
    const res = await rt.api('GET', `/domains/project/${other.id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect((await rt.api('GET', `/domains/project/${crypto.randomUUID()}`)).status).toBe(404);
    const bad = await rt.api('GET', '/domains/project/not-a-uuid');
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors[0]).toMatchObject({ field: 'projectId', code: 'invalid_string' });
    // And the other project sees none of ours.
    expect(await list(other.key, other.id)).toEqual([]);
  });
});

describe('GET /domains/{id}/verify', () => {
  it('goes PENDING -> VERIFIED as the records appear in DNS, and the sender rule follows', async () => {
    const domain = await add('flow.io');
    const pending = await verify(domain.id);
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({
      id: domain.id,
      status: 'PENDING',
      verified: false,
      verifiedAt: null,
    });
    expect(pending.body.lastCheckedAt).toMatch(ISO);
    expect(pending.body.records.every((r: Json) => r.status === 'PENDING')).toBe(true);
    expect((await senderRefusal(rt.projectId, 'hello@flow.io'))?.extra.details).toMatchObject({
      reason: 'DOMAIN_NOT_VERIFIED',
    });

    publish(domain.records, ['DKIM']);
    const verified = await verify(domain.id);
    expect(verified.body).toMatchObject({ status: 'VERIFIED', verified: true });
    expect(verified.body.verifiedAt).toMatch(ISO);
    const statusOf = (body: Json) =>
      Object.fromEntries(body.records.map((r: Json) => [r.name + r.type, r.status]));
    expect(verified.body.records.map((r: Json) => `${r.purpose}:${r.status}`)).toEqual([
      'DKIM:VERIFIED',
      'DKIM:VERIFIED',
      'DKIM:VERIFIED',
      'MAIL_FROM_MX:PENDING',
      'MAIL_FROM_SPF:PENDING',
      'DMARC:PENDING',
    ]);
    expect(await senderRefusal(rt.projectId, 'hello@flow.io')).toBeUndefined();

    publish(domain.records, ['MAIL_FROM_MX', 'MAIL_FROM_SPF', 'DMARC']);
    const complete = await verify(domain.id);
    expect(Object.values(statusOf(complete.body))).toEqual(Array(6).fill('VERIFIED'));
    // Verified once: the time it first became verified stays.
    expect(complete.body.verifiedAt).toBe(verified.body.verifiedAt);
    expect(complete.body.lastCheckedAt >= verified.body.lastCheckedAt).toBe(true);
    // The stored record is what the list shows.
    expect((await list()).find((d) => d.id === domain.id)).toEqual(complete.body);
  });

  it('goes back to PENDING when the DKIM records disappear, and sending stops', async () => {
    const domain = await add('regress.io');
    publish(domain.records, ['DKIM']);
    expect((await verify(domain.id)).body.status).toBe('VERIFIED');
    unpublish(domain.records.filter((r: Json) => r.purpose === 'DKIM').map((r: Json) => r.name));
    const again = await verify(domain.id);
    expect(again.body).toMatchObject({ status: 'PENDING', verified: false, verifiedAt: null });
    expect((await senderRefusal(rt.projectId, 'a@regress.io'))?.statusCode).toBe(403);
  });

  it("answers 404 for another project's domain or an unknown id, 422 for a non-UUID id", async () => {
    const domain = await add('private.io');
    const other = await otherProject();
    const res = await verify(domain.id, other.key);
    expect(res.status).toBe(404);
    expect((await verify(crypto.randomUUID())).status).toBe(404);
    const bad = await verify('123');
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors[0]).toMatchObject({ field: 'id', code: 'invalid_string' });
    // The other project's attempt checked nothing.
    expect((await getDomainByName(rt.deps, rt.projectId, 'private.io'))?.lastCheckedAt).toBeNull();
  });
});

describe('createRecords', () => {
  it('publishes the records in the hosted zone, leaving an existing DMARC policy alone', async () => {
    const body = await add('zoned.io', { createRecords: true });
    expect(body.dnsSetup).toMatchObject({
      requested: true,
      hostedZone: { id: 'local:zoned.io', name: 'zoned.io' },
    });
    expect(body.dnsSetup.created.map((r: Json) => r.purpose)).toEqual([
      'DKIM',
      'DKIM',
      'DKIM',
      'MAIL_FROM_MX',
      'MAIL_FROM_SPF',
    ]);
    expect(body.dnsSetup.skipped).toEqual([
      {
        type: 'TXT',
        name: '_dmarc.zoned.io',
        purpose: 'DMARC',
        reason: 'already published',
      },
    ]);
    const zone = readZone();
    for (const r of body.records.filter((r: Json) => r.purpose !== 'DMARC')) {
      expect(zone[r.name]?.[r.type], r.name).toContain(r.value);
    }
    expect(zone['_dmarc.zoned.io']).toEqual({ TXT: 'v=DMARC1; p=reject;' });

    const checked = await verify(body.id);
    expect(checked.body.status).toBe('VERIFIED');
    expect(checked.body.records.every((r: Json) => r.status === 'VERIFIED')).toBe(true);
  });

  it('uses the closest parent zone for a subdomain, and skips a record set holding other values', async () => {
    editZone((zone) => {
      zone['mail.news.zoned.io'] = { MX: ['10 inbound.example.net'] };
    });
    const body = await add('news.zoned.io', { createRecords: true });
    expect(body.dnsSetup.hostedZone).toEqual({ id: 'local:zoned.io', name: 'zoned.io' });
    expect(body.dnsSetup.skipped).toEqual([
      {
        type: 'MX',
        name: 'mail.news.zoned.io',
        purpose: 'MAIL_FROM_MX',
        reason: 'exists with other values: 10 inbound.example.net',
      },
    ]);
    expect(readZone()['mail.news.zoned.io']).toEqual({
      MX: ['10 inbound.example.net'],
      TXT: ['v=spf1 include:amazonses.com ~all'],
    });
    expect(readZone()['_dmarc.news.zoned.io']).toEqual({ TXT: ['v=DMARC1; p=none;'] });
  });

  it('registers the domain and says so when the account has no zone for it', async () => {
    const before = readFileSync(zonePath, 'utf8');
    const body = await add('nozone.io', { createRecords: true });
    expect(body.status).toBe('PENDING');
    expect(body.dnsSetup).toMatchObject({ requested: true, hostedZone: null, created: [], skipped: [] });
    expect(body.dnsSetup.message).toMatch(/No public hosted zone for nozone\.io/);
    expect(readFileSync(zonePath, 'utf8')).toBe(before);
  });
});

describe('DELETE /domains/{id}', () => {
  it('deletes the domain and its SES identity, and frees the name', async () => {
    const domain = await add('gone.io');
    const res = await rt.api('DELETE', `/domains/${domain.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: domain.id, deleted: true });
    expect((await list()).some((d) => d.domain === 'gone.io')).toBe(false);
    expect((await verify(domain.id)).status).toBe(404);
    expect((await rt.api('DELETE', `/domains/${domain.id}`)).status).toBe(404);
    expect(await rt.deps.emailIdentities.getDomainIdentity('gone.io')).toBeUndefined();
    expect((await senderRefusal(rt.projectId, 'x@gone.io'))?.extra.details).toMatchObject({
      reason: 'DOMAIN_NOT_REGISTERED',
    });
    // Another project may now add it, and gets a new identity.
    const other = await otherProject();
    const again = await add('gone.io', {}, other.key);
    expect(again.id).not.toBe(domain.id);
    expect(again.records[0].name).not.toBe(domain.records[0].name);
  });

  it('keeps an SES identity that the account had before the domain was added', async () => {
    await identities().createDomainIdentity('adopted.io');
    const domain = await add('adopted.io');
    expect((await rt.api('DELETE', `/domains/${domain.id}`)).status).toBe(200);
    expect(await rt.deps.emailIdentities.getDomainIdentity('adopted.io')).toBeDefined();
  });

  it("answers 404 for another project's domain (which stays), 422 for a non-UUID id", async () => {
    const domain = await add('keep.io');
    const other = await otherProject();
    expect((await rt.api('DELETE', `/domains/${domain.id}`, { key: other.key })).status).toBe(404);
    expect((await rt.api('DELETE', `/domains/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await rt.api('DELETE', '/domains/keep.io')).status).toBe(422);
    expect((await verify(domain.id)).status).toBe(200);
    expect(await rt.deps.emailIdentities.getDomainIdentity('keep.io')).toBeDefined();
  });
});

describe('sender-domain rule (403)', () => {
  it('refuses an unregistered and a pending domain, and accepts a verified one', async () => {
    const unregistered = await senderRefusal(rt.projectId, 'a@never-added.io');
    expect(unregistered).toMatchObject({ statusCode: 403, code: 'INTERNAL_SERVER_ERROR' });
    expect(unregistered?.extra.details).toMatchObject({ reason: 'DOMAIN_NOT_REGISTERED' });
    await add('rule.io');
    const pending = await senderRefusal(rt.projectId, 'a@rule.io');
    expect(pending).toMatchObject({ statusCode: 403, code: 'INTERNAL_SERVER_ERROR' });
    expect(pending?.extra.details).toMatchObject({ reason: 'DOMAIN_NOT_VERIFIED', status: 'PENDING' });
    expect(await senderRefusal(rt.projectId, `a@${rt.senderDomain.toUpperCase()}`)).toBeUndefined();
    // Another project's verified domain does not count.
    const other = await otherProject();
    expect((await senderRefusal(other.id, `a@${rt.senderDomain}`))?.statusCode).toBe(403);
  });

  it('keeps seedVerifiedDomain working, also for a name another project holds', async () => {
    const other = await otherProject();
    const seeded = await seedVerifiedDomain(rt.deps, other.id, rt.senderDomain);
    expect(seeded).toMatchObject({ status: 'VERIFIED', verified: true, projectId: other.id });
    expect(await senderRefusal(other.id, `a@${rt.senderDomain}`)).toBeUndefined();
    expect((await list(other.key, other.id)).map((d) => d.domain)).toEqual([rt.senderDomain]);
  });
});

describe('sender-domain rule through the routes that use it', () => {
  const send = (from: string) =>
    rt.api('POST', '/v1/send', {
      body: { to: 'reader@example.org', from, subject: 'Hello', body: '<p>Hello</p>' },
    });
  const template = (from: string) =>
    rt.api('POST', '/templates', { body: { name: `t ${from}`, subject: 'Hi', body: '<p>Hi</p>', from } });

  it('refuses an unregistered and a pending domain with 403, then accepts it once verified', async () => {
    const domain = await add('send-flow.io');
    for (const from of ['hi@never-added-2.io', 'hi@send-flow.io']) {
      for (const res of [await send(from), await template(from)]) {
        expect(res.status, from).toBe(403);
        expect(res.body.error).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', statusCode: 403 });
      }
    }
    await rt.drain();
    expect(await rt.mails({ to: 'reader@example.org' })).toHaveLength(0);

    publish(domain.records, ['DKIM']);
    expect((await verify(domain.id)).body.status).toBe('VERIFIED');
    expect((await send('hi@send-flow.io')).status).toBe(200);
    expect((await template('hi@send-flow.io')).status).toBe(201);
    await rt.drain();
    expect((await rt.mails({ to: 'reader@example.org' }))[0]?.from).toContain('hi@send-flow.io');
  });
});

describe('background check (schedule domain-check)', () => {
  async function pendingIndex() {
    const domains: string[] = [];
    for await (const item of rt.deps.store.queryAll({
      index: 'pendingDomains',
      partition: keys.pendingDomainsIndex,
    }))
      domains.push(String(item.domain));
    return domains;
  }

  it('re-checks pending domains of every project after the zone file changes', async () => {
    const mine = await add('bg-one.io');
    const other = await otherProject();
    const theirs = await add('bg-two.io', {}, other.key);
    const seededBefore = (await list()).find((d) => d.domain === rt.senderDomain);
    expect(await pendingIndex()).toEqual(expect.arrayContaining(['bg-one.io', 'bg-two.io']));
    expect(await pendingIndex()).not.toContain(rt.senderDomain);

    publish(theirs.records, ['DKIM']);
    await rt.scheduler.runRecurring('domain-check');

    const theirsNow = (await list(other.key, other.id)).find((d) => d.id === theirs.id);
    expect(theirsNow).toMatchObject({ status: 'VERIFIED', verified: true });
    const mineNow = (await list()).find((d) => d.id === mine.id);
    expect(mineNow).toMatchObject({ status: 'PENDING', verified: false });
    expect(mineNow.lastCheckedAt).toMatch(ISO);
    // Verified domains are not re-checked, and leave the pending index.
    expect((await list()).find((d) => d.domain === rt.senderDomain)).toEqual(seededBefore);
    expect(await pendingIndex()).toContain('bg-one.io');
    expect(await pendingIndex()).not.toContain('bg-two.io');
  });

  it('reads the pending index, never scans the table', async () => {
    await add('bg-three.io');
    const { store, sent } = recordingStore(rt);
    const { checkPendingDomains } = await import('../../shared/domains/service');
    const summary = await checkPendingDomains({ ...rt.deps, store });
    expect(summary.checked).toBeGreaterThanOrEqual(1);
    expect(summary.errors).toBe(0);
    expect(sent.map((c) => c.name)).not.toContain('ScanCommand');
    const queries = sent.filter((c) => c.name === 'QueryCommand');
    expect(queries.length).toBeGreaterThan(0);
    for (const q of queries) expect(q.input.IndexName).toBe('gsi1');
  });

  it('marks a domain FAILED when SES gives up after 72 hours, and stops checking it', async () => {
    const domain = await add('bg-late.io');
    clock.offsetMs = 73 * 3600 * 1000;
    try {
      await rt.scheduler.runRecurring('domain-check');
      const now = (await list()).find((d) => d.id === domain.id);
      expect(now).toMatchObject({ status: 'FAILED', verified: false });
      expect(now.records.filter((r: Json) => r.purpose === 'DKIM').map((r: Json) => r.status)).toEqual([
        'FAILED',
        'FAILED',
        'FAILED',
      ]);
      expect(await pendingIndex()).not.toContain('bg-late.io');
      expect((await senderRefusal(rt.projectId, 'a@bg-late.io'))?.statusCode).toBe(403);
    } finally {
      clock.offsetMs = 0;
    }
  });
});
