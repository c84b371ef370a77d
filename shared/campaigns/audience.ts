/**
 * A campaign's audience, read a page at a time by the fan-out, in an order that never changes
 * under it, so that a position (a cursor) says exactly who has been handled:
 *
 * - ALL: the project's live contacts, oldest first (the contacts-by-creation index), up to the
 *   instant the send started: contacts created later are not in the audience.
 * - FILTERED: the same pages, each contact evaluated with the campaign's condition tree
 *   (`evaluateCondition`, the project's field types read once per message). A condition on
 *   events or email activity (`event.*`, `email.*`) reads each candidate's events from its
 *   partition (one query per contact, so such audiences cost a read per contact); one on
 *   segment membership (`segment.<id>`) reads the members of each segment it names once per
 *   message (at most `MAX_SEGMENT_FACT_MEMBERS`).
 * - SEGMENT: the segment's live members in the segment's own stable order
 *   (`segmentMemberPage`), each read from its contact item (deleted ones are left out), when the
 *   stored membership is exact: a static segment, or a dynamic one built in full whose condition
 *   reads only the contact (contact writes keep such memberships at once). A dynamic segment whose
 *   condition drifts without contact writes (events, email activity, relative time: the periodic
 *   job re-evaluates those every 15 minutes) or whose build has not finished is evaluated instead,
 *   as a FILTERED audience with the segment's condition, at the send's start: the campaign reaches
 *   exactly who matches then. The first page decides; its positions carry the choice
 *   (`EVALUATED`), so a condition edited mid-send never mixes the two orders.
 *
 * MARKETING and HEADLESS campaigns go to subscribed contacts only: an unsubscribed contact is not
 * a recipient at all (no email record, not in `totalRecipients`). TRANSACTIONAL ones go to all
 * (`subscriptionAllows`, eligibility.ts). The fan-out does not evaluate an unsubscribed contact's
 * condition; the audience count (`count.ts`) asks for it (`countUnsubscribed`), to say how many of
 * the audience the rule leaves out.
 */
import {
  type ActivitySummary,
  type Condition,
  type ContactFacts,
  evaluateCondition,
  needsFacts,
  referencedSegments,
  usesRelativeTime,
} from '../conditions';
import type { FieldType } from '../contacts/data';
import {
  type ContactRecord,
  listContactPage,
  listFieldTypes,
  readContactRecords,
} from '../contacts/repository';
import { listContactEventsPage } from '../events/repository';
import { getSegmentRecord, segmentMemberPage } from '../segments/members';
import type { StoreDeps } from '../store/store';
import { subscriptionAllows } from './eligibility';
import type { CampaignRecord } from './repository';

/** Members of one segment a FILTERED audience's condition may name (read into memory per message). */
export const MAX_SEGMENT_FACT_MEMBERS = 100_000;

/** What one message of a fan-out knows of its audience. */
export interface Audience {
  readonly projectId: string;
  readonly campaign: Pick<CampaignRecord, 'id' | 'type' | 'audienceType' | 'audienceCondition' | 'segmentId'>;
  /** Contacts created after this instant are not in an ALL or FILTERED audience. */
  readonly cutoff: string;
  readonly condition: Condition | null;
  /** How a SEGMENT audience is read from its start: its stored members, or its condition evaluated. */
  readonly segmentMode: 'members' | 'evaluate';
  readonly fieldTypes: ReadonlyMap<string, FieldType>;
  readonly needsActivity: boolean;
  readonly segments: ReadonlyMap<string, ReadonlySet<string>>;
}

/** One page of the audience: the recipients in it, and where the next page starts. */
export interface AudiencePage {
  readonly recipients: ContactRecord[];
  /**
   * Contacts of the page in the audience but left out as unsubscribed (MARKETING and HEADLESS
   * content): counted only when asked (`countUnsubscribed`), else 0.
   */
  readonly unsubscribed: number;
  /** Candidates read (recipients or not): the fan-out's unit of work. */
  readonly examined: number;
  readonly cursor: string;
  /** Nothing follows: the audience has been read to its end. */
  readonly done: boolean;
}

export async function prepareAudience(
  deps: StoreDeps,
  projectId: string,
  campaign: Audience['campaign'],
  cutoff: string,
): Promise<Audience> {
  let condition = campaign.audienceType === 'FILTERED' ? campaign.audienceCondition : null;
  let segmentMode: Audience['segmentMode'] = 'members';
  if (campaign.audienceType === 'SEGMENT' && campaign.segmentId) {
    const segment = await getSegmentRecord(deps, projectId, campaign.segmentId);
    if (segment?.type === 'DYNAMIC' && segment.condition) {
      // Kept in either mode: a send begun by evaluation goes on by evaluation (`EVALUATED`).
      condition = segment.condition;
      if (!segment.builtAt || drifts(segment.condition)) segmentMode = 'evaluate';
    }
  }
  const needs = condition ? needsFacts(condition) : { events: false, emails: false, segments: false };
  const fieldTypes = condition
    ? new Map((await listFieldTypes(deps, projectId)).map((t) => [t.path, t.type]))
    : new Map<string, FieldType>();
  const segments = new Map<string, Set<string>>();
  // Stored members need no segment facts (a read of every member of each segment named).
  const evaluates = campaign.audienceType === 'FILTERED' || segmentMode === 'evaluate';
  if (condition && needs.segments && evaluates) {
    for (const id of referencedSegments(condition)) segments.set(id, await allMembers(deps, projectId, id));
  }
  return {
    projectId,
    campaign,
    cutoff,
    condition,
    segmentMode,
    fieldTypes,
    needsActivity: needs.events || needs.emails,
    segments,
  };
}

/** Whether a condition's matches change without contact writes (see the module comment). */
function drifts(condition: Condition): boolean {
  const needs = needsFacts(condition);
  return needs.events || needs.emails || usesRelativeTime(condition);
}

/** Marks the positions of a SEGMENT audience read by evaluating its condition. */
const EVALUATED = 'E~';

async function allMembers(deps: StoreDeps, projectId: string, segmentId: string): Promise<Set<string>> {
  const members = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await segmentMemberPage(deps, projectId, segmentId, { cursor, limit: 1000 });
    for (const id of page.contactIds) members.add(id);
    if (members.size > MAX_SEGMENT_FACT_MEMBERS)
      throw new Error(
        `Segment ${segmentId} has more than ${MAX_SEGMENT_FACT_MEMBERS} members: too many for a campaign filter on it; use a SEGMENT audience`,
      );
    if (!page.hasMore) return members;
    cursor = page.cursor;
  }
}

/** Reads the page of candidates from `position` ('' at the start) and picks the recipients among them. */
export async function audiencePage(
  deps: StoreDeps,
  audience: Audience,
  position: string,
  limit: number,
  options: { readonly countUnsubscribed?: boolean } = {},
): Promise<AudiencePage> {
  const segment = audience.campaign.audienceType === 'SEGMENT';
  const evaluated =
    segment && (position === '' ? audience.segmentMode === 'evaluate' : position.startsWith(EVALUATED));
  const stored = evaluated ? position.slice(EVALUATED.length) : position;
  const cursor = stored === '' ? undefined : stored;
  let candidates: ContactRecord[];
  let next: string;
  let done: boolean;
  if (segment && !evaluated) {
    const page = await segmentMemberPage(deps, audience.projectId, audience.campaign.segmentId ?? '', {
      cursor,
      limit,
    });
    const records = await readContactRecords(deps, audience.projectId, page.contactIds, false);
    candidates = page.contactIds.flatMap((id) => {
      const record = records.get(id);
      return record && !record.deletedAt ? [record] : [];
    });
    next = page.cursor;
    done = !page.hasMore;
  } else {
    const page = await listContactPage(deps, audience.projectId, {
      order: 'createdAt',
      dir: 'asc',
      limit,
      cursor,
    });
    const late = page.records.findIndex((c) => c.createdAt > audience.cutoff);
    candidates = late < 0 ? page.records : page.records.slice(0, late);
    next = page.cursor;
    done = !page.hasMore || late >= 0;
  }
  const recipients: ContactRecord[] = [];
  // Stored members match by definition; an evaluated audience without a condition (a segment made
  // static mid-send) reaches nobody more.
  const condition = segment && !evaluated ? null : audience.condition;
  let unsubscribed = 0;
  if (!(evaluated && !condition)) {
    for (const contact of candidates) {
      if (subscriptionAllows(audience.campaign.type, contact)) {
        if (await inAudience(deps, audience, condition, contact)) recipients.push(contact);
      } else if (options.countUnsubscribed && (await inAudience(deps, audience, condition, contact)))
        unsubscribed++;
    }
  }
  const marked = evaluated ? `${EVALUATED}${next}` : next;
  return { recipients, unsubscribed, examined: candidates.length, cursor: done ? '' : marked, done };
}

/** The contact is in the audience (`condition`, when one applies), whatever its subscription. */
async function inAudience(
  deps: StoreDeps,
  audience: Audience,
  condition: Condition | null,
  contact: ContactRecord,
): Promise<boolean> {
  if (!condition) return true;
  const activity = audience.needsActivity
    ? await activityOf(deps, audience.projectId, contact.id)
    : undefined;
  const facts: Partial<ContactFacts> = {
    ...(activity
      ? {
          events: (name: string) => activity.get(name),
          emails: (kind: string) => activity.get(`email.${kind}`),
        }
      : {}),
    memberOf: (segmentId: string) => audience.segments.get(segmentId)?.has(contact.id) ?? false,
  };
  return evaluateCondition(condition, contact, {
    now: new Date(audience.cutoff),
    fieldTypes: audience.fieldTypes,
    ...facts,
  });
}

/** Summaries of the contact's events by name (`email.sent` and the like included). */
async function activityOf(
  deps: StoreDeps,
  projectId: string,
  contactId: string,
): Promise<Map<string, ActivitySummary>> {
  const out = new Map<string, { count: number; firstAt: string; lastAt: string }>();
  let cursor: string | undefined;
  for (;;) {
    const page = await listContactEventsPage(deps, projectId, contactId, { limit: 1000, cursor });
    for (const event of page.events) {
      const s = out.get(event.name);
      if (!s) out.set(event.name, { count: 1, firstAt: event.createdAt, lastAt: event.createdAt });
      else {
        s.count++;
        if (event.createdAt < s.firstAt) s.firstAt = event.createdAt;
        if (event.createdAt > s.lastAt) s.lastAt = event.createdAt;
      }
    }
    if (!page.hasMore) return out;
    cursor = page.cursor;
  }
}
