/**
 * The ids of a campaign's email to one contact: derived from (campaign, contact), so every
 * attempt at that recipient (a redelivered message, a duplicate, a runner that resumes after a
 * crash) names the same email record and the same lifecycle events, and the record's conditional
 * put is the claim that lets exactly one of them send.
 */
import { createHash } from 'node:crypto';
import type { EmailIds } from '../sending/outcomes';

/** A name-based UUID (RFC 9562 version 8) from the SHA-256 of `name`. */
export function nameUuid(name: string): string {
  const b = createHash('sha256').update(name).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x80;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The email record and event ids of the campaign's email to `contactId`. */
export function campaignEmailIds(campaignId: string, contactId: string): EmailIds {
  const base = `sesame:campaign:${campaignId}:${contactId}`;
  return {
    email: nameUuid(`${base}:email`),
    sentEvent: nameUuid(`${base}:sent`),
    failedEvent: nameUuid(`${base}:failed`),
  };
}
