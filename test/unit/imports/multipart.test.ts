/**
 * A stored upload body that ends inside a part (no closing boundary) is a job-level
 * `INVALID_UPLOAD`, never an uncaught "Part terminated early" from busboy's part stream.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ImportFileError } from '../../../shared/imports/csv';
import { extractFilePart } from '../../../shared/imports/multipart';

const enc = (s: string) => new TextEncoder().encode(s);
const type = 'multipart/form-data; boundary=B';

let uncaught: unknown[] = [];
const onUncaught = (error: unknown) => uncaught.push(error);
beforeEach(() => {
  uncaught = [];
  process.prependListener('uncaughtException', onUncaught);
});
afterEach(() => {
  process.off('uncaughtException', onUncaught);
});

/** Lets busboy's deferred events (process.nextTick, setImmediate) run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('extractFilePart with a body cut short', () => {
  it('rejects the unterminated file part with INVALID_UPLOAD and raises nothing', async () => {
    const body = enc('--B\r\nContent-Disposition: form-data; name="file"\r\n\r\nemail\nx@y.test');
    const error = await extractFilePart(body, type).catch((e: unknown) => e);
    await settle();
    expect(uncaught).toEqual([]);
    expect(error).toBeInstanceOf(ImportFileError);
    expect(error).toMatchObject({ code: 'INVALID_UPLOAD', message: expect.stringMatching(/cut short/) });
  });

  it('does the same when the cut-off part is another file part (one that is skipped)', async () => {
    const body = enc(
      '--B\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nemail\na@y.test\r\n' +
        '--B\r\nContent-Disposition: form-data; name="other"; filename="b.csv"\r\n\r\nemail\nb@y.test',
    );
    const error = await extractFilePart(body, type).catch((e: unknown) => e);
    await settle();
    expect(error).toMatchObject({ code: 'INVALID_UPLOAD' });
    expect(uncaught).toEqual([]);
  });

  it('still reads a complete body', async () => {
    const body = enc(
      '--B\r\nContent-Disposition: form-data; name="file"\r\n\r\nemail\nx@y.test\r\n--B--\r\n',
    );
    const file = await extractFilePart(body, type);
    expect(new TextDecoder().decode(file)).toBe('email\nx@y.test');
    expect(uncaught).toEqual([]);
  });
});
