/**
 * zod failures become 422 VALIDATION_ERROR with field-level details, here and nowhere else; and
 * the query parameters that lists share.
 */
import type { AsyncLocalStorage } from 'node:async_hooks';
import * as z from 'zod/mini';
import { type FieldIssue, validationError } from '../errors';
import '../zod-locale';

/**
 * The request a handler is answering, while the stack checks schemas (SESAME_CHECK_SCHEMAS=1):
 * `parse` notes the schemas it applies to that request's body and query objects.
 */
export interface ParseWatch {
  readonly body: unknown;
  readonly query: unknown;
  readonly bodySchemas: Set<z.ZodMiniType>;
  readonly querySchemas: Set<z.ZodMiniType>;
}

/**
 * Made by the first `watchParses` (the schema checks of the test suites): a function that never
 * checks schemas neither loads node:async_hooks' AsyncLocalStorage nor pays for one per `parse`.
 */
let watched: AsyncLocalStorage<ParseWatch> | undefined;

/** Runs `fn` noting what `parse` applies to `watch`'s body and query. */
export function watchParses<T>(watch: ParseWatch, fn: () => T): T {
  watched ??= new (process.getBuiltinModule('node:async_hooks').AsyncLocalStorage)<ParseWatch>();
  return watched.run(watch, fn);
}

/** zod 4 renamed some issue codes; errors name the zod 3 ones. */
const codeAliases: Record<string, string> = { invalid_format: 'invalid_string' };

function describeReceived(issue: z.core.$ZodIssue): unknown {
  const input = (issue as { input?: unknown }).input;
  if (issue.code === 'invalid_type') {
    if (input === undefined) return 'undefined';
    if (input === null) return 'null';
    return Array.isArray(input) ? 'array' : typeof input;
  }
  if (typeof input === 'string') return input.length > 200 ? `${input.slice(0, 200)}…` : input;
  if (typeof input === 'number' || typeof input === 'boolean') return input;
  return undefined;
}

export function toFieldIssues(
  error: z.core.$ZodError,
  prefix: readonly (string | number)[] = [],
): FieldIssue[] {
  return error.issues.map((issue) => {
    const received = describeReceived(issue);
    return {
      field: [...prefix, ...issue.path].map(String).join('.'),
      message: issue.message,
      code: codeAliases[issue.code] ?? issue.code,
      ...(received === undefined ? {} : { received }),
    };
  });
}

/** Parses or throws a 422 listing every problem. `prefix` roots the field paths (e.g. `query`). */
export function parse<S extends z.ZodMiniType>(
  schema: S,
  value: unknown,
  prefix: readonly string[] = [],
): z.output<S> {
  const watch = watched?.getStore();
  if (watch && typeof value === 'object' && value !== null) {
    if (value === watch.body) watch.bodySchemas.add(schema);
    else if (value === watch.query) watch.querySchemas.add(schema);
  }
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw validationError(toFieldIssues(result.error, prefix));
  return result.data;
}

/**
 * The id of something Sesame made (contacts, templates, segments, campaigns, workflows, steps,
 * transitions, executions, jobs, domains): `deps.ids.uuid()`, a random UUID, so every id field
 * of a request is one of these and bounded by it. An over-long or malformed value is a 422 naming
 * the field, before it can reach a table key (DynamoDB refuses a partition key over 2,048 bytes
 * with an error that would be a 500).
 */
export const uuidId = (message: string) => z.uuid({ message });

/**
 * Project and user ids: UUIDs from signup, or the 1 to 64 word characters and dashes an operator
 * may choose (shared/projects/operator.ts).
 */
export const ACCOUNT_ID = /^[\w-]{1,64}$/;
export const accountId = (message: string) => z.string().check(z.regex(ACCOUNT_ID, { message }));

const pageLimit = z.pipe(
  z.pipe(
    z.string().check(z.regex(/^\d+$/, { message: 'limit must be a positive integer' })),
    z.transform(Number),
  ),
  z.number().check(z.int(), z.gte(1, { message: 'limit must be at least 1' })),
);

/** A list's `limit` query parameter: a positive integer, 20 when absent. */
export const pageLimitQuery = z.pipe(
  // Larger page sizes are clamped to 100 rather than refused.
  z.optional(
    z.pipe(
      pageLimit,
      z.transform((n) => Math.min(n, 100)),
    ),
  ),
  z.transform((n) => n ?? 20),
);

/**
 * A whole-number query parameter from 1 to `max` (422 outside), `fallback` when absent.
 * For windows (days, minutes), which are refused rather than clamped when too large.
 */
export const boundedIntQuery = (field: string, fallback: number, max: number) =>
  z.pipe(
    z.optional(
      z.pipe(
        positiveIntQuery(field),
        z.number().check(z.lte(max, { message: `${field} must be at most ${max}` })),
      ),
    ),
    z.transform((n) => n ?? fallback),
  );

/** A query parameter that must be a whole number of at least 1. */
const positiveIntQuery = (field: string) =>
  z.pipe(
    z.pipe(
      z.string().check(z.regex(/^\d+$/, { message: `${field} must be a positive integer` })),
      z.transform(Number),
    ),
    z.number().check(z.int(), z.gte(1, { message: `${field} must be at least 1` })),
  );

/**
 * The query of an offset list (templates, campaigns, a segment's members): `page` from 1 (default
 * 1) and `pageSize` (default 20; larger values are clamped to 100, as cursor lists clamp `limit`).
 * Spread into the list's own query schema.
 */
export const offsetPageQuery = {
  page: z.pipe(
    z.optional(positiveIntQuery('page')),
    z.transform((n) => n ?? 1),
  ),
  pageSize: z.pipe(
    z.optional(positiveIntQuery('pageSize')),
    z.transform((n) => Math.min(n ?? 20, 100)),
  ),
};
