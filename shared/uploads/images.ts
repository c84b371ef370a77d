/**
 * Image uploads (`POST /uploads/image`, docs/uploads.md): which files are
 * images, judged by their bytes alone, how large one may be, and the key it is stored under.
 */

/**
 * The largest image accepted: 4 MB (4,194,304 bytes), the most that fits through a Lambda
 * invocation once API Gateway has base64-encoded it.
 *
 * - Lambda refuses a synchronous invocation whose payload (the whole event, as JSON) is over 6 MB,
 *   6,291,456 bytes (Lambda quotas; `MAX_LAMBDA_PAYLOAD_BYTES` in shared/local/gateway.ts).
 * - An HTTP API hands Lambda a body whose content type is not text (`multipart/form-data` among
 *   them) base64-encoded: 4 bytes for every 3, so the body may be at most 6,291,456 x 3/4 =
 *   4,718,592 bytes (4.5 MB), less the rest of the event (headers, request context: a few KB).
 * - A 4 MB file is 5,592,408 bytes of base64, which leaves 699,048 bytes for the multipart
 *   envelope, the headers and the rest of the event. The HTTP API's own 10 MB payload limit is
 *   never the one that binds.
 *
 * A file over 4 MB whose request still fits in the invocation is refused here (413); a larger one
 * never reaches the function: Lambda refuses the invocation (the local gateway answers 413, as
 * API Gateway surfaces Lambda's RequestEntityTooLarge). test/unit/uploads/images.test.ts
 * checks the arithmetic; test/integration/uploads.test.ts sends a file of exactly this size
 * through the local gateway, which enforces the same limits.
 */
export const MAX_IMAGE_BYTES = 4 * 1024 * 1024;

/** An accepted image type: what it is served as and the extension of its key. */
export interface ImageType {
  readonly contentType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  readonly extension: 'png' | 'jpg' | 'gif' | 'webp';
}

const PNG: ImageType = { contentType: 'image/png', extension: 'png' };
const JPEG: ImageType = { contentType: 'image/jpeg', extension: 'jpg' };
const GIF: ImageType = { contentType: 'image/gif', extension: 'gif' };
const WEBP: ImageType = { contentType: 'image/webp', extension: 'webp' };

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/** `signature` at `offset` of `bytes`. */
function startsWith(bytes: Uint8Array, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false;
  return signature.every((b, i) => bytes[offset + i] === b);
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
// Start of image, then the first marker's 0xFF (APP0 JFIF, APP1 Exif, a table, ...).
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff];
const GIF87A = ascii('GIF87a');
const GIF89A = ascii('GIF89a');
const RIFF = ascii('RIFF');
const WEBP_FORMAT = ascii('WEBP');
/** The first chunk of a WebP file: lossy, lossless or extended. */
const WEBP_CHUNKS = [ascii('VP8 '), ascii('VP8L'), ascii('VP8X')];

/**
 * The image type of a file by its magic numbers, or undefined when it is none of PNG, JPEG, GIF
 * and WebP. Only the bytes count: a declared content type or a file name says what the sender
 * claims, and an SVG (XML that a browser runs scripts in) or an HTML page named `.png` must never
 * be served from the image domain.
 */
export function imageTypeOf(bytes: Uint8Array): ImageType | undefined {
  if (startsWith(bytes, PNG_SIGNATURE)) return PNG;
  if (startsWith(bytes, JPEG_SIGNATURE)) return JPEG;
  if (startsWith(bytes, GIF87A) || startsWith(bytes, GIF89A)) return GIF;
  if (
    startsWith(bytes, RIFF) &&
    startsWith(bytes, WEBP_FORMAT, 8) &&
    WEBP_CHUNKS.some((chunk) => startsWith(bytes, chunk, 12))
  )
    return WEBP;
  return undefined;
}

/** Every image key starts with this; the images bucket holds nothing else. */
export const IMAGE_KEY_PREFIX = 'images/';

/**
 * Where an image is stored and served: `images/<projectId>/<id>.<extension>`. Nothing of it comes
 * from the request: the project is the caller's and the id a new UUID, so one project can never
 * write over another's images, nor choose where its own go.
 */
export const imageKey = (projectId: string, id: string, type: ImageType) =>
  `${IMAGE_KEY_PREFIX}${projectId}/${id}.${type.extension}`;

/**
 * How long an image may be cached: a key is written once and never replaced (each upload makes a
 * new one), so CloudFront and browsers may keep an image for a year without asking again.
 */
export const IMAGE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

const IMAGE_KEY = /^images\/[A-Za-z0-9-]{1,64}\/[A-Za-z0-9-]{1,64}\.(png|jpg|gif|webp)$/;

/** Whether `key` is one `imageKey` can make (the local runtime serves only those). */
export const isImageKey = (key: string) => IMAGE_KEY.test(key);
