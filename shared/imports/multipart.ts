/**
 * Takes the `file` part out of a stored `multipart/form-data` request body (the import upload),
 * with the parser the image upload uses too (shared/http/multipart.ts). The body is whatever API
 * Gateway stored, so every failure here is a job-level `ImportFileError` rather than an exception.
 */
import { isMultipart, MultipartFileError, type MultipartFileProblem, readFilePart } from '../http/multipart';
import { ImportFileError } from './csv';

export { isMultipart };

/** The largest CSV file accepted (5 MB). */
export const MAX_IMPORT_FILE_BYTES = 5 * 1024 * 1024;

/** The bytes of the part named `file`; fails when it is missing, repeated or too large. */
export async function extractFilePart(
  body: Uint8Array,
  contentType: string | undefined,
  maxBytes = MAX_IMPORT_FILE_BYTES,
): Promise<Uint8Array> {
  try {
    return await readFilePart(body, contentType, { maxBytes });
  } catch (error) {
    if (!(error instanceof MultipartFileError)) throw error;
    throw importFileError(error.problem, error.message, maxBytes);
  }
}

/** What the import job records for each problem the parser reports. */
function importFileError(problem: MultipartFileProblem, reason: string, maxBytes: number): ImportFileError {
  switch (problem) {
    case 'NOT_MULTIPART':
      return new ImportFileError(
        'INVALID_UPLOAD',
        'Send the CSV as multipart/form-data with the file in a part named "file"',
      );
    case 'FILE_TOO_LARGE':
      return new ImportFileError(
        'FILE_TOO_LARGE',
        `The file is larger than ${maxBytes} bytes (${maxBytes / 1024 / 1024} MB), the most an import takes`,
      );
    case 'MISSING_FILE':
      return new ImportFileError('MISSING_FILE', 'The upload has no part named "file"');
    case 'REPEATED_FILE':
      return new ImportFileError('INVALID_UPLOAD', 'The upload has more than one part named "file"');
    case 'TRUNCATED':
      return new ImportFileError(
        'INVALID_UPLOAD',
        'The upload is cut short: the multipart body ends before its closing boundary; send the whole file again',
      );
    case 'UNREADABLE':
      return new ImportFileError('INVALID_UPLOAD', `The multipart body cannot be read: ${reason}`);
  }
}
