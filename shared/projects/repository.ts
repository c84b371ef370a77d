/**
 * Projects and their API keys. Keys are stored as SHA-256 hashes (they are long random secrets, so
 * a fast hash is the right tool; passwords get a memory-hard KDF elsewhere). The raw key is
 * returned once, when it is created.
 */
import { createHash, randomBytes } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '../ports';
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

type StoreDeps = Pick<Deps, 'db' | 'tableName' | 'clock' | 'ids'>;

export const hashKey = (raw: string) => createHash('sha256').update(raw).digest('hex');

export const keyKindOf = (raw: string): KeyKind | undefined =>
  raw.startsWith('sk_') ? 'secret' : raw.startsWith('pk_') ? 'public' : undefined;

export function generateKey(kind: KeyKind): string {
  return `${kind === 'secret' ? 'sk' : 'pk'}_${randomBytes(24).toString('base64url')}`;
}

export async function getProject(deps: StoreDeps, projectId: string): Promise<Project | undefined> {
  const out = await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: keys.project(projectId) }));
  if (!out.Item) return undefined;
  const { id, name, disabled, createdAt } = out.Item as Project;
  return { id, name, disabled: disabled === true, createdAt };
}

export async function findApiKey(deps: StoreDeps, raw: string): Promise<ApiKeyRecord | undefined> {
  const out = await deps.db.send(
    new GetCommand({ TableName: deps.tableName, Key: keys.apiKey(hashKey(raw)) }),
  );
  if (!out.Item) return undefined;
  return { projectId: String(out.Item.projectId), kind: out.Item.kind as KeyKind };
}

/** Stores a key for a project; a key that is already taken (by anyone) is refused. */
export async function putApiKey(deps: StoreDeps, projectId: string, raw: string): Promise<void> {
  const kind = keyKindOf(raw);
  if (!kind) throw new Error('API keys start with sk_ or pk_');
  await deps.db.send(
    new PutCommand({
      TableName: deps.tableName,
      Item: { ...keys.apiKey(hashKey(raw)), projectId, kind, createdAt: deps.clock.now().toISOString() },
      ConditionExpression: 'attribute_not_exists(pk) OR projectId = :p',
      ExpressionAttributeValues: { ':p': projectId },
    }),
  );
}

export async function deleteApiKey(deps: StoreDeps, raw: string): Promise<void> {
  await deps.db.send(new DeleteCommand({ TableName: deps.tableName, Key: keys.apiKey(hashKey(raw)) }));
}

export async function createProject(
  deps: StoreDeps,
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
  await deps.db.send(
    new PutCommand({ TableName: deps.tableName, Item: { ...keys.project(project.id), ...project } }),
  );
  await putApiKey(deps, project.id, secretKey);
  await putApiKey(deps, project.id, publicKey);
  return { project, secretKey, publicKey };
}
