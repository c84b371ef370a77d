/**
 * The email identities' adapter factory: SES, loaded on first use.
 * One factory per module (see `AwsWiring`, ../aws.ts): an entry point imports the factories it is wired
 * with, and no other factory's `import()` is in its bundle's graph.
 */
import type { EmailIdentityPort } from '../../ports';
import type { PortFactory } from '../aws';

export const sesEmailIdentities: PortFactory<EmailIdentityPort> = async () =>
  (await import('../aws-ports/ses-identities')).sesEmailIdentities();
