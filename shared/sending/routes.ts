/** `POST /v1/send` (secret key), composed into the public route group. */
import { checkDataPayloadSize } from '../contacts/data';
import { leaseSecondsOf, validateIdempotencyKey, withIdempotencyKey } from '../http/idempotency-key';
import { ok } from '../http/response';
import type { AuthedRequest, RouteImpl } from '../http/stack';
import type { Deps } from '../ports';
import { sendAnswer } from './responses';
import { parseSendRequest, sendRequestSchema } from './schemas';
import { sendEmails } from './service';

export const SEND_SCOPE = 'POST /v1/send';

export function sendRoutes(deps: Deps): RouteImpl[] {
  const leaseSeconds = leaseSecondsOf('public');
  return [
    {
      method: 'POST',
      path: '/v1/send',
      responses: { 200: sendAnswer },
      body: sendRequestSchema,
      handler: async (req: AuthedRequest) => {
        // Key and body are checked before the key is claimed: a refused request claims nothing.
        const key = validateIdempotencyKey(req.headers['idempotency-key']);
        const input = parseSendRequest(req.body);
        checkDataPayloadSize(input.data);
        return withIdempotencyKey(
          deps,
          {
            projectId: req.projectId,
            scope: SEND_SCOPE,
            key,
            request: { method: 'POST', path: '/v1/send', body: req.body },
            leaseSeconds,
          },
          async (claim) => ok({ success: true, data: await sendEmails(deps, req.projectId, input, claim) }),
        );
      },
    },
  ];
}
