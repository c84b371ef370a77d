/**
 * `POST /uploads/image`: reads the image out of the multipart body, checks by its bytes that it
 * is a PNG, JPEG, GIF or WebP, and stores it where it is served from, under a key of the caller's
 * project (shared/uploads/images.ts).
 */
import { AppError, badRequest, flatBadRequest, validationError } from '../errors';
import { MultipartFileError, readFilePart } from '../http/multipart';
import type { Deps } from '../ports';
import { imageKey, imageTypeOf, MAX_IMAGE_BYTES } from './images';

/** The answer of an upload (201). */
export interface UploadedImage {
  /** Public and long-lived: the image is never moved or replaced. */
  readonly url: string;
  readonly key: string;
  /** The type the bytes say, whatever the client declared. */
  readonly contentType: string;
  /** In bytes. */
  readonly size: number;
}

const tooLarge = () =>
  new AppError(
    413,
    'FILE_TOO_LARGE',
    `The image is larger than ${MAX_IMAGE_BYTES} bytes (${MAX_IMAGE_BYTES / 1024 / 1024} MB), the most an upload takes`,
    { details: { maxBytes: MAX_IMAGE_BYTES } },
  );

/**
 * The file of the request's multipart body (part `file`). A missing file is the flat 400
 * of a missing required field, as contact, template and segment creation answer it; a body that
 * is multipart but broken is a 400 in the envelope; a file over the limit is 413.
 */
export async function imageFileOf(
  body: Uint8Array | undefined,
  contentType: string | undefined,
): Promise<Uint8Array> {
  try {
    return await readFilePart(body ?? new Uint8Array(), contentType, { maxBytes: MAX_IMAGE_BYTES });
  } catch (error) {
    if (!(error instanceof MultipartFileError)) throw error;
    switch (error.problem) {
      case 'NOT_MULTIPART':
      case 'MISSING_FILE':
        throw flatBadRequest(
          'file is required: send the image as multipart/form-data in a part named "file"',
        );
      case 'FILE_TOO_LARGE':
        throw tooLarge();
      case 'REPEATED_FILE':
        throw badRequest('Send one image: the body has more than one part named "file"');
      case 'TRUNCATED':
        throw badRequest('Malformed multipart body: it ends before its closing boundary');
      case 'UNREADABLE':
        throw badRequest(`Malformed multipart body: ${error.message}`);
    }
  }
}

/**
 * Stores `file` as an image of `projectId` and answers where it is served. Anything but a PNG,
 * JPEG, GIF or WebP by its magic numbers (an SVG, a renamed HTML page, an empty file) is a 422.
 */
export async function uploadImage(
  deps: Pick<Deps, 'images' | 'ids'>,
  projectId: string,
  file: Uint8Array,
): Promise<UploadedImage> {
  if (file.byteLength > MAX_IMAGE_BYTES) throw tooLarge();
  const type = imageTypeOf(file);
  if (!type) {
    throw validationError(
      [
        {
          field: 'file',
          code: 'unsupported_image_type',
          message: 'Expected a PNG, JPEG, GIF or WebP image (judged by the file bytes, not its name or type)',
        },
      ],
      'The file is not a PNG, JPEG, GIF or WebP image',
    );
  }
  const key = imageKey(projectId, deps.ids.uuid(), type);
  const { url } = await deps.images.put(key, file, type.contentType);
  return { url, key, contentType: type.contentType, size: file.byteLength };
}
