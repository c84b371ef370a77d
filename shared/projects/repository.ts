/**
 * Projects and their API keys. Keys are stored as SHA-256 hashes (they are long random secrets, so
 * a fast hash is the right tool; passwords get a memory-hard KDF elsewhere). The raw key is
 * returned once, when it is created.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Deps } from '../ports';
import type { StoreDeps } from '../store/store';
import { keys } from '../table';

export type KeyKind = 'secret' | 'public';

export interface Project {
  readonly id: string;
  readonly name: string;
  readonly disabled: boolean;
  readonly createdAt: string;
}

export interface ApiKeyRecord {
  readonly projectId: string;
  readonly kind: KeyKind;
}

export const hashKey = (raw: string) => createHash('sha256').update(raw).digest('hex');

export const keyKindOf = (raw: string): KeyKind | undefined =>
  raw.startsWith('sk_') ? 'secret' : raw.startsWith('pk_') ? 'public' : undefined;

export function generateKey(kind: KeyKind): string {
  return `${kind === 'secret' ? 'sk' : 'pk'}_${randomBytes(24).toString('base64url')}`;
}

export async function getProject(deps: StoreDeps, projectId: string): Promise<Project | undefined> {
  const item = await deps.store.get(keys.project(projectId));
  if (!item) return undefined;
  const { id, name, disabled, createdAt } = item as unknown as Project;
  return { id, name, disabled: disabled === true, createdAt };
}

export async function findApiKey(deps: StoreDeps, raw: string): Promise<ApiKeyRecord | undefined> {
  const item = await deps.store.get(keys.apiKey(hashKey(raw)));
  if (!item) return undefined;
  return { projectId: String(item.projectId), kind: item.kind as KeyKind };
}

/**
 * Stores a key for a project; a key that another project holds is refused (the write's condition
 * fails: ConditionalCheckFailedException).
 */
export async function putApiKey(deps: StoreDeps & Pick<Deps, 'clock'>, projectId: string, raw: string) {
  const kind = keyKindOf(raw);
  if (!kind) throw new Error('API keys start with sk_ or pk_');
  await deps.store.write({
    put: { ...keys.apiKey(hashKey(raw)), projectId, kind, createdAt: deps.clock.now().toISOString() },
    if: 'attribute_not_exists(pk) OR projectId = :p',
    values: { ':p': projectId },
  });
}

export async function deleteApiKey(deps: StoreDeps, raw: string): Promise<void> {
  await deps.store.write({ delete: keys.apiKey(hashKey(raw)) });
}

export async function createProject(
  deps: StoreDeps & Pick<Deps, 'clock' | 'ids'>,
  input: { name: string; id?: string; secretKey?: string; publicKey?: string },
): Promise<{ project: Project; secretKey: string; publicKey: string }> {
  const project: Project = {
    id: input.id ?? deps.ids.uuid(),
    name: input.name,
    disabled: false,
    createdAt: deps.clock.now().toISOString(),
  };
  const secretKey = input.secretKey ?? generateKey('secret');
  const publicKey = input.publicKey ?? generateKey('public');
  if (keyKindOf(secretKey) !== 'secret') throw new Error('The secret key must start with sk_');
  if (keyKindOf(publicKey) !== 'public') throw new Error('The public key must start with pk_');
  // Project first: a crash before the keys leaves a project nobody can reach, never a key
  // pointing at nothing.
  await deps.store.write({ put: { ...keys.project(project.id), ...project } });
  await putApiKey(deps, project.id, secretKey);
  await putApiKey(deps, project.id, publicKey);
  return { project, secretKey, publicKey };
}
