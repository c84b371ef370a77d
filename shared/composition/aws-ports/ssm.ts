/** The loader of the link-signing key from SSM, with its client (see aws-wiring.ts). */
import { SSMClient } from '@aws-sdk/client-ssm';
import { ssmParameterLoader } from '../../adapters/aws/ssm-parameter';
import type { SecretLoader } from '../../config/env';
import { LINK_SIGNING_SECRET_TTL_MS } from '../aws';

export function ssmLinkSigningSecret(name: string): SecretLoader {
  return ssmParameterLoader(new SSMClient({}), { name, ttlMs: LINK_SIGNING_SECRET_TTL_MS });
}
