/**
 * Headers Sesame sets itself on a WEBHOOK step's request; a step's own values for them are dropped
 * when sent (names compared case-insensitively), and step validation refuses them up front. A
 * module of its own so that validating a step loads neither the renderer nor the HTTP client.
 */
import { FRAMING_HEADERS } from '../net/framing';

export const RESERVED_WEBHOOK_HEADERS: readonly string[] = [
  'sesame-signature',
  'sesame-delivery',
  'user-agent',
  ...FRAMING_HEADERS,
];
const reserved = new Set(RESERVED_WEBHOOK_HEADERS);

export function isReservedWebhookHeader(name: string): boolean {
  return reserved.has(name.toLowerCase());
}
