/**
 * The first owner of a deployment (`npm run sesame -- owner create`, bin/admin.ts): a user and a
 * project they own, with its keys, made by the operator with the deployer's credentials. A
 * deployment has signup off, so without this nobody could get in.
 *
 * - The operator vouches for the address: the user starts verified, and no mail is sent (the
 *   deployment may have no system sender yet).
 * - Email and password follow signup's rules (`credentialsSchema`); without a password, one is
 *   generated and returned once (only its hash is stored).
 * - Safe to rerun: an email that already has an account gets the new project as OWNER, and its
 *   password is left alone (a given one is checked like any other, then unused).
 * - Everything is written through the account and project repositories, in signup's order: the
 *   user, then the project and its keys, then the membership and the project's owner count.
 */
import { randomBytes } from 'node:crypto';
import * as z from 'zod/mini';
import type { Deps } from '../ports';
import { createProject } from '../projects/repository';
import type { StoreDeps } from '../store/store';
import { countFirstOwner } from './owners';
import { hashPassword } from './passwords';
import { findUserByEmail, putMembership, putNewUser, type UserRecord } from './repository';
import { credentialsSchema } from './schemas';

export type OwnerDeps = StoreDeps & Pick<Deps, 'clock' | 'ids'>;

export interface OwnerInput {
  readonly email: string;
  /** Generated when absent. */
  readonly password?: string;
  /** @default DEFAULT_PROJECT_NAME */
  readonly projectName?: string;
}

export interface OwnerResult {
  readonly user: { readonly id: string; readonly email: string };
  /** False when the email already had an account, which then got the project. */
  readonly created: boolean;
  /** The generated password; absent when one was given or the account already existed. */
  readonly password?: string;
  readonly project: { readonly id: string; readonly name: string };
  readonly keys: { readonly secretKey: string; readonly publicKey: string };
}

/** What signup names a first project. */
export const DEFAULT_PROJECT_NAME = 'My project';

/** Refused input: the message names the field and the rule, fit for one line of a terminal. */
export class OwnerInputError extends Error {
  override readonly name = 'OwnerInputError';
}

const projectName = z
  .string()
  .check(
    z.trim(),
    z.minLength(1, { message: 'project name must not be empty' }),
    z.maxLength(100, { message: 'project name must be at most 100 characters' }),
  );

/**
 * 18 random bytes in base64url: 24 characters, 144 bits. Well past signup's minimum, and made of
 * letters, digits, `-` and `_` only, so it can be pasted into a shell or a form unquoted.
 */
export const generatePassword = (): string => randomBytes(18).toString('base64url');

export async function createOwner(deps: OwnerDeps, input: OwnerInput): Promise<OwnerResult> {
  const generated = input.password === undefined ? generatePassword() : undefined;
  // Everything is checked before the first read, so refused input touches nothing.
  const credentials = credentialsSchema.safeParse({
    email: input.email,
    password: input.password ?? generated,
  });
  if (!credentials.success)
    throw new OwnerInputError(credentials.error.issues[0]?.message ?? 'invalid input');
  const name = projectName.safeParse(input.projectName ?? DEFAULT_PROJECT_NAME);
  if (!name.success) throw new OwnerInputError(name.error.issues[0]?.message ?? 'invalid project name');
  const { email, password } = credentials.data;

  const now = deps.clock.now().toISOString();
  let user = await findUserByEmail(deps, email);
  let created = false;
  if (!user) {
    const fresh: UserRecord = {
      id: deps.ids.uuid(),
      email,
      passwordHash: await hashPassword(password),
      emailVerified: true,
      createdAt: now,
      lastLoginAt: null,
    };
    created = await putNewUser(deps, fresh);
    // Not created: the address was claimed between the lookup and the claim (a signup, another
    // run), and that account gets the project as any existing one does.
    user = created ? fresh : await findUserByEmail(deps, email);
    if (!user) throw new Error(`The account of ${email} could neither be created nor found; try again`);
  }

  const { project, secretKey, publicKey } = await createProject(deps, { name: name.data });
  await putMembership(
    deps,
    { projectId: project.id, userId: user.id, role: 'OWNER', createdAt: now },
    user.email,
  );
  await countFirstOwner(deps, project.id);
  return {
    user: { id: user.id, email: user.email },
    created,
    ...(created && generated !== undefined ? { password: generated } : {}),
    project: { id: project.id, name: project.name },
    keys: { secretKey, publicKey },
  };
}
