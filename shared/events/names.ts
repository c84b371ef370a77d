/**
 * Event names: what a caller may track, and the names the service keeps for itself
 * (reserved event names, docs/events.md).
 */
import * as z from 'zod/mini';
import type { FieldIssue } from '../errors';

/** Longest event name accepted; long enough for descriptive names, short enough for keys and URLs. */
export const MAX_EVENT_NAME_LENGTH = 100;

/**
 * Names the service emits itself, matched case-insensitively so that `Email.Sent` cannot pass
 * for a lifecycle event in filters and triggers: `email.*`, `contact.subscribed`,
 * `contact.unsubscribed`, `segment.<slug>.entry`, `segment.<slug>.exit`.
 */
export function isReservedEventName(name: string): boolean {
  const n = name.trim().toLowerCase();
  return (
    n.startsWith('email.') ||
    n === 'contact.subscribed' ||
    n === 'contact.unsubscribed' ||
    /^segment\..+\.(entry|exit)$/.test(n)
  );
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it rejects
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** A trackable name's shape (1 to 100 characters, no control characters); reserved names are checked apart. */
export const eventNameSchema = z.string({ message: 'event must be a string' }).check(
  z.trim(),
  z.minLength(1, { message: 'event must not be empty' }),
  z.maxLength(MAX_EVENT_NAME_LENGTH, {
    message: `event must be at most ${MAX_EVENT_NAME_LENGTH} characters`,
  }),
  z.refine((s) => !CONTROL.test(s), { message: 'event must not contain control characters' }),
);

/** The field error for a reserved name (422 VALIDATION_ERROR, code `reserved_event`). */
export function reservedEventIssue(field: string, name: string): FieldIssue {
  return {
    field,
    message: `"${name}" is a reserved event name (email.*, contact.subscribed, contact.unsubscribed, segment.<slug>.entry|exit are emitted by the service)`,
    code: 'reserved_event',
    received: name,
  };
}
