/** The SES domain identities port (see aws-wiring/ses-identities.ts, `sesEmailIdentities`). */
import { SesEmailIdentities } from '../../adapters/aws/ses-identities';
import type { EmailIdentityPort } from '../../ports';
import { sesClient } from './ses-client';

export function sesEmailIdentities(): EmailIdentityPort {
  return new SesEmailIdentities(sesClient());
}
