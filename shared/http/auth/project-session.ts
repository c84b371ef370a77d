/**
 * A session on a project route: the signed-in user (shared/http/auth/session.ts) acting for the
 * project `X-Project-Id` names, which they must be a member of. Anyone else gets 404, as if the
 * project did not exist (docs/accounts.md), so a session cannot probe which project ids exist.
 */
import { getMembership } from '../../accounts/repository';
import { AppError, badRequest } from '../../errors';
import type { Deps } from '../../ports';
import { ACCOUNT_ID } from '../validation';
import type { ApiKeyAuthenticator } from './api-key';
import { authenticateSession } from './session';
import type { AuthInput, Principal } from './types';

const projectNotFound = () => new AppError(404, 'NOT_FOUND', 'Project not found');

export async function authenticateProjectSession(
  deps: Pick<Deps, 'store' | 'clock' | 'config'>,
  apiKeys: Pick<ApiKeyAuthenticator, 'liveProject'>,
  input: AuthInput,
): Promise<Principal> {
  const session = await authenticateSession(deps, input);
  const projectId = input.headers['x-project-id']?.trim();
  if (!projectId) throw badRequest('A session acts for one project: name it in the X-Project-Id header');
  // Not the shape of a project id (over-long, say): no such project, and never a table key.
  if (!ACCOUNT_ID.test(projectId)) throw projectNotFound();
  // Consistent, like the session's read: a member removed is refused on the next request.
  if (!(await getMembership(deps, projectId, session.userId, { consistent: true }))) throw projectNotFound();
  if (!(await apiKeys.liveProject(projectId))) throw projectNotFound();
  return { auth: 'secret', projectId, userId: session.userId };
}
