/**
 * An email address as every input takes it (trimmed, at most 254 characters): a module of its own
 * so that schemas elsewhere (track, send, templates...) reuse it without building the contact
 * routes' schemas.
 */
import * as z from 'zod/mini';
import '../zod-locale';

export const emailSchema = z.pipe(
  z.string().check(z.trim(), z.maxLength(254)),
  z.email({ message: 'Invalid email address' }),
);
