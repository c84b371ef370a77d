/**
 * The track route implementations: `POST /v1/track` (public key, for browsers and apps) and its
 * dashboard alias `POST /events/track` (secret key). Same body, same result; each endpoint has its
 * own Idempotency-Key scope.
 */
import { MAX_DATA_BYTES, parseDataPatch } from '../contacts/data';
import { validationError } from '../errors';
import { isReservedEventName, reservedEventIssue } from '../events/names';
import { withIdempotency } from '../http/idempotency';
import { ok } from '../http/response';
import type { AuthedRequest, RouteImpl } from '../http/stack';
import { toFieldIssues } from '../http/validation';
import type { Deps } from '../ports';
import { trackSchema } from './schemas';
import { eventDataOf, trackEvent } from './service';

/**
 * The `data` payload as sent, at most: room for 32 KB of stored values plus 32 KB of one-off
 * ones. Checked before the Idempotency-Key is claimed, which stores the request.
 */
export const MAX_TRACK_DATA_BYTES = 2 * MAX_DATA_BYTES;

/**
 * Validates a track body, reporting a reserved name together with any other problem; also the
 * size of `data` and of the event data it makes, so that nothing is written for a refused body.
 */
export function parseTrackBody(body: unknown) {
  const result = trackSchema.safeParse(body, { reportInput: true });
  const issues = result.success ? [] : toFieldIssues(result.error);
  const event = (body as { event?: unknown } | undefined)?.event;
  if (typeof event === 'string' && isReservedEventName(event))
    issues.push(reservedEventIssue('event', event.trim()));
  if (!result.success || issues.length > 0) throw validationError(issues);
  const size = result.data.data === undefined ? 0 : Buffer.byteLength(JSON.stringify(result.data.data));
  if (size > MAX_TRACK_DATA_BYTES) {
    throw validationError([
      {
        field: 'data',
        message: `data must be at most ${MAX_TRACK_DATA_BYTES} bytes`,
        code: 'too_big',
        received: size,
      },
    ]);
  }
  const patch = parseDataPatch(result.data.data);
  eventDataOf(patch);
  return { ...result.data, patch };
}

export function trackHandler(deps: Deps, path: '/v1/track' | '/events/track') {
  return async (req: AuthedRequest) => {
    const input = parseTrackBody(req.body);
    return withIdempotency(
      deps,
      {
        projectId: req.projectId,
        scope: `POST ${path}`,
        key: req.headers['idempotency-key'],
        request: { method: 'POST', path, body: req.body },
      },
      async () =>
        ok({
          success: true,
          data: await trackEvent(deps, req.projectId, {
            email: input.email,
            event: input.event,
            subscribed: input.subscribed,
            patch: input.patch,
          }),
        }),
    );
  };
}

export const trackRoutes = (deps: Deps): RouteImpl[] => [
  { method: 'POST', path: '/v1/track', handler: trackHandler(deps, '/v1/track') },
];
