/** `POST /v1/verify` (secret key): checks one address and answers the Verification result. */
import * as z from 'zod/mini';
import { emailSchema } from '../contacts/email';
import { ok } from '../http/response';
import type { AuthedRequest, RouteImpl } from '../http/stack';
import { parse } from '../http/validation';
import type { Deps } from '../ports';
import { verifyAnswer } from '../sending/responses';
import { verifyEmail } from './verify';

/**
 * The body's `email` must look like an email (422 otherwise); the finer
 * syntax rules (RFC 5321 lengths, label shapes) are part of the answer (`valid`, `reasons`).
 */
export const verifySchema = z.object({ email: emailSchema });

export const verifyRoutes = (deps: Deps): RouteImpl[] => [
  {
    method: 'POST',
    path: '/v1/verify',
    responses: { 200: verifyAnswer },
    body: verifySchema,
    handler: async (req: AuthedRequest) => {
      const { email } = parse(verifySchema, req.body);
      return ok({ success: true, data: await verifyEmail(deps, email) });
    },
  },
];
