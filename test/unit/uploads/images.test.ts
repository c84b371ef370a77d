/** Image uploads without HTTP: the type by magic numbers, the size limit's arithmetic, keys, the use case. */
import { describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../shared/errors';
import { MAX_LAMBDA_PAYLOAD_BYTES, MAX_REQUEST_BODY_BYTES } from '../../../shared/local/gateway';
import type { ImagePort } from '../../../shared/ports';
import {
  IMAGE_KEY_PREFIX,
  imageKey,
  imageTypeOf,
  isImageKey,
  MAX_IMAGE_BYTES,
} from '../../../shared/uploads/images';
import { imageFileOf, uploadImage } from '../../../shared/uploads/service';
import {
  imageMultipart,
  pngOfSize,
  svg,
  tinyGif,
  tinyJpeg,
  tinyPng,
  tinyWebp,
} from '../../integration/helpers/uploads';

const bytes = (...values: number[]) => new Uint8Array(values);
const ascii = (text: string) => new TextEncoder().encode(text);

describe('imageTypeOf', () => {
  it('knows PNG, JPEG, GIF (87a and 89a) and WebP (lossy, lossless, extended) by their first bytes', () => {
    expect(imageTypeOf(tinyPng())).toEqual({ contentType: 'image/png', extension: 'png' });
    expect(imageTypeOf(tinyJpeg())).toEqual({ contentType: 'image/jpeg', extension: 'jpg' });
    expect(imageTypeOf(bytes(0xff, 0xd8, 0xff, 0xe1))?.contentType).toBe('image/jpeg'); // Exif
    expect(imageTypeOf(tinyGif())).toEqual({ contentType: 'image/gif', extension: 'gif' });
    expect(imageTypeOf(ascii('GIF87a\x01\x00'))?.contentType).toBe('image/gif');
    expect(imageTypeOf(tinyWebp())).toEqual({ contentType: 'image/webp', extension: 'webp' });
    for (const chunk of ['VP8 ', 'VP8L', 'VP8X'])
      expect(imageTypeOf(ascii(`RIFF\x00\x00\x00\x00WEBP${chunk}`))?.contentType, chunk).toBe('image/webp');
  });

  it('refuses SVG, HTML, other RIFF files, empty and cut-short signatures', () => {
    for (const [what, file] of [
      ['svg', svg()],
      ['svg without a prolog', ascii('<svg xmlns="http://www.w3.org/2000/svg"/>')],
      ['html', ascii('<!doctype html><title>x</title>')],
      ['wav', ascii('RIFF\x24\x00\x00\x00WAVEfmt ')],
      ['riff webp with an unknown chunk', ascii('RIFF\x00\x00\x00\x00WEBPABCD')],
      ['empty', new Uint8Array()],
      ['7 of the 8 PNG signature bytes', tinyPng().subarray(0, 7)],
      ['two JPEG bytes', bytes(0xff, 0xd8)],
      ['GIF without its version', ascii('GIF')],
      ['BMP', ascii('BM\x00\x00')],
    ] as const)
      expect(imageTypeOf(file), what).toBeUndefined();
  });

  it('does not care what comes after the signature', () => {
    expect(imageTypeOf(pngOfSize(100))?.contentType).toBe('image/png');
  });
});

describe('MAX_IMAGE_BYTES', () => {
  it('is 4 MB: base64-encoded, with the multipart envelope and the event around it, it fits a 6 MB invocation', async () => {
    expect(MAX_IMAGE_BYTES).toBe(4 * 1024 * 1024);
    // Lambda's synchronous payload limit (the whole event as JSON) and API Gateway's body limit.
    expect(MAX_LAMBDA_PAYLOAD_BYTES).toBe(6_291_456);
    expect(MAX_REQUEST_BODY_BYTES).toBe(10 * 1024 * 1024);
    const base64 = (n: number) => Math.ceil(n / 3) * 4;
    expect(base64(MAX_IMAGE_BYTES)).toBe(5_592_408);
    expect(MAX_LAMBDA_PAYLOAD_BYTES - base64(MAX_IMAGE_BYTES)).toBe(699_048);
    // The whole multipart body of a 4 MB file, base64-encoded, leaves more than 600 KB for the
    // headers and the request context (a few KB).
    const { body } = await imageMultipart(pngOfSize(MAX_IMAGE_BYTES));
    expect(MAX_LAMBDA_PAYLOAD_BYTES - base64(body.byteLength)).toBeGreaterThan(600 * 1024);
    // 4.5 MB (6 MB x 3/4) is the ceiling where base64 alone fills the invocation; and it is
    // Lambda's limit, not API Gateway's 10 MB, that binds.
    expect(base64(4.5 * 1024 * 1024)).toBe(MAX_LAMBDA_PAYLOAD_BYTES);
    expect(base64(MAX_IMAGE_BYTES)).toBeLessThan(MAX_REQUEST_BODY_BYTES);
  });
});

describe('image keys', () => {
  const type = imageTypeOf(tinyPng())!;

  it('are images/<projectId>/<id>.<extension>, and only those are image keys', () => {
    const key = imageKey(
      '3e9d1c34-0000-4000-8000-000000000001',
      '9f0b0000-0000-4000-8000-000000000002',
      type,
    );
    expect(key).toBe('images/3e9d1c34-0000-4000-8000-000000000001/9f0b0000-0000-4000-8000-000000000002.png');
    expect(key.startsWith(IMAGE_KEY_PREFIX)).toBe(true);
    expect(isImageKey(key)).toBe(true);
    for (const other of [
      'imports/p/j',
      'images/p/../x.png',
      'images/p/x.svg',
      'images/p/q/x.png',
      'images//x.png',
      '/images/p/x.png',
    ])
      expect(isImageKey(other), other).toBe(false);
  });
});

describe('uploadImage', () => {
  const deps = () => {
    const put = vi.fn<ImagePort['put']>(async (key) => ({ url: `https://img.example/${key}` }));
    return { put, deps: { images: { put }, ids: { uuid: () => 'u-1' } } };
  };

  it('stores the bytes under a key of the project with the type the bytes say, and answers where', async () => {
    const { put, deps: d } = deps();
    const file = tinyGif();
    await expect(uploadImage(d, 'p-1', file)).resolves.toEqual({
      url: 'https://img.example/images/p-1/u-1.gif',
      key: 'images/p-1/u-1.gif',
      contentType: 'image/gif',
      size: file.byteLength,
    });
    expect(put).toHaveBeenCalledWith('images/p-1/u-1.gif', file, 'image/gif');
  });

  it('refuses an SVG with a 422 naming the file, and stores nothing', async () => {
    const { put, deps: d } = deps();
    const error = await uploadImage(d, 'p-1', svg()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      statusCode: 422,
      code: 'VALIDATION_ERROR',
      extra: { errors: [{ field: 'file', code: 'unsupported_image_type' }] },
    });
    expect(put).not.toHaveBeenCalled();
  });

  it('refuses more than 4 MB with 413', async () => {
    const { put, deps: d } = deps();
    await expect(uploadImage(d, 'p-1', pngOfSize(MAX_IMAGE_BYTES + 1))).rejects.toMatchObject({
      statusCode: 413,
      code: 'FILE_TOO_LARGE',
    });
    expect(put).not.toHaveBeenCalled();
  });
});

describe('imageFileOf', () => {
  it('takes the bytes of the part "file"', async () => {
    const { body, contentType } = await imageMultipart(tinyPng());
    expect(new Uint8Array(await imageFileOf(body, contentType))).toEqual(tinyPng());
  });

  it('answers a missing file as the flat 400 of a missing required field', async () => {
    const other = await imageMultipart(tinyPng(), { field: 'image' });
    for (const [body, type] of [
      [other.body, other.contentType],
      [undefined, undefined],
      [ascii('{"file":"x"}'), 'application/json'],
    ] as const) {
      await expect(imageFileOf(body, type)).rejects.toMatchObject({
        statusCode: 400,
        extra: { flat: true },
        message: expect.stringMatching(/^file is required/),
      });
    }
  });

  it('answers a broken or ambiguous body with a 400 in the envelope, and a large file with 413', async () => {
    const { body, contentType } = await imageMultipart(tinyPng());
    const cut = await imageFileOf(body.subarray(0, body.length - 10), contentType).catch((e: AppError) => e);
    expect(cut).toMatchObject({
      statusCode: 400,
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/ends/),
    });
    expect((cut as AppError).extra.flat).toBeUndefined();
    const form = new FormData();
    form.append('file', new Blob([tinyPng()]), 'a.png');
    form.append('file', new Blob([tinyPng()]), 'b.png');
    const twice = new Request('http://localhost/', { method: 'POST', body: form });
    await expect(
      imageFileOf(new Uint8Array(await twice.arrayBuffer()), twice.headers.get('content-type')!),
    ).rejects.toMatchObject({ statusCode: 400, message: expect.stringMatching(/more than one part/) });
    const large = await imageMultipart(pngOfSize(MAX_IMAGE_BYTES + 1));
    await expect(imageFileOf(large.body, large.contentType)).rejects.toMatchObject({ statusCode: 413 });
  });
});
