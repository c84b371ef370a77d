/** The success answers of `/v1/send` and `/v1/verify` (see shared/http/answers.ts). */
import * as z from 'zod/mini';
import { enveloped, id, instant } from '../http/answers';

/** One recipient's outcome: `sent`, or `skipped`/`failed` with a reason, or `unknown` (see the sending guide). */
export const sentEmailAnswer = z.object({
  contact: z.object({ id, email: z.string() }),
  /** The email's id (its events and activity name it). */
  email: id,
  status: z.enum(['sent', 'skipped', 'failed', 'unknown']),
  reason: z.optional(z.string()),
  error: z.optional(z.string()),
});

export const sendAnswer = enveloped(z.object({ emails: z.array(sentEmailAnswer), timestamp: instant }));

export const verifyAnswer = enveloped(
  z.object({
    email: z.string(),
    valid: z.boolean(),
    isDisposable: z.boolean(),
    isAlias: z.boolean(),
    isTypo: z.boolean(),
    isPlusAddressed: z.boolean(),
    isPersonalEmail: z.boolean(),
    domainExists: z.boolean(),
    hasWebsite: z.boolean(),
    hasMxRecords: z.boolean(),
    suggestedEmail: z.optional(z.string()),
    reasons: z.array(z.string()),
  }),
);
