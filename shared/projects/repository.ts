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

/** What a project records of its current keys: their hashes (to revoke them) and shown prefixes. */
export interface ProjectKeys {
  readonly secretKeyHash: string;
  readonly publicKeyHash: string;
  readonly secretKeyPrefix: string;
  readonly publicKeyPrefix: string;
  readonly rotatedAt: string;
}

/** Characters of a key shown as its prefix: its kind (`sk_`, `pk_`) and four more. */
export const KEY_PREFIX_LENGTH = 7;

/**
 * The first characters of a key, enough to tell keys apart, far too few to use: exactly the key's
 * start, so that `key.startsWith(prefix)` tells which key it is.
 */
export const keyPrefix = (raw: string) => raw.slice(0, KEY_PREFIX_LENGTH);

/** A stored prefix as shown: projects keyed before prefixes were exact stored them with `...` after. */
const shownPrefix = (stored: string) => (stored.endsWith('...') ? stored.slice(0, -3) : stored);

const keysOf = (secretKey: string, publicKey: string, at: string): ProjectKeys => ({
  secretKeyHash: hashKey(secretKey),
  publicKeyHash: hashKey(publicKey),
  secretKeyPrefix: keyPrefix(secretKey),
  publicKeyPrefix: keyPrefix(publicKey),
  rotatedAt: at,
});

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

/** The project; undefined when there is none, or it is being deleted (shared/projects/wipe.ts). */
export async function getProject(deps: StoreDeps, projectId: string): Promise<Project | undefined> {
  const item = await deps.store.get(keys.project(projectId));
  if (!item || item.deletedAt) return undefined;
  const { id, name, disabled, createdAt } = item as unknown as Project;
  return { id, name, disabled: disabled === true, createdAt };
}

/**
 * The key's record. Consistent: a key deleted by a rotation is refused on the very next request
 * (the authenticator reads it on every request rather than caching it).
 */
export async function findApiKey(deps: StoreDeps, raw: string): Promise<ApiKeyRecord | undefined> {
  const item = await deps.store.get(keys.apiKey(hashKey(raw)), { consistent: true });
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
  await deps.store.write({
    put: { ...keys.project(project.id), ...project, keys: keysOf(secretKey, publicKey, project.createdAt) },
  });
  await putApiKey(deps, project.id, secretKey);
  await putApiKey(deps, project.id, publicKey);
  return { project, secretKey, publicKey };
}

export async function getProjectKeys(deps: StoreDeps, projectId: string): Promise<ProjectKeys | undefined> {
  const item = await deps.store.get(keys.project(projectId), { consistent: true });
  const stored = item?.keys as ProjectKeys | undefined;
  if (!stored) return undefined;
  return {
    ...stored,
    secretKeyPrefix: shownPrefix(stored.secretKeyPrefix),
    publicKeyPrefix: shownPrefix(stored.publicKeyPrefix),
  };
}

export async function renameProject(deps: StoreDeps, projectId: string, name: string): Promise<void> {
  await deps.store.write({
    update: keys.project(projectId),
    expression: 'SET #name = :name',
    names: { '#name': 'name' },
    values: { ':name': name },
    if: 'attribute_exists(pk)',
  });
}

/**
 * Replaces both keys: the new key items first, then the project's record of its keys (conditional
 * on the record read, so two rotations at once cannot both win), then the old key items deleted.
 * A crash before the record leaves new key items nobody was shown (never valid for anyone); a crash
 * after it leaves old items a new rotation no longer knows, so the old ones go before answering
 * and a failed delete fails the request (which can be repeated).
 */
export async function rotateProjectKeys(
  deps: StoreDeps & Pick<Deps, 'clock'>,
  projectId: string,
): Promise<{ secretKey: string; publicKey: string } | 'missing' | 'busy'> {
  const item = await deps.store.get(keys.project(projectId), { consistent: true });
  if (!item) return 'missing';
  const old = item.keys as ProjectKeys | undefined;
  const secretKey = generateKey('secret');
  const publicKey = generateKey('public');
  await putApiKey(deps, projectId, secretKey);
  await putApiKey(deps, projectId, publicKey);
  const now = deps.clock.now().toISOString();
  const recorded = await deps.store.writeIf({
    update: keys.project(projectId),
    expression: 'SET #keys = :keys',
    names: { '#keys': 'keys' },
    values: { ':keys': keysOf(secretKey, publicKey, now), ...(old ? { ':old': old.secretKeyHash } : {}) },
    // Never for a project being deleted: its keys must stay deleted.
    if: old
      ? '#keys.secretKeyHash = :old AND attribute_not_exists(deletedAt)'
      : 'attribute_exists(pk) AND attribute_not_exists(#keys) AND attribute_not_exists(deletedAt)',
  });
  if (!recorded) {
    await deleteApiKey(deps, secretKey);
    await deleteApiKey(deps, publicKey);
    return 'busy';
  }
  if (old) await deps.store.batchDelete([keys.apiKey(old.secretKeyHash), keys.apiKey(old.publicKeyHash)]);
  return { secretKey, publicKey };
}
