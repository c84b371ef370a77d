/** The success answer of `GET /config` (see shared/http/answers.ts). */
import * as z from 'zod/mini';

const flag = z.object({ enabled: z.boolean() });

export const configAnswer = z.object({
  oauthProviders: z.array(z.string()),
  signupEnabled: z.boolean(),
  billing: flag,
  storage: flag,
  smtp: flag,
  version: z.string(),
});
