/**
 * The track route implementations: `POST /v1/track` (public key, for browsers and apps) and its
 * dashboard alias `POST /events/track` (secret key). Same body, same result; each endpoint has its
 * own Idempotency-Key scope.
 */
import { checkDataPayloadSize, parseDataPatch } from '../contacts/data';
import { validationError } from '../errors';
import { isReservedEventName, reservedEventIssue } from '../events/names';
import { trackAnswer } from '../events/responses';
import { leaseSecondsOf, validateIdempotencyKey, withIdempotencyKey } from '../http/idempotency-key';
import { ok } from '../http/response';
import type { AuthedRequest, RouteImpl } from '../http/stack';
import { toFieldIssues } from '../http/validation';
import type { Deps } from '../ports';
import { trackSchema } from './schemas';
import { eventDataOf, trackEvent } from './service';

/**
 * Validates a track body, reporting a reserved name together with any other problem; also the
 * size of `data` and of the event data it makes, so that nothing is written (and no
 * Idempotency-Key claimed) for a refused body.
 */
export function parseTrackBody(body: unknown) {
  const result = trackSchema.safeParse(body, { reportInput: true });
  const issues = result.success ? [] : toFieldIssues(result.error);
  const event = (body as { event?: unknown } | undefined)?.event;
  if (typeof event === 'string' && isReservedEventName(event))
    issues.push(reservedEventIssue('event', event.trim()));
  if (!result.success || issues.length > 0) throw validationError(issues);
  checkDataPayloadSize(result.data.data);
  const patch = parseDataPatch(result.data.data);
  eventDataOf(patch);
  return { ...result.data, patch };
}

export function trackHandler(deps: Deps, path: '/v1/track' | '/events/track', group: string) {
  const leaseSeconds = leaseSecondsOf(group);
  return async (req: AuthedRequest) => {
    const key = validateIdempotencyKey(req.headers['idempotency-key']);
    const input = parseTrackBody(req.body);
    return withIdempotencyKey(
      deps,
      {
        projectId: req.projectId,
        scope: `POST ${path}`,
        key,
        request: { method: 'POST', path, body: req.body },
        leaseSeconds,
      },
      async (claim) => {
        claim?.markStarted();
        const data = await trackEvent(deps, req.projectId, {
          email: input.email,
          event: input.event,
          subscribed: input.subscribed,
          patch: input.patch,
          // A retry that resumes a dead attempt writes the same event, once.
          eventId: claim?.id('event'),
          at: claim?.requestedAt,
          replay: claim?.resumed,
        });
        return ok({ success: true, data });
      },
    );
  };
}

export const trackRoutes = (deps: Deps): RouteImpl[] => [
  {
    method: 'POST',
    path: '/v1/track',
    responses: { 200: trackAnswer },
    body: trackSchema,
    handler: trackHandler(deps, '/v1/track', 'track'),
  },
];
