import { describe, expect, it } from 'vitest';
import { createProject } from '../../shared/projects/repository';
import { fieldTypes, uniqueEmail } from './helpers/contacts';
import { importCsv, upload } from './helpers/imports';
import { useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

const CONTACT_KEYS = ['createdAt', 'data', 'email', 'id', 'snoozedUntil', 'subscribed', 'updatedAt'];

describe('review: contact shapes', () => {
  it('POST/GET/PATCH/list return exactly the contact fields', async () => {
    const email = uniqueEmail('shape');
    const created = await rt.api('POST', '/contacts', { body: { email, data: { a: 1 } } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual([...CONTACT_KEYS, '_meta'].sort());
    const got = await rt.api('GET', `/contacts/${created.body.id}`);
    expect(Object.keys(got.body).sort()).toEqual(CONTACT_KEYS);
    const patched = await rt.api('PATCH', `/contacts/${created.body.id}`, { body: { data: { b: 'x' } } });
    expect(patched.status).toBe(200);
    expect(Object.keys(patched.body).sort()).toEqual(CONTACT_KEYS);
    const list = await rt.api('GET', '/contacts', { query: { search: email } });
    expect(Object.keys(list.body).sort()).toEqual(['cursor', 'data', 'hasMore', 'total']);
    expect(Object.keys(list.body.data[0]).sort()).toEqual(CONTACT_KEYS);
    expect(list.body).toMatchObject({ cursor: expect.any(String), hasMore: false, total: 1 });
  });

  it('PATCH: own email case change is fine, another contact in other case is 409, bad data 422', async () => {
    const a = (await rt.api('POST', '/contacts', { body: { email: uniqueEmail('pa') } })).body;
    const b = (await rt.api('POST', '/contacts', { body: { email: uniqueEmail('pb') } })).body;
    const self = await rt.api('PATCH', `/contacts/${a.id}`, { body: { email: a.email.toUpperCase() } });
    expect(self.status).toBe(200);
    expect(self.body.email).toBe(a.email.toUpperCase());
    const taken = await rt.api('PATCH', `/contacts/${a.id}`, { body: { email: b.email.toUpperCase() } });
    expect(taken.status).toBe(409);
    expect(taken.body.success).toBe(false);
    for (const body of [{ data: 'x' }, { email: 'nope' }, { subscribed: 'yes' }]) {
      const res = await rt.api('PATCH', `/contacts/${a.id}`, { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    const withReserved = await rt.api('PATCH', `/contacts/${a.id}`, {
      body: { data: { id: 'x', email: 'e@x.io', manageUrl: 'm', keep: 1 } },
    });
    expect(withReserved.body.data).toEqual({ keep: 1 });
    expect((await rt.api('PATCH', '/contacts/123', { body: {} })).status).toBe(422);
    expect((await rt.api('DELETE', '/contacts/123')).status).toBe(422);
  });

  it('public key is refused on every contacts route', async () => {
    const id = '00000000-0000-4000-8000-000000000002';
    for (const [m, p] of [
      ['POST', '/contacts'],
      ['POST', '/contacts/lookup'],
      ['GET', '/contacts/fields'],
      ['GET', '/contacts/fields/data.x/values'],
      ['GET', '/contacts/fields/data.x/usage'],
      ['DELETE', '/contacts/fields/data.x'],
      ['GET', `/contacts/import/${id}`],
      ['POST', '/contacts/bulk-delete'],
      ['GET', `/contacts/bulk/${id}`],
      ['PATCH', `/contacts/${id}`],
      ['DELETE', `/contacts/${id}`],
    ] as const) {
      const res = await rt.api(m, p, { key: rt.publicKey, ...(m === 'GET' ? {} : { body: {} }) });
      expect(res.status, `${m} ${p}`).toBe(401);
      expect(res.body.error.code).toBe('INVALID_API_KEY');
    }
  });

  it('infers types per rule 5 via the API', async () => {
    await rt.api('POST', '/contacts', {
      body: {
        email: uniqueEmail('types'),
        data: {
          rvMs: '2024-01-01T10:00:00.123Z',
          rvOffset: '2024-01-01T10:00:00+02:00',
          rvBadDate: '2024-13-45',
          rvRolledDate: '2024-02-30',
          rvNum: '42',
          rvNested: { n: 3.14, b: false },
        },
      },
    });
    expect(await fieldTypes(rt)).toMatchObject({
      'data.rvMs': 'date',
      'data.rvOffset': 'string',
      'data.rvBadDate': 'string',
      'data.rvRolledDate': 'string',
      'data.rvNum': 'string',
      'data.rvNested.n': 'number',
      'data.rvNested.b': 'boolean',
    });
  });
});

describe('review: import', () => {
  it('GET of a queued job lists the decided fields', async () => {
    const res = await upload(rt, `email\n${uniqueEmail('q')}\n`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ jobId: expect.any(String), status: 'queued' });
    const job = await rt.api('GET', `/contacts/import/${res.body.jobId}`);
    expect(job.status).toBe(200);
    expect(Object.keys(job.body).sort()).toEqual(
      [
        'completedAt',
        'createdAt',
        'errors',
        'imported',
        'jobId',
        'processedRows',
        'skipped',
        'status',
        'totalRows',
        'updated',
      ].sort(),
    );
    await rt.drain();
    const done = (await rt.api('GET', `/contacts/import/${res.body.jobId}`)).body;
    expect(done).toMatchObject({
      status: 'completed',
      imported: 1,
      errors: [],
      completedAt: expect.any(String),
    });
    const other = await createProject(rt.deps, { name: 'other-import' });
    expect((await rt.api('GET', `/contacts/import/${res.body.jobId}`, { key: other.secretKey })).status).toBe(
      404,
    );
  });

  it('drops reserved columns in any case; CSV subscribed never unsubscribes', async () => {
    const email = uniqueEmail('csv');
    const csv = [
      'EMAIL,ID,Subscribed,CREATEDAT,updatedat,UnsubscribeURL,sesame_email,sesame_id,keep',
      `${email},x,false,2020-01-01,2020-01-01,u,e,i,1`,
    ].join('\n');
    const job = await importCsv(rt, csv);
    expect(job).toMatchObject({ status: 'completed', imported: 1, skipped: 0 });
    const c = (await rt.api('GET', '/contacts', { query: { search: email } })).body.data[0];
    expect(c.subscribed).toBe(true);
    expect(c.data).toEqual({ keep: 1 });
  });
});

describe('review: bulk', () => {
  it('bulk job shape and 404 for foreign jobs', async () => {
    const c = (await rt.api('POST', '/contacts', { body: { email: uniqueEmail('bk') } })).body;
    const res = await rt.api('POST', '/contacts/bulk-unsubscribe', { body: { contactIds: [c.id, c.id] } });
    expect(res.status).toBe(202);
    await rt.drain();
    const job = await rt.api('GET', `/contacts/bulk/${res.body.jobId}`);
    for (const k of ['jobId', 'type', 'status', 'total', 'processed', 'succeeded', 'failed', 'errors'])
      expect(job.body, k).toHaveProperty(k);
    expect(job.body).toMatchObject({
      type: 'unsubscribe',
      status: 'completed',
      total: 1,
      succeeded: 1,
      failed: 0,
      errors: [],
    });
    const other = await createProject(rt.deps, { name: 'other-bulk' });
    expect((await rt.api('GET', `/contacts/bulk/${res.body.jobId}`, { key: other.secretKey })).status).toBe(
      404,
    );
  });

  it('non-UUID job ids', async () => {
    const i = await rt.api('GET', '/contacts/import/not-a-uuid');
    const b = await rt.api('GET', '/contacts/bulk/not-a-uuid');
    expect([i.status, b.status]).toEqual([422, 422]);
    expect(i.body.error.errors[0]).toMatchObject({ field: 'jobId', code: 'invalid_string' });
    expect(b.body.error.errors[0]).toMatchObject({ field: 'jobId', code: 'invalid_string' });
  });
});
