/** Input of the bulk endpoints (body `{contactIds}` with 1 to 1,000 ids). */
import * as z from 'zod/mini';

/** Bulk operations take 1,000 contacts per call. */
export const MAX_BULK_IDS = 1000;

export const bulkRequestSchema = z.object({
  contactIds: z
    .array(
      z.string().check(z.minLength(1, { message: 'Contact ids are non-empty strings' }), z.maxLength(100)),
    )
    .check(
      z.minLength(1, { message: 'Send at least one contact id' }),
      z.maxLength(MAX_BULK_IDS, { message: `At most ${MAX_BULK_IDS} contact ids per call` }),
    ),
});

export type BulkType = 'subscribe' | 'unsubscribe' | 'delete';
