/**
 * The segments' event listener: a dynamic segment whose condition reads events or email activity
 * (`event.<name>`, `email.<activity>`) is brought up to date for a contact as soon as the contact
 * gets an event of a name it reads, rather than at the periodic job's next pass.
 *
 * `accepts` reads the project's segment definitions as every contact write does (the definitions
 * version, one strongly consistent read, `evaluation.ts`), so a segment created or edited a moment
 * before the event is seen. Only events of a name some such segment reads are dispatched; the
 * handler reads the contact, its memberships and its events (one query of its partition each),
 * evaluates the project's dynamic segments on them in dependency order (those that read other
 * segments follow the ones they read) and writes the memberships that change, with the segments'
 * counts: delivered twice, the second finds nothing to change.
 */
import { referencedEmailActivities, referencedEvents } from '../conditions';
import { getContactRecord } from '../contacts/repository';
import { defineListener } from '../events/registry';
import { type LiveSegment, type ProjectSegments, projectSegments, readFacts } from './evaluation';
import { applyEvaluation } from './membership';
import { addMemberCounts, membershipsOf } from './repository';

/** The event names the segment's condition reads. */
function eventNamesOf(segment: LiveSegment): string[] {
  return [
    ...referencedEvents(segment.condition),
    ...referencedEmailActivities(segment.condition).map((a) => `email.${a}`),
  ];
}

const readsEvent = (segments: ProjectSegments, name: string) =>
  segments.dynamic.some((s) => s.needsActivity && eventNamesOf(s).includes(name));

export const segmentActivityListener = defineListener({
  name: 'segments.activity',
  events: ['*'],
  async accepts(deps, event) {
    if (event.name.startsWith('segment.')) return false;
    return readsEvent(await projectSegments(deps, event.projectId), event.name);
  },
  async handle(deps, event) {
    const segments = await projectSegments(deps, event.projectId);
    if (!readsEvent(segments, event.name)) return;
    const contact = await getContactRecord(deps, event.projectId, event.contactId);
    if (!contact || contact.deletedAt) return;
    const [facts, stored] = await Promise.all([
      readFacts(
        deps,
        event.projectId,
        contact.id,
        segments.dynamic.filter((s) => s.needsActivity),
      ),
      membershipsOf(deps, event.projectId, contact.id),
    ]);
    const deltas = new Map<string, number>();
    await applyEvaluation(
      deps,
      event.projectId,
      contact,
      segments.dynamic,
      segments,
      stored,
      deltas,
      facts.activity,
    );
    await addMemberCounts(deps, event.projectId, deltas);
  },
});

export const listeners = [segmentActivityListener];
