/**
 * What the local runtime seeds so that `npm start` is usable at once: one project with a secret
 * and a public key and a verified sender domain, plus the key of signed links.
 *
 * Seeding is idempotent: on a persistent data folder the generated keys are kept in
 * `<dataDir>/seed.json` (a local development file: raw keys cannot be recovered from the hashes
 * in the table) and reused on the next start; the link-signing key is kept the same way.
 */
import { randomBytes } from 'node:crypto';
import { readFileIfExists, writeFileAtomic } from '../adapters/local/files';
import { seedVerifiedDomain } from '../domains/repository';
import type { Deps } from '../ports';
import {
  createProject,
  deleteApiKey,
  findApiKey,
  generateKey,
  getProject,
  keyKindOf,
  putApiKey,
} from '../projects/repository';
import { dataPath } from './data-dir';

/** The contents of `<dataDir>/seed.json`. */
export interface SeedFile {
  readonly projectId: string;
  readonly secretKey: string;
  readonly publicKey: string;
}

export interface SeedInput {
  /** Where seed.json is kept; nothing is kept when undefined. */
  readonly dataDir?: string;
  /** Keys to use instead of those in seed.json (or generated ones). */
  readonly secretKey?: string;
  readonly publicKey?: string;
  readonly senderDomain: string;
}

/**
 * Ensures the seed project, its two keys and its verified sender domain exist; safe to run on
 * every start. Keys given explicitly win over those in seed.json; a key they replace is retired.
 */
export async function seedProject(
  deps: Deps,
  input: SeedInput,
): Promise<SeedFile & { senderDomain: string }> {
  if (input.secretKey !== undefined && keyKindOf(input.secretKey) !== 'secret') {
    throw new Error('SESAME_SECRET_KEY must start with sk_');
  }
  if (input.publicKey !== undefined && keyKindOf(input.publicKey) !== 'public') {
    throw new Error('SESAME_PUBLIC_KEY must start with pk_');
  }
  const file = input.dataDir ? dataPath(input.dataDir, 'seed') : undefined;
  const text = file ? readFileIfExists(file)?.toString('utf8') : undefined;
  const saved = text ? (JSON.parse(text) as SeedFile) : undefined;
  const seed: SeedFile = {
    projectId: saved?.projectId ?? deps.ids.uuid(),
    secretKey: input.secretKey ?? saved?.secretKey ?? generateKey('secret'),
    publicKey: input.publicKey ?? saved?.publicKey ?? generateKey('public'),
  };
  if (await getProject(deps, seed.projectId)) {
    await putApiKey(deps, seed.projectId, seed.secretKey);
    await putApiKey(deps, seed.projectId, seed.publicKey);
  } else {
    await createProject(deps, { id: seed.projectId, name: 'Local project', ...seed });
  }
  for (const old of [saved?.secretKey, saved?.publicKey]) {
    if (old && old !== seed.secretKey && old !== seed.publicKey) {
      if ((await findApiKey(deps, old))?.projectId === seed.projectId) await deleteApiKey(deps, old);
    }
  }
  await seedVerifiedDomain(deps, seed.projectId, input.senderDomain);
  if (file) writeFileAtomic(file, `${JSON.stringify(seed, null, 2)}\n`, 0o600);
  return { ...seed, senderDomain: input.senderDomain.toLowerCase() };
}

/**
 * The local key for signed links: kept in `<dataDir>/link-signing-secret` so that links in mail
 * sent earlier keep working across restarts; a fresh one per run when everything is in memory.
 */
export function localLinkSigningSecret(dataDir: string | undefined): string {
  const fresh = () => randomBytes(32).toString('base64url');
  if (!dataDir) return fresh();
  const file = dataPath(dataDir, 'linkSigningSecret');
  const saved = readFileIfExists(file)?.toString('utf8').trim();
  if (saved && saved.length >= 32) return saved;
  const secret = fresh();
  writeFileAtomic(file, `${secret}\n`, 0o600);
  return secret;
}
