/** The loader of the link-signing key from SSM, with its client (see aws-wiring/ssm.ts). */
import { SSMClient } from '@aws-sdk/client-ssm';
import { ssmParameterLoader } from '../../adapters/aws/ssm-parameter';
import type { SecretLoader } from '../../config/env';

/**
 * How long a warm function reuses the link-signing key read from SSM (docs/deploy.md, rotation).
 * Here, not in ../aws.ts: this module is reached by a dynamic import, and esbuild does not
 * tree-shake what one reaches, so importing the composition root from here bundled everything it
 * imports (the whole DynamoDB client among it) into every function.
 */
export const LINK_SIGNING_SECRET_TTL_MS = 5 * 60 * 1000;

export function ssmLinkSigningSecret(name: string): SecretLoader {
  return ssmParameterLoader(new SSMClient({}), { name, ttlMs: LINK_SIGNING_SECRET_TTL_MS });
}
