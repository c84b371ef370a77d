/** The success answers of the account, project, member and billing routes (see shared/http/answers.ts). */
import * as z from 'zod/mini';
import { id, instant, nullableInstant } from '../http/answers';

const role = z.enum(['OWNER', 'ADMIN', 'MEMBER']);
const user = z.object({ id, email: z.string(), emailVerified: z.boolean() });
/** A new project's keys: shown once, never again. */
const keys = z.object({ secretKey: z.string(), publicKey: z.string() });
const project = z.object({ id, name: z.string(), disabled: z.boolean(), createdAt: instant, role });

/** `POST /auth/signup`: a new project with its keys, or (with an invitation) the project joined. */
export const signupAnswer = z.union([
  z.object({ user, project: z.object({ id, name: z.string() }), keys }),
  z.object({ user, project: z.object({ id, name: z.string(), role }) }),
]);
export const userAnswer = z.object({ user });
export const sentIfAnyAnswer = z.object({ success: z.literal(true), message: z.string() });
export const oauthConfigAnswer = z.object({ providers: z.array(z.string()) });
export const invitationAcceptedAnswer = z.object({ project: z.object({ id, name: z.string(), role }) });
export const meAnswer = z.object({ id, email: z.string(), emailVerified: z.boolean(), createdAt: instant });
export const projectListAnswer = z.array(project);
export const projectCreatedAnswer = z.object({ project, keys });
export const projectAnswer = project;
export const projectDeletionAnswer = z.object({ id, status: z.literal('deleting') });
export const projectResetAnswer = z.object({
  status: z.enum(['processing', 'completed', 'failed']),
  requestedAt: instant,
  completedAt: nullableInstant,
  /** Items removed so far. */
  deleted: z.number(),
  error: z.nullable(z.string()),
});
export const keysAnswer = keys;

const member = z.object({ userId: id, email: z.string(), role, createdAt: instant });
export const memberAnswer = member;
export const memberListAnswer = z.array(member);
/** `POST /projects/{id}/members` for an address with no account yet: an invitation was mailed. */
export const invitedAnswer = z.object({ invited: z.string(), role, expiresAt: instant });

export const securityAnswer = z.object({
  keys: z.object({
    secretKeyPrefix: z.string().register(z.globalRegistry, {
      description:
        "The secret key's first 7 characters, nothing appended: `secretKey.startsWith(secretKeyPrefix)`",
    }),
    publicKeyPrefix: z.string().register(z.globalRegistry, {
      description:
        "The public key's first 7 characters, nothing appended: `publicKey.startsWith(publicKeyPrefix)`",
    }),
    rotatedAt: nullableInstant,
  }),
  members: z.array(member),
  lastLoginAt: nullableInstant,
});

export const setupStateAnswer = z.object({
  hasVerifiedDomain: z.boolean(),
  hasTemplate: z.boolean(),
  hasContact: z.boolean(),
  hasSentEmail: z.boolean(),
  hasTrackedEvent: z.boolean(),
});

/** Monthly caps by category; null is no cap. */
export const billingLimitsAnswer = z.object({
  transactional: z.nullable(z.number()),
  campaigns: z.nullable(z.number()),
  workflows: z.nullable(z.number()),
});

export const consumptionAnswer = z.object({
  periodStart: instant,
  periodEnd: instant,
  transactional: z.number(),
  campaigns: z.number(),
  workflows: z.number(),
  total: z.number(),
});

export const redirectUrlAnswer = z.object({ url: z.string() });

export const invoicesAnswer = z.object({
  invoices: z.array(
    z.object({
      id: z.string(),
      number: z.nullable(z.string()),
      status: z.nullable(z.string()),
      currency: z.string(),
      total: z.number(),
      amountDue: z.number(),
      amountPaid: z.number(),
      createdAt: instant,
      periodStart: instant,
      periodEnd: instant,
      hostedInvoiceUrl: z.nullable(z.string()),
      invoicePdf: z.nullable(z.string()),
    }),
  ),
  hasMore: z.boolean(),
});
