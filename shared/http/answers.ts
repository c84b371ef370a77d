/**
 * Building blocks of the success answers' schemas (`RouteDoc.responses`): the API reference
 * shows them, the typed client's types come from them, and with SESAME_CHECK_SCHEMAS=1 every
 * answer of the test suites is checked against them (shared/http/schema-check.ts).
 */
import * as z from 'zod/mini';

/** An ISO 8601 instant, as Sesame writes them (`2026-01-31T12:00:00.000Z`). */
export const instant = z.string().register(z.globalRegistry, { format: 'date-time' });
export const nullableInstant = z.nullable(instant);
export const id = z.string();
/** A contact's (or an event's) custom data: JSON values by key. */
export const customData = z.record(z.string(), z.unknown());

export const deletedAnswer = z.object({ id, deleted: z.literal(true) });
export const queuedJobAnswer = z.object({ jobId: id, status: z.literal('queued') });
export const successAnswer = z.object({ success: z.literal(true) });

/** `{success: true, data}`: the envelope of the public API's answers. */
export const enveloped = <S extends z.ZodMiniType>(data: S) => z.object({ success: z.literal(true), data });

/** An offset list: `page` from 1, `pageSize`, `total`, `totalPages`. */
export const offsetPageOf = <S extends z.ZodMiniType>(item: S) =>
  z.object({
    data: z.array(item),
    page: z.number(),
    pageSize: z.number(),
    total: z.number(),
    totalPages: z.number(),
  });

/** A cursor list: pass `cursor` back for the next page while `hasMore`. */
export const cursorPageOf = <S extends z.ZodMiniType>(item: S) =>
  z.object({ data: z.array(item), cursor: z.nullable(z.string()), hasMore: z.boolean() });

/** Who uses a thing: campaigns, segments and workflows by id and name. */
export const namedRef = z.object({ id, name: z.string() });
