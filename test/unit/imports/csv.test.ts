import { describe, expect, it } from 'vitest';
import { ImportFileError, layoutOf, readRecords, readRow, typeCell } from '../../../shared/imports/csv';
import { s3UploadNormalizer } from '../../../shared/imports/jobs';
import { parseUploadKey, UPLOAD_PREFIX, uploadKey } from '../../../shared/imports/messages';
import { extractFilePart, MAX_IMPORT_FILE_BYTES } from '../../../shared/imports/multipart';
import { MAX_UPLOAD_BODY_BYTES, renderTemplate } from '../../../shared/imports/upload';
import { manifest } from '../../../shared/manifest';

describe('typeCell (CSV import rules 4 to 6)', () => {
  it.each([
    ['true', true],
    ['FALSE', false],
    ['Yes', true],
    ['no', false],
    ['42', 42],
    ['-7', -7],
    ['0', 0],
    ['0.5', 0.5],
    ['3.14', 3.14],
    ['-0.25', -0.25],
  ])('%s is typed as %s', (raw, typed) => expect(typeCell(raw)).toBe(typed));

  it.each([
    '007',
    '+44',
    '1e5',
    '1E-3',
    '.5',
    '5.',
    '1.2.3',
    '12345678901234567890',
    '0x1F',
    'yes!',
    'n',
    ' 42',
  ])('%s stays a string', (raw) => expect(typeCell(raw)).toBe(raw));

  it('keeps ISO dates and normalizes zoned ISO date-times to UTC', () => {
    expect(typeCell('2024-05-01')).toBe('2024-05-01');
    expect(typeCell('2024-05-01T10:20:30Z')).toBe('2024-05-01T10:20:30Z');
    expect(typeCell('2024-05-01T10:20:30.123Z')).toBe('2024-05-01T10:20:30.123Z');
    expect(typeCell('2024-05-01T10:00:00+02:00')).toBe('2024-05-01T08:00:00.000Z');
    expect(typeCell('2024-05-01T10:00+0200')).toBe('2024-05-01T08:00:00.000Z');
    expect(typeCell('2024-05-01 10:00:00Z')).toBe('2024-05-01T10:00:00.000Z');
    expect(typeCell('05/01/2024')).toBe('05/01/2024');
    expect(typeCell('2024-13-45T10:00:00+02:00')).toBe('2024-13-45T10:00:00+02:00');
  });

  it.each([
    '2024-13-45',
    '2024-02-30',
    '2023-02-29',
    '2024-04-31T10:00:00Z',
    '2024-05-01T24:00:00Z',
    '2024-02-30T10:00:00+02:00',
    '2024-05-01T24:00+0200',
    '2024-05-01 10:61:00Z',
  ])('%s is not a calendar date and stays a string', (raw) => {
    expect(typeCell(raw)).toBe(raw);
  });

  it('accepts the 29th of February in a leap year only', () => {
    expect(typeCell('2024-02-29')).toBe('2024-02-29');
    expect(typeCell('2024-02-29T10:00:00+02:00')).toBe('2024-02-29T08:00:00.000Z');
    expect(typeCell('2023-02-29T10:00:00+02:00')).toBe('2023-02-29T10:00:00+02:00');
  });
});

describe('layoutOf and readRow', () => {
  it('finds the email column in any case and drops core and URL columns', () => {
    const layout = layoutOf(['ID', 'EMAIL', 'Subscribed', 'createdat', 'name', 'manageUrl', '', 'a.b']);
    expect(layout.emailIndex).toBe(1);
    expect(layout.paths).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      ['name'],
      undefined,
      undefined,
      ['a', 'b'],
    ]);
    const row = readRow(layout, ['x', ' A@B.org ', 'false', 'y', 'Ann', 'u', 'ignored', '7'], 2);
    expect(row).toEqual({ kind: 'contact', row: 2, email: 'A@B.org', data: { name: 'Ann', a: { b: 7 } } });
  });

  it('throws ImportFileError for a header without email', () => {
    expect(() => layoutOf(['name'])).toThrow(ImportFileError);
  });
});

describe('readRecords', () => {
  it('resumes at a byte offset exactly where the previous record ended', async () => {
    const file = Buffer.from(
      '\uFEFFemail,note\r\na@x.org,"multi\r\nline, with ""quotes"""\r\nb@x.org,second\r\n',
    );
    const all = [];
    for await (const r of readRecords(file)) all.push(r);
    expect(all.map((r) => r.cells)).toEqual([
      ['email', 'note'],
      ['a@x.org', 'multi\r\nline, with "quotes"'],
      ['b@x.org', 'second'],
    ]);
    const resumed = [];
    for await (const r of readRecords(file, all[1]!.end)) resumed.push(r.cells);
    expect(resumed).toEqual([['b@x.org', 'second']]);
    expect(all[2]!.end).toBe(file.length);
  });
});

describe('multipart', () => {
  const body = async (form: FormData) => {
    const req = new Request('http://x/', { method: 'POST', body: form });
    return { bytes: new Uint8Array(await req.arrayBuffer()), type: req.headers.get('content-type')! };
  };

  it('extracts the part named file, with or without a filename', async () => {
    const form = new FormData();
    form.append('note', 'hello');
    form.append('file', new Blob(['email\na@x.org\n']), 'c.csv');
    const { bytes, type } = await body(form);
    expect(Buffer.from(await extractFilePart(bytes, type)).toString()).toBe('email\na@x.org\n');
    const plain = new FormData();
    plain.append('file', 'email\nb@x.org\n');
    const p = await body(plain);
    // Form fields (not files) have their line breaks normalized to CRLF by the form encoder.
    expect(Buffer.from(await extractFilePart(p.bytes, p.type)).toString()).toBe('email\r\nb@x.org\r\n');
  });

  it('refuses a file over the limit and a missing part', async () => {
    const form = new FormData();
    form.append('file', new Blob(['x'.repeat(101)]), 'c.csv');
    const { bytes, type } = await body(form);
    await expect(extractFilePart(bytes, type, 100)).rejects.toMatchObject({ code: 'FILE_TOO_LARGE' });
    await expect(extractFilePart(bytes, 'text/csv')).rejects.toMatchObject({ code: 'INVALID_UPLOAD' });
    const other = new FormData();
    other.append('upload', new Blob(['x']), 'c.csv');
    const o = await body(other);
    await expect(extractFilePart(o.bytes, o.type)).rejects.toMatchObject({ code: 'MISSING_FILE' });
  });
});

describe('upload layout', () => {
  it('matches the manifest direct upload', () => {
    const def = manifest.directUploads?.find((u) => u.path === '/contacts/import');
    expect(def?.keyPrefix).toBe(UPLOAD_PREFIX);
    expect(def?.maxBodyBytes).toBe(MAX_UPLOAD_BODY_BYTES);
    expect(MAX_IMPORT_FILE_BYTES).toBe(5 * 1024 * 1024);
  });

  it('round-trips keys and rejects anything else', () => {
    expect(parseUploadKey(uploadKey('p-1', 'j-2'))).toEqual({ projectId: 'p-1', jobId: 'j-2' });
    expect(parseUploadKey('imports/p/j/extra')).toBeUndefined();
    expect(parseUploadKey('other/p/j')).toBeUndefined();
  });

  it('renders templates as API Gateway substitutes $context variables', () => {
    expect(
      renderTemplate(
        '{"a":"$context.authorizer.jobId","r":"$context.requestId","m":"$context.authorizer.none"}',
        {
          requestId: 'R',
          authorizer: { jobId: 'J' },
        },
      ),
    ).toBe('{"a":"J","r":"R","m":""}');
  });

  it('turns S3 created events into import jobs, and ignores test events and other keys', () => {
    const event = (key: string, eventName = 'ObjectCreated:Put') => ({
      Records: [{ eventSource: 'aws:s3', eventName, s3: { object: { key } } }],
    });
    expect(s3UploadNormalizer(event('imports/p1/j1'))).toEqual([
      { type: 'import.run', projectId: 'p1', jobId: 'j1' },
    ]);
    expect(s3UploadNormalizer(event('imports/p1/j1', 'ObjectRemoved:Delete'))).toEqual([]);
    expect(s3UploadNormalizer(event('uploads/x.png'))).toEqual([]);
    expect(s3UploadNormalizer({ Service: 'Amazon S3', Event: 's3:TestEvent' })).toEqual([]);
    expect(s3UploadNormalizer({ type: 'contact.purge' })).toBeUndefined();
  });
});
