/**
 * The link-signing key's loader: SSM Parameter Store, loaded on first use.
 * One factory per module (see `AwsWiring`, ../aws.ts): an entry point imports the factories it is wired
 * with, and no other factory's `import()` is in its bundle's graph.
 */
import type { SecretLoader } from '../../config/env';

export const ssmLinkSigningSecret = async (name: string): Promise<SecretLoader> =>
  (await import('../aws-ports/ssm')).ssmLinkSigningSecret(name);
