/** Request bodies of the billing routes (docs/billing.md). */
import * as z from 'zod/mini';

/** The largest cap accepted: far beyond any month of SES sending, well inside a safe integer. */
export const MAX_CAP = 1_000_000_000_000;

const cap = (category: string) =>
  z.nullable(
    z
      .number({ message: `${category} must be a whole number of emails, or null for no cap` })
      .check(
        z.int({ message: `${category} must be a whole number of emails` }),
        z.gte(0, { message: `${category} must be at least 0` }),
        z.lte(MAX_CAP, { message: `${category} must be at most ${MAX_CAP}` }),
      ),
  );

/**
 * `PUT .../billing-limits`: every category's cap, each a whole number of emails a calendar month
 * (0 stops that kind of sending) or null for none. The body replaces the caps, so all three are
 * required; a key the caps do not know is refused.
 */
export const billingLimitsSchema = z.strictObject({
  transactional: cap('transactional'),
  campaigns: cap('campaigns'),
  workflows: cap('workflows'),
});
export type BillingLimitsInput = z.infer<typeof billingLimitsSchema>;
