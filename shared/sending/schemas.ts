/**
 * The `POST /v1/send` body and its limits. Every rule is checked before anything
 * is written, so a refused request changes nothing.
 */
import * as z from 'zod/mini';
import { emailSchema } from '../contacts/email';
import { validationError } from '../errors';
import { toFieldIssues, uuidId } from '../http/validation';
import { acceptsOnWire } from '../http/wire';
import { MAX_TEMPLATE_CHARS } from '../rendering/limits';
import { displayNameSchema, subjectSchema } from '../templates/schemas';

/** Recipients per request; each is a contact upsert, a render and a send within the 29 s budget. */
export const MAX_RECIPIENTS = 50;
export const MAX_ATTACHMENTS = 10;
/** Decoded size of all attachments together (10 MB by default). */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
/** The whole MIME message (40 MB, SES's own limit). */
export const MAX_MESSAGE_BYTES = 40 * 1024 * 1024;
export const MAX_HEADER_VALUE_CHARS = 998;
export const MAX_CUSTOM_HEADERS = 50;

/**
 * Headers the service writes itself; a request may not set them (422 `reserved_header`). The
 * `X-SES-` family would steer Amazon SES (configuration set, tags), so it is closed as well.
 */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'subject',
  'reply-to',
  'sender',
  'date',
  'message-id',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'content-disposition',
  'content-id',
  'return-path',
  'received',
  'dkim-signature',
  'list-unsubscribe',
  'list-unsubscribe-post',
]);
const RESERVED_HEADER_PREFIXES = ['x-ses-'];

/** RFC 5322 field name: printable ASCII except the colon. */
const HEADER_NAME = /^[\x21-\x39\x3b-\x7e]{1,100}$/;
const TOKEN = '[A-Za-z0-9!#$&^_.+-]';
/** RFC 6838 type/subtype, optionally with parameters (`text/plain; charset=utf-8`). */
const MIME_TYPE = new RegExp(
  `^${TOKEN}{1,127}/${TOKEN}{1,127}(\\s*;\\s*${TOKEN}+=(?:"[^"\\r\\n]*"|${TOKEN}+))*$`,
);
// One character class, no groups: linear on megabytes of content.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Base64 without the line breaks and spaces MIME-style encoders add. */
export const cleanBase64 = (s: string) => s.replace(/[\r\n\t ]/g, '');

/** Decoded size of valid base64, or undefined when it is not base64. */
export function base64Size(s: string): number | undefined {
  const clean = cleanBase64(s);
  if (clean.length % 4 !== 0 || !BASE64.test(clean)) return undefined;
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return (clean.length / 4) * 3 - padding;
}

const addressObject = z.object({ name: z.optional(displayNameSchema), email: emailSchema });
/** `"a@b.c"` or `{name, email}`, always read as the object. */
const address = acceptsOnWire(
  z.pipe(
    z.transform((v) => (typeof v === 'string' ? { email: v } : v)),
    addressObject,
  ),
  z.union([z.string(), addressObject]),
);

const attachment = z
  .object({
    filename: z.string().check(
      z.minLength(1),
      z.maxLength(255),
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what a filename must not hold
      z.regex(/^[^\x00-\x1f\x7f"']+$/, {
        message: 'filename must not contain newline, control or quote characters',
      }),
    ),
    content: z.pipe(
      z.transform((v) => (typeof v === 'string' ? cleanBase64(v) : v)),
      z.string().check(
        z.minLength(1, { message: 'content must not be empty' }),
        z.superRefine((v, ctx) => {
          if (v.length > 0 && base64Size(v) === undefined) {
            ctx.addIssue({
              code: 'invalid_format',
              format: 'base64',
              message: 'content must be base64',
              input: v,
            });
          }
        }),
      ),
    ),
    contentType: z
      .string()
      .check(
        z.maxLength(255),
        z.regex(MIME_TYPE, { message: 'contentType must be a MIME type such as image/png' }),
      ),
    contentId: z.optional(
      z.string().check(
        z.minLength(1),
        z.maxLength(255),
        z.regex(/^[!#-&(-;=?-~]+$/, {
          message: 'contentId must be printable ASCII without spaces, angle brackets or quotes',
        }),
      ),
    ),
    disposition: z._default(z.enum(['attachment', 'inline']), 'attachment'),
  })
  .check(
    z.superRefine((a, ctx) => {
      if (a.disposition === 'inline' && a.contentId === undefined) {
        ctx.addIssue({
          code: 'invalid_type',
          expected: 'string',
          path: ['contentId'],
          message: 'contentId is required when disposition is inline',
          input: undefined,
        });
      }
    }),
  );

const headers = z.record(z.string(), z.unknown()).check(
  z.superRefine((record, ctx) => {
    const names = Object.keys(record);
    if (names.length > MAX_CUSTOM_HEADERS) {
      ctx.addIssue({
        code: 'too_big',
        origin: 'object',
        maximum: MAX_CUSTOM_HEADERS,
        message: `At most ${MAX_CUSTOM_HEADERS} headers`,
        input: names.length,
      });
    }
    for (const [name, value] of Object.entries(record)) {
      const lower = name.toLowerCase();
      if (!HEADER_NAME.test(name)) {
        ctx.addIssue({
          code: 'invalid_format',
          format: 'regex',
          path: [name],
          message: 'Header names are 1 to 100 printable ASCII characters without colon, space, CR or LF',
          input: name,
        });
      } else if (RESERVED_HEADERS.has(lower) || RESERVED_HEADER_PREFIXES.some((p) => lower.startsWith(p))) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `${name} is set by the service and cannot be overridden`,
          params: { code: 'reserved_header' },
          input: name,
        });
      }
      if (typeof value !== 'string') {
        ctx.addIssue({
          code: 'invalid_type',
          expected: 'string',
          path: [name],
          message: 'Header values must be strings',
          input: value,
        });
      } else if (value.length > MAX_HEADER_VALUE_CHARS) {
        ctx.addIssue({
          code: 'too_big',
          origin: 'string',
          maximum: MAX_HEADER_VALUE_CHARS,
          path: [name],
          message: `Header values are at most ${MAX_HEADER_VALUE_CHARS} characters`,
          input: value,
        });
      } else if (/[\r\n\0]/.test(value)) {
        ctx.addIssue({
          code: 'invalid_format',
          format: 'regex',
          path: [name],
          message: 'Header values must not contain CR, LF or NUL',
          input: value,
        });
      }
    }
  }),
);

export const sendRequestSchema = z
  .object({
    // One recipient or a list; read as a list either way.
    to: acceptsOnWire(
      z.pipe(
        z.transform((v) => (v === undefined || Array.isArray(v) ? v : [v])),
        z
          .array(address)
          .check(
            z.minLength(1, { message: 'to must name at least one recipient' }),
            z.maxLength(MAX_RECIPIENTS, { message: `At most ${MAX_RECIPIENTS} recipients per request` }),
          ),
      ),
      z.union([address, z.array(address).check(z.minLength(1), z.maxLength(MAX_RECIPIENTS))]),
    ),
    subject: z.optional(subjectSchema),
    body: z.optional(
      z.string().check(
        z.minLength(1, { message: 'body must not be empty' }),
        z.maxLength(MAX_TEMPLATE_CHARS, {
          message: `body must be at most ${MAX_TEMPLATE_CHARS} characters`,
        }),
      ),
    ),
    template: z.optional(uuidId('template must be a template id (UUID)')),
    from: z.optional(address),
    name: z.optional(displayNameSchema),
    subscribed: z.optional(z.boolean()),
    data: z.optional(z.unknown()),
    headers: z.optional(headers),
    reply: z.optional(emailSchema),
    attachments: z.optional(
      z
        .array(attachment)
        .check(z.maxLength(MAX_ATTACHMENTS, { message: `At most ${MAX_ATTACHMENTS} attachments` })),
    ),
  })
  .check(
    z.superRefine((body, ctx) => {
      if (body.template === undefined) {
        for (const field of ['subject', 'body'] as const) {
          if (body[field] === undefined) {
            ctx.addIssue({
              code: 'invalid_type',
              expected: 'string',
              path: [field],
              message: `${field} is required when no template is given`,
              input: undefined,
            });
          }
        }
      }
      const sizes = (body.attachments ?? []).map((a) => base64Size(a.content) ?? 0);
      const total = sizes.reduce((sum, n) => sum + n, 0);
      if (total > MAX_ATTACHMENT_BYTES) {
        ctx.addIssue({
          code: 'too_big',
          origin: 'array',
          maximum: MAX_ATTACHMENT_BYTES,
          path: ['attachments'],
          message: `Attachments may total at most ${MAX_ATTACHMENT_BYTES} bytes decoded`,
          input: total,
        });
      }
    }),
  );

export type SendRequest = z.infer<typeof sendRequestSchema>;
export type Address = z.infer<typeof addressObject>;
export type AttachmentInput = z.infer<typeof attachment>;

/**
 * Parses a send body or throws a 422 listing every problem. Paths point where the caller wrote
 * the value: a recipient given as a string is reported at `to` or `to.<i>`, not `.email`.
 */
export function parseSendRequest(value: unknown): SendRequest {
  const result = sendRequestSchema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const original = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const issues = toFieldIssues(result.error).map((issue) => {
    const custom = result.error.issues.find(
      (i) =>
        i.code === 'custom' && i.path.map(String).join('.') === issue.field && i.message === issue.message,
    ) as { params?: { code?: string } } | undefined;
    const code = custom?.params?.code ?? issue.code;
    return { ...issue, code, field: unwrapStringAddress(issue.field, original) };
  });
  throw validationError(issues);
}

function unwrapStringAddress(field: string, original: Record<string, unknown>): string {
  let path = field;
  const single = /^to\.0(\..*)?$/.exec(path);
  if (single && !Array.isArray(original.to)) path = `to${single[1] ?? ''}`;
  const match = /^(to|from)(\.\d+)?\.email$/.exec(path);
  if (!match) return path;
  const [, root, index] = match;
  const container = original[root!];
  const given = index
    ? Array.isArray(container)
      ? container[Number(index.slice(1))]
      : undefined
    : container;
  return typeof given === 'string' ? `${root}${index ?? ''}` : path;
}
