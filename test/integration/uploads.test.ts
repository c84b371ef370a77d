/**
 * `POST /uploads/image` through HTTP against the local runtime: images are accepted by their
 * bytes alone, stored under a key of the caller's project, and served at the URL answered with
 * their own content type; everything else is refused with the spec's statuses and bodies.
 */
import { describe, expect, it } from 'vitest';
import { MAX_LAMBDA_PAYLOAD_BYTES } from '../../shared/local/gateway';
import { createProject } from '../../shared/projects/repository';
import { MAX_IMAGE_BYTES } from '../../shared/uploads/images';
import { type ApiResponse, useLocalRuntime } from './helpers/local';
import {
  imageMultipart,
  pngOfSize,
  postImage,
  svg,
  tinyGif,
  tinyJpeg,
  tinyPng,
  tinyWebp,
} from './helpers/uploads';

const rt = useLocalRuntime();

/** GETs an absolute URL as anyone would (no key): status, type and bytes. */
async function fetchPublic(url: string) {
  const res = await fetch(url);
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    nosniff: res.headers.get('x-content-type-options'),
    bytes: new Uint8Array(await res.arrayBuffer()),
  };
}

const KEY = /^images\/([0-9a-f-]{36})\/[0-9a-f-]{36}\.(png|jpg|gif|webp)$/;

function expectValidationError(res: ApiResponse) {
  expect(res.status).toBe(422);
  expect(res.body).toMatchObject({
    success: false,
    error: {
      code: 'VALIDATION_ERROR',
      statusCode: 422,
      errors: [{ field: 'file', code: 'unsupported_image_type' }],
    },
  });
}

describe('POST /uploads/image', () => {
  const accepted = [
    { format: 'PNG', bytes: tinyPng(), contentType: 'image/png', extension: 'png' },
    { format: 'JPEG', bytes: tinyJpeg(), contentType: 'image/jpeg', extension: 'jpg' },
    { format: 'GIF', bytes: tinyGif(), contentType: 'image/gif', extension: 'gif' },
    { format: 'WebP', bytes: tinyWebp(), contentType: 'image/webp', extension: 'webp' },
  ];

  for (const { format, bytes, contentType, extension } of accepted) {
    it(`accepts a ${format} by its bytes (declared as octet-stream) and serves the same bytes at its URL`, async () => {
      const res = await postImage(rt, bytes, { filename: 'upload.bin', type: 'application/octet-stream' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        url: expect.any(String),
        key: expect.stringMatching(KEY),
        contentType,
        size: bytes.byteLength,
      });
      const { key, url } = res.body as { key: string; url: string };
      expect(KEY.exec(key)![1]).toBe(rt.projectId);
      expect(key.endsWith(`.${extension}`)).toBe(true);
      expect(url).toBe(`${rt.url}/_local/${key}`);

      const served = await fetchPublic(url);
      expect(served.status).toBe(200);
      expect(served.contentType).toBe(contentType);
      expect(served.nosniff).toBe('nosniff');
      expect(served.bytes).toEqual(bytes);
    });
  }

  it('judges by the bytes, not the name or declared type: a PNG named .svg, declared SVG, is a PNG', async () => {
    const res = await postImage(rt, tinyPng(), { filename: 'logo.svg', type: 'image/svg+xml' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ contentType: 'image/png', key: expect.stringMatching(/\.png$/) });
    expect((await fetchPublic(res.body.url)).contentType).toBe('image/png');
  });

  it('refuses an SVG named .png and declared PNG with 422, and stores nothing', async () => {
    const res = await postImage(rt, svg(), { filename: 'logo.png', type: 'image/png' });
    expectValidationError(res);
    expect(res.body.error.requestId).toEqual(expect.any(String));
  });

  it('refuses what is no image at all (HTML, text, an empty file) with 422', async () => {
    for (const bytes of [
      new TextEncoder().encode('<!doctype html><script>alert(1)</script>'),
      new TextEncoder().encode('hello'),
      new Uint8Array(),
    ]) {
      expectValidationError(await postImage(rt, bytes));
    }
  });

  it(`accepts a file of exactly ${MAX_IMAGE_BYTES} bytes (4 MB): it fits through the invocation once base64-encoded`, async () => {
    const bytes = pngOfSize(MAX_IMAGE_BYTES);
    const { body } = await imageMultipart(bytes);
    // The local gateway refuses events over Lambda's 6 MB, as Lambda does: the base64 body fits.
    expect(Math.ceil(body.byteLength / 3) * 4).toBeLessThan(MAX_LAMBDA_PAYLOAD_BYTES);
    const res = await postImage(rt, bytes);
    expect(res.status).toBe(201);
    expect(res.body.size).toBe(MAX_IMAGE_BYTES);
    expect((await fetchPublic(res.body.url)).bytes.byteLength).toBe(MAX_IMAGE_BYTES);
  }, 30_000);

  it('refuses a file one byte over 4 MB with 413 in the envelope', async () => {
    const res = await postImage(rt, pngOfSize(MAX_IMAGE_BYTES + 1));
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({
      success: false,
      error: { code: 'FILE_TOO_LARGE', statusCode: 413, details: { maxBytes: MAX_IMAGE_BYTES } },
    });
  }, 30_000);

  it('never gets a file of 4.5 MB: base64-encoded, its request is over the 6 MB invocation (413 before the function)', async () => {
    // 6 MB x 3/4: the base64 of the file alone fills the invocation, with no room for the event.
    const res = await postImage(rt, pngOfSize((MAX_LAMBDA_PAYLOAD_BYTES * 3) / 4));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: 'Request Entity Too Large' });
    expect(res.headers['x-sesame-local-reason']).toMatch(/6 MB invocation payload/);
  }, 30_000);

  it('answers the flat {error} 400 of a missing required field when there is no file part', async () => {
    const other = await postImage(rt, tinyPng(), { field: 'image' });
    expect(other.status).toBe(400);
    expect(other.body).toEqual({ error: expect.stringMatching(/^file is required/) });

    const json = await rt.api('POST', '/uploads/image', { body: { url: 'https://example.com/a.png' } });
    expect(json.status).toBe(400);
    expect(json.body).toEqual({ error: expect.stringMatching(/^file is required/) });

    const empty = await rt.api('POST', '/uploads/image');
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ error: expect.stringMatching(/^file is required/) });
  });

  it('answers 400 in the envelope for a multipart body cut short', async () => {
    const { body, contentType } = await imageMultipart(tinyPng());
    const res = await rt.api('POST', '/uploads/image', {
      raw: body.subarray(0, body.byteLength - 20),
      headers: { 'content-type': contentType },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'BAD_REQUEST', statusCode: 400 } });
  });

  it('needs a secret key: none, or a public key, is 401', async () => {
    for (const key of [null, rt.publicKey, 'sk_not_a_key']) {
      const res = await postImage(rt, tinyPng(), { key });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: { code: 'INVALID_API_KEY' } });
    }
  });

  it('stores each project under its own prefix, with a new key per upload: keys never collide', async () => {
    const other = await createProject(rt.deps, { name: 'uploads-other' });
    const bytes = tinyPng();
    const mine = await Promise.all([postImage(rt, bytes), postImage(rt, bytes)]);
    const theirs = await Promise.all([
      postImage(rt, bytes, { key: other.secretKey }),
      postImage(rt, bytes, { key: other.secretKey }),
    ]);
    for (const res of [...mine, ...theirs]) expect(res.status).toBe(201);
    const keys = [...mine, ...theirs].map((r) => r.body.key as string);
    expect(new Set(keys).size).toBe(4);
    for (const key of keys.slice(0, 2)) expect(key.startsWith(`images/${rt.projectId}/`)).toBe(true);
    for (const key of keys.slice(2)) expect(key.startsWith(`images/${other.project.id}/`)).toBe(true);
    for (const res of [...mine, ...theirs]) expect((await fetchPublic(res.body.url)).bytes).toEqual(bytes);
  });
});

describe('GET /_local/images/...', () => {
  it('answers 404 for a key nothing was stored under, and for paths that are no image key', async () => {
    for (const path of [
      `/_local/images/${rt.projectId}/00000000-0000-4000-8000-000000000000.png`,
      '/_local/images/../seed.json',
      '/_local/images/%2E%2E/%2E%2E/package.json',
      '/_local/images/',
    ]) {
      const res = await rt.api('GET', path, { key: null });
      expect(res.status, path).toBe(404);
    }
  });
});
