/**
 * Deploy-time configuration: one zod schema over the CDK context, parsed once in `bin/sesame.ts`.
 * Context values given with `cdk deploy -c key=value` arrive as strings, so booleans and numbers
 * are coerced here rather than at each use.
 */
import type { Node } from 'constructs';
import * as z from 'zod';

const contextBoolean = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

export const stageConfigSchema = z.object({
  /** Names the stacks (`Sesame-<stage>-...`); lower case so it is valid in every resource name. */
  stage: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,19}$/, 'lower-case letters, digits and "-", starting with a letter, at most 20')
    .default('dev'),
  /** Blocks `DeleteTable` outside CloudFormation too; the table is retained on stack deletion either way. */
  deletionProtection: contextBoolean.default(true),
  /** Steady-state requests per second the API accepts across all clients (a cost and abuse guard). */
  apiRateLimit: z.coerce.number().int().positive().default(50),
  /** Burst of requests per second the API accepts above the steady rate. */
  apiBurstLimit: z.coerce.number().int().positive().default(100),
  /**
   * Open signup (`POST /auth/signup`) to anyone who can reach the API. Off by default: an open
   * signup lends the account's SES reputation to strangers; the first owner is created by the
   * command the README names.
   */
  signupEnabled: contextBoolean.default(false),
  /** Sender of Sesame's own mails (email verification, password reset), on a verified domain. */
  systemFrom: z.email().optional(),
  /** Public base URL for links in emails, when a custom domain fronts the API; default the API URL. */
  publicBaseUrl: z.url({ protocol: /^https$/ }).optional(),
  /**
   * Receive mail for this domain (opt-in): an SES receipt rule set storing each message in a bucket
   * and notifying the jobs queue (lib/constructs/inbound-mail.ts). Unset, nothing inbound is created.
   */
  inboundDomain: z
    .string()
    .transform((domain) => domain.trim().toLowerCase().replace(/\.$/, ''))
    .pipe(
      z
        .string()
        .regex(
          /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
          'a domain name such as inbound.example.com',
        ),
    )
    .optional(),
});

export type StageConfig = z.infer<typeof stageConfigSchema>;

/** Reads the stage configuration from CDK context, failing with every invalid key listed. */
export function stageConfigFromContext(node: Node): StageConfig {
  const raw = Object.fromEntries(
    Object.keys(stageConfigSchema.shape).map((key) => [key, node.tryGetContext(key) as unknown]),
  );
  const result = stageConfigSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid stage configuration (CDK context): ${problems}`);
  }
  return result.data;
}
