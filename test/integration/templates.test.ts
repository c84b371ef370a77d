import { describe, expect, it } from 'vitest';
import { seedVerifiedDomain } from '../../shared/domains/repository';
import { createProject } from '../../shared/projects/repository';
import { keys } from '../../shared/table';
import { putPendingDomain } from './helpers/domains';
import { useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

const from = () => `news@${rt.senderDomain}`;
const valid = (extra: Record<string, unknown> = {}) => ({
  name: 'Welcome',
  subject: 'Hello {{first name ?? there}}',
  body: '<p>Hi {{ name }}</p>',
  from: from(),
  ...extra,
});

async function createTemplate(body: Record<string, unknown>, key?: string) {
  const res = await rt.api('POST', '/templates', { body, key });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** A fresh project with its own verified sender domain, so list counts are exact. */
async function freshProject() {
  const { project, secretKey } = await createProject(rt.deps, { name: 'templates' });
  await seedVerifiedDomain(rt.deps, project.id, 'list.example');
  return { projectId: project.id, key: secretKey, from: 'hi@list.example' };
}

async function count(key?: string) {
  return (await rt.api('GET', '/templates', { key })).body.total as number;
}

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

/** Every route under /templates/{id}: method and what follows the id. */
const ID_ROUTES = [
  ['GET', ''],
  ['PATCH', ''],
  ['DELETE', ''],
  ['POST', '/duplicate'],
  ['GET', '/usage'],
] as const;

describe('POST /templates', () => {
  it('creates a template with defaults and answers 201 with it', async () => {
    const res = await rt.api('POST', '/templates', {
      body: valid({ fromName: 'News', replyTo: 'help@example.org' }),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      projectId: rt.projectId,
      name: 'Welcome',
      description: null,
      subject: 'Hello {{first name ?? there}}',
      body: '<p>Hi {{ name }}</p>',
      from: from(),
      fromName: 'News',
      replyTo: 'help@example.org',
      type: 'MARKETING',
    });
    expect(res.body.createdAt).toBe(res.body.updatedAt);
    expect(res.body.version).toBeUndefined();
    const got = await rt.api('GET', `/templates/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('accepts each content type', async () => {
    for (const type of ['TRANSACTIONAL', 'MARKETING', 'HEADLESS']) {
      expect((await createTemplate(valid({ type }))).type).toBe(type);
    }
  });

  it('answers the flat 400 {error} naming each missing required field, and creates nothing', async () => {
    const project = await freshProject();
    for (const field of ['name', 'subject', 'body', 'from']) {
      for (const value of [undefined, null, '']) {
        const body: Record<string, unknown> = { ...valid({ from: project.from }), [field]: value };
        if (value === undefined) delete body[field];
        const res = await rt.api('POST', '/templates', { body, key: project.key });
        expect(res.status, `${field}=${String(value)}`).toBe(400);
        expect(res.body).toEqual({ error: `${field} is required` });
      }
    }
    const none = await rt.api('POST', '/templates', { body: {}, key: project.key });
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ error: 'name, subject, body, from are required' });
    expect(await count(project.key)).toBe(0);
  });

  it('answers 422 with the Liquid error when subject or body is not valid Liquid', async () => {
    const project = await freshProject();
    const res = await rt.api('POST', '/templates', {
      key: project.key,
      body: valid({ from: project.from, subject: 'Hi {{ name', body: '{% if x %}open' }),
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const fields = res.body.error.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['body', 'subject']);
    for (const e of res.body.error.errors) {
      expect(e.code).toBe('invalid_liquid');
      expect(e.message).toMatch(/^Invalid Liquid: .+/);
    }
    expect(res.body.error.errors.find((e: { field: string }) => e.field === 'body').message).toMatch(
      /not closed/,
    );
    expect(await count(project.key)).toBe(0);
  });

  it('refuses tags that would read other templates or files (sandbox)', async () => {
    for (const body of ['{% include "secrets" %}', '{% render "x" %}', '{% layout "base" %}']) {
      const res = await rt.api('POST', '/templates', { body: valid({ body }) });
      expect(res.status, body).toBe(422);
      expect(res.body.error.errors[0]).toMatchObject({ field: 'body', code: 'invalid_liquid' });
    }
  });

  it('answers 422 for invalid field values', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ type: 'NEWSLETTER' }, 'type', 'invalid_value'],
      [{ from: 'not-an-email' }, 'from', 'invalid_string'],
      [{ replyTo: 'nope' }, 'replyTo', 'invalid_string'],
      [{ subject: 'Line\nbreak' }, 'subject', 'invalid_string'],
      [{ subject: 'x'.repeat(999) }, 'subject', 'too_big'],
      [{ name: 42 }, 'name', 'invalid_type'],
      [{ fromName: 'a\r\nBcc: x@evil.example' }, 'fromName', 'invalid_string'],
    ];
    for (const [extra, field, code] of cases) {
      const res = await rt.api('POST', '/templates', { body: valid(extra) });
      expect(res.status, field).toBe(422);
      expect(res.body.error.errors).toContainEqual(expect.objectContaining({ field, code }));
    }
  });

  it('answers 403 when the sender domain is not registered or not verified, and creates nothing', async () => {
    const project = await freshProject();
    const unregistered = await rt.api('POST', '/templates', {
      key: project.key,
      body: valid({ from: 'a@unregistered.example' }),
    });
    expect(unregistered.status).toBe(403);
    expect(unregistered.body.error).toMatchObject({
      code: 'INTERNAL_SERVER_ERROR',
      details: { reason: 'DOMAIN_NOT_REGISTERED' },
    });
    await putPendingDomain(rt, project.projectId, 'pending.example');
    const pending = await rt.api('POST', '/templates', {
      key: project.key,
      body: valid({ from: 'a@pending.example' }),
    });
    expect(pending.status).toBe(403);
    expect(pending.body.error.details.reason).toBe('DOMAIN_NOT_VERIFIED');
    // The seeded domain of another project does not count either.
    const foreign = await rt.api('POST', '/templates', { key: project.key, body: valid({ from: from() }) });
    expect(foreign.status).toBe(403);
    expect(await count(project.key)).toBe(0);
  });

  it('answers 401 without a secret key', async () => {
    expect((await rt.api('POST', '/templates', { body: valid(), key: null })).status).toBe(401);
    expect((await rt.api('GET', '/templates', { key: rt.publicKey })).status).toBe(401);
  });
});

describe('GET /templates (offset list)', () => {
  it('pages, filters by type, searches name, description and subject, and sorts', async () => {
    const project = await freshProject();
    const specs = [
      { name: 'Bravo', type: 'MARKETING', subject: 'Weekly digest', description: 'sent on Mondays' },
      { name: 'alpha', type: 'TRANSACTIONAL', subject: 'Your receipt', description: null },
      { name: 'Charlie', type: 'HEADLESS', subject: 'Plain', description: 'Internal DIGEST copy' },
      { name: 'Delta', type: 'MARKETING', subject: 'Offers', description: null },
      { name: 'echo', type: 'TRANSACTIONAL', subject: 'Password reset', description: 'security' },
    ];
    const ids: string[] = [];
    for (const spec of specs) {
      ids.push((await createTemplate({ ...valid({ from: project.from }), ...spec }, project.key)).id);
      await new Promise((r) => setTimeout(r, 3)); // distinct createdAt
    }
    const list = (query: Record<string, string | number>) =>
      rt.api('GET', '/templates', { key: project.key, query });

    const first = await list({});
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ page: 1, pageSize: 20, total: 5, totalPages: 1 });
    // Default: createdAt, newest first.
    expect(first.body.data.map((t: { id: string }) => t.id)).toEqual([...ids].reverse());
    expect(first.body.data[0].body).toBe('<p>Hi {{ name }}</p>');

    const page2 = await list({ page: 2, pageSize: 2 });
    expect(page2.body).toMatchObject({ page: 2, pageSize: 2, total: 5, totalPages: 3 });
    expect(page2.body.data.map((t: { name: string }) => t.name)).toEqual(['Charlie', 'alpha']);
    const beyond = await list({ page: 9, pageSize: 2 });
    expect(beyond.body).toMatchObject({ data: [], total: 5, totalPages: 3 });

    const byName = await list({ sort: 'name', dir: 'asc' });
    expect(byName.body.data.map((t: { name: string }) => t.name)).toEqual([
      'alpha',
      'Bravo',
      'Charlie',
      'Delta',
      'echo',
    ]);
    const byNameDesc = await list({ sort: 'name' });
    expect(byNameDesc.body.data.map((t: { name: string }) => t.name)).toEqual([
      'echo',
      'Delta',
      'Charlie',
      'Bravo',
      'alpha',
    ]);
    const unknownSort = await list({ sort: 'color', dir: 'sideways' });
    expect(unknownSort.status).toBe(200);
    expect(unknownSort.body.data.map((t: { id: string }) => t.id)).toEqual([...ids].reverse());
    const oldest = await list({ sort: 'createdAt', dir: 'asc' });
    expect(oldest.body.data.map((t: { id: string }) => t.id)).toEqual(ids);

    const transactional = await list({ type: 'TRANSACTIONAL', sort: 'name', dir: 'asc' });
    expect(transactional.body).toMatchObject({ total: 2, totalPages: 1 });
    expect(transactional.body.data.map((t: { name: string }) => t.name)).toEqual(['alpha', 'echo']);

    const digest = await list({ search: 'DiGeSt', sort: 'name', dir: 'asc' });
    expect(digest.body.data.map((t: { name: string }) => t.name)).toEqual(['Bravo', 'Charlie']); // subject, description
    expect((await list({ search: 'ELT' })).body.data.map((t: { name: string }) => t.name)).toEqual(['Delta']);
    expect((await list({ search: 'nothing-matches' })).body).toMatchObject({
      data: [],
      total: 0,
      totalPages: 0,
    });
  });

  it('sorts by updatedAt after a PATCH', async () => {
    const project = await freshProject();
    const a = await createTemplate({ ...valid({ from: project.from }), name: 'A' }, project.key);
    await new Promise((r) => setTimeout(r, 3));
    await createTemplate({ ...valid({ from: project.from }), name: 'B' }, project.key);
    await new Promise((r) => setTimeout(r, 3));
    await rt.api('PATCH', `/templates/${a.id}`, { key: project.key, body: { description: 'touched' } });
    const res = await rt.api('GET', '/templates', { key: project.key, query: { sort: 'updatedAt' } });
    expect(res.body.data.map((t: { name: string }) => t.name)).toEqual(['A', 'B']);
  });

  it('clamps pageSize to 100 and refuses page or pageSize below 1 or unknown types', async () => {
    const clamped = await rt.api('GET', '/templates', { query: { pageSize: 500 } });
    expect(clamped.status).toBe(200);
    expect(clamped.body.pageSize).toBe(100);
    for (const query of [{ page: 0 }, { pageSize: 0 }, { page: 'x' }, { page: -1 }, { type: 'OTHER' }]) {
      const res = await rt.api('GET', '/templates', { query });
      expect(res.status, JSON.stringify(query)).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('GET, PATCH, DELETE /templates/{id}', () => {
  it('answers 422 for a non-UUID id and 404 for an unknown one, on every route', async () => {
    for (const [method, suffix] of ID_ROUTES) {
      const body = method === 'GET' ? undefined : {};
      const bad = await rt.api(method, `/templates/not-a-uuid${suffix}`, { body });
      expect(bad.status, `${method} ${suffix}`).toBe(422);
      expect(bad.body.error.errors[0]).toMatchObject({ field: 'id', code: 'invalid_string' });
      const unknown = await rt.api(method, `/templates/${UNKNOWN}${suffix}`, { body });
      expect(unknown.status, `${method} ${suffix}`).toBe(404);
      expect(unknown.body.error.code).toBe('NOT_FOUND');
    }
  });

  it("answers 404 for another project's template and leaves it alone", async () => {
    const mine = await createTemplate(valid({ name: 'Mine' }));
    const other = await freshProject();
    for (const [method, suffix] of ID_ROUTES) {
      const body = method === 'GET' ? undefined : { name: 'stolen' };
      const res = await rt.api(method, `/templates/${mine.id}${suffix}`, { key: other.key, body });
      expect(res.status, `${method} ${suffix}`).toBe(404);
    }
    expect(await count(other.key)).toBe(0);
    expect((await rt.api('GET', `/templates/${mine.id}`)).body).toEqual(mine);
  });

  it('patches the fields sent, clears nullable ones, and keeps the rest', async () => {
    const t = await createTemplate(valid({ description: 'old', fromName: 'News' }));
    await new Promise((r) => setTimeout(r, 3));
    const res = await rt.api('PATCH', `/templates/${t.id}`, {
      body: { subject: 'New {{ x }}', type: 'TRANSACTIONAL', description: null, replyTo: 'r@example.org' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: t.id,
      name: 'Welcome',
      subject: 'New {{ x }}',
      body: t.body,
      type: 'TRANSACTIONAL',
      description: null,
      fromName: 'News',
      replyTo: 'r@example.org',
      createdAt: t.createdAt,
    });
    expect(res.body.updatedAt > t.updatedAt).toBe(true);
    expect((await rt.api('GET', `/templates/${t.id}`)).body).toEqual(res.body);
  });

  it('validates a PATCH like a create and changes nothing when it is refused', async () => {
    const t = await createTemplate(valid());
    const refused = [
      [{ body: '{{ broken' }, 422],
      [{ subject: '' }, 422],
      [{ name: '' }, 422],
      [{ type: 'OTHER' }, 422],
      [{ from: 'x@unregistered.example' }, 403],
    ] as const;
    for (const [body, status] of refused) {
      const res = await rt.api('PATCH', `/templates/${t.id}`, { body });
      expect(res.status, JSON.stringify(body)).toBe(status);
    }
    expect((await rt.api('GET', `/templates/${t.id}`)).body).toEqual(t);
  });

  it('deletes a template', async () => {
    const t = await createTemplate(valid());
    const res = await rt.api('DELETE', `/templates/${t.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: t.id, deleted: true });
    expect((await rt.api('GET', `/templates/${t.id}`)).status).toBe(404);
    expect((await rt.api('DELETE', `/templates/${t.id}`)).status).toBe(404);
  });
});

describe('POST /templates/{id}/duplicate', () => {
  it('copies the template under a new id named "<name> (copy)" and leaves the original', async () => {
    const t = await createTemplate(
      valid({ name: 'Receipt', type: 'TRANSACTIONAL', description: 'd', fromName: 'Shop' }),
    );
    const res = await rt.api('POST', `/templates/${t.id}/duplicate`);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String) });
    expect(res.body.id).not.toBe(t.id);
    const copy = (await rt.api('GET', `/templates/${res.body.id}`)).body;
    const { id: _a, name: _b, createdAt: _c, updatedAt: _d, ...content } = t;
    expect(copy).toMatchObject({ ...content, name: 'Receipt (copy)' });
    expect((await rt.api('GET', `/templates/${t.id}`)).body).toEqual(t);
    const again = await rt.api('POST', `/templates/${res.body.id}/duplicate`);
    expect((await rt.api('GET', `/templates/${again.body.id}`)).body.name).toBe('Receipt (copy) (copy)');
  });
});

describe('GET /templates/{id}/usage', () => {
  it('lists no campaigns or workflows while none reference the template', async () => {
    const t = await createTemplate(valid());
    const res = await rt.api('GET', `/templates/${t.id}/usage`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ templateId: t.id, campaigns: [], workflows: [] });
  });

  it("finds campaigns and workflow steps in the project's definitions that reference it", async () => {
    const project = await freshProject();
    const t = await createTemplate(valid({ from: project.from }), project.key);
    const other = await createTemplate(valid({ from: project.from }), project.key);
    const put = (sk: string, item: Record<string, unknown>) =>
      rt.deps.store.write({ put: { pk: keys.projectPartition(project.projectId), sk, ...item } });
    await put('CAMPAIGN#c1', { id: 'c1', name: 'Launch', templateId: t.id });
    await put('CAMPAIGN#c2', { id: 'c2', name: 'Unrelated', templateId: other.id });
    await put('WORKFLOW#w1', {
      id: 'w1',
      name: 'Onboarding',
      steps: [
        { id: 's1', type: 'SEND_EMAIL', config: { templateId: t.id } },
        { id: 's2', type: 'DELAY', config: { amount: 1, unit: 'days' } },
        { id: 's3', type: 'SEND_EMAIL', config: { templateId: other.id } },
      ],
    });
    // A workflow whose steps are items of their own.
    await put('WORKFLOW#w2', { id: 'w2', name: 'Win-back' });
    await put('WORKFLOW#w2#STEP#s9', { id: 's9', type: 'SEND_EMAIL', config: { templateId: t.id } });
    // The same shapes in another project do not count.
    await rt.deps.store.write({
      put: {
        pk: keys.projectPartition(rt.projectId),
        sk: 'CAMPAIGN#x',
        id: 'x',
        name: 'x',
        templateId: t.id,
      },
    });

    const res = await rt.api('GET', `/templates/${t.id}/usage`, { key: project.key });
    expect(res.status).toBe(200);
    expect(res.body.campaigns).toEqual([{ id: 'c1', name: 'Launch' }]);
    expect(res.body.workflows).toEqual([
      { id: 'w1', name: 'Onboarding', steps: [{ id: 's1', type: 'SEND_EMAIL' }] },
      { id: 'w2', name: 'Win-back', steps: [{ id: 's9', type: 'SEND_EMAIL' }] },
    ]);
  });
});
