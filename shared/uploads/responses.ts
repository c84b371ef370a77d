/** The success answer of `POST /uploads/image` (see shared/http/answers.ts). */
import * as z from 'zod/mini';

export const uploadedImageAnswer = z.object({
  /** Where the image is served from, to use in an email's HTML. */
  url: z.string(),
  key: z.string(),
  contentType: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']),
  size: z.number(),
});
