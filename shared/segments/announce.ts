/**
 * Entry and exit events of tracked segments, fired for each membership change as it is written
 * (a contact write, an event, a build pass) and by compute for what those missed.
 *
 * Once per change: the segment's snapshot (the set its events have announced, one item per
 * contact) moves first, conditionally (an entry only where the snapshot has the contact absent, an
 * exit only where present), with the event as `pending`; whoever moves it emits the event, then
 * settles the item. A writer and a compute that meet the same change race on that condition, and
 * one of them wins. A crash after the move leaves the pending event for the next compute to emit
 * (same id and time); one before it leaves the snapshot as it was, so the next compute finds the
 * difference and announces it.
 */
import { emit } from '../events/emit';
import type { EventRecord } from '../events/repository';
import type { Deps } from '../ports';
import { keys } from '../table';
import { settleSnapshotEntry } from './repository';

export type AnnounceDeps = Pick<Deps, 'store' | 'clock' | 'ids' | 'queue'>;

/** What an announcement names of the segment. */
export interface Tracked {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
}

export const segmentEventName = (slug: string, kind: 'entry' | 'exit') => `segment.${slug}.${kind}`;

/**
 * Announces that the contact entered (`present`) or left the tracked segment, unless the snapshot
 * already says so; true when this call announced it.
 */
export async function announceMembership(
  deps: AnnounceDeps,
  projectId: string,
  segment: Tracked,
  contactId: string,
  present: boolean,
): Promise<boolean> {
  const key = keys.segmentSnapshot(projectId, segment.id, contactId);
  for (let attempt = 0; attempt < 2; attempt++) {
    const event: EventRecord = {
      id: deps.ids.uuid(),
      projectId,
      contactId,
      name: segmentEventName(segment.slug, present ? 'entry' : 'exit'),
      data: { segmentId: segment.id, segmentName: segment.name },
      createdAt: deps.clock.now().toISOString(),
    };
    const moved = await deps.store.writeIf({
      put: { ...key, entity: 'segmentSnapshot', present, pending: event },
      if: present
        ? '(attribute_not_exists(pk) OR present = :false) AND attribute_not_exists(pending)'
        : 'present = :true AND attribute_not_exists(pending)',
      values: present ? { ':false': false } : { ':true': true },
    });
    if (moved) {
      await emit(deps, event);
      await settleSnapshotEntry(deps, projectId, segment.id, contactId, present);
      return true;
    }
    // Already as announced, or an announcement still pending (a crash, or another writer under
    // way): the pending one is emitted first (idempotently), then this change is tried again.
    const item = await deps.store.get(key, { consistent: true });
    if (!item?.pending) return false;
    await emit(deps, item.pending as EventRecord, { replay: true });
    await settleSnapshotEntry(deps, projectId, segment.id, contactId, item.present !== false);
  }
  return false;
}
