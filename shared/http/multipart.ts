/**
 * Reads the one file part of a `multipart/form-data` body, with a maintained parser (busboy).
 * Shared by the import upload (a body API Gateway stored in S3, read by the import job) and the
 * image upload (a body a route Lambda received): each says what its callers are told when the
 * body is not what it wants, from the `reason` of the `MultipartFileError` thrown here.
 */
import { Busboy } from '@fastify/busboy';

export function isMultipart(contentType: string | undefined): boolean {
  return /^multipart\/form-data\s*;.*boundary=/i.test(contentType ?? '');
}

/** Why a body gave no file. */
export type MultipartFileProblem =
  /** The content type is not `multipart/form-data` with a boundary. */
  | 'NOT_MULTIPART'
  /** No part has the file's name. */
  | 'MISSING_FILE'
  /** More than one part has the file's name. */
  | 'REPEATED_FILE'
  /** The file is larger than allowed. */
  | 'FILE_TOO_LARGE'
  /** The body ends before its closing boundary (a cut-short upload). */
  | 'TRUNCATED'
  /** The parser cannot read the body; the message says why. */
  | 'UNREADABLE';

export class MultipartFileError extends Error {
  constructor(
    readonly problem: MultipartFileProblem,
    message: string,
  ) {
    super(message);
    this.name = 'MultipartFileError';
  }
}

export interface FilePartOptions {
  /** The largest file accepted, in bytes. */
  readonly maxBytes: number;
  /** The name of the part holding the file. @default 'file' */
  readonly field?: string;
}

/**
 * The bytes of the part named `field` (`file`); throws `MultipartFileError` when the body is not
 * multipart, the part is missing or repeated, the file is larger than `maxBytes`, or the body
 * cannot be read. Never raises an uncaught error, whatever the body.
 */
export async function readFilePart(
  body: Uint8Array,
  contentType: string | undefined,
  options: FilePartOptions,
): Promise<Uint8Array> {
  const field = options.field ?? 'file';
  const { maxBytes } = options;
  if (!isMultipart(contentType)) {
    throw new MultipartFileError('NOT_MULTIPART', 'The body is not multipart/form-data with a boundary');
  }
  return new Promise<Uint8Array>((resolve, reject) => {
    // Settles once: a broken body makes busboy report the same problem on the parser and on
    // the part being read.
    let settled = false;
    const fail = (error: MultipartFileError) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    const succeed = (bytes: Uint8Array) => {
      if (settled) return;
      settled = true;
      resolve(bytes);
    };
    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({
        headers: { 'content-type': contentType! },
        // The part named `field` is the file even when the client sent no filename with it.
        isPartAFile: (name, _type, filename) => name === field || filename !== undefined,
        limits: { fileSize: maxBytes, files: 10, fields: 100, parts: 110 },
      });
    } catch (error) {
      fail(unreadable(error));
      return;
    }
    const chunks: Buffer[] = [];
    let found = 0;
    let tooLarge = false;
    parser.on('file', (name, stream) => {
      // Every part stream gets an error listener, read or not: a body that ends inside a part
      // (no closing boundary) makes busboy emit "Part terminated early" on the part's stream,
      // and an 'error' event nobody listens to is an uncaught exception that ends the process.
      stream.on('error', (error: unknown) => fail(unreadable(error)));
      if (name !== field) {
        stream.resume();
        return;
      }
      found++;
      stream.on('data', (chunk: Buffer) => {
        if (found === 1) chunks.push(chunk);
      });
      stream.on('limit', () => {
        tooLarge = true;
      });
    });
    parser.on('error', (error: unknown) => fail(unreadable(error)));
    parser.on('finish', () => {
      if (tooLarge) {
        fail(new MultipartFileError('FILE_TOO_LARGE', `The file is larger than ${maxBytes} bytes`));
      } else if (found === 0) {
        fail(new MultipartFileError('MISSING_FILE', `The body has no part named "${field}"`));
      } else if (found > 1) {
        fail(new MultipartFileError('REPEATED_FILE', `The body has more than one part named "${field}"`));
      } else {
        succeed(Buffer.concat(chunks));
      }
    });
    try {
      parser.end(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
    } catch (error) {
      fail(unreadable(error));
    }
  });
}

/** The error for a body the parser cannot read. */
function unreadable(error: unknown): MultipartFileError {
  const reason = error instanceof Error ? error.message : String(error);
  if (/unexpected end|terminated early/i.test(reason)) {
    return new MultipartFileError('TRUNCATED', 'The body ends before its closing boundary');
  }
  return new MultipartFileError('UNREADABLE', reason);
}
