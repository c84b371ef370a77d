/** `POST /v1/send` (secret key), composed into the public route group. */
import { withIdempotency } from '../http/idempotency';
import { ok } from '../http/response';
import type { AuthedRequest, RouteImpl } from '../http/stack';
import type { Deps } from '../ports';
import { parseSendRequest } from './schemas';
import { sendEmails } from './service';

export const SEND_SCOPE = 'POST /v1/send';

export function sendRoutes(deps: Deps): RouteImpl[] {
  return [
    {
      method: 'POST',
      path: '/v1/send',
      handler: (req: AuthedRequest) =>
        withIdempotency(
          deps,
          {
            projectId: req.projectId,
            scope: SEND_SCOPE,
            key: req.headers['idempotency-key'],
            request: { method: 'POST', path: '/v1/send', body: summarize(req.body) },
          },
          async () => {
            const input = parseSendRequest(req.body);
            const result = await sendEmails(deps, req.projectId, input);
            return ok({ success: true, data: result });
          },
        ),
    },
  ];
}

const MAX_ECHO_CHARS = 512;
const MAX_ECHO_ITEMS = 50;

/**
 * The request as remembered with its Idempotency-Key and echoed on reuse: long strings
 * (attachment content, HTML bodies) are cut, so the record stays far below DynamoDB's 400 KB.
 */
export function summarize(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    return value.length <= MAX_ECHO_CHARS
      ? value
      : `${value.slice(0, MAX_ECHO_CHARS)}… (${value.length} characters)`;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= 4) return Array.isArray(value) ? '[…]' : '{…}';
  if (Array.isArray(value)) return value.slice(0, MAX_ECHO_ITEMS).map((v) => summarize(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value)
      .slice(0, MAX_ECHO_ITEMS)
      .map(([k, v]) => [k, summarize(v, depth + 1)]),
  );
}
