/** Request bodies of the account routes (docs/accounts.md). */
import * as z from 'zod/mini';
import { accountId } from '../http/validation';

const email = z.pipe(
  z.string().check(z.trim(), z.toLowerCase()),
  z.email({ message: 'email must be an email address' }),
);

export const credentialsSchema = z.object({
  email,
  password: z
    .string()
    .check(
      z.minLength(10, { message: 'password must be at least 10 characters' }),
      z.maxLength(256, { message: 'password must be at most 256 characters' }),
    ),
});
export type Credentials = z.infer<typeof credentialsSchema>;

/** Login checks the password as given: no length rule to reveal. */
export const loginSchema = z.object({
  email,
  password: z.string().check(z.minLength(1, { message: 'password is required' }), z.maxLength(256)),
});

export const emailOnlySchema = z.object({ email });

export const tokenSchema = z.object({ token: z.string().check(z.minLength(1), z.maxLength(4096)) });

export const resetPasswordSchema = z.object({
  token: tokenSchema.shape.token,
  password: credentialsSchema.shape.password,
});

export const projectNameSchema = z.object({
  name: z
    .string()
    .check(
      z.trim(),
      z.minLength(1, { message: 'name must not be empty' }),
      z.maxLength(100, { message: 'name must be at most 100 characters' }),
    ),
});

export const projectIdParamSchema = z.object({
  id: accountId('id must be a project id'),
});

/** `POST /users/@me/projects/{id}/reset`: the project's name, typed again to confirm. */
export const projectResetSchema = z.object({
  confirm: z.string({ message: 'confirm is required: the project name' }).check(z.maxLength(200)),
});

/** `POST /auth/signup`: with `invitation`, the token of an invitation mailed to `email`. */
export const signupSchema = z.object({
  email,
  password: credentialsSchema.shape.password,
  invitation: z.optional(tokenSchema.shape.token),
});

const role = z.enum(['OWNER', 'ADMIN', 'MEMBER'], { message: 'role must be OWNER, ADMIN or MEMBER' });

/** `POST /projects/{id}/members`. */
export const addMemberSchema = z.object({ email, role });

/** `PATCH /projects/{id}/members/{userId}`. */
export const memberRoleSchema = z.object({ role });

export const memberParamSchema = z.object({
  id: projectIdParamSchema.shape.id,
  userId: accountId('userId must be a user id'),
});
