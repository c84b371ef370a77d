/**
 * Takes the `file` part out of a stored `multipart/form-data` request body (the import upload),
 * with a maintained parser. The body is whatever API Gateway stored, so every failure here is a
 * job-level `ImportFileError` rather than an exception.
 */
import { Busboy } from '@fastify/busboy';
import { ImportFileError } from './csv';

/** The largest CSV file accepted (spec, Limits: CSV upload 5 MB). */
export const MAX_IMPORT_FILE_BYTES = 5 * 1024 * 1024;

export function isMultipart(contentType: string | undefined): boolean {
  return /^multipart\/form-data\s*;.*boundary=/i.test(contentType ?? '');
}

/** The bytes of the part named `file`; fails when it is missing, repeated or too large. */
export async function extractFilePart(
  body: Uint8Array,
  contentType: string | undefined,
  maxBytes = MAX_IMPORT_FILE_BYTES,
): Promise<Uint8Array> {
  if (!isMultipart(contentType)) {
    throw new ImportFileError(
      'INVALID_UPLOAD',
      'Send the CSV as multipart/form-data with the file in a part named "file"',
    );
  }
  return new Promise<Uint8Array>((resolve, reject) => {
    // Settles once: a broken body makes busboy report the same problem on the parser and on
    // the part being read.
    let settled = false;
    const fail = (error: ImportFileError) => {
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
        // A part named `file` is the file even when the client sent no filename with it.
        isPartAFile: (name, _type, filename) => name === 'file' || filename !== undefined,
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
      if (name !== 'file') {
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
        fail(
          new ImportFileError(
            'FILE_TOO_LARGE',
            `The file is larger than ${maxBytes} bytes (${maxBytes / 1024 / 1024} MB), the most an import takes`,
          ),
        );
      } else if (found === 0) {
        fail(new ImportFileError('MISSING_FILE', 'The upload has no part named "file"'));
      } else if (found > 1) {
        fail(new ImportFileError('INVALID_UPLOAD', 'The upload has more than one part named "file"'));
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

/** The job-level error for a body the parser cannot read. */
function unreadable(error: unknown): ImportFileError {
  const reason = error instanceof Error ? error.message : String(error);
  if (/unexpected end|terminated early/i.test(reason)) {
    return new ImportFileError(
      'INVALID_UPLOAD',
      'The upload is cut short: the multipart body ends before its closing boundary; send the whole file again',
    );
  }
  return new ImportFileError('INVALID_UPLOAD', `The multipart body cannot be read: ${reason}`);
}
