/** Sender domains in a given state, written straight to the table (no DNS, no SES). */
import { type Domain, putDomain } from '../../../shared/domains/repository';
import type { LocalTestRuntime } from './local';

/** Stores `domain` for the project as added and not yet verified (PENDING, never checked). */
export async function putPendingDomain(
  rt: LocalTestRuntime,
  projectId: string,
  domain: string,
): Promise<Domain> {
  const pending: Domain = {
    id: rt.deps.ids.uuid(),
    projectId,
    domain,
    status: 'PENDING',
    verified: false,
    records: [],
    lastCheckedAt: null,
    verifiedAt: null,
    createdAt: new Date().toISOString(),
  };
  await putDomain(rt.deps, pending);
  return pending;
}
