/**
 * The sender-domain rule of templates, campaigns and sends: the domain of the `from` address
 * must be registered to the project and verified, or the request is refused with 403 (code
 * INTERNAL_SERVER_ERROR; see the README's error codes).
 */
import { AppError } from '../errors';
import type { Deps } from '../ports';
import { getDomainByName } from './repository';

export async function requireVerifiedSenderDomain(
  deps: Pick<Deps, 'store' | 'clock' | 'ids'>,
  projectId: string,
  fromEmail: string,
): Promise<void> {
  const domain = fromEmail.slice(fromEmail.lastIndexOf('@') + 1).toLowerCase();
  const record = domain ? await getDomainByName(deps, projectId, domain) : undefined;
  if (!record) {
    throw new AppError(
      403,
      'INTERNAL_SERVER_ERROR',
      `The sender domain ${domain} is not registered to this project`,
      {
        suggestion: 'Add the domain with POST /domains and publish its DNS records',
        details: { domain, reason: 'DOMAIN_NOT_REGISTERED' },
      },
    );
  }
  if (!record.verified) {
    throw new AppError(403, 'INTERNAL_SERVER_ERROR', `The sender domain ${domain} is not verified yet`, {
      suggestion: 'Publish the DNS records of the domain, then check it with GET /domains/{id}/verify',
      details: { domain, reason: 'DOMAIN_NOT_VERIFIED', status: record.status },
    });
  }
}
