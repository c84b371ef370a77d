/**
 * CSV import through HTTP against the local runtime: POST /contacts/import (the direct upload,
 * emulated as on AWS), the queued job, GET /contacts/import/{jobId}, and every rule of the spec's
 * CSV import format.
 */
import { describe, expect, it } from 'vitest';
import { MAX_IMPORT_FILE_BYTES } from '../../shared/imports/multipart';
import { authorizeImportUpload } from '../../shared/imports/upload';
import { keys } from '../../shared/table';
import { contactByEmail, fieldTypes } from './helpers/contacts';
import { importCsv, multipart, upload } from './helpers/imports';
import { useLocalRuntime } from './helpers/local';

const rt = useLocalRuntime();

async function countContacts(search: string): Promise<number> {
  return (await rt.api('GET', '/contacts', { query: { search } })).body.total;
}

describe('POST /contacts/import', () => {
  it('answers 202 {jobId, status: queued}, and the job completes with the counts', async () => {
    const res = await upload(rt, 'email,name\nfirst@up.test,Ann\n');
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ jobId: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'queued' });
    await rt.drain();
    const job = await rt.api('GET', `/contacts/import/${res.body.jobId}`);
    expect(job.status).toBe(200);
    expect(job.body).toEqual({
      jobId: res.body.jobId,
      status: 'completed',
      totalRows: 1,
      processedRows: 1,
      imported: 1,
      updated: 0,
      skipped: 0,
      errors: [],
      createdAt: expect.any(String),
      completedAt: expect.any(String),
    });
    expect(await contactByEmail(rt, 'first@up.test')).toMatchObject({
      subscribed: true,
      data: { name: 'Ann' },
    });
  });

  it('refuses a missing key, a public key and a wrong key with 401, creating no job', async () => {
    for (const key of [null, rt.publicKey, 'sk_not-a-real-key']) {
      const res = await upload(rt, 'email\nnokey@up.test\n', { key });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ code: 'INVALID_API_KEY', statusCode: 401 });
    }
    await rt.drain();
    expect(await countContacts('nokey@up.test')).toBe(0);
  });

  it('refuses a body that is not multipart/form-data', async () => {
    const res = await rt.api('POST', '/contacts/import', {
      raw: 'email\nraw@up.test\n',
      headers: { 'content-type': 'text/csv' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'INVALID_UPLOAD' });
    await rt.drain();
    expect(await countContacts('raw@up.test')).toBe(0);
  });

  it('refuses a file over 5 MB before storing it, with a clear error', async () => {
    const big = `email,pad\n${'x'.repeat(MAX_IMPORT_FILE_BYTES + 100 * 1024)}\n`;
    const res = await upload(rt, big);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FILE_TOO_LARGE');
    expect(res.body.error.message).toMatch(/5 MB/);
  });

  it('fails the job when the file part itself is just over 5 MB', async () => {
    const row = 'over@up.test,pad\n';
    const csv = `email,pad\n${row.repeat(Math.ceil((MAX_IMPORT_FILE_BYTES + 10) / row.length))}`;
    const job = await importCsv(rt, csv);
    expect(job).toMatchObject({ status: 'failed', imported: 0, error: { code: 'FILE_TOO_LARGE' } });
    expect(await countContacts('over@up.test')).toBe(0);
  });

  it('answers 413 past API Gateway 10 MB request limit', async () => {
    const res = await upload(rt, 'x'.repeat(10 * 1024 * 1024 + 1));
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('FILE_TOO_LARGE');
  });

  it('fails the job when there is no part named file', async () => {
    const res = await upload(rt, 'email\nnofile@up.test\n', { field: 'upload' });
    expect(res.status).toBe(202);
    await rt.drain();
    const job = await rt.api('GET', `/contacts/import/${res.body.jobId}`);
    expect(job.body).toMatchObject({ status: 'failed', error: { code: 'MISSING_FILE' } });
  });

  it('refuses uploads of a disabled project with 403 PROJECT_DISABLED', async () => {
    const setDisabled = (disabled: boolean) =>
      rt.deps.store.write({
        update: keys.project(rt.projectId),
        expression: 'SET disabled = :d',
        values: { ':d': disabled },
      });
    await setDisabled(true);
    try {
      const res = await upload(rt, 'email\ndisabled@up.test\n');
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'PROJECT_DISABLED', statusCode: 403 });
      expect(res.body.timestamp).toEqual(expect.any(String));
    } finally {
      await setDisabled(false);
    }
  });

  it('counts uploads against the per-project rate limit (the authorizer denies past it)', async () => {
    const event = {
      methodArn: 'arn:aws:execute-api:us-east-1:000000000000:api/v1/POST/contacts/import',
      headers: { Authorization: `Bearer ${rt.secretKey}`, 'Content-Type': 'multipart/form-data; boundary=x' },
    };
    const limited = { ...rt.deps, config: { ...rt.deps.config, rateLimitPerMinute: 0 } };
    const denied = await authorizeImportUpload(limited, event);
    expect(denied.policyDocument.Statement[0]!.Effect).toBe('Deny');
    expect(denied.context.code).toBe('RATE_LIMIT_EXCEEDED');
    const allowed = await authorizeImportUpload(rt.deps, event);
    expect(allowed.policyDocument.Statement[0]!.Effect).toBe('Allow');
    expect(allowed.context).toEqual({ projectId: rt.projectId, jobId: expect.any(String) });
    const job = await rt.api('GET', `/contacts/import/${allowed.context.jobId}`);
    expect(job.body).toMatchObject({ status: 'queued', totalRows: 0 });
  });

  it('answers 404 for an unknown job id', async () => {
    const res = await rt.api('GET', '/contacts/import/00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  it('imports a file of nearly 5 MB through the same route', async () => {
    const pad = 'p'.repeat(900);
    const rows = Array.from({ length: 5500 }, (_, i) => `big${i}@near5mb.test,${i},${pad}`);
    const csv = `email,n,pad\n${rows.join('\n')}\n`;
    expect(Buffer.byteLength(csv)).toBeGreaterThan(4.8 * 1024 * 1024);
    expect(Buffer.byteLength(csv)).toBeLessThanOrEqual(MAX_IMPORT_FILE_BYTES);
    const { body } = await multipart(csv);
    // More than a Lambda could take once API Gateway base64-encodes it (6 MB).
    expect(Math.ceil(body.length / 3) * 4).toBeGreaterThan(6 * 1024 * 1024);
    const job = await importCsv(rt, csv, 180_000);
    expect(job).toMatchObject({
      status: 'completed',
      totalRows: 5500,
      processedRows: 5500,
      imported: 5500,
      skipped: 0,
    });
    expect(await contactByEmail(rt, 'big5499@near5mb.test')).toMatchObject({ data: { n: 5499, pad } });
  }, 240_000);
});

describe('CSV import format', () => {
  it('requires a header row with an email column: otherwise the job fails and writes nothing', async () => {
    const noEmail = await importCsv(rt, 'name,plan\nAnn,pro\n');
    expect(noEmail).toMatchObject({ status: 'failed', imported: 0, error: { code: 'MISSING_EMAIL_COLUMN' } });
    const empty = await importCsv(rt, '');
    expect(empty).toMatchObject({ status: 'failed', error: { code: 'EMPTY_FILE' } });
    const blank = await importCsv(rt, '\n\n');
    expect(blank).toMatchObject({ status: 'failed', error: { code: 'EMPTY_FILE' } });
  });

  it('turns other columns into data.<column>, drops core and URL columns, and types values', async () => {
    const csv = [
      'Email,id,subscribed,createdAt,updatedAt,unsubscribeUrl,subscribeUrl,manageUrl,sesame_id,plan,profile.tier,born,seen,local,vip,optin,active,age,score,zero,zip,phone,sci,version,huge,nodate,empty',
      'Typed@Rules.Test,X1,false,2020-01-01,2020-01-02,http://u,http://s,http://m,S1,pro,gold,1990-04-01,2024-05-01T10:00:00+02:00,05/01/2024,TRUE,yes,No,42,-3.25,0,01234,+4420,1e5,1.2.3,12345678901234567890,2024-02-30,',
    ].join('\n');
    const job = await importCsv(rt, csv);
    expect(job).toMatchObject({ status: 'completed', imported: 1, skipped: 0 });
    const c = await contactByEmail(rt, 'typed@rules.test');
    expect(c.email).toBe('Typed@Rules.Test');
    expect(c.subscribed).toBe(true);
    expect(c.id).not.toBe('X1');
    expect(c.createdAt).not.toBe('2020-01-01');
    expect(c.data).toEqual({
      plan: 'pro',
      profile: { tier: 'gold' },
      born: '1990-04-01',
      seen: '2024-05-01T08:00:00.000Z',
      local: '05/01/2024',
      vip: true,
      optin: true,
      active: false,
      age: 42,
      score: -3.25,
      zero: 0,
      zip: '01234',
      phone: '+4420',
      sci: '1e5',
      version: '1.2.3',
      huge: '12345678901234567890',
      nodate: '2024-02-30',
    });
    const types = await fieldTypes(rt);
    expect(types).toMatchObject({
      'data.born': 'date',
      'data.seen': 'date',
      'data.local': 'string',
      'data.vip': 'boolean',
      'data.age': 'number',
      'data.zip': 'string',
      'data.nodate': 'string',
      'data.profile.tier': 'string',
    });
    expect(types['data.id']).toBeUndefined();
    expect(types['data.subscribed']).toBeUndefined();
    expect(types['data.unsubscribeUrl']).toBeUndefined();
  });

  it('reports rows with missing or invalid emails as invalid_email, by spreadsheet row, and imports the rest', async () => {
    const csv = 'email,name\nok1@rows.test,A\n,B\nnot-an-email,C\n\n"  ok2@rows.test ",D\nx@,E\n';
    const job = await importCsv(rt, csv);
    expect(job).toMatchObject({
      status: 'completed',
      totalRows: 5,
      processedRows: 5,
      imported: 2,
      skipped: 3,
    });
    expect(job.errors).toEqual([
      { row: 3, email: '', reason: 'invalid_email' },
      { row: 4, email: 'not-an-email', reason: 'invalid_email' },
      { row: 7, email: 'x@', reason: 'invalid_email' },
    ]);
    expect(await contactByEmail(rt, 'ok2@rows.test')).toMatchObject({ data: { name: 'D' } });
  });

  it('reports a row with more cells than the header instead of guessing', async () => {
    const job = await importCsv(rt, 'email,name\nwide@rows.test,A,extra\nshort@rows.test\n');
    expect(job).toMatchObject({ imported: 1, skipped: 1 });
    expect(job.errors).toEqual([{ row: 2, email: 'wide@rows.test', reason: 'too_many_fields' }]);
    expect(await contactByEmail(rt, 'short@rows.test')).toMatchObject({ data: {} });
  });

  it('merges a row into the existing contact (updated), keeping other data and the subscription', async () => {
    const created = await rt.api('POST', '/contacts', {
      body: { email: 'merge@rows.test', subscribed: false, data: { keep: 'me', plan: 'free' } },
    });
    expect(created.status).toBe(201);
    const job = await importCsv(rt, 'email,plan,city\nMERGE@rows.test,pro,\nnew@rows.test,free,Oslo\n');
    expect(job).toMatchObject({ imported: 1, updated: 1, skipped: 0 });
    const merged = await contactByEmail(rt, 'merge@rows.test');
    expect(merged.id).toBe(created.body.id);
    expect(merged.subscribed).toBe(false);
    // The empty `city` cell changes nothing (custom data: an empty string never overwrites).
    expect(merged.data).toEqual({ keep: 'me', plan: 'pro' });
    expect(await countContacts('merge@rows.test')).toBe(1);
    expect(await contactByEmail(rt, 'new@rows.test')).toMatchObject({
      subscribed: true,
      data: { plan: 'free', city: 'Oslo' },
    });
  });

  it('counts a repeated email in one file once as imported, then as updated', async () => {
    const job = await importCsv(rt, 'email,n\ntwice@rows.test,1\nTWICE@rows.test,2\n');
    expect(job).toMatchObject({ imported: 1, updated: 1 });
    expect(await countContacts('twice@rows.test')).toBe(1);
    expect(await contactByEmail(rt, 'twice@rows.test')).toMatchObject({
      email: 'twice@rows.test',
      data: { n: 2 },
    });
  });

  it('is idempotent: running the same file again creates nothing and changes nothing', async () => {
    const csv = 'email,plan\nagain1@rows.test,pro\nagain2@rows.test,free\nbad\n';
    const first = await importCsv(rt, csv);
    expect(first).toMatchObject({ imported: 2, updated: 0, skipped: 1 });
    const before = await contactByEmail(rt, 'again1@rows.test');
    const second = await importCsv(rt, csv);
    expect(second).toMatchObject({ imported: 0, updated: 2, skipped: 1 });
    expect(await contactByEmail(rt, 'again1@rows.test')).toEqual(before);
    expect(await countContacts('again')).toBe(2);
  });

  it('reads UTF-8 with or without a byte-order mark, and refuses other encodings', async () => {
    const withBom = await importCsv(rt, '\uFEFFemail,name\nbom@enc.test,Zoë\n');
    expect(withBom).toMatchObject({ status: 'completed', imported: 1 });
    expect(await contactByEmail(rt, 'bom@enc.test')).toMatchObject({ data: { name: 'Zoë' } });
    const plain = await importCsv(rt, 'email,name\nnobom@enc.test,Łukasz 東京\n');
    expect(plain).toMatchObject({ imported: 1 });
    expect(await contactByEmail(rt, 'nobom@enc.test')).toMatchObject({ data: { name: 'Łukasz 東京' } });
    const latin1 = Buffer.from('email,name\nlatin@enc.test,Zo\xeb\n', 'latin1');
    const bad = await importCsv(rt, latin1);
    expect(bad).toMatchObject({ status: 'failed', error: { code: 'INVALID_ENCODING' } });
    expect(await contactByEmail(rt, 'latin@enc.test')).toBeUndefined();
  });

  it('keeps commas, quotes and newlines inside quoted fields (and counts such a row once)', async () => {
    const csv =
      'email,note,city\r\nquoted@csv.test,"Hello, ""world""\r\nsecond line",Paris\r\n,"a,\nb",x\r\nafter@csv.test,plain,Rome\r\n';
    const job = await importCsv(rt, csv);
    expect(job).toMatchObject({ imported: 2, skipped: 1 });
    expect(job.errors).toEqual([{ row: 3, email: '', reason: 'invalid_email' }]);
    expect(await contactByEmail(rt, 'quoted@csv.test')).toMatchObject({
      data: { note: 'Hello, "world"\r\nsecond line', city: 'Paris' },
    });
    expect(await contactByEmail(rt, 'after@csv.test')).toMatchObject({
      data: { note: 'plain', city: 'Rome' },
    });
  });

  it('fails the whole file on broken CSV before writing anything', async () => {
    const job = await importCsv(rt, 'email,note\nfine@broken.test,ok\nlater@broken.test,"never closed\n');
    expect(job).toMatchObject({ status: 'failed', imported: 0, error: { code: 'INVALID_CSV' } });
    expect(await countContacts('broken.test')).toBe(0);
  });

  it('refuses unusable or ambiguous columns', async () => {
    const dup = await importCsv(rt, 'email,plan,plan\nd@cols.test,a,b\n');
    expect(dup).toMatchObject({ status: 'failed', error: { code: 'DUPLICATE_COLUMN' } });
    const clash = await importCsv(rt, 'email,profile,profile.tier\nd@cols.test,a,b\n');
    expect(clash).toMatchObject({ status: 'failed', error: { code: 'DUPLICATE_COLUMN' } });
    const dots = await importCsv(rt, 'email,a..b\nd@cols.test,a\n');
    expect(dots).toMatchObject({ status: 'failed', error: { code: 'INVALID_COLUMN' } });
    expect(await countContacts('cols.test')).toBe(0);
  });
});
