/**
 * Helpers for image upload tests: tiny files of each accepted format (and some that are not
 * images), and multipart bodies as a browser sends them.
 */
import { crc32, deflateSync } from 'node:zlib';
import type { ApiClient } from './api';

const ascii = (text: string) => new TextEncoder().encode(text);
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
const u32be = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const u32le = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};

function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const typed = concat(ascii(type), data);
  return concat(u32be(data.length), typed, u32be(crc32(typed)));
}

/** A complete, decodable 1x1 PNG (one red pixel), built chunk by chunk with real CRCs. */
export function tinyPng(): Uint8Array {
  const ihdr = concat(u32be(1), u32be(1), new Uint8Array([8, 2, 0, 0, 0])); // 8-bit RGB
  const scanline = new Uint8Array([0, 255, 0, 0]); // filter none, one red pixel
  return concat(
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(scanline)),
    pngChunk('IEND', new Uint8Array()),
  );
}

/** The start of a JFIF JPEG (SOI, APP0 header) and its end (EOI): what the check reads. */
export function tinyJpeg(): Uint8Array {
  return concat(
    new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
    ascii('JFIF\0'),
    new Uint8Array([0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xd9]),
  );
}

/** A complete 1x1 GIF89a (one transparent pixel). */
export function tinyGif(): Uint8Array {
  return concat(
    ascii('GIF89a'),
    new Uint8Array([
      0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x21, 0xf9, 0x04, 0x01,
      0x00, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44,
      0x01, 0x00, 0x3b,
    ]),
  );
}

/** A RIFF/WEBP container with one lossless (`VP8L`) chunk of a 1x1 image. */
export function tinyWebp(): Uint8Array {
  const vp8l = new Uint8Array([0x2f, 0x00, 0x00, 0x00, 0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xfe, 0x07]);
  const chunk = concat(ascii('VP8L'), u32le(vp8l.length), vp8l, new Uint8Array([0])); // padded to even
  return concat(ascii('RIFF'), u32le(4 + chunk.length), ascii('WEBP'), chunk);
}

/** An SVG image: XML, which a browser runs scripts in. Never accepted. */
export function svg(): Uint8Array {
  return ascii(
    '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="1" height="1">' +
      '<script>alert(document.domain)</script><rect width="1" height="1"/></svg>',
  );
}

/** A PNG signature followed by `size - 8` bytes of padding: a file of exactly `size` bytes. */
export function pngOfSize(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  bytes.set(tinyPng().subarray(0, 8));
  return bytes;
}

export interface ImagePart {
  /** @default 'file' */
  readonly field?: string;
  /** @default 'image.png' */
  readonly filename?: string;
  /** The declared type of the part. @default 'image/png' */
  readonly type?: string;
}

/** A multipart/form-data body holding `bytes` in one part (as a browser's FormData sends it). */
export async function imageMultipart(
  bytes: Uint8Array,
  part: ImagePart = {},
): Promise<{ body: Uint8Array; contentType: string }> {
  const form = new FormData();
  form.append(
    part.field ?? 'file',
    new Blob([bytes], { type: part.type ?? 'image/png' }),
    part.filename ?? 'image.png',
  );
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    body: new Uint8Array(await request.arrayBuffer()),
    contentType: request.headers.get('content-type')!,
  };
}

/** POSTs `bytes` to /uploads/image as a multipart upload; returns the raw response. */
export async function postImage(
  rt: ApiClient,
  bytes: Uint8Array,
  options: ImagePart & { key?: string | null } = {},
) {
  const { body, contentType } = await imageMultipart(bytes, options);
  return rt.api('POST', '/uploads/image', {
    raw: body,
    key: options.key,
    headers: { 'content-type': contentType },
  });
}
