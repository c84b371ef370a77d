/**
 * Tracking: records a named event for a contact, creating or updating the contact first
 * (POST /v1/track). New contacts are subscribed unless `subscribed` says otherwise; an existing
 * contact keeps its state unless `subscribed` is given, and a flip emits `contact.subscribed` or
 * `contact.unsubscribed` (the contacts service does that). The event goes through `emit`, which
 * stores it and hands it to its listeners.
 *
 * `data` is patched into the contact; the event carries every value sent with it, including the
 * non-persistent ones (`{value, persistent: false}`), which are stored nowhere else.
 */
import { type DataPatch, MAX_DATA_BYTES, mergeForRender } from '../contacts/data';
import { upsertContact } from '../contacts/service';
import { validationError } from '../errors';
import { emit } from '../events/emit';
import type { EventRecord } from '../events/repository';
import type { Deps } from '../ports';

type TrackDeps = Pick<Deps, 'store' | 'clock' | 'ids' | 'queue'>;

export interface TrackInput {
  readonly email: string;
  readonly event: string;
  readonly subscribed?: boolean;
  readonly patch: DataPatch;
  /** The event's id; given when a retry must write the same event (Idempotency-Key). */
  readonly eventId?: string;
  /** The event's time, with `eventId`: the event's key holds both, so a retry keeps both. */
  readonly at?: Date;
  /**
   * An earlier attempt with this `eventId` (a resumed Idempotency-Key) may have emitted the event:
   * its listeners get it again only if it was not stored.
   */
  readonly replay?: boolean;
}

/** The `data` of a track result. */
export interface TrackResult {
  readonly contact: string;
  readonly event: string;
  readonly timestamp: string;
}

/** What the event stores as its `data`: the values sent, persistent or not (nulls are removals, not values). */
export function eventDataOf(patch: DataPatch): Record<string, unknown> {
  const data = mergeForRender({}, patch);
  const size = Buffer.byteLength(JSON.stringify(data));
  if (size > MAX_DATA_BYTES) {
    throw validationError([
      {
        field: 'data',
        message: `Event data must be at most ${MAX_DATA_BYTES} bytes`,
        code: 'too_big',
        received: size,
      },
    ]);
  }
  return data;
}

export async function trackEvent(
  deps: TrackDeps,
  projectId: string,
  input: TrackInput,
): Promise<TrackResult> {
  // Checked before anything is written, so a refused request changes nothing.
  const data = eventDataOf(input.patch);
  const { contact } = await upsertContact(
    deps,
    projectId,
    { email: input.email, subscribed: input.subscribed, patch: input.patch, source: 'track' },
    { defaultSubscribed: true },
  );
  const event: EventRecord = {
    id: input.eventId ?? deps.ids.uuid(),
    projectId,
    contactId: contact.id,
    name: input.event,
    data,
    email: contact.email,
    createdAt: (input.at ?? deps.clock.now()).toISOString(),
  };
  await emit(deps, event, { replay: input.replay });
  return { contact: contact.id, event: event.id, timestamp: event.createdAt };
}
