/**
 * Signed subscription links (`unsubscribeUrl`, `subscribeUrl`, `manageUrl`). A token names the
 * project, the contact and the action it allows, and carries an HMAC-SHA256 over them keyed with
 * the link-signing key (see `linkSettings`), so a link cannot be forged or pointed at another
 * contact or action. Tokens do not expire: an unsubscribe link must keep working for as long as
 * the mail is read.
 *
 * Layout (base64url of bytes): version, action, then the two ids (16 bytes each when both are
 * UUIDs, which keeps links short; length-prefixed UTF-8 otherwise), then the first 16 bytes of
 * the MAC over everything before it. A link in a sent message also names its email (a third UUID,
 * version 3), so that what the link does is credited to that email and its campaign; links
 * without it (older mail, a test send) still work.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppConfig } from '../config/env';
import type { SubscriptionLinks } from '../rendering';

export type LinkAction = 'unsubscribe' | 'subscribe' | 'manage';

export interface LinkClaims {
  readonly projectId: string;
  readonly contactId: string;
  readonly action: LinkAction;
  /** The email whose message carried the link, when it was made for one. */
  readonly emailId?: string;
}

const ACTIONS: readonly LinkAction[] = ['unsubscribe', 'subscribe', 'manage'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/; // lower case: decoding yields lower case
const COMPACT = 1;
const TEXT = 2;
const COMPACT_EMAIL = 3;
const MAC_BYTES = 16;
const MAX_TOKEN_CHARS = 700;
/** Domain separation: this key signs nothing else with this prefix. */
const CONTEXT = 'sesame:subscription-link:';

/** Link settings are missing: a deployment error, reported as a 500 that names the variable. */
export class LinkConfigError extends Error {
  override readonly name = 'LinkConfigError';
}

export interface LinkSettings {
  readonly secret: string;
  readonly baseUrl: string;
}

/** Shortest key accepted, as for LINK_SIGNING_SECRET (shared/config/env.ts). */
const MIN_SECRET_CHARS = 32;

/**
 * The signing key and base URL, or a LinkConfigError naming what is missing. The key is loaded
 * through the config (on AWS from SSM at run time, cached per warm function; locally a value).
 */
export async function linkSettings(
  config: Pick<AppConfig, 'linkSigningSecret' | 'publicBaseUrl'>,
): Promise<LinkSettings> {
  if (!config.publicBaseUrl) throw new LinkConfigError('PUBLIC_BASE_URL is not set for this function');
  const secret = await config.linkSigningSecret();
  if (!secret) {
    throw new LinkConfigError(
      'No link-signing key for this function: set LINK_SIGNING_SECRET_PARAMETER (AWS) or LINK_SIGNING_SECRET',
    );
  }
  if (secret.length < MIN_SECRET_CHARS) {
    throw new LinkConfigError(`The link-signing key must be at least ${MIN_SECRET_CHARS} characters`);
  }
  return { secret, baseUrl: config.publicBaseUrl };
}

export function signToken(secret: string, claims: LinkClaims): string {
  const body = encodeClaims(claims);
  return Buffer.concat([body, mac(secret, body)]).toString('base64url');
}

/** The claims of a genuine token; undefined for anything else (malformed, tampered, wrong key). */
export function verifyToken(secret: string, token: string): LinkClaims | undefined {
  if (token.length > MAX_TOKEN_CHARS || !/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64url');
  // One spelling per token: unused low bits of the last character must not give variants.
  if (bytes.length <= MAC_BYTES + 2 || bytes.toString('base64url') !== token) return undefined;
  const body = bytes.subarray(0, bytes.length - MAC_BYTES);
  const given = bytes.subarray(bytes.length - MAC_BYTES);
  if (!timingSafeEqual(given, mac(secret, body))) return undefined;
  return decodeClaims(body);
}

/** True when the text has the shape of a token (so a wrong one is "not found", not "bad request"). */
export function looksLikeToken(token: string): boolean {
  return token.length <= MAX_TOKEN_CHARS && /^[A-Za-z0-9_-]{24,}$/.test(token);
}

export function subscriptionUrl(settings: LinkSettings, claims: LinkClaims): string {
  return `${settings.baseUrl}/v1/subscription/${signToken(settings.secret, claims)}`;
}

/** The three links of one contact, naming `emailId` when they go in that email's message. */
export function subscriptionLinks(
  settings: LinkSettings,
  projectId: string,
  contactId: string,
  emailId?: string,
): SubscriptionLinks {
  const url = (action: LinkAction) =>
    subscriptionUrl(settings, { projectId, contactId, action, ...(emailId ? { emailId } : {}) });
  return { unsubscribeUrl: url('unsubscribe'), subscribeUrl: url('subscribe'), manageUrl: url('manage') };
}

function mac(secret: string, body: Buffer): Buffer {
  return createHmac('sha256', secret).update(CONTEXT).update(body).digest().subarray(0, MAC_BYTES);
}

function encodeClaims(claims: LinkClaims): Buffer {
  const action = ACTIONS.indexOf(claims.action);
  if (action < 0) throw new Error(`Unknown link action ${claims.action}`);
  if (
    UUID.test(claims.projectId) &&
    UUID.test(claims.contactId) &&
    claims.emailId &&
    UUID.test(claims.emailId)
  ) {
    return Buffer.concat([
      Buffer.from([COMPACT_EMAIL, action]),
      Buffer.from(claims.projectId.replace(/-/g, ''), 'hex'),
      Buffer.from(claims.contactId.replace(/-/g, ''), 'hex'),
      Buffer.from(claims.emailId.replace(/-/g, ''), 'hex'),
    ]);
  }
  if (UUID.test(claims.projectId) && UUID.test(claims.contactId)) {
    return Buffer.concat([
      Buffer.from([COMPACT, action]),
      Buffer.from(claims.projectId.replace(/-/g, ''), 'hex'),
      Buffer.from(claims.contactId.replace(/-/g, ''), 'hex'),
    ]);
  }
  const project = Buffer.from(claims.projectId, 'utf8');
  const contact = Buffer.from(claims.contactId, 'utf8');
  if (project.length > 255 || contact.length > 255) throw new Error('Ids longer than 255 bytes');
  return Buffer.concat([
    Buffer.from([TEXT, action, project.length]),
    project,
    Buffer.from([contact.length]),
    contact,
  ]);
}

function decodeClaims(body: Buffer): LinkClaims | undefined {
  const action = ACTIONS[body[1]!];
  if (!action) return undefined;
  if (body[0] === COMPACT) {
    if (body.length !== 34) return undefined;
    return { projectId: uuid(body.subarray(2, 18)), contactId: uuid(body.subarray(18, 34)), action };
  }
  if (body[0] === COMPACT_EMAIL) {
    if (body.length !== 50) return undefined;
    return {
      projectId: uuid(body.subarray(2, 18)),
      contactId: uuid(body.subarray(18, 34)),
      action,
      emailId: uuid(body.subarray(34, 50)),
    };
  }
  if (body[0] === TEXT) {
    const projectLength = body[2]!;
    const contactAt = 3 + projectLength;
    const contactLength = body[contactAt];
    if (contactLength === undefined || contactAt + 1 + contactLength !== body.length) return undefined;
    return {
      projectId: body.subarray(3, contactAt).toString('utf8'),
      contactId: body.subarray(contactAt + 1).toString('utf8'),
      action,
    };
  }
  return undefined;
}

function uuid(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
