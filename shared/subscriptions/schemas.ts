/** Input schemas of the subscription pages (`/v1/subscription/{token}`). */
import * as z from 'zod/mini';

/**
 * The signed token of a link, as the path carries it. Its shape and signature are checked by the
 * pages themselves (shared/subscriptions/routes.ts), which answer a malformed or forged one with
 * an HTML error page rather than a JSON 422: the reader followed a link from an email.
 */
export const subscriptionTokenParamSchema = z.object({ token: z.string() });
