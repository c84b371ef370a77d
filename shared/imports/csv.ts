/**
 * The CSV import format (docs/imports.md), as pure functions over the file's bytes:
 * the header row and its columns, the typing of cell values, and a row reader that resumes at a
 * byte offset, so a chunk of a file can be read without reading what came before it.
 */
import { Readable } from 'node:stream';
import { CsvError, type Options, parse } from 'csv-parse';
import { isForbiddenKey } from '../contacts/data';
import { isCanonicalDate, isRealDateTime } from '../contacts/dates';
import { emailSchema } from '../contacts/email';

/** Columns that are silently dropped: core fields and the generated URL variables. */
export const DROPPED_COLUMNS: ReadonlySet<string> = new Set(
  ['id', 'subscribed', 'createdAt', 'updatedAt', 'unsubscribeUrl', 'subscribeUrl', 'manageUrl'].map((c) =>
    c.toLowerCase(),
  ),
);

const MAX_KEY_LENGTH = 100;
const MAX_COLUMNS = 500;

/** A job-level problem with the file: the import fails as a whole and writes nothing. */
export class ImportFileError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ImportFileError';
  }
}

/** Where each column's value goes: the email, a data path, or nowhere. */
export interface CsvLayout {
  /** Index of the `email` column. */
  readonly emailIndex: number;
  /** Data path (split on dots, for nested fields) by column index; undefined for ignored columns. */
  readonly paths: readonly (readonly string[] | undefined)[];
  /** Number of columns in the header. */
  readonly width: number;
}

/**
 * Reads the header: `email` is required (matched case-insensitively), dropped and nameless
 * columns are ignored, a dotted name is a nested path (`profile.tier` -> data.profile.tier).
 * Duplicate or unusable names fail the whole file, since which value wins would be a guess.
 */
export function layoutOf(header: readonly string[]): CsvLayout {
  if (header.length > MAX_COLUMNS) {
    throw new ImportFileError(
      'TOO_MANY_COLUMNS',
      `The file has ${header.length} columns; at most ${MAX_COLUMNS} are accepted`,
    );
  }
  const names = header.map((h) => h.trim());
  const emailIndexes = names.flatMap((n, i) => (n.toLowerCase() === 'email' ? [i] : []));
  if (emailIndexes.length === 0) {
    throw new ImportFileError('MISSING_EMAIL_COLUMN', 'The header row has no "email" column');
  }
  if (emailIndexes.length > 1) {
    throw new ImportFileError('DUPLICATE_COLUMN', 'The header row has more than one "email" column');
  }
  const seen = new Set<string>();
  const paths = names.map((name, i) => {
    if (i === emailIndexes[0] || name === '' || DROPPED_COLUMNS.has(name.toLowerCase())) return undefined;
    const parts = name.split('.');
    // Like any other unusable name, the whole file fails with the reason (never a retried crash).
    const forbidden = parts.find(isForbiddenKey);
    if (forbidden !== undefined) {
      throw new ImportFileError(
        'INVALID_COLUMN',
        `Column ${i + 1} ("${name}") uses the reserved name "${forbidden}": __proto__, constructor and prototype cannot be field names`,
      );
    }
    if (parts.some((p) => p === '' || p.length > MAX_KEY_LENGTH)) {
      throw new ImportFileError(
        'INVALID_COLUMN',
        `Column ${i + 1} ("${name}") is not a usable field name: names are dot-separated parts of 1 to ${MAX_KEY_LENGTH} characters`,
      );
    }
    if (seen.has(name))
      throw new ImportFileError('DUPLICATE_COLUMN', `Column "${name}" appears more than once`);
    seen.add(name);
    return parts;
  });
  // `a` and `a.b` would both claim data.a.
  for (const name of seen) {
    const parts = name.split('.');
    for (let n = 1; n < parts.length; n++) {
      const prefix = parts.slice(0, n).join('.');
      if (seen.has(prefix)) {
        throw new ImportFileError(
          'DUPLICATE_COLUMN',
          `Columns "${prefix}" and "${name}" both set data.${prefix}`,
        );
      }
    }
  }
  return { emailIndex: emailIndexes[0]!, paths, width: header.length };
}

const BOOLEANS: Readonly<Record<string, boolean>> = { true: true, false: false, yes: true, no: false };
/** Plain integers and decimals: no leading zero (except `0` and `0.x`), no plus sign, no exponent. */
const PLAIN_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?$/;
/** ISO 8601 date-times with a zone (Z or an offset), seconds and fractions optional. */
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * Types one cell: `true/false/yes/no` in any case are booleans; plain
 * integers and decimals are numbers unless a number would change them (more digits than a double
 * keeps); ISO 8601 date-times with a zone become the UTC form the type registry reads as a date
 * (`2024-05-01T10:00:00+02:00` -> `2024-05-01T08:00:00.000Z`); `YYYY-MM-DD` stays as it is (it is
 * a date already). Only real calendar dates and times count (`2024-13-45`, `2024-02-30` and
 * `24:00` stay strings). Everything else stays the string it was.
 */
export function typeCell(raw: string): string | number | boolean {
  const lower = raw.toLowerCase();
  if (lower in BOOLEANS) return BOOLEANS[lower]!;
  if (PLAIN_NUMBER.test(raw)) {
    const n = Number(raw);
    const digits = raw.replace(/^-/, '').replace('.', '').replace(/^0+/, '').length;
    if (Number.isFinite(n) && digits <= 15) return n;
    return raw;
  }
  if (isCanonicalDate(raw)) return raw;
  const iso = ISO_DATE_TIME.exec(raw);
  if (iso) {
    const [year, month, day, hour, minute, second = '0'] = iso.slice(1, 7);
    if (!isRealDateTime(+year!, +month!, +day!, +hour!, +minute!, +second)) return raw;
    const t = Date.parse(raw.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
    if (!Number.isNaN(t)) return new Date(t).toISOString();
  }
  return raw;
}

export type RowOutcome =
  | {
      readonly kind: 'contact';
      readonly row: number;
      readonly email: string;
      readonly data: Record<string, unknown>;
    }
  | { readonly kind: 'error'; readonly row: number; readonly email: string; readonly reason: string };

/**
 * Turns one record into a contact row or a row error. `row` is the spreadsheet row number: the
 * header is row 1, the first record row 2 (a quoted cell spanning lines still counts once).
 */
export function readRow(layout: CsvLayout, cells: readonly string[], row: number): RowOutcome {
  const rawEmail = (cells[layout.emailIndex] ?? '').trim();
  if (cells.length > layout.width) {
    return { kind: 'error', row, email: rawEmail, reason: 'too_many_fields' };
  }
  const email = emailSchema.safeParse(rawEmail);
  if (!email.success) return { kind: 'error', row, email: rawEmail.slice(0, 254), reason: 'invalid_email' };
  const data: Record<string, unknown> = {};
  layout.paths.forEach((path, i) => {
    const cell = cells[i];
    if (!path || cell === undefined || cell === '') return;
    let node = data;
    for (const part of path.slice(0, -1)) {
      const next = Object.hasOwn(node, part) ? node[part] : undefined;
      if (typeof next === 'object' && next !== null) node = next as Record<string, unknown>;
      else node = node[part] = {};
    }
    node[path[path.length - 1]!] = typeCell(cell);
  });
  return { kind: 'contact', row, email: email.data, data };
}

/** One parsed record and the byte offset just after it (where the next record starts). */
export interface CsvRecord {
  readonly cells: string[];
  readonly end: number;
  /** A blank line, or a row whose cells are all empty (a spreadsheet's empty row). */
  readonly blank: boolean;
}

const PARSE_OPTIONS: Options = {
  // Quoted fields keep commas, quotes and newlines; surrounding spaces are not part of values.
  trim: true,
  relax_column_count: true,
  // Whatever line ending a record uses (files edited on several systems mix them).
  record_delimiter: ['\r\n', '\n', '\r'],
  max_record_size: 1024 * 1024,
  info: true,
};

/**
 * Streams the records of `file` starting at byte `from`, each with the offset after it. A UTF-8
 * byte-order mark at the very start is skipped. Blank records are yielded too (flagged), so that
 * callers can number rows as a spreadsheet does. Any syntax error (a quote inside an unquoted
 * field, an unclosed quote, text after a closing quote, a record over 1 MB) throws
 * `ImportFileError` INVALID_CSV naming the file's line where the failing record starts.
 */
export async function* readRecords(file: Uint8Array, from = 0): AsyncGenerator<CsvRecord> {
  const start = from === 0 && hasBom(file) ? 3 : from;
  // Where the record being parsed starts: after the last one csv-parse completed (it parses ahead
  // of what is yielded, and a stream that fails drops the records it had not handed over yet).
  let recordStart = start;
  const parser = Readable.from([
    Buffer.from(file.buffer, file.byteOffset + start, file.byteLength - start),
  ]).pipe(
    parse({
      ...PARSE_OPTIONS,
      on_record: (record, context) => {
        recordStart = start + context.bytes;
        return record;
      },
    }),
  );
  try {
    for await (const item of parser as AsyncIterable<{ record: string[]; info: { bytes: number } }>) {
      yield { cells: item.record, end: start + item.info.bytes, blank: item.record.every((c) => c === '') };
    }
  } catch (error) {
    // Every csv-parse error is about the file's bytes (its codes are not all `CSV_`-prefixed:
    // INVALID_OPENING_QUOTE is not), so none is worth a retry.
    if (error instanceof CsvError) throw invalidCsv(error, lineAt(file, recordStart));
    throw error;
  } finally {
    parser.destroy();
  }
}

/** What csv-parse's codes mean for someone fixing the file; its own message otherwise. */
const CSV_PROBLEMS: Readonly<Record<string, string>> = {
  INVALID_OPENING_QUOTE:
    'a quote inside an unquoted field (quote the whole field and double the quote: "a""b")',
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is never closed',
  CSV_INVALID_CLOSING_QUOTE: 'a closing quote is followed by other characters than a comma or line end',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE:
    'a closing quote is followed by other characters than a comma or line end',
  CSV_MAX_RECORD_SIZE: 'a record is larger than 1 MB',
};

function invalidCsv(error: CsvError, line: number): ImportFileError {
  // csv-parse counts lines from where this read started, so its "at line N" is left out.
  const problem = CSV_PROBLEMS[error.code] ?? error.message.replace(/\s*at line \d+/, '');
  return new ImportFileError('INVALID_CSV', `The file is not valid CSV at line ${line}: ${problem}`);
}

/** The 1-based line of the byte at `offset`, counting CRLF, LF and CR endings as one line each. */
function lineAt(file: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < file.length; i++) {
    if (file[i] === 0x0a || (file[i] === 0x0d && file[i + 1] !== 0x0a)) line++;
  }
  return line;
}

export function hasBom(file: Uint8Array): boolean {
  return file[0] === 0xef && file[1] === 0xbb && file[2] === 0xbf;
}

/** Rejects bytes that are not UTF-8 (the encoding is UTF-8). */
export function assertUtf8(file: Uint8Array): void {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(file);
  } catch (error) {
    // The decoder's refusal of the bytes; anything else is not about the file.
    if ((error as { code?: unknown } | null)?.code !== 'ERR_ENCODING_INVALID_ENCODED_DATA') throw error;
    throw new ImportFileError('INVALID_ENCODING', 'The file is not UTF-8 text');
  }
}
