/** The success answers of the domain routes (see shared/http/answers.ts). */
import * as z from 'zod/mini';
import { id, instant, nullableInstant } from '../http/answers';

export const domainAnswer = z.object({
  id,
  projectId: id,
  domain: z.string(),
  status: z.enum(['PENDING', 'VERIFIED', 'FAILED']),
  verified: z.boolean(),
  records: z.array(
    z.object({
      type: z.enum(['CNAME', 'MX', 'TXT']),
      name: z.string(),
      value: z.string(),
      purpose: z.enum(['DKIM', 'MAIL_FROM_MX', 'MAIL_FROM_SPF', 'DMARC']),
      status: z.enum(['PENDING', 'VERIFIED', 'FAILED']),
      priority: z.optional(z.number()),
    }),
  ),
  lastCheckedAt: nullableInstant,
  verifiedAt: nullableInstant,
  createdAt: instant,
});

export const domainListAnswer = z.array(domainAnswer);

const setupRecord = z.object({
  type: z.enum(['CNAME', 'MX', 'TXT']),
  name: z.string(),
  purpose: z.enum(['DKIM', 'MAIL_FROM_MX', 'MAIL_FROM_SPF', 'DMARC']),
});

/** `POST /domains`: the domain, and what was done to publish its records in Route 53. */
export const domainAddedAnswer = z.extend(domainAnswer, {
  dnsSetup: z.object({
    requested: z.boolean(),
    hostedZone: z.nullable(z.object({ id: z.string(), name: z.string() })),
    created: z.array(setupRecord),
    skipped: z.array(z.extend(setupRecord, { reason: z.string() })),
    message: z.string(),
  }),
});

// Named once in the API reference's components, and referred to from every answer that holds one.
z.globalRegistry.add(domainAnswer, { id: 'Domain' });
