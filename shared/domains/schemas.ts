/** Input schemas of the domain endpoints; handlers and tests reuse them. */
import { domainToASCII } from 'node:url';
import * as z from 'zod/mini';
import { uuidId } from '../http/validation';

/**
 * The longest domain whose DKIM record names (`<32-character token>._domainkey.<domain>`) stay
 * within DNS's 253 characters.
 */
export const MAX_DOMAIN_LENGTH = 253 - 32 - '._domainkey.'.length;

/** Labels of letters, digits and inner hyphens; a TLD of letters or punycode (never an IP address). */
const HOSTNAME = /^(?:(?!-)[a-z0-9-]{1,63}(?<!-)\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/**
 * A domain name to send from: trimmed, lower-cased, a trailing dot dropped, international names
 * turned into punycode; at least two labels.
 */
export const domainNameSchema = z.pipe(
  z.pipe(
    z
      .string({ message: 'domain must be a string' })
      .check(
        z.trim(),
        z.minLength(1, { message: 'domain is required' }),
        z.maxLength(1000, { message: `domain must be at most ${MAX_DOMAIN_LENGTH} characters` }),
      ),
    z.transform((value) => {
      const bare = value.replace(/\.$/, '').toLowerCase();
      // domainToASCII converts IDNs and answers '' for what cannot be a host name; URLs, addresses
      // and ports are refused as typed, so the error shows what was sent.
      if (/[/:@\s]/.test(bare)) return bare;
      return domainToASCII(bare) || bare;
    }),
  ),
  z.string().check(
    z.maxLength(MAX_DOMAIN_LENGTH, { message: `domain must be at most ${MAX_DOMAIN_LENGTH} characters` }),
    z.regex(HOSTNAME, {
      message: 'domain must be a domain name such as example.com (no scheme, path, port or address)',
    }),
  ),
);

export const addDomainSchema = z.object({
  domain: domainNameSchema,
  /** Publish the records in the account's Route 53 hosted zone for the domain, when there is one. */
  createRecords: z._default(z.optional(z.boolean()), false),
  /** Accepted for clients that send it; it must be the key's project. */
  projectId: z.optional(uuidId('projectId must be a UUID')),
});

export const domainIdSchema = z.object({ id: uuidId('Domain id must be a UUID') });

export const projectIdSchema = z.object({ projectId: uuidId('Project id must be a UUID') });
